# %% [markdown]
# # AdMIRaL: one claim through every step
#
# **Papers and data:** {cite:p}`aly2022admiral,decao2021genre,robertson2009bm25,wang2020minilm,jiang2020hover`.
#
# **Overview.** AdMIRaL (Aly & Vlachos 2022) retrieves the documents a multi-hop claim needs in
# *iterations*.  Iteration 1 combines BM25 with titles generated from the claim: the *GENRE step*, after
# GENRE (De Cao et al. 2021), where a seq2seq model (the *hop-0 model*) writes page titles token by token,
# allowed only the tokens that continue some corpus title (a *prefix tree* of every title).  A sentence
# reranker then picks the best sentences.  Each further iteration (a *hop*) feeds the claim and those sentences
# to a second seq2seq model (the *hop model*) that writes the *pointer* of the sentence it builds on and the
# *title* of a new document, constrained by the same prefix tree.  This chapter follows one real HoVer claim through every step.
#
# **Which claim.** Chosen by a rule, not by hand (`proofbook.admiral.retrieval.hop_showcase`): the HoVer evaluation
# claims are shuffled by `sample_seed`, and the chapter walks through the first one on which the mechanism
# matters -- {glue:text}`showcase_rule`.  Set `example_id` to a HoVer claim id to follow any other claim (its
# `uid` in the HoVer files; training claims too).  The models are the ones trained in the experiments chapter
# (loaded from the cache, or trained here with the same settings).
#
# **Prerequisites and time.** The BM25 index and the pooled HoVer corpus (introduction); about a minute with
# cached models.

# %% [markdown]
# :::{admonition} Terms used in this chapter
# :class: tip
# claim, gold pages
# : a sentence to verify, and the Wikipedia pages (named by their titles) that its annotators needed; a HoVer
#   claim needs 2 to 4 of them, one *hop* each.
#
# BM25
# : a bag-of-words score of a page for a query: each query word counts more the rarer it is in the corpus
#   (inverse document frequency) and the more often it occurs in the page, with diminishing returns (k1) and a
#   correction for the page's length (b).
#
# prefix tree
# : every corpus title as a sequence of tokens, titles sharing their first tokens sharing a branch; a decoder
#   constrained by it may only write a token that continues some title, so whatever it writes is a real title.
#
# GENRE step, hop-0 model
# : iteration 1's title generation: the hop-0 model reads the claim alone and writes titles over the prefix tree.
#
# hop model, pointer
# : later iterations' model: it reads the claim and the reranked sentences `E1`...`E4` and writes
#   `< Ei > [ Title ]`, the pointer to the sentence it builds on and the next page's title.
#
# copy head
# : a part of the book's title models (a pointer-generator): at each step the next token is either generated
#   from the vocabulary or copied from the input, in a learned mix; the *copied share* of a title is how much of
#   its probability came by copying.  GENRE learned to copy in pre-training; the small models trained here need
#   the head to do it.
#
# beam
# : the best partial outputs kept at each decoding step (the chapter's hops keep {glue:text}`hop_beam`); the
#   finished ones, best first,
#   are the model's candidate titles.
#
# reranker
# : a MiniLM cross-encoder that scores each (claim, sentence) pair; its top sentences are the hop's input.
#
# recall@k
# : for one claim, whether all its gold pages are among the first k retrieved; averaged over claims.
# :::

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
example_id: str | None = None
sample_seed = 0
n_examples = 10

# %%
import dataclasses

import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from proofbook.render.chapter import start
from proofbook.admiral.retrieval import retrieval_experiments
from proofbook.admiral.retrieval.metrics import recall_at_k
from proofbook.admiral.retrieval.hop_showcase import showcase_claim
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.render.retrieval import beams_frame, decoding_steps, ranking_frame, sentences_frame
from proofbook.render.figures import save_figure
from proofbook.render.mechanisms import loop_figure, prefix_tree_figure

