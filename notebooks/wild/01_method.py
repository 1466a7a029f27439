# %% [markdown]
# # Claims in the wild: one claim through the five stages
#
# **Papers and data:** {cite:p}`chen2023wild,chen2022claimdecomp`.
#
# **Overview.** Chen, Kim, Sriram, Durrett and Choi (2023) check real political claims with evidence
# retrieved from the open web in five stages: (1) *decompose* the claim into yes/no questions, (2) *search*
# the web for each question, keeping only pages from before the claim and none from fact-checking sites,
# (3) *fine-grained retrieval* of the passages that answer the questions, (4) *claim-focused summaries* of
# the retrieved documents, and (5) a six-way *veracity* classifier that reads the claim and the summaries.
# This chapter follows one real ClaimDecomp test claim through every stage.
#
# **The six labels** are PolitiFact's Truth-O-Meter, as the dataset spells them, from worst to best:
# `pants-fire` (not accurate, and a ridiculous claim), `false` (not accurate), `barely-true` (PolitiFact's
# "mostly false": an element of truth, but it ignores critical facts), `half-true` (partly accurate, but leaves
# out important details), `mostly-true` (accurate, but needs clarification) and `true` (accurate, nothing
# significant missing).  The scale is ordered, so a prediction one step off is a smaller error than five.
#
# **Which claim.** Chosen by a rule, not by hand (`proofbook.wild.claim_showcase`): the ClaimDecomp test claims are
# shuffled by `sample_seed`, and the chapter follows the first for which {glue:text}`showcase_rule`.  Set
# `example_id` to a ClaimDecomp `example_id` to follow any other test claim.
#
# **What differs from the paper** (details in the experiments chapter): the search results are the cached
# Google results shipped with this copy of ClaimDecomp (title + snippet only, no page
# text), filtered here with the paper's site filter; summaries are extractive (MiniLM similarity) because no
# LLM endpoint is available offline (set `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `PROOFBOOK_LLM_MODEL` to use
# the paper's prompt); the classifier is MiniLM, not DeBERTa-large.
#
# **Prerequisites and time.** The models are trained on first use and cached (`.cache/proofbook`); the
# experiments chapter reuses them.  A clean run takes the training time shown below.

# %% [markdown]
# :::{admonition} Terms used in this chapter
# :class: tip
# claim, speaker, venue
# : a real political statement checked by PolitiFact, who said it and where (ClaimDecomp's fields).
#
# label
# : PolitiFact's six-step verdict, from `pants-fire` to `true` (defined in the overview above).
#
# decomposition
# : yes/no questions whose answers together decide the claim ("Did taxes double in 2019?").
#
# date filter, site filter
# : the search keeps only pages from before the claim was made, and none from fact-checking sites, whose pages
#   state the verdict.
#
# window, span
# : {glue:text}`k1` consecutive words of a page; the best windows grown by {glue:text}`k2` words on each side and
#   merged where they overlap.
#
# fine-grained retrieval
# : BM25 over the windows with each question as the query; the documents holding the best windows are kept.
#
# claim-focused summary
# : a few sentences of one kept document chosen for the claim, or a note that the document is irrelevant.
#
# condition
# : what the classifier reads besides the claim: nothing (`claim-only`), the fact-checker's justification (an
#   oracle), the retrieved snippets, or their summaries.
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
import time

import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from proofbook.core.cache import ArtifactCache
from proofbook.data.politifact_text import LABELS
from proofbook.models.llm import endpoint_configured
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure
from proofbook.render.mechanisms import pipeline_figure
from proofbook.wild import fine_grained, wild_experiments
from proofbook.wild.datasets import load_data, snippet_words
from proofbook.wild.pipeline import replay_pipeline
from proofbook.wild.summaries import IRRELEVANT
from proofbook.wild.tables import llm_questions, llm_summaries, predictions_frame, search_frame, spans_frame, summaries_frame, windows_frame
from proofbook.wild.decomposition import AnnotatedQuestions
from proofbook.wild.claim_showcase import showcase_claim

