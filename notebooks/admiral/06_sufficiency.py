# %% [markdown]
# # AdMIRaL: when is the evidence sufficient?
#
# **Papers and data:** {cite:p}`aly2022admiral,krishna2022proofver,schuster2019symmetric,efron1993bootstrap`.
#
# **Overview.** AdMIRaL runs retrieval iterations until a natural-logic proof says the selected sentences
# suffice (Aly & Vlachos 2022, §3.2).  The paper's Table 6 compares this stopping rule with simpler ones and
# reports that it beats always stopping, never stopping, a trained classifier, a lexical-resource proof and a
# fixed number of iterations, with an oracle still far ahead.  This chapter runs the same comparison on our
# data and checks, on FEVER-Symmetric, whether the automaton's verdicts mean something.
#
# | system | when it stops |
# |---|---|
# | `suff-natlog` | the reference rule: beam-search proofs; keep those above a length-normalised log-probability threshold (the reference code: -0.9; here calibrated, see below); sufficient iff at least one is kept and all kept proofs end in SUPPORTS or REFUTES |
# | `suff-lexical` | one proof from the same chunking and alignment with WordNet operators; sufficient iff its verdict is not NOT ENOUGH INFO |
# | `suff-classifier` | a MiniLM cross-encoder on (claim, selected sentences) -> sufficient / insufficient (the paper: a BART classifier); its probability threshold is chosen on the same calibration selections as `suff-natlog`'s |
# | `suff-always` | after iteration 1 |
# | `suff-never` | at the limit (3 iterations) |
# | `fixed-2` | after iteration 2 |
# | `oracle` | as soon as the selected sentences hold a full gold evidence set |
#
# **Metrics**: `suff_acc` and `suff_f1` compare each decision the system made (iterations 1 and 2,
# as far as it got) with the truth "the 5 selected sentences contain a full gold evidence set" (HoVer: every gold
# sentence; FEVEROUS-S, whose pages hold only gold sentences: every gold page); `recall@5` is the document recall
# of the list the system ends with; `avg_hops` the mean number of iterations run.
#
# **How it is run.** AdMIRaL is run once per claim to the limit without stopping; every system is then replayed
# on those traces, deciding at iteration 1, then 2, and stopping at its first "sufficient".  The loop is
# deterministic given its state, so this is what the loop with that `sufficiency` hook would do; the chapter
# checks it on a few claims with the hook plugged into the loop itself.  The first two iterations are those of the
# experiments chapter's run on the same claims (read from the cache when it is there), extended by the third.
#
# **What differs from the paper:** closed corpora and models trained on this machine (see the experiments
# chapter); proof beam {glue:text}`proof_beam` instead of 25 (CPU time); proofs of a small seq2seq model with a
# copy pointer, trained on proofs we built, not ProoFVer's; and the rule's threshold is chosen on training claims
# (below), because -0.9 is calibrated to ProoFVer's BART-large and our small model's log-probabilities need not
# live on the same scale.

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import time

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython.display import HTML, display
from myst_nb import glue

from proofbook import claims as paper_claims
from proofbook import intervals
from proofbook.data.base import resolve_data_dir
from proofbook.data.fever_symmetric import read_fever_symmetric
from proofbook.models import set_seed
from proofbook.prover import natlog, sufficiency
from proofbook.results import Results
from proofbook.retrieval import experiments
from proofbook.retrieval.tasks import load_task, smoke_task
from proofbook.viz import save_figure, use_style

use_style()
set_seed(seed)
FULL_LIMIT = 100          # evaluation claims per dataset at full size (fits the chapter's time budget)
FULL_VERDICT_LIMIT = 200  # FEVER-Symmetric pairs per split at full size
n_claims = limit or (6 if smoke else FULL_LIMIT)
experiments_claims = experiments.SMOKE_LIMIT if smoke else experiments.FULL_LIMIT  # the experiments chapter's run
n_pairs = limit or (6 if smoke else FULL_VERDICT_LIMIT)
splits = [split] if split else ["dev"]
if splits != ["dev"]:
    raise ValueError(f"the retrieval datasets have one labelled split here, 'dev' (got {split!r})")