# %%
chapter = start("admiral/01_method", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=retrieval_experiments.TrainingSettings, example_id=example_id,
                sample_seed=sample_seed, n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
hover, feverous = load_task("hover", data_path), load_task("feverous_s", data_path)
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    hover, feverous = smoke_task(hover, seed=seed), smoke_task(feverous, seed=seed)
components = retrieval_experiments.train_components([hover, feverous], settings)
config = retrieval_experiments.book_config(smoke)
retriever = retrieval_experiments.build_admiral(hover, components, config)
glue("hop_beam", config.beam, display=False)

chosen = showcase_claim(retriever, hover.evaluation, example_id, sample_seed, lookup=hover.evaluation + hover.train)
example, trace = chosen.example
print("claim:", example.claim)
print("gold documents:", example.gold_titles)
print("why this claim:", chosen.text)
glue("claim", example.claim, display=False)
glue("showcase_rule", chosen.rule, display=False)
glue("showcase_text", chosen.text, display=False)
glue("claim_id", str(example.id), display=False)

# %% [markdown]
# The claim ({glue:text}`claim_id`): *{glue:text}`claim`* -- {glue:text}`showcase_text`.
#
# The whole loop for this claim at a glance, drawn from its trace (gold pages in green, with a check mark);
# the sections below open each box.

# %%
save_figure(loop_figure(trace, example.gold_titles), figures_dir, "admiral", "method_loop")
plt.show()

# %% [markdown]
# *Figure: AdMIRaL's loop on the claim above: iteration 1 (the first titles of the GENRE step and of BM25),
# the reranked sentences that are the hop's input, the new titles the hop kept, and the final ranked list.*
#
# ## Iteration 1: BM25 and the GENRE step
#
# BM25 scores every page of the corpus against the claim (AdMIRaL's reference setting k1 = 0.9, b = 0.1);
# the hop-0 model writes titles from the claim alone, constrained to corpus titles.  GENRE's titles come first
# in the candidate list, then BM25's.

# %%
# the trace of the loop for this claim was made while choosing it (showcase_claim runs the same retriever)
ranking_frame(trace.bm25, example.gold_titles, top=n_examples)

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
# paper's tree holds every corpus title; the stand-in this walk-through follows, `admiral-mentions`, narrows it,
# for each input, to the *linked* titles:
# the corpus titles mentioned in the input sentences (see the experiments chapter for why).  Here there are
# {glue:text}`n_linked`:

# %%
linked = retriever.linked_titles(example.claim, hop.input_sentences)
glue("n_linked", len(linked), display=False)
pd.DataFrame({"linked title": linked, "gold": [t in example.gold_titles for t in linked]})

# %% [markdown]
# The same titles as the decoder sees them: a prefix tree of their tokens (MiniLM's word pieces; runs of tokens
# with a single continuation are merged into one box).  Each step may only continue a branch; the path to
# the hop's best title is drawn in green.  The full tree's first step alone allows
# {glue:text}`n_first_tokens` tokens.

# %%
tokenize = model.tokenizer.tokenize
first_tokens = {tuple(tokenize(title)[:1]) for title in hover.corpus.titles}
glue("n_first_tokens", len(first_tokens), display=False)
slice_titles = linked[:12] + ([hop.beams[0].title] if hop.beams and hop.beams[0].title not in linked[:12] else [])
save_figure(prefix_tree_figure(slice_titles, tokenize, highlight=hop.beams[0].title if hop.beams else None,
                               allowed_first=len(first_tokens)), figures_dir, "admiral", "method_prefix_tree")
plt.show()

# %% [markdown]
# *Figure: a slice of the hop's prefix tree -- up to 12 of this input's linked titles and the best beam's
# title; every other title of the narrowed tree hangs off the same root.*

# %% [markdown]
# The table shows, for the best beam, how many tokens the narrowed tree allowed at each step and a few of them
# (over the full tree the title steps allow many more).

# %%
best = hop.beams[0] if hop.beams else None
decoding_steps(model, len(hop.input_sentences), best, titles=linked) if best else "no beam: no linked title"

# %% [markdown]
# The beams (beam 25; titles already retrieved in iteration 1 removed), with their length-normalised
# log-probabilities and the share of each title's probability that came by copying from the input (`copied`):

# %%
copied = model.copy_shares([(example.claim, hop.input_sentences)], [hop.beams[:n_examples]])[0]
beams_frame(hop.beams, example.gold_titles, top=n_examples, copied=copied)

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
    results.add("hover", "dev", "admiral-mentions", f"recall@{k}", float(found[k]), 1)
    results.add("hover", "dev", "initial", f"recall@{k}", float(found_initial[k]), 1)
glue("found5", "all" if found[5] == 1 else f"{found[5]:.0%}", display=False)
glue("found5_initial", "all" if found_initial[5] == 1 else f"{found_initial[5]:.0%}", display=False)
pd.DataFrame({"initial": trace.initial_ranking()[:n_examples], "admiral-mentions": final[:n_examples]},
             index=range(1, n_examples + 1)).assign(gold=lambda f: f["admiral-mentions"].isin(example.gold_titles))

# %% [markdown]
# With the hop, the top 5 hold {glue:text}`found5` of the claim's gold documents; iteration 1 alone held
# {glue:text}`found5_initial`.
#
# ## The paper's search space: the full prefix tree
#
# The paper's hop decodes over the prefix tree of *every* corpus title ({glue:text}`n_titles` here), not the
# linked ones.  The same hop model, from the same iteration 1, over the full tree (`admiral`), and the model
# trained without the copy head (`admiral-nocopy`) beside it:

# %%
full_config = dataclasses.replace(config, hop_titles="corpus")
glue("n_titles", len(hover.corpus.titles), display=False)
frames = {}
for name, nocopy in (("admiral", False), ("admiral-nocopy", True)):
    full = retrieval_experiments.build_admiral(hover, components, full_config, nocopy=nocopy, index=retriever.index)
    [full_trace] = full.retrieve_many([example.claim], progress=False, initial=[trace])
    full_hop = full_trace.hops[0]
    shares = full.hop_models[1].copy_shares([(example.claim, full_hop.input_sentences)], [full_hop.beams[:n_examples]])
    frames[name] = beams_frame(full_hop.beams, example.gold_titles, top=n_examples, copied=shares[0])
    for k in (2, 5, 10):
        results.add("hover", "dev", name, f"recall@{k}", float(recall_at_k(full_trace.ranking(), example.gold_titles, k)), 1)
pd.concat(frames, names=["system", "rank"])

# %% [markdown]
# *Table: the hop's first beams over the full tree, with (`admiral`) and without (`admiral-nocopy`) the copy head;
# `copied` is empty for a model that cannot copy.*
#
# A model that can copy writes titles found in its input: names in the claim or in the sentences above.  One
# claim shows the mechanism, not the method's worth: the experiments chapter measures every system on every
# evaluation claim, and the error analysis looks at where they fail.

# %% [markdown]
# ## Exercises
#
# Rerun the chapter with the project's runner, and send its outputs elsewhere, so that the book's results,
# figures and executed copy stay as they are:
# `python -m proofbook run notebooks/admiral/01_method.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/01_method.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.  Where an exercise edits a line, edit a copy of the
# notebook and run the copy the same way.  None of these exercises changes the training settings, so the
# cached models are reused.

# %% [markdown]
# ### 1. BM25 and recall by hand (no computer needed)
#
# Three pages, lower-cased and split into words: "Sandpoint is a city in Idaho", "Alaska is a state" and
# "Juneau is the capital of Alaska"; the query is "Idaho".  With AdMIRaL's k1 = 0.9 and b = 0.1, compute the
# first page's BM25 score by hand (a calculator for the logarithms):
#
# score = idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avgdl)),  idf = ln(N − n + 0.5) − ln(n + 0.5),
#
# with N pages, n of them holding the word, tf its count in the page, |d| the page's length in words and
# avgdl the mean length.  Then say, without computing, what the other two pages score, and what the formula
# gives the idf of "Alaska", which two of the three pages hold.
#
# Last, from the ranked list of the loop figure, decide whether this claim's recall@2 and recall@5 are 1 or 0
# after the hop, and check against the table and the sentence just before these exercises.
#
# :::{dropdown} Hint
# Check the score in a cell:
# ```python
# from proofbook.index.bm25 import BM25, tokenize
# pages = [tokenize(t) for t in ["Sandpoint is a city in Idaho", "Alaska is a state", "Juneau is the capital of Alaska"]]
# BM25(pages, k1=0.9, b=0.1).get_scores(tokenize("Idaho"))
# ```
# The docstring of `proofbook.index.bm25` says what becomes of a word that more than half the pages hold.
# `recall_at_k` asks for *all* gold pages among the first k.
# :::

# %% [markdown]
# ### 2. A claim with fewer hops, and one with more
#
# List some HoVer evaluation claims with their hop counts:
# `python -c "from proofbook.admiral.retrieval.tasks import load_task; print([(c.id, c.num_hops) for c in load_task('hover').evaluation[:20]])"`.
# Rerun the chapter twice, with `-p example_id ID` for a 2-hop claim and then for a 4-hop claim.  Before each
# run, predict:
#
# - how many of the claim's gold pages BM25's top 10 will hold (the `gold` column of the BM25 table);
# - whether any beam of the hop will be a gold title (the `gold` column of the beams table);
# - whether the top 5 will hold all gold documents after iteration 1 and after the hop.
#
# For the last, look at the sentence that closes the chapter, and at the rows `recall@5` of `initial` and
# `admiral-mentions` in the results file, each over `n` = 1 claim.
#
# :::{dropdown} Hint
# `recall_at_k` in `proofbook.admiral.retrieval.metrics` is all or nothing for one claim.  Count how many gold
# pages a 4-hop claim has, and how many of the 5 places the documents of iteration 1 already take.
# :::

# %% [markdown]
# ### 3. Another sample, another showcase
#
# Without `example_id` the chapter takes the first claim of a seeded sample on which its showcase rule holds (a
# hop that adds a gold page).  Rerun with `-p sample_seed 1`, then `-p sample_seed 2`.  Before each run, guess
# how many claims the rule will scan before it finds one, and whether the claim shown will change.
#
# Look at the chapter's sentence on how the claim was chosen (it names the rule and how many claims were
# scanned) and at the final table.  Compare the scan counts across seeds with the gain of `admiral-mentions` over
# `initial` that the experiments chapter reports.
#
# :::{dropdown} Hint
# If the hop adds a gold page on a share p of the claims, how many claims do you expect to scan before the first
# hit?  Few seeds give a rough estimate of p; the experiments chapter measures it on every claim.
# :::

# %% [markdown]
# ### 4. The paper's full title tree
#
# In the setup cell change `retrieval_experiments.book_config(smoke)` to
# `retrieval_experiments.book_config(smoke, hop_titles="corpus")`: the paper's setting, `admiral` in the
# experiments chapter.  In the decoding-steps cell pass `titles=None` instead of `titles=linked`, so that the
# table shows the tree the hop really decoded over.  Predict, before rerunning:
#
# - how many tokens the title steps will allow compared with the narrowed tree (the `allowed tokens` column; an
#   order of magnitude is enough);
# - whether the beams' titles will still be related to the claim, whether any will be gold, and how the `copied`
#   column will change.
#
# Compare the beams table with the linked-title table, which does not depend on the config, and with the
# full-tree table at the end of the chapter (the same hop, from the same iteration 1).
#
# :::{dropdown} Hint
# Read "Title sets of the hops" in the docstring of `proofbook.admiral.retrieval.multihop` and "Title models that
# can copy" in that of `proofbook.admiral.retrieval.retrieval_experiments`: what do the title models trained here
# learn without a copy head, and where can a title come from with one?
# :::

# %% [markdown]
# ### 5. Fewer sentences in the hop's input
#
# Change the config to `retrieval_experiments.book_config(smoke, input_sentences=2)`
# (`AdmiralConfig.input_sentences`, 4 by default).  Predict:
#
# - what the printed encoder input will hold;
# - whether the number of linked titles (the glued `n_linked`) will fall;
# - whether a gold title will leave the linked-title table;
# - how the pointer steps of the decoding-steps table and the `pointers` column of the beams table will change.
#
# :::{dropdown} Hint
# `Admiral.linked_titles` reads only the sentences it is given, which are the first `input_sentences` of the
# selected sentences.  Check where the gold sentences rank in the reranked-sentences table.
# :::

# %% [markdown]
# ### 6. BM25's parameters
#
# The book's BM25 uses AdMIRaL's k1 = 0.9 and b = 0.1 (`ADMIRAL_K1`, `ADMIRAL_B` in `proofbook.index.bm25`).  In a
# copy, build the retriever of the setup cell over an index with `rank_bm25`'s usual defaults: change
# `retrieval_experiments.build_admiral(hover, components, config)` to
# `retrieval_experiments.build_admiral(hover, components, config, index=DocumentIndex(hover.corpus, k1=1.5, b=0.75))`
# (import `DocumentIndex` from `proofbook.index.bm25`).  Predict:
#
# - which gold pages will move up or down in the BM25 table;
# - whether the list of reranked documents will change;
# - whether the glued `found5_initial` will change.
#
# :::{dropdown} Hint
# The scoring formula is in the module docstring of `proofbook.index.bm25`: b sets how much a long page is
# penalised, k1 how fast repeated words stop counting.  Then remember that the reranker only reads the first
# `AdmiralConfig.rerank_documents` candidates.  A BM25 change matters downstream only when it moves a page
# across that line.
# :::
