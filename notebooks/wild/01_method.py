# %% [markdown]
# # Claims in the wild: one claim through the five stages
#
# **Overview.** Chen, Kim, Sriram, Durrett and Choi (2023) check real political claims with evidence
# retrieved from the open web in five stages: (1) *decompose* the claim into yes/no questions, (2) *search*
# the web for each question, keeping only pages from before the claim and none from fact-checking sites,
# (3) *fine-grained retrieval* of the passages that answer the questions, (4) *claim-focused summaries* of
# the retrieved documents, and (5) a six-way *veracity* classifier that reads the claim and the summaries.
# This chapter follows one real ClaimDecomp test claim through every stage.
#
# **Which claim.** The first claim of the ClaimDecomp test file (`claim_index = 0`), not a hand-picked one.
#
# **What differs from the paper** (details in the experiments chapter): the search results are the cached
# Google results shipped with this copy of ClaimDecomp (title + snippet only, no page
# text), filtered here with the paper's site filter; summaries are extractive (MiniLM similarity) because no
# LLM endpoint is available offline (set `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `PROOFBOOK_LLM_MODEL` to use
# the paper's prompt); the classifier is MiniLM, not DeBERTa-large.
#
# **Prerequisites and time.** The models are trained on first use and cached (`.cache/proofbook`); the
# experiments chapter reuses them.  A clean run takes the training time shown below.

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
claim_index = 0

# %%
import time

import pandas as pd
from myst_nb import glue

from proofbook.models import ArtifactCache, set_seed
from proofbook.models.llm import endpoint_configured
from proofbook.results import Results
from proofbook.wild import experiments
from proofbook.wild.decomposition import AnnotatedQuestions

set_seed(seed)
settings = experiments.WildSettings.smoke(seed) if smoke else experiments.WildSettings.full(seed)
data = experiments.load_data(data_dir)
results = Results("wild/01_method", dict(data_dir=str(data.root), split=split, limit=limit, seed=seed, smoke=smoke,
                                         claim_index=claim_index), results_dir)
models = experiments.train_models(data, settings, ArtifactCache(), progress=not smoke)
claim = data.claimdecomp["test"][claim_index]
print(f"{claim.person} {claim.venue}\n{claim.claim}\ngold label: {claim.label}")
glue("claim", claim.claim, display=False)
glue("speaker", f"{claim.person} {claim.venue}", display=False)
glue("gold", claim.label, display=False)
glue("snippet_words", f"{experiments.snippet_words(data):.0f}", display=False)
pd.Series(models.seconds, name="seconds (near 0 when loaded from the cache)").round(1).to_frame()

# %% [markdown]
# The claim: {glue:text}`speaker` *{glue:text}`claim`* -- PolitiFact's verdict: **{glue:text}`gold`**.
#
# ## Stage 1: decomposition into yes/no questions
#
# Three sources of questions: the annotated subquestions of ClaimDecomp (two annotators), the cached LLM
# questions shipped with the search cache (these are the questions whose search results we replay), and the
# small seq2seq question generator trained here on the 800 training claims (`finetune_train.jsonl`; its
# tokenizer is uncased).  The paper's LLM backend (3-shot prompt, called until 10 questions survive the
# filters) needs an endpoint; without one it is skipped.

# %%
questions = {"annotated": AnnotatedQuestions().questions(claim),
             "cached LLM (searched)": data.cached_questions.get(claim.example_id, []),
             "trained generator": models.generator.questions(claim) if models.generator else []}
print("LLM endpoint configured:", endpoint_configured())
if endpoint_configured():
    questions["LLM endpoint (paper's prompt)"] = experiments.llm_questions(data, claim)
pd.DataFrame({name: pd.Series(qs, dtype=object) for name, qs in questions.items()}).fillna("")

# %% [markdown]
# ## Stage 2: search, with the time and site filters
#
# The cache holds the Google results of each cached question.  The paper drops fact-checking sites
# (PolitiFact itself among them: its page *is* the verdict) and pages dated after the claim date + 1 day;
# a snippet that opens with a date is filtered by it; undated pages are kept; repeated URLs are kept once.

# %%
pipeline = experiments.replay_pipeline(data, models)
trace = pipeline.run(claim)
search = experiments.search_frame(data, claim)
print("filter outcome:", search["filter"].value_counts().to_dict())
search.head(15)

# %% [markdown]
# ## Stage 3: fine-grained retrieval
#
# Every page is cut into windows of 30 tokens with a stride of 15; BM25 (over all windows of this claim's
# pages) keeps the top 5 windows per question; the union is cut to the best 10 windows, each is expanded by
# 150 tokens on each side, overlapping spans are merged, and the 5 documents with the best windows are kept.
# Here every page is a title and snippet of {glue:text}`snippet_words` words on average, so a page is one
# or two windows and the expansion reaches the whole snippet: on cached results the stage *selects* snippets
# rather than cutting pages.

# %%
print(f"{len(trace.search.pages)} pages after the filters -> {len(trace.retrieval.windows)} windows; "
      f"{len(trace.retrieval.kept)} kept; {len(trace.retrieval.merged)} merged spans; "
      f"top documents: {trace.retrieval.documents}")
experiments.windows_frame(trace)

# %%
experiments.spans_frame(trace)

# %% [markdown]
# ## Stage 4: claim-focused summaries
#
# Each kept document is summarised with respect to the claim: its sentences are ranked by MiniLM cosine
# similarity to the claim and its questions; the best two (in document order) form the summary, and a
# document whose best sentence is below the threshold becomes "The document is irrelevant to the claim."

# %%
summaries = experiments.summaries_frame(trace)
if endpoint_configured():  # the paper's zero-shot LLM prompt, through the same endpoint client
    summaries["LLM summary"] = experiments.llm_summaries(trace)
summaries

# %% [markdown]
# ## Stage 5: veracity
#
# The claim-only classifier (trained on LIAR) reads `"{person} {venue} {claim}"`; the evidence classifier
# (trained on claims with their fact-checkers' justifications) reads the same text, `[SEP]`, and the
# evidence: the gold justification (the oracle), the retrieved snippets, or their summaries.

# %%
probabilities = experiments.predict_conditions(models, claim, trace)
experiments.predictions_frame(probabilities).round(3)

# %% [markdown]
# ## How long one claim takes
#
# The whole pipeline with the cached search and the extractive summariser, models already loaded (median of
# repeated runs on this machine).  The goal is at most 1 s on two CPU cores.

# %%
runs = []
for _ in range(3 if smoke else 7):
    start = time.perf_counter()
    timed = pipeline.run(claim)
    runs.append({"total": time.perf_counter() - start, **timed.seconds})
timing = pd.DataFrame(runs).median()
results.add("claimdecomp", "test", "pipeline-cached-extractive", "seconds_per_claim", float(timing["total"]), 1)
glue("seconds_per_claim", f"{timing['total']:.2f}", display=False)
timing.round(4).to_frame("median seconds")

# %% [markdown]
# One claim takes {glue:text}`seconds_per_claim` s end to end here; the extractive summariser (MiniLM over the
# snippets' sentences) takes most of it.  With live web search and an LLM summariser, the network and the
# LLM calls would dominate instead.
#
# ## Summary
#
# The five stages ran on one real claim.  The experiments chapter runs them on every test claim and compares
# the evidence conditions with the claim-only classifier.