data_path = resolve_data_dir(data_dir)
settings = sufficiency.SufficiencySettings.smoke(seed) if smoke else sufficiency.SufficiencySettings(seed=seed)
retrieval_settings = experiments.TrainingSettings.smoke(seed) if smoke else experiments.TrainingSettings(seed=seed)
beam = experiments.book_config(smoke).beam
results = Results("admiral/06_sufficiency", dict(data_dir=str(data_path), split=split, limit=n_claims, seed=seed,
                                                  smoke=smoke, iterations=settings.iterations, proof_beam=settings.beam,
                                                  calibration_claims=settings.calibration_claims), results_dir)
glue("proof_beam", settings.beam, display=False)
print(f"data: {data_path}; {n_claims} claims per dataset; limit {settings.iterations} iterations")

# %% [markdown]
# ## Training
#
# The retrieval components are those of the experiments chapter (same settings, read from the cache); the prover's
# pieces are those of the natural-logic chapter; the sufficiency classifier is trained here on the same kind of
# selections the proof generator learns from (the gold sentences plus distractors: sufficient; one gold sentence
# replaced by a distractor: insufficient), all from training claims only.

# %%
tasks = {name: load_task(name, data_path) for name in ("hover", "feverous_s", "feverous_s+distractors")}
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    tasks = {name: smoke_task(task, seed=seed) for name, task in tasks.items()}
training = [tasks["hover"], tasks["feverous_s"]]
start = time.perf_counter()
components = experiments.train_components(training, retrieval_settings)
prover = sufficiency.train_prover(training, settings, data_path, progress=not smoke)
seconds = {**components.train_seconds, **prover.seconds}
pd.Series(seconds, name="seconds (0 if loaded from the cache)").round(1).to_frame()

# %% [markdown]
# **The threshold.**  The reference rule keeps proofs above -0.9.  We keep the rule and choose the threshold on
# selections of training claims that the generator did not train on (their sufficiency is known by
# construction): the value with the best decision accuracy, ties going to the one nearest -0.9.

# %%
calibration = pd.DataFrame(prover.calibration)
glue("threshold", f"{prover.threshold:.3f}", display=False)
if len(calibration):
    def row_at(threshold):
        return calibration.iloc[(calibration.threshold - threshold).abs().argmin()]

    reference_row, chosen = row_at(sufficiency.REFERENCE_THRESHOLD), row_at(prover.threshold)
    glue("reference_accuracy", f"{reference_row.accuracy:.3f}", display=False)
    glue("calibrated_accuracy", f"{calibration.accuracy.max():.3f}", display=False)
    glue("said_complete", f"{chosen.said_sufficient_complete:.2f}", display=False)
    glue("said_incomplete", f"{chosen.said_sufficient_incomplete:.2f}", display=False)
    gap = (calibration.said_sufficient_complete - calibration.said_sufficient_incomplete).abs()
    glue("largest_gap", f"{gap.max():.2f}", display=False)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(calibration.threshold, calibration.accuracy, label="decision accuracy")
    ax.plot(calibration.threshold, calibration.said_sufficient_complete, linestyle="--",
            label="called sufficient: complete selections")
    ax.plot(calibration.threshold, calibration.said_sufficient_incomplete, linestyle=":",
            label="called sufficient: a gold sentence missing")
    ax.axvline(sufficiency.REFERENCE_THRESHOLD, color="grey", linewidth=0.8)
    ax.axvline(prover.threshold, color="black", linewidth=0.8)
    ax.set_xlabel("length-normalised log-probability threshold")
    ax.legend(fontsize=8)
    save_figure(fig, figures_dir, "admiral", "sufficiency_threshold")
    plt.show()
if prover.classifier_calibration:
    glue("classifier_threshold", f"{prover.classifier_calibration['threshold']:.3f}", display=False)
    glue("classifier_accuracy", f"{prover.classifier_calibration['accuracy']:.3f}", display=False)
    glue("classifier_reference_accuracy", f"{prover.classifier_calibration['reference_accuracy']:.3f}", display=False)