# %%
data = load_data(data_dir)
chapter = start("wild/01_method", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=wild_experiments.WildSettings, example_id=example_id,
                sample_seed=sample_seed, n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
models = wild_experiments.train_models(data, settings, ArtifactCache(), progress=not smoke)
pipeline = replay_pipeline(data, models)
chosen = showcase_claim(pipeline, data.claimdecomp["test"], example_id, sample_seed)
claim, trace = chosen.example
glue("showcase_rule", chosen.rule, display=False)
glue("showcase_text", chosen.text, display=False)
glue("claim_id", str(claim.example_id), display=False)
print(f"{claim.person} {claim.venue}\n{claim.claim}\ngold label: {claim.label}\nwhy this claim: {chosen.text}")
glue("claim", claim.claim, display=False)
glue("speaker", f"{claim.person} {claim.venue}", display=False)
glue("gold", claim.label, display=False)
glue("snippet_words", f"{snippet_words(data):.0f}", display=False)
pd.Series(models.seconds, name="seconds (near 0 when loaded from the cache)").round(1).to_frame()

# %% [markdown]
# The claim ({glue:text}`claim_id`; {glue:text}`showcase_text`): {glue:text}`speaker` *{glue:text}`claim`* --
# PolitiFact's verdict: **{glue:text}`gold`**.  The whole pipeline for this claim at a glance, drawn from its
# trace; the sections below open each stage.

# %%
save_figure(pipeline_figure(trace, LABELS, claim.label, IRRELEVANT), figures_dir, "wild", "method_pipeline")
plt.show()

# %% [markdown]
# *Figure: the five stages on the claim above: the questions, what the search kept and what each filter
# dropped, the windows, spans and documents of fine-grained retrieval, the relevant summaries, and the label
# the classifier gives the claim with its web summaries (green with a check mark when it is PolitiFact's).*
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
    questions["LLM endpoint (paper's prompt)"] = llm_questions(data, claim)
pd.DataFrame({name: pd.Series(qs, dtype=object) for name, qs in questions.items()}).fillna("")

# %% [markdown]
# ## Stage 2: search, with the time and site filters
#
# The cache holds the Google results of each cached question.  The paper drops fact-checking sites
# (PolitiFact itself among them: its page *is* the verdict) and pages dated after the claim date + 1 day;
# a snippet that opens with a date is filtered by it; undated pages are kept; repeated URLs are kept once.

# %%
search = search_frame(data, claim)
print("filter outcome:", search["filter"].value_counts().to_dict())
search.head(n_examples)

# %% [markdown]
# ## Stage 3: fine-grained retrieval
#
# Every page is cut into windows of {glue:text}`k1` tokens with a stride of {glue:text}`stride`; BM25 (over all
# windows of this claim's pages) keeps the top {glue:text}`per_question` windows per question; the union is cut to
# the best {glue:text}`top_windows` windows, each is expanded by {glue:text}`k2` tokens on each side, overlapping
# spans are merged, and the {glue:text}`top_documents` documents with the best windows are kept (the paper's
# sizes, `proofbook.wild.fine_grained`).
# Here every page is a title and snippet of {glue:text}`snippet_words` words on average, so a page is one
# or two windows and the expansion reaches the whole snippet: on cached results the stage *selects* snippets
# rather than cutting pages.

# %%
for name, size in fine_grained.SIZES.items():
    glue(name, size, display=False)
print(f"{len(trace.search.pages)} pages after the filters -> {len(trace.retrieval.windows)} windows; "
      f"{len(trace.retrieval.kept)} kept; {len(trace.retrieval.merged)} merged spans; "
      f"top documents: {trace.retrieval.documents}")
windows_frame(trace)

# %%
spans_frame(trace)

# %% [markdown]
# ## Stage 4: claim-focused summaries
#
# Each kept document is summarised with respect to the claim: its sentences are ranked by MiniLM cosine
# similarity to the claim and its questions; the best two (in document order) form the summary, and a
# document whose best sentence is below the threshold becomes "The document is irrelevant to the claim."

# %%
summaries = summaries_frame(trace)
if endpoint_configured():  # the paper's zero-shot LLM prompt, through the same endpoint client
    summaries["LLM summary"] = llm_summaries(trace)
summaries

# %% [markdown]
# ## Stage 5: veracity
#
# The claim-only classifier (trained on LIAR) reads `"{person} {venue} {claim}"`; the evidence classifier
# (trained on claims with their fact-checkers' justifications) reads the same text, `[SEP]`, and the
# evidence: the gold justification (the oracle), the retrieved snippets, or their summaries.

# %%
probabilities = wild_experiments.predict_conditions(models, claim, trace)
predictions_frame(probabilities).round(3)

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

# %% [markdown]
# ## Exercises
#
# ### 1. The filters and the label scale by hand (no computer needed)
#
# In the search table of stage 2, cover the `filter` column.  For each of the first ten rows, decide from
# its URL, its date and the claim's date whether the paper's filters keep it or which one drops it: a
# fact-checking site, a page dated after the claim date plus one day, or a URL already kept.  Uncover and
# compare.
#
# Then put the claim's gold label and the `web-summaries` prediction on the six-step scale (`pants-fire` = 0
# ... `true` = 5): how many steps apart are they?  That is this claim's contribution to the experiments
# chapter's MAE.
#
# :::{dropdown} Hint
# `FACT_CHECK_SITES` and `apply_filters` in `proofbook.wild.search` are the rules, checked in that order; a
# page without a date is kept.  `LABELS` in `proofbook.data.politifact_text` is the scale, and
# `proofbook.wild.veracity_metrics.mae([gold], [predicted])` takes label indices.
# :::

# %% [markdown]
# ### 2. Another claim
#
# Follow a different ClaimDecomp test claim through the five stages:
# `python -m proofbook run notebooks/wild/01_method.py -p sample_seed 7 -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/wild_01.ipynb`
# (another showcase claim).  Or choose it by id with `-p example_id ID` (an `example_id` of
# `claimdecomp/test.jsonl` in the data directory).  `python -m proofbook explain wild --claim-id ID` prints the
# same stages for one claim with the cached models, without rerunning the chapter.
#
# Before running, read only the claim, its speaker and its gold label, and write down:
#
# - (a) whether any of its cached search results will be dropped as `fact-check site`;
# - (b) whether the `web-summaries` prediction will be closer to the gold label than the `claim-only` one.
#
# Check (a) in the printed "filter outcome" and the `filter` column of the search table, and (b) in the
# `prediction` column of the Stage 5 table.
#
# :::{dropdown} Hint
# The cache holds results for questions about the claim.  But a claim that many fact-checkers covered draws their
# pages for almost any question about it.  Read `is_fact_check_url` in `proofbook.wild.search`: it drops more
# than the sites listed in `FACT_CHECK_SITES`.
# :::

# %% [markdown]
# ### 3. The irrelevance threshold
#
# The extractive summariser writes "The document is irrelevant to the claim." when no sentence of a document
# reaches a MiniLM cosine of `threshold` (`THRESHOLD` in `proofbook.wild.summaries`) with the claim or one of its
# questions.
#
# Copy the notebook (`cp notebooks/wild/01_method.py /tmp/mine/wild_01.py`).  In the copy change
# `pipeline = replay_pipeline(data, models)` to
# `pipeline = replay_pipeline(data, models, summariser=ExtractiveSummariser(threshold=0.6))`
# (import `ExtractiveSummariser` from `proofbook.wild.summaries`).  Run it with
# `python -m proofbook run /tmp/mine/wild_01.py -p results_dir /tmp/mine -p figures_dir /tmp/mine`, then again
# with `threshold=0.2`.
#
# Before each run, predict how many of the kept documents will be summarised as irrelevant.  Predict also what
# evidence text the `web-summaries` condition receives if all of them are.  Look at the `summary` column of the
# Stage 4 table and the `web-summaries` row of the Stage 5 table.
#
# :::{dropdown} Hint
# `join_summaries` in `proofbook.wild.pipeline` decides what the classifier reads from the summaries.
# The experiments chapter takes the same number from `WildSettings.summary_threshold`.  This chapter's pipeline
# uses the summariser's default unless you pass one.
# :::

# %% [markdown]
# ### 4. Windows shorter than a snippet
#
# Fine-grained retrieval runs with the paper's sizes (`K1_TOKENS`, `STRIDE`, `TOP_WINDOWS` and `K2_TOKENS` in
# `proofbook.wild.fine_grained`).  So a cached snippet is one or two windows, and the expansion reaches all of
# it.  Add the cell below right after the cell that starts `for name, size in fine_grained.SIZES.items():` (the
# Stage 3 print).  It reruns the stage on the same pages and questions with short windows and no expansion:
#
# ```python
# from proofbook.wild.fine_grained import fine_grained_retrieval
# searched = list(dict.fromkeys(p.question for p in trace.search.pages if p.question))
# small = fine_grained_retrieval([p.document for p in trace.search.pages], searched, k1=10, stride=5, k2=0)
# print(len(small.windows), len(small.kept), len(small.merged), small.documents, trace.retrieval.documents)
# [small.document_evidence(d) for d in small.documents]
# ```
#
# Before running it, predict:
#
# - roughly how many windows a page will now have;
# - whether the top documents will be the same as the chapter's;
# - whether a kept document's evidence will be shorter than its snippet.
#
# Compare with the chapter's line "pages after the filters -> windows; kept; merged spans; top documents".
#
# :::{dropdown} Hint
# Work out the window count from `make_windows` and the mean snippet length glued at Stage 3.  For the ranking:
# BM25 normalises by window length, and the kept windows can now come several from one page.
# :::

# %% [markdown]
# ### 5. Constrained question generation
#
# The trained generator decodes freely with beam search.  `GeneratorSettings.copy_constrained` decodes with
# `CopyConstraint` instead: only the claim's own tokens and a few of `QUESTION_WORDS`, each token at most once.
# Setting it in `WildSettings.generator` would retrain the generator, because the setting is part of its cache
# key.  Decoding the trained model with the constraint does not.  Add the cell below right after the cell that
# starts `questions = {"annotated": AnnotatedQuestions().questions(claim),` (Stage 1):
#
# ```python
# from dataclasses import replace
# from proofbook.index.dense import SentenceEmbedder
# from proofbook.wild.decomposition import TrainedQuestionGenerator, question_recall
# constrained = TrainedQuestionGenerator(models.generator.model,
#                                        replace(models.generator.settings, copy_constrained=True))
# free, copied = models.generator.questions(claim), constrained.questions(claim)
# embedder = SentenceEmbedder("minilm", max_length=64)
# annotated = [AnnotatedQuestions().questions(claim)]
# print(copied, question_recall(annotated, [free], embedder), question_recall(annotated, [copied], embedder))
# ```
#
# Predict before running:
#
# - will the constrained questions read as yes/no questions?
# - can they contain a word that is neither in the claim nor in `QUESTION_WORDS`?
# - which list recovers more of the annotated questions (`question_recall`, the experiments chapter's metric)?
#
# :::{dropdown} Hint
# `CopyConstraint.allowed` limits which tokens may come next, not the order the model puts them in.  A question
# that reuses most of the claim's words is close to the claim in MiniLM space.  The experiments chapter's
# `claim-as-question` row shows how far that alone goes.
# :::

# %% [markdown]
# ### 6. What the oracle reader sees
#
# `strip_verdict` (in `proofbook.wild.veracity`) removes the sentences of a justification that state or define a
# rating.  The evidence classifier reads at most `WildSettings.evidence.max_length` tokens of claim and evidence
# together (a `VeracitySettings.max_length`).  Add the cell below right after the cell that starts
# `probabilities = wild_experiments.predict_conditions(` (Stage 5).  It scores three evidence texts for this claim:
#
# ```python
# from proofbook.wild.veracity import VERDICT_SENTENCE, claimdecomp_examples, strip_verdict
# from proofbook.core.corpus import split_sentences
# raw = " ".join(" ".join(p.split()) for p in claim.justification)
# texts = {"raw": raw, "verdict removed": strip_verdict(raw),
#          "verdict sentences only": " ".join(s for s in split_sentences(raw) if VERDICT_SENTENCE.search(s))}
# predictions_frame({name: models.evidence.predict_proba(
#     claimdecomp_examples([claim], {claim.example_id: text}), progress=False)[0]
#     for name, text in texts.items()}).round(3)
# ```
#
# Predict before running: will "raw" and "verdict removed" give different probabilities?  Will "verdict
# sentences only" give its highest probability to the rating those sentences name?  Then compare the three rows
# with the `justification` row of the Stage 5 table.
#
# :::{dropdown} Hint
# Find where the verdict sentences sit in the justification.  Count the tokens of claim and justification with
# `models.evidence.encoder.tokenizer`; when a pair is too long, the longer text is cut from its end.  Recall also
# what the evidence classifier saw in training.
# :::
#
# ## Summary
#
# The five stages ran on one real claim.  The experiments chapter runs them on every test claim and compares
# the evidence conditions with the claim-only classifier.
