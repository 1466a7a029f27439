# %% [markdown]
# # AdMIRaL: one claim through every step
#
# **Overview.** AdMIRaL (Aly & Vlachos 2022) retrieves the documents a multi-hop claim needs in
# *iterations*.  Iteration 1 combines BM25 with titles generated from the claim, and a sentence reranker
# picks the best sentences.  Each further iteration feeds the claim and those sentences to a seq2seq model
# that writes the *pointer* of the sentence it builds on and the *title* of a new document, constrained by a
# prefix tree of every title in the corpus.  This chapter follows one real HoVer claim through every step.
#
# **Which claim.** The first 3-hop claim of the HoVer evaluation part, in file order (the first claim if
# there is none) -- not a hand-picked success.  The models are the ones trained in the experiments chapter (loaded from the cache, or trained here
# with the same settings).
#
# **Prerequisites and time.** The BM25 index and the pooled HoVer corpus (introduction); about a minute with
# cached models.

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import pandas as pd
from myst_nb import glue

from proofbook.data.base import resolve_data_dir
from proofbook.models import set_seed
from proofbook.results import Results
from proofbook.retrieval import experiments
from proofbook.retrieval.metrics import recall_at_k
from proofbook.retrieval.tasks import load_task, smoke_task
from proofbook.viz.retrieval import beams_frame, decoding_steps, ranking_frame, sentences_frame

set_seed(seed)
data_path = resolve_data_dir(data_dir)
settings = experiments.TrainingSettings.smoke(seed) if smoke else experiments.TrainingSettings(seed=seed)
results = Results("admiral/01_method", dict(data_dir=str(data_path), split=split, limit=limit, seed=seed, smoke=smoke),
                  results_dir)
hover, feverous = load_task("hover", data_path), load_task("feverous_s", data_path)
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    hover, feverous = smoke_task(hover, seed=seed), smoke_task(feverous, seed=seed)
components = experiments.train_components([hover, feverous], settings)
retriever = experiments.build_admiral(hover, components, experiments.book_config(smoke))

example = next((c for c in hover.evaluation if c.num_hops == 3), hover.evaluation[0])
print("claim:", example.claim)
print("gold documents:", example.gold_titles)
glue("claim", example.claim, display=False)

# %% [markdown]
# The claim: *{glue:text}`claim`*
#
# ## Iteration 1: BM25 and the GENRE step
#
# BM25 scores every page of the corpus against the claim (AdMIRaL's reference setting k1 = 0.9, b = 0.1);
# the hop-0 model writes titles from the claim alone, constrained to corpus titles.  GENRE's titles come first
# in the candidate list, then BM25's.

# %%
trace = retriever.retrieve(example.claim)
ranking_frame(trace.bm25, example.gold_titles)

# %%
beams_frame(trace.genre, example.gold_titles)

# %% [markdown]
# ## Sentence reranking
#
# The sentences of the top 10 candidates are scored by the MiniLM cross-encoder (pair: claim, "Title .
# sentence"); documents are reordered by their best sentence and the top 5 sentences are kept.

# %%
print("reranked documents:", trace.reranked_documents)
sentences_frame(trace.initial_selected, example.gold_sentences)

# %% [markdown]
# ## Iteration 2: the autoregressive hop
#
# The encoder input, exactly as the model sees it (MiniLM's `[SEP]` stands where the paper writes `</s>`):

# %%
hop = trace.hops[0]
model = retriever.hop_models[1]
encoder_input = model.format_input(example.claim, hop.input_sentences)
print(encoder_input)

# %% [markdown]
# The decoder writes a pointer `< E i >` to one input sentence, then `[ Title ]`.  At every step the prefix tree
# allows only tokens that continue a valid pointer (only the input's pointers exist) or a valid title.  The
# paper's tree holds every corpus title; the book's `admiral` narrows it, for each input, to the *linked* titles:
# the corpus titles mentioned in the input sentences (see the experiments chapter for why).  Here there are
# {glue:text}`n_linked`:

# %%
linked = retriever.linked_titles(example.claim, hop.input_sentences)
glue("n_linked", len(linked), display=False)
pd.DataFrame({"linked title": linked, "gold": [t in example.gold_titles for t in linked]})

# %% [markdown]
# The table shows, for the best beam, how many tokens the narrowed tree allowed at each step and a few of them
# (over the full tree the title steps allow many more).

# %%
best = hop.beams[0] if hop.beams else None
decoding_steps(model, len(hop.input_sentences), best, titles=linked) if best else "no beam: no linked title"

# %% [markdown]
# The beams (beam 25; titles already retrieved in iteration 1 removed), with their length-normalised
# log-probabilities:

# %%
beams_frame(hop.beams, example.gold_titles, top=12)

# %% [markdown]
# The first 5 new titles are kept; their sentences are reranked with the claim plus the sentence the beam
# pointed to.

# %%
print("new documents:", hop.new_documents)
sentences_frame(hop.new_sentences[:5], example.gold_sentences)

# %%
final = trace.ranking()
found = {k: recall_at_k(final, example.gold_titles, k) for k in (2, 5, 10)}
found_initial = {k: recall_at_k(trace.initial_ranking(), example.gold_titles, k) for k in (2, 5, 10)}
for k in (2, 5, 10):
    results.add("hover", "dev", "admiral", f"recall@{k}", float(found[k]), 1)
    results.add("hover", "dev", "initial", f"recall@{k}", float(found_initial[k]), 1)
glue("found5", "all" if found[5] else "not all", display=False)
glue("found5_initial", "all" if found_initial[5] else "not all", display=False)
pd.DataFrame({"initial": trace.initial_ranking()[:10], "admiral": final[:10]},
             index=range(1, 11)).assign(gold=lambda f: f.admiral.isin(example.gold_titles))

# %% [markdown]
# With the hop, the top 5 hold {glue:text}`found5` of the claim's gold documents; iteration 1 alone held
# {glue:text}`found5_initial`.  One claim shows the mechanism, not the method's worth: the experiments chapter
# measures it on every evaluation claim, and the error analysis looks at where it fails.