# %% [markdown]
# *Figure: the rule on the calibration selections as a function of the threshold (grey: the reference's -0.9;
# black: the chosen {glue:text}`threshold`).*  At -0.9 the rule decides {glue:text}`reference_accuracy` of them
# correctly; at the chosen threshold {glue:text}`calibrated_accuracy`.
#
# Accuracy alone hides whether the rule sees anything: half of the selections are complete, so a rule that
# ignored the evidence would score about one half at every threshold.  The other two curves say more.  At the
# chosen threshold the rule calls {glue:text}`said_complete` of the complete selections sufficient and
# {glue:text}`said_incomplete` of those missing a gold sentence; over all thresholds the two shares never differ
# by more than {glue:text}`largest_gap`.  Where the curves lie on each other, the threshold only sets how often the
# rule says "sufficient", not when: its stops can help or hurt recall only by chance.  This is the measurement
# to read the table below with.
#
# The classifier baseline gets the same treatment: its probability threshold, chosen on the same selections, is
# {glue:text}`classifier_threshold`, where it decides {glue:text}`classifier_accuracy` of them correctly
# ({glue:text}`classifier_reference_accuracy` at 0.5).  Unlike the proof generator it starts from a pretrained
# encoder and reads the claim and the selected sentences together.  Both thresholds are chosen on selections
# built from gold sentences plus a distractor; the loop's own selections (five retrieved sentences) are another
# distribution, and the table below shows how each rule behaves on them.

# %% [markdown]
# ## Table 6 on our data

# %%
deciders = prover.deciders(settings)
runs, traces_by_dataset, claims_by_dataset = {}, {}, {}
for name in ("hover", "feverous_s+distractors"):
    task = tasks[name]
    claims = task.evaluation[:n_claims]
    traces = sufficiency.cached_traces(task, components, claims, retrieval_settings, settings.iterations, beam,
                                       progress=not smoke, earlier_claims=task.evaluation[:experiments_claims])
    runs[name] = sufficiency.run_systems(task, claims, traces, deciders, settings.iterations, progress=not smoke)
    traces_by_dataset[name], claims_by_dataset[name] = traces, claims
    for system, run in runs[name].items():
        for row in sufficiency.stopping_metrics(run, claims, seed=seed):
            results.add(name, "dev", system, **row)
    for row in sufficiency.stopping_differences(runs[name], claims, seed=seed):
        results.add(name, "dev", **row)

table = results.table().reset_index()
table = table[~table.system.str.contains("-vs-")]
system_rows = [vars(row) for row in results.rows if "-vs-" not in row.system]
intervals.interval_table([r for r in system_rows if r["dataset"] in runs],
                         ["suff_acc", "suff_f1", "recall@5", "avg_hops"])

# %% [markdown]
# *Table: sufficiency decisions and the retrieval they lead to, on the evaluation claims ({glue:text}`n_claims`
# per dataset; limit 3 iterations), with 95% bootstrap intervals over the claims in brackets.  `suff-always`, `suff-never` and `fixed-2` decide by rule, so their decision
# accuracy only says how often the rule happens to match the truth.*

# %%
plot = table[table.system.isin(sufficiency.SYSTEMS)][["dataset", "system", "recall@5", "avg_hops"]]
fig, ax = plt.subplots(figsize=(7.5, 4))
sns.scatterplot(data=plot, x="avg_hops", y="recall@5", hue="system", style="dataset", s=90, ax=ax)
ax.set_xlabel("mean iterations run")
ax.set_ylabel("recall@5")
ax.set_title("Stopping rules: recall against cost")
ax.legend(fontsize=8, loc="best")
save_figure(fig, figures_dir, "admiral", "sufficiency_tradeoff")
plt.show()

# %% [markdown]
# *Figure: recall@5 against the mean number of iterations for every stopping rule (same traces, same claims).*
#
# ## Paper vs this run
#
# The paper gives Table 6 as a ranking: the natural-logic rule above every baseline.  Each of its claims is a
# rule of the reproduction report, decided here from this chapter's rows:

# %%
def value(dataset, system, metric):
    return results.value(dataset, "dev", system, metric)


sanity = []
for name in runs:
    sanity += [
        {"dataset": name, "holds by construction": "suff-natlog runs no more iterations than suff-never",
         "here": value(name, "suff-natlog", "avg_hops") <= value(name, "suff-never", "avg_hops")},
        {"dataset": name, "holds by construction": "the oracle decides at least as well as suff-natlog (suff_acc)",
         "here": value(name, "oracle", "suff_acc") >= value(name, "suff-natlog", "suff_acc")},
    ]
    for system in ("suff-natlog", "suff-lexical", "suff-classifier", "oracle", "suff-never", "fixed-2"):
        glue(f"recall_{system}_{name}", f"{value(name, system, 'recall@5'):.3f}", display=False)
        glue(f"hops_{system}_{name}", f"{value(name, system, 'avg_hops'):.2f}", display=False)
    glue(f"acc_natlog_{name}", f"{value(name, 'suff-natlog', 'suff_acc'):.3f}", display=False)
glue("n_claims", n_claims, display=False)
chapter_claims = [paper_claims.chapter_verdict(claim_id, results) for claim_id in
                  ("C3a-suff-vs-always", "C3b-suff-vs-never", "C3c-suff-vs-classifier", "C3d-suff-vs-lexical",
                   "C3e-suff-vs-fixed2")]
glue("claims_holding", sum(found.code == paper_claims.HOLDS for found in chapter_claims), display=False)
glue("claims_total", len(chapter_claims), display=False)
paper_claims.claims_table(chapter_claims)[["claim", "statement", "this run", "rule", "verdict"]]

# %% [markdown]
# *Table: the paper's Table 6 claims as the reproduction report decides them from this chapter's rows (HoVer;
# this run: A - B with its 95% paired bootstrap interval over the claims).*
#
# Two comparisons hold by construction and are not claims: a rule that may stop early runs no more
# iterations than one that never stops, and the oracle is right by definition.  They only check the
# machinery:

# %%
pd.DataFrame(sanity)

# %% [markdown]
# Of the paper's Table 6 claims that the report tests here, {glue:text}`claims_holding` of
# {glue:text}`claims_total` hold on our data.  On HoVer,
# `suff-natlog` ends with recall@5 {glue:text}`recall_suff-natlog_hover` after {glue:text}`hops_suff-natlog_hover`
# iterations on average, against {glue:text}`recall_fixed-2_hover` for `fixed-2` and
# {glue:text}`recall_suff-never_hover` after {glue:text}`hops_suff-never_hover` iterations for `suff-never`; the
# oracle reaches {glue:text}`recall_oracle_hover` in {glue:text}`hops_oracle_hover`.  On FEVEROUS-S with
# distractors the same numbers are {glue:text}`recall_suff-natlog_feverous_s+distractors`
# ({glue:text}`hops_suff-natlog_feverous_s+distractors` iterations), {glue:text}`recall_fixed-2_feverous_s+distractors`
# and {glue:text}`recall_suff-never_feverous_s+distractors`.
#
# Why this can differ from the paper: the proof generator here is a small model trained in minutes on proofs
# we built with a rule chunker, a MiniLM aligner and an operator model that imitates QA-NatVer's silver proofs.
# By construction its training proofs of complete evidence reach the claim's label and those of incomplete
# evidence end in NOT ENOUGH INFO (see the natural-logic chapter), so what it *should* learn is close to a
# sufficiency classifier that writes its reasons down.  The calibration curves above measure whether it did: a
# proof ends in NOT ENOUGH INFO only if the model marks a claim span independent of the evidence, and telling a
# span that the evidence covers from one it does not is exactly the semantic comparison a small model trained
# from scratch in minutes has not learned (ProoFVer's BART-large starts from pretraining).  The copy pointer
# (natural-logic chapter) lets it copy content spans of the evidence more often, but copying a span is not
# judging whether it covers the claim's (the operator shares in the error analysis below).  When the two shares
# are (nearly) equal, `suff-natlog`'s recall against `fixed-2` on HoVer is decided by which claims its stops
# happen to fall on, and `suff_acc`/`suff_f1` in the table are the honest summary of what the decision knows.
#
# ## The hook in the loop
#
# The replay above must equal what AdMIRaL does with the decision plugged in as its `sufficiency` hook.  On the
# first claims of HoVer:

# %%
check_claims = claims_by_dataset["hover"][:2 if smoke else 5]
hooked = experiments.build_admiral(tasks["hover"], components,
                                   experiments.book_config(smoke, iterations=settings.iterations),
                                   sufficiency=prover.natlog(settings))
live = hooked.retrieve_many([c.claim for c in check_claims], progress=False)
replayed = runs["hover"]["suff-natlog"].stops[:len(check_claims)]
agreement = pd.DataFrame({"claim": [c.id for c in check_claims], "iterations in the loop": [t.iterations for t in live],
                          "iterations replayed": replayed})
glue("hook_agree", int((agreement["iterations in the loop"] == agreement["iterations replayed"]).sum()), display=False)
glue("hook_claims", len(agreement), display=False)
agreement

# %% [markdown]
# The loop and the replay stop after the same iteration for {glue:text}`hook_agree` of {glue:text}`hook_claims`
# claims (the loop decides claim by claim, the replay in batches: padding can move a beam's score by a hair
# across the threshold).

# %% [markdown]
# ## Speed of one decision
#
# The book's goal is at most one second per claim for proof generation plus decision on two CPU cores.

# %%
speed = {name: runs[name]["suff-natlog"].seconds_per_decision for name in runs}
for name, s in speed.items():
    results.add(name, "dev", "suff-natlog", "seconds_per_decision", s, sum(len(d) for d in runs[name]["suff-natlog"].decisions))
glue("seconds_per_decision", f"{max(speed.values()):.2f}", display=False)
pd.Series(speed, name="seconds per decision (batched generation)").to_frame()

# %% [markdown]
# One decision took at most {glue:text}`seconds_per_decision` s on this machine (batched over claims; beam
# {glue:text}`proof_beam`), measured while the notebook ran -- on a shared machine this includes waiting for
# the CPU.
#
# ## Do the proofs mean something?  Verdicts on FEVER-Symmetric
#
# FEVER-Symmetric pairs each FEVER claim/evidence pair with minimally edited counterparts of the opposite label,
# so claim-only cues cannot help.  The best proof of each (claim, evidence) pair is read by the automaton; NOT
# ENOUGH INFO counts as wrong (every pair is SUPPORTS or REFUTES).  None of these claims were trained on.

# %%
verdicts = {}
for part in ("dev", "test"):
    pairs = list(read_fever_symmetric(data_path, part))[:n_pairs]
    accuracy, best = sufficiency.verdict_accuracy(prover.generator, pairs, beam=settings.verdict_beam)
    results.extend(sufficiency.verdict_rows(pairs, best, part, seed=seed))
    verdicts[part] = pd.Series([b.verdict if b else "no proof" for b in best]).value_counts()
    low, high = (results.value("fever_symmetric", part, "natlog-automaton", f"verdict_acc{bound}")
                 for bound in (intervals.LOW, intervals.HIGH))
    glue(f"verdict_acc_{part}", f"{accuracy:.3f} (95% interval {low:.3f} to {high:.3f})", display=False)
found = paper_claims.chapter_verdict("C3f-fever-symmetric-verdicts", results)
glue("C3f_fever_symmetric_verdicts", paper_claims.verdict_text(found), display=False)
pd.DataFrame(verdicts).fillna(0).astype(int)

# %% [markdown]
# *Table: verdicts of the best proof per pair.*  Verdict accuracy: {glue:text}`verdict_acc_dev` (dev),
# {glue:text}`verdict_acc_test` (test); a constant answer would get about half, since each claim appears with
# both labels.  The report's verdict on "above the majority rate .5": {glue:text}`C3f_fever_symmetric_verdicts`.
#
# ## Error analysis: where do proofs go wrong?
#
# Every wrong `suff-natlog` decision is put in one class (`proofbook.prover.sufficiency.error_kind`): no proof
# above the threshold; for a false *insufficient*, whether the step that sent the proof to NOT ENOUGH INFO was an
# independence / reverse-entailment operator on a span of a gold sentence (**operator**), on a span of another
# sentence (**alignment**), or a step the automaton itself sends to NOT ENOUGH INFO after a negation
# (**automaton**); for a false *sufficient*, a step aligned to a non-gold sentence (**alignment**) or a missing
# sentence's chunk not marked independent (**operator**).

# %%
error_rows, examples, operator_rows = [], [], []
for name, run in runs.items():
    for claim, trace, decisions in zip(claims_by_dataset[name], traces_by_dataset[name], run["suff-natlog"].details):
        sels = sufficiency.selections(trace)
        for iteration, decision in enumerate(decisions, start=1):
            truth = sufficiency.selection_is_sufficient(claim, sels[iteration - 1], name)
            kind = sufficiency.error_kind(claim, sels[iteration - 1], decision, truth, name)
            truly = "sufficient" if truth else "insufficient"
            error_rows.append({"dataset": name, "iteration": iteration, "truth": truly, "error": kind or "correct"})
            operator_rows += [{"truth": truly, "operator": step.operator} for proof in decision.proofs for step in proof.steps]
            if kind and kind != "no proof kept" and len(examples) < (2 if smoke else 4):
                examples.append((f"{name} {claim.id}, iteration {iteration}: truly {truly}"
                                 f", decided {'sufficient' if decision.sufficient else 'insufficient'} ({kind})",
                                 decision.kept[0]))
errors = pd.DataFrame(error_rows)
errors.groupby(["dataset", "truth", "error"]).size().unstack(fill_value=0)

# %%
operator_steps = pd.DataFrame(operator_rows, columns=["truth", "operator"])
operator_shares = pd.crosstab(operator_steps.truth, operator_steps.operator, normalize="index")
for truth in ("insufficient", "sufficient"):         # a small run may have no decision point of one kind
    shares = operator_shares.loc[truth] if truth in operator_shares.index else None
    for name, operator in (("equal", "="), ("independent", "#")):
        glue(f"{name}_share_{truth}", "n/a (no such decision point in this run)" if shares is None
             else f"{shares.get(operator, 0.0):.2f}", display=False)
trained_steps = [(p.source, step.operator) for p in prover.training_proofs if not p.sufficient
                 for step in natlog.Proof.parse(p.target).steps]
for source in ("hover", "feverous_s"):
    ops = [op for src, op in trained_steps if src == source]
    glue(f"trained_independent_{source}", f"{ops.count('#') / max(1, len(ops)):.2f}", display=False)
operator_shares.round(3)

# %% [markdown]
# *Table: the operators of every proof step the generator wrote at these decision points (all beams), by whether
# the selection truly held a full evidence set.*  Independence `#` is what sends a proof to NOT ENOUGH INFO when a
# claim span lacks evidence: it makes up {glue:text}`independent_share_insufficient` of the steps on insufficient
# selections and {glue:text}`independent_share_sufficient` on sufficient ones, while `=` makes up
# {glue:text}`equal_share_insufficient` and {glue:text}`equal_share_sufficient`.  In the generator's training
# proofs of incomplete evidence, {glue:text}`trained_independent_hover` of the steps (HoVer) and
# {glue:text}`trained_independent_feverous_s` (FEVEROUS-S) are `#`.

# %%
display(HTML(natlog.proofs_html([p for _, p in examples], [c for c, _ in examples])))

# %% [markdown]
# *Rendered: wrong decisions with the best kept proof (claim spans underlined, the automaton's path).*
#
# **What can and cannot be said about human predictability.**  AdMIRaL motivates proofs by their
# explainability: a person can read the steps and predict the decision.  Without a human study we can measure
# only the mechanical part: every decision here *is* a function of the rendered proof (the automaton is
# deterministic, so the verdict in each rendering follows from its operators), and the error classes above say
# which visible step is to blame.  We cannot measure whether people would find the alignments and operators
# plausible, agree with them, or predict the system's behaviour from them -- the paper's claims of that kind
# need annotators and stay untested here.
#
# ## Summary
#
# The proof-based stopping rule was reimplemented end to end and compared with the paper's baselines on the same
# traces.  Every number above is in `results/admiral/06_sufficiency.json`.

# %% [markdown]
# ## Exercises
#
# Rerun the chapter with the project's runner, and send its outputs elsewhere so that the book's results,
# figures and executed copy stay as they are:
# `python -m proofbook run notebooks/admiral/06_sufficiency.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/06_sufficiency.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.  Where an exercise edits a line, edit a copy of the
# notebook and run the copy the same way.  Exercises 2, 3 and 5 change fields of
# `sufficiency.SufficiencySettings`, in the line where the chapter builds `settings`; none of them retrains
# the proof generator.
#
# 1. **Predict the table: 40 claims.** Rerun with `-p limit 40`; `limit` also sets the number of
#    FEVER-Symmetric pairs per split.  Before running, write down for `hover`: the `avg_hops` of
#    `suff-always`, `fixed-2` and `suff-never` (which of them can you know without running?), the `suff_acc`
#    of `oracle`, the order of the seven systems on recall@5, and whether the intervals of C3a to C3e in the
#    claims table will cross zero.  Then check the interval table of "Table 6 on our data", the claims table,
#    the sanity table and the
#    FEVER-Symmetric sentence (`verdict_acc_dev`, `verdict_acc_test`).
#
#    :::{dropdown} Hint
#    Read `fixed_rule` and `simulate_stopping` in `proofbook.prover.sufficiency`: a rule-based system stops
#    where its rule says, unless a trace has no further hop.  The oracle decides with
#    `selection_is_sufficient`, the same truth that scores every decision.
#    :::
#
# 2. **Predict the table: at most two iterations.** Change the settings to
#    `sufficiency.SufficiencySettings(seed=seed, iterations=2)` (3 by default).  The traces are then the
#    experiments chapter's two-iteration run, read from the cache when it is there.  Before running, predict
#    which systems' rows will become identical, the largest `avg_hops` any system can reach, how the `n` of
#    the `suff_acc` rows (the number of decision points) will change, and which two of C3a to C3e will now
#    compare `suff-natlog` with the same baseline.
#
#    :::{dropdown} Hint
#    With a limit of L iterations, `simulate_stopping` decides only at iterations 1 to L - 1.  What do
#    `fixed_rule(2)` (`fixed-2`) and `fixed_rule(L + 1)` (`suff-never`, see `Prover.deciders`) decide at
#    iteration 1?
#    :::
#
# 3. **The reference threshold.** Change the settings to
#    `sufficiency.SufficiencySettings(seed=seed, calibration_claims=0)`: the rule then keeps
#    `SufficiencySettings.threshold`, the reference code's value (`REFERENCE_THRESHOLD`), instead of a
#    calibrated one.  For a second run, set a threshold of your own as well, e.g.
#    `sufficiency.SufficiencySettings(seed=seed, calibration_claims=0, threshold=-2.0)`.  Predict how
#    `suff-natlog`'s `avg_hops` and recall@5 will move as the threshold rises, how the count of `no proof kept`
#    in the error table will move, and which other system's row will change although its model does not.  The
#    calibration figure and its sentences are absent from these runs.
#
#    :::{dropdown} Hint
#    Read `reference_rule`: a higher threshold keeps fewer proofs; what does the rule decide when none is kept?
#    Then read what `train_prover` skips when `calibration_claims` is 0.
#    :::
#
# 4. **The error analysis of the lexical rule.** In the error-analysis cell replace
#    `run["suff-natlog"].details` by `run["suff-lexical"].details`.  Before running, predict which of the error
#    classes (`alignment`, `operator`, `automaton`, `no proof kept`) can occur for `suff-lexical` and which
#    cannot, and whether `#` will make up a larger share of the steps on insufficient selections than on
#    sufficient ones.  Look at the error table, the operator-share table and the rendered wrong decisions; the
#    shares of the generator's training proofs (`trained_independent_hover`, `trained_independent_feverous_s`)
#    do not change.
#
#    :::{dropdown} Hint
#    `LexicalSufficiency.decide_many` puts its single proof in both `proofs` and `kept`.  Then read the first
#    branch of `error_kind`.
#    :::
#
# 5. **FEVER-Symmetric verdicts from five beams.** Change the settings to
#    `sufficiency.SufficiencySettings(seed=seed, verdict_beam=5)` (1 by default: the best proof of a greedy
#    decode).  Predict how the verdict table will change (the counts of NOT ENOUGH INFO and of `no proof`),
#    whether `verdict_acc` on dev and test will move by more than its interval, and whether the verdict on
#    C3f (above the majority rate .5) will change.  Look at the verdict table, the glued `verdict_acc_dev` and
#    `verdict_acc_test`, and the rows `verdict_acc` of `natlog-automaton` on `fever_symmetric`.
#
#    :::{dropdown} Hint
#    `verdict_accuracy` keeps each pair's best-scoring proof.  A wider beam searches harder for the proof the
#    model scores highest; ask whether that score knows anything about the label, and when a pair ends with
#    no proof at all (`ProofGenerator.generate` drops beams that do not parse).
#    :::
