# %% [markdown]
# # AdMIRaL: natural-logic proofs
#
# **Papers and data:** {cite:p}`aly2022admiral,krishna2022proofver,maccartney2009natlog,aly2023qanatver`.
#
# **Overview.** AdMIRaL stops retrieving when the evidence it holds is *sufficient*, and it decides that with a
# natural-logic proof (Aly & Vlachos 2022, §3.2, in the ProoFVer format of Krishna et al. 2022).  This chapter
# shows, on real claims, how such a proof is built and read: the claim is cut into chunks, each chunk is aligned
# to a span of the evidence, each pair gets a natural-logic operator, and a small automaton turns the operator
# sequence into a verdict.  It then trains the pieces the next chapter needs: the operator model (with its
# confusion matrix on held-out proofs) and the proof generator.
#
# **What differs from the paper** (stated again where it matters): chunking is a rule and alignment uses MiniLM
# (ProoFVer uses a parser and awesome-align); the operator model learns from QA-NatVer's *predicted* (silver)
# proofs and 64 few-shot claims, since no gold proof corpus is public; the generator is a small seq2seq model
# trained on this machine, not BART-large, and it has an explicit copy mechanism that BART-large does not need.
#
# **Prerequisites and time.** Models are trained on first use and cached (`.cache/proofbook`); the times of
# this run are shown below.

# %% [markdown]
# :::{admonition} Terms used in this chapter
# :class: tip
# claim span, evidence span
# : a chunk of the claim, and the span of an evidence sentence it is aligned to.
#
# operator
# : one of six natural-logic relations between an evidence span and a claim span (`=`, `<`, `>`, `!`, `|`,
#   `#`; the table below says each in words, with an example).
#
# proof
# : the claim's chunks in order, each with its evidence span and operator: `{ claim span } [ evidence span ] OP`.
#
# automaton, verdict
# : three states, SUPPORTS, REFUTES and NOT ENOUGH INFO; reading a proof's operators from SUPPORTS, the state
#   it ends in is the proof's verdict.  A proof that reaches SUPPORTS or REFUTES says the evidence *suffices*.
#
# chunking, alignment
# : cutting the claim into spans, and finding for each the most similar evidence span (MiniLM similarity).
#
# silver proofs, few-shot proofs
# : QA-NatVer's *predicted* proofs of FEVER claims (no gold proof corpus is public), and its 64 hand-checked ones.
#
# operator model, proof generator
# : a classifier that gives an aligned pair its operator; a seq2seq model that writes a whole proof.
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
import seaborn as sns
from IPython.display import HTML, display
from myst_nb import glue

from proofbook.core import intervals
from proofbook.data.natlog import read_fewshot_processed
from proofbook.data.proofver import OPERATORS
from proofbook.admiral.prover import aligned_proofs, natlog, operators
from proofbook.admiral.prover.training_proofs import evidence_sets
from proofbook.core.examples import sample
from proofbook.admiral.prover.lexical import lexical_operator
from proofbook.admiral.prover.proof_showcase import showcase_proof
from proofbook.admiral.prover.sufficiency_experiments import train_prover
from proofbook.admiral.prover.trained_prover import SufficiencySettings
from proofbook.render.chapter import start
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.render.figures import save_figure
from proofbook.render.mechanisms import automaton_figure

n_shown = min(n_examples, 2) if smoke else n_examples      # examples listed in each section
chapter = start("admiral/05_natural_logic", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=SufficiencySettings, example_id=example_id, sample_seed=sample_seed,
                n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings

# %% [markdown]
# ## The proof format and the automaton
#
# A proof is a sequence of triples `{ claim span } [ evidence span ] OP` covering the claim in order.  The six
# operators are MacCartney's natural-logic relations, read "the evidence span OP the claim span":
#
# | OP | relation | reads | evidence span / claim span |
# |---|---|---|---|
# | `=` | equivalence | is equivalent to | "a sofa" / "a couch" |
# | `<` | forward entailment | entails | "a crow" / "a bird" |
# | `>` | reverse entailment | is entailed by | "a bird" / "a crow" |
# | `!` | negation | negates | "is alive" / "is not alive" |
# | `\|` | alternation | excludes | "born in France" / "born in Germany" |
# | `#` | independence | is independent of | "wrote a novel" / "was born in Ohio" |
#
# The automaton starts in SUPPORTS and reads the operators left to right; NOT ENOUGH INFO absorbs:

# %%
table = pd.DataFrame(natlog.TRANSITIONS).T.loc[["SUPPORTS", "REFUTES"], list(OPERATORS)]
table.columns = [f"{op} ({OPERATORS[op]})" for op in table.columns]
table

# %% [markdown]
# QA-NatVer's few-shot proofs (FEVER training claims with gold-like proofs), rendered with the claim spans
# underlined, each operator in words, and the automaton's path.  The first is chosen by a rule
# (`proofbook.admiral.prover.proof_showcase`): {glue:text}`showcase_text`; the others are a sample drawn with
# `sample_seed` (`n_examples` in all; `example_id` = a FEVER claim id of the few-shot file shows that one first).

# %%
fewshot = read_fewshot_processed(data_path)
firsts = [e for e in fewshot if e.variant == 0]
chosen = showcase_proof(firsts, example_id, sample_seed)
glue("showcase_text", chosen.text, display=False)
shown = [chosen.example] + [e for e in sample(firsts, n_shown, sample_seed) if e is not chosen.example][:n_shown - 1]
proofs = [natlog.Proof(e.steps, claim=e.claim, evidence=e.evidence_sentences[:1], check_spans=False) for e in shown]
display(HTML(natlog.proofs_html(proofs, [f"FEVER claim {e.claim_id} (file verdict: {e.verdict})" for e in shown])))
print(proofs[0].to_text())

# %% [markdown]
# The first proof's path through the automaton (each step numbered beside the arrow it takes; the arrows it
# does not take in grey):

# %%
path_operators = [step.operator for step in chosen.example.steps]
save_figure(automaton_figure(natlog.TRANSITIONS, path_operators, natlog.automaton_path(path_operators),
                             words=natlog.OPERATOR_WORDS), figures_dir, "admiral", "natural_logic_automaton")
plt.show()

# %% [markdown]
# *Figure: the natural-logic automaton (states, and the operators that move between them), with the path of
# the first proof above.*

# %% [markdown]
# Does the automaton give the file's verdict?  Over the first proof of every few-shot claim:

# %%
automaton_agreement = sum(natlog.verdict(e.steps[i].operator for i in range(len(e.steps))) == e.verdict
                          for e in firsts) / len(firsts)
glue("fewshot_agreement", f"{automaton_agreement:.3f}", display=False)
glue("fewshot_claims", len(firsts), display=False)
agreement = [float(natlog.verdict(step.operator for step in e.steps) == e.verdict) for e in firsts]
results.extend(intervals.mean_rows({"dataset": "qanatver-fewshot", "split": "train", "system": "natlog-automaton"},
                                   "verdict_acc", agreement, seed))

# %% [markdown]
# The automaton reproduces the file's verdict for {glue:text}`fewshot_agreement` of the
# {glue:text}`fewshot_claims` few-shot claims (first proof of each): the format and the table above are read
# the same way QA-NatVer wrote them.
#
# ## Building a proof for a multi-hop claim
#
# For HoVer and FEVEROUS-S there are no proofs: we build them.  The claim is chunked (a rule: a chunk starts at
# a function word that opens a phrase, at most six words), each chunk is aligned to the most similar span of the
# gold evidence (MiniLM contextual word vectors, see `proofbook.admiral.prover.alignment`), and each pair is labelled by
# the operator model trained below -- or, for the lexical baseline, by WordNet relations.

# %%
tasks = {name: load_task(name, data_path) for name in ("hover", "feverous_s")}
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    tasks = {name: smoke_task(task, seed=seed) for name, task in tasks.items()}
start = time.perf_counter()
prover = train_prover(list(tasks.values()), settings, data_path, progress=not smoke)
train_seconds = time.perf_counter() - start
pd.Series(prover.seconds, name="seconds (0 if loaded from the cache)").round(1).to_frame()

# %%
claims = sample([c for c in tasks["hover"].train if len(c.gold_sentences) >= 2], n_shown, sample_seed)
rows = []
for claim in claims:
    gold = [tasks["hover"].corpus.sentence(s) for s in claim.gold_sentences]
    alignment = prover.aligner.align(claim.claim, [s.text for s in gold])
    model_ops = prover.operator_model.predict([(a.chunk, a.evidence_span) for a in alignment])
    for a, op in zip(alignment, model_ops):
        rows.append({"claim": claim.id, "chunk": a.chunk, "evidence span": a.evidence_span,
                     "sentence": gold[a.sentence].title, "similarity": round(a.score, 2), "operator model": op,
                     "lexical": lexical_operator(a.chunk, a.evidence_span)})
alignment_table = pd.DataFrame(rows)
alignment_table

# %% [markdown]
# *Table: chunks of HoVer training claims, the evidence span each is aligned to (with its page), and the operator
# the model and the lexical rules assign.*  The same pairs as proofs:

# %%
built = []
for claim in claims:
    part = alignment_table[alignment_table.claim == claim.id]
    triples = list(zip(part["chunk"], part["evidence span"], part["operator model"]))
    gold = [tasks["hover"].corpus.sentence(s) for s in claim.gold_sentences]
    built.append(natlog.Proof.from_triples(triples, claim=claim.claim, evidence=[(s.title, s.text) for s in gold]))
display(HTML(natlog.proofs_html(built, [f"HoVer {c.id} ({c.num_hops} hops, label {c.label})" for c in claims])))

# %% [markdown]
# ## The operator model
#
# A MiniLM cross-encoder over (claim span, evidence span), trained on QA-NatVer's silver proofs (at most
# {glue:text}`max_per_operator` steps per operator, because `=` dominates) and the few-shot proofs, leaving out
# every claim id that occurs in FEVER-Symmetric ({glue:text}`excluded_claims` claims) and a held-out tenth of
# the claim ids.  Precision and recall on the held-out part (at most {glue:text}`heldout_per_operator` steps
# per operator, so these are numbers on a balanced sample):

# %%
data = prover.operator_data
heldout_gold = [x.operator for x in data.heldout]
heldout_pred = prover.operator_model.predict([(x.claim_span, x.evidence_span) for x in data.heldout])
scores = pd.DataFrame(operators.per_operator_scores(heldout_gold, heldout_pred)).set_index("operator")
accuracy = sum(g == p for g, p in zip(heldout_gold, heldout_pred)) / len(heldout_gold)
for op, row in scores.iterrows():
    results.add("qanatver-heldout", "heldout", "operator-model", f"precision/{op}", row["precision"], len(heldout_pred))
    results.add("qanatver-heldout", "heldout", "operator-model", f"recall/{op}", row["recall"], int(row["support"]))
glue("operator_accuracy", f"{accuracy:.3f}", display=False)
glue("excluded_claims", data.excluded_claims, display=False)
glue("max_per_operator", settings.operators.max_per_operator, display=False)
glue("heldout_per_operator", settings.operators.heldout_per_operator, display=False)
scores.style.format({"precision": "{:.3f}", "recall": "{:.3f}", "f1": "{:.3f}"})

# %% [markdown]
# The same held-out pairs decided by the lexical baseline's WordNet rules (`lexical_operator`), and the
# accuracy of both with the paired difference's 95% interval (system `operator-model-vs-lexical`):

# %%
lexical_pred = [lexical_operator(x.claim_span, x.evidence_span) for x in data.heldout]
lexical_accuracy = sum(g == p for g, p in zip(heldout_gold, lexical_pred)) / len(heldout_gold)
correct = {"operator-model": [float(g == p) for g, p in zip(heldout_gold, heldout_pred)],
           "lexical": [float(g == p) for g, p in zip(heldout_gold, lexical_pred)]}
base = {"dataset": "qanatver-heldout", "split": "heldout"}
for system, values in correct.items():
    results.extend(intervals.mean_rows({**base, "system": system}, "accuracy", values, seed))
results.extend(intervals.difference_rows(base, "operator-model", "lexical", "accuracy", correct["operator-model"],
                                         correct["lexical"], seed))
difference = [results.value("qanatver-heldout", "heldout", "operator-model-vs-lexical", "accuracy" + bound)
              for bound in ("", intervals.LOW, intervals.HIGH)]
glue("operator_vs_lexical", "{:+.3f} (95% interval {:+.3f} to {:+.3f})".format(*difference), display=False)
glue("lexical_accuracy", f"{lexical_accuracy:.3f}", display=False)

# %%
matrix = operators.confusion_matrix(heldout_gold, heldout_pred)
labels = [f"{op} {OPERATORS[op]}" for op in operators.LABELS]
fig, ax = plt.subplots(figsize=(6.2, 4.6))
sns.heatmap(pd.DataFrame(matrix, index=labels, columns=labels), annot=True, fmt="d", cmap="Blues", cbar=False, ax=ax)
ax.set_xlabel("predicted operator")
ax.set_ylabel("held-out (silver / few-shot) operator")
ax.set_title("Operator model on held-out proof steps")
save_figure(fig, figures_dir, "admiral", "operator_confusion")
plt.show()

# %% [markdown]
# *Figure: confusion matrix of the operator model on the held-out proof steps (rows: the operator in the silver
# or few-shot proof; columns: the model's).*  Accuracy {glue:text}`operator_accuracy`; the WordNet rules of the
# lexical baseline reach {glue:text}`lexical_accuracy` on the same pairs.  Independence `#` and reverse
# entailment `>` are the hard classes -- and they are the ones that decide sufficiency.  Note what the "gold"
# here is: QA-NatVer's *predictions* (plus 64 few-shot claims), so agreement with them is an upper bound on
# nothing; it says how well our model imitates QA-NatVer.
#
# ## The operator model in context: the aligned builder
#
# The model above sees two spans and nothing else, so it cannot know whether a claim chunk is covered *somewhere*
# in the evidence: it recalls independence `#` on {glue:text}`span_recall_independent` of the held-out `#` steps.
# The next chapter's sufficiency rule builds proofs by alignment instead of generation (QA-NatVer's design for
# small models, `proofbook.admiral.prover.aligned_proofs`): chunk the claim, align each chunk to its best evidence spans, and ask a
# second operator model that reads each pair *in context* -- `chunk ; claim` against `span ; the span's sentence`.
# It is trained on the same QA-NatVer steps with their contexts, plus the proofs built for HoVer and FEVEROUS-S
# training claims (below): each chunk against its gold sentence's span, with the operator the span model gives
# it, and -- the independence examples -- each chunk whose gold sentence was removed from the selection, against
# its best remaining span, labelled `#` -- unless every content word of the chunk still occurs in what is left,
# an ambiguous label that is left out.  For class balance it takes at most {glue:text}`max_built_per_operator`
# built steps per source and operator and {glue:text}`max_silver_per_operator` silver steps per operator;
# {glue:text}`context_unreadable` built proofs whose text cannot be read back are left out.

# %%
context = prover.context_data
pd.crosstab(pd.Series([x.source for x in context.train], name="source"),
            pd.Series([x.operator for x in context.train], name="operator"))

# %% [markdown]
# *Table: the context operator model's training steps by source and operator.*  On the same held-out QA-NatVer
# steps as above (now with their contexts: the claim, and for silver proofs -- released without their evidence
# sentences -- the proof's evidence spans joined):

# %%
context_gold = [x.operator for x in context.heldout]
context_pred = aligned_proofs.heldout_predictions(prover.context_model, context.heldout)
context_scores = pd.DataFrame(operators.per_operator_scores(context_gold, context_pred)).set_index("operator")
for op, row in context_scores.iterrows():
    results.add("qanatver-heldout", "heldout", "operator-model-aligned", f"precision/{op}", row["precision"],
                len(context_pred))
    results.add("qanatver-heldout", "heldout", "operator-model-aligned", f"recall/{op}", row["recall"],
                int(row["support"]))
results.extend(intervals.mean_rows({**base, "system": "operator-model-aligned"}, "accuracy",
                                   [float(g == p) for g, p in zip(context_gold, context_pred)], seed))
for system, table, n in (("operator-model", scores, len(heldout_pred)),
                         ("operator-model-aligned", context_scores, len(context_pred))):
    results.add("qanatver-heldout", "heldout", system, "macro_f1", float(table["f1"].mean()), n)
glue("span_recall_independent", f"{scores.loc['#', 'recall']:.2f}", display=False)
glue("context_recall_independent", f"{context_scores.loc['#', 'recall']:.2f}", display=False)
glue("context_macro_f1", f"{context_scores['f1'].mean():.2f}", display=False)
glue("span_macro_f1", f"{scores['f1'].mean():.2f}", display=False)
glue("max_built_per_operator", settings.aligned.max_built_per_operator, display=False)
glue("max_silver_per_operator", settings.aligned.max_silver_per_operator, display=False)
glue("context_unreadable", context.unreadable, display=False)
context_scores.style.format({"precision": "{:.3f}", "recall": "{:.3f}", "f1": "{:.3f}"})

# %% [markdown]
# *Table: the context operator model on the held-out QA-NatVer steps.*  Recall of `#`:
# {glue:text}`context_recall_independent` (the span model: {glue:text}`span_recall_independent`); macro F1 over the
# six operators {glue:text}`context_macro_f1` ({glue:text}`span_macro_f1`).
#
# These held-out steps are QA-NatVer's, where `#` means "no operator question was answered yes".  The independence
# the sufficiency rule needs is another: a chunk the selected evidence does not cover.  That is measured on claims
# of the *evaluation* split, which no model or threshold saw: for the first {glue:text}`independence_claims` claims
# of HoVer and FEVEROUS-S dev with gold sentences, the proof built from the complete gold selection gives the
# covered pairs, and removing one gold sentence gives the `#` pairs of the chunks it covered, by the same rule as
# the training examples (ambiguous ones left out; dataset `independence-heldout`).

# %%
n_independence = limit or (4 if smoke else 50)
held = []
for name in ("hover", "feverous_s"):
    task = tasks[name]
    sets = evidence_sets([task], n_independence, settings.proofgen.distractors, settings.proofgen.max_evidence, seed,
                         claims_per_task={task.dataset: task.evaluation})
    examples, _ = aligned_proofs.independence_examples(sets, prover.aligner, prover.operator_model)
    held += examples
held_gold = [x.operator == "#" for x in held]
predicted = {"operator-model-aligned": [p == "#" for p in aligned_proofs.heldout_predictions(prover.context_model, held)],
             "operator-model": [p == "#" for p in prover.operator_model.predict([(x.claim_span, x.evidence_span)
                                                                                  for x in held])],
             "lexical": [lexical_operator(x.claim_span, x.evidence_span) == "#" for x in held]}

# %% [markdown]
# Recall and precision of `#` on these pairs, for the context model, the span model and the lexical rules:

# %%
independence_rows = []
for system, said in predicted.items():
    tp = sum(g and p for g, p in zip(held_gold, said))
    recall, precision = tp / max(1, sum(held_gold)), tp / max(1, sum(said))
    results.add("independence-heldout", "dev", system, "recall/#", recall, sum(held_gold))
    results.add("independence-heldout", "dev", system, "precision/#", precision, sum(said))
    independence_rows.append({"system": system, "recall/#": recall, "precision/#": precision})
glue("independence_claims", n_independence, display=False)
glue("independence_pairs", len(held), display=False)
glue("independence_positive", sum(held_gold), display=False)
glue("independence_recall", f"{independence_rows[0]['recall/#']:.2f}", display=False)
glue("independence_precision", f"{independence_rows[0]['precision/#']:.2f}", display=False)
pd.DataFrame(independence_rows).set_index("system").round(3)

# %% [markdown]
# *Table: telling an uncovered chunk from a covered one on evaluation claims* ({glue:text}`independence_pairs`
# pairs, {glue:text}`independence_positive` of them `#`).  The context model finds {glue:text}`independence_recall`
# of the uncovered chunks at precision {glue:text}`independence_precision`.  The labels of the covered pairs are the
# span model's operators on a gold sentence's span, and a removed sentence's chunk may still be covered by another
# selected sentence, so both columns are measured against labels built by rule, not by people.
#
# One claim, two selections: the aligned proof of the first of these HoVer claims with its complete gold
# selection, and with one gold sentence replaced by a distractor (the next chapter's rule with its calibrated
# threshold decides each):

# %%
hook = prover.aligned(settings, "hover")
pair_sets = evidence_sets([tasks["hover"]], 1, settings.proofgen.distractors, settings.proofgen.max_evidence, seed,
                          claims_per_task={"hover": tasks["hover"].evaluation})
shown, captions = [], []
for chosen in pair_sets:
    decision = hook.decide(chosen.claim, list(chosen.sentences))
    shown.append(decision.kept[0])
    captions.append(f"HoVer {chosen.claim_id}, {'complete selection' if chosen.sufficient else 'a gold sentence removed'}:"
                    f" score {decision.score:.2f}, decided {'sufficient' if decision.sufficient else 'insufficient'}")
display(HTML(natlog.proofs_html(shown, captions)))

# %% [markdown]
# *Rendered: the aligned proofs of one claim on a complete and an incomplete selection (claim spans underlined;
# each step's evidence span and operator; the automaton's path).*  The proof shown is the most probable operator
# sequence reaching the decided verdict; the decision reads the score (the next chapter explains it and how
# its threshold is chosen).
#
# ## Generated proofs
#
# The proof generator reads `claim </s> Title ; evidence ...` and writes the proof under constraints: claim
# spans from a trie of the claim's 1-6-word n-grams, evidence spans from a trie of the evidence n-grams, and
# after `]` only an operator.  It is trained on the few-shot proofs and on
# {glue:text}`built_proofs` proofs built as above for HoVer/FEVEROUS-S training claims -- half of them with one
# gold sentence removed, where the chunks that lost their evidence get independence `#`.
#
# A proof is mostly copied text: claim spans and evidence spans.  BART-large learns to copy in pretraining; a
# small BART trained from scratch on the few-shot proofs and the {glue:text}`built_proofs` built ones does not,
# and without help it wrote evidence spans of frequent function words ("is", "and").  So the generator has a
# *pointer* (See et al. 2017, `proofbook.models.pointer.CopyBart`): at each step an attention over the input
# gives a copy distribution over its tokens, and a learned gate mixes it with the vocabulary distribution.  This
# departs from ProoFVer's plain BART; the library keeps the plain small BART as
# `ProofgenSettings(backend="scratch")` to compare.

# %%
training_verdicts = pd.Series([natlog.target_verdict(p.target) for p in prover.training_proofs], name="verdict")
built_table = pd.crosstab([pd.Series([p.source for p in prover.training_proofs], name="source"),
                           pd.Series(["complete" if p.sufficient else "one gold sentence missing"
                                      for p in prover.training_proofs], name="evidence")],
                          training_verdicts)
glue("unreadable_proofs", int((training_verdicts == natlog.UNREADABLE).sum()), display=False)
glue("training_proofs", len(prover.training_proofs), display=False)
built_table

# %% [markdown]
# *Table: the generator's training proofs by source and by the verdict their operators reach.*
# {glue:text}`unreadable_proofs` of the {glue:text}`training_proofs` training proofs cannot be read back as
# triples (column `unreadable`): an evidence span copied from a HoVer sentence holds the format's own braces
# or brackets (corpus markup such as `{'1`), so the generator also sees a few such targets.  The operators of
# a built proof with complete evidence are the operator model's most probable sequence *that reaches the
# claim's label* (a Viterbi pass over the automaton, `proofbook.admiral.prover.natlog.best_operators`), as ProoFVer's
# heuristic training proofs always reach the gold verdict; with a gold sentence missing, the chunks that lost
# their evidence get `#`, so the proof ends in NOT ENOUGH INFO.

# %%
evaluation = sample(tasks["hover"].evaluation, n_shown, sample_seed)
inputs = [[tasks["hover"].corpus.sentence(s) for s in c.gold_sentences] for c in evaluation]
start = time.perf_counter()
generated = prover.generator.generate([c.claim for c in evaluation], [[(s.title, s.text) for s in x] for x in inputs],
                                      beam=settings.beam, batch_size=1)
seconds_per_claim = (time.perf_counter() - start) / len(evaluation)
best = [g[0] for g in generated if g]
display(HTML(natlog.proofs_html(best, [f"HoVer evaluation claim {c.id}: best of {settings.beam} beams"
                                       for c, g in zip(evaluation, generated) if g])))
results.add("hover", "dev", "proof-generator", "seconds_per_claim", seconds_per_claim, len(evaluation))
glue("built_proofs", sum(p.source != "fewshot" for p in prover.training_proofs), display=False)
glue("seconds_per_claim", f"{seconds_per_claim:.2f}", display=False)
glue("proof_beam", settings.beam, display=False)
results.save()

# %% [markdown]
# Generating {glue:text}`proof_beam` constrained beams took {glue:text}`seconds_per_claim` s per claim on this
# machine (gold evidence, batch size 1).  The next chapter uses these proofs to decide when to stop retrieving.
#
# ## Summary
#
# A proof is read by a six-operator automaton; building one needs chunking, alignment and an operator for each
# aligned pair.  Each of the three can fail, and the sufficiency chapter's error analysis counts which one did.

# %% [markdown]
# ## Exercises
#
# Rerun the chapter with the project's runner, and send its outputs elsewhere, so that the book's results,
# figures and executed copy stay as they are:
# `python -m proofbook run notebooks/admiral/05_natural_logic.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/05_natural_logic.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.  Where an exercise edits a line, edit a copy of the
# notebook and run the copy the same way.  Exercise 1 needs no computer; 2 to 4 and 6 reuse the cached models;
# exercise 5 retrains.

# %% [markdown]
# ### 1. Run the automaton by hand (no computer needed)
#
# Using only the transition table (or the automaton figure), work out the state path and the verdict of the
# operator sequences `= ! >`, `= > !`, `! !` and `! <`, each read from the start state SUPPORTS.  Then say which
# of the four would change their verdict if the last two operators were swapped.
#
# :::{dropdown} Hint
# NOT ENOUGH INFO absorbs.  The same operator leads to different states from SUPPORTS and from REFUTES, so order
# matters.  Check your paths in a cell:
# ```python
# from proofbook.admiral.prover import natlog
# [natlog.automaton_path(ops.split()) for ops in ["= ! >", "= > !", "! !", "! <"]]
# ```
# The last state of each path is the verdict (`natlog.verdict`).
# :::

# %% [markdown]
# ### 2. Label the pairs yourself
#
# Rerun with `-p sample_seed 1 -p n_examples 6` for other claims.  Or use `-p example_id ID` with an id from the
# `claim` column of the alignment table; if the chapter does not hold that id, the error message names some it
# does.
#
# Before looking at the two operator columns of the alignment table, write down your own operator for each pair
# of chunk and evidence span.  Then count the pairs on which you, `operator model` and `lexical` disagree, and
# which operators are involved.  The rendered proofs show where each disagreement sends the automaton.
#
# :::{dropdown} Hint
# The lexical rules are listed in the docstring of `proofbook.admiral.prover.lexical`: names and numbers that
# differ give `|`, a claim word with no WordNet relation gives `#`.  The operator model imitates QA-NatVer's
# silver proofs, in which `=` is by far the most common operator.
# :::

# %% [markdown]
# ### 3. Alignment without the word-overlap bonus
#
# In a copy, add `aligner = Aligner(overlap_weight=0.0)` right after the line that starts
# `claims = sample([c for c in tasks["hover"].train` (the alignment cell, before its loop; import `Aligner` from
# `proofbook.admiral.prover.alignment`; `overlap_weight` is 0.3 by default).  In the loop, change
# `prover.aligner.align(claim.claim` to `aligner.align(claim.claim`, the same arguments.  Only the table and the
# built proofs below it change, not the trained models.  Predict:
#
# - which chunks will get a different evidence span (names? function words?);
# - how the `similarity` column will move;
# - whether the `lexical` column will show more `#`.
#
# :::{dropdown} Hint
# The score is defined in the module docstring of `proofbook.admiral.prover.alignment`: cosine similarity plus
# `overlap_weight` times the content-word overlap, minus a length penalty.  When several spans have close
# contextual vectors, which term decides between them?
# :::

# %% [markdown]
# ### 4. Decoding without constraints
#
# In a copy, change the call to `prover.generator.generate(constrained=False)` (the generated-proofs cell's call:
# its other arguments stay), and add `print("beams dropped:", prover.generator.dropped)` right after the line that
# starts `seconds_per_claim = (`.  Before running, predict:
#
# - how many of the beams (claims shown times the glued `proof_beam`) will not read as a proof of their claim;
# - whether some claim will be left with no proof at all;
# - whether the glued `seconds_per_claim` will rise or fall.
#
# :::{dropdown} Hint
# `ProofGenerator.generate` drops every beam that `Proof.parse` rejects.  Read `Proof.check` for what a claim
# span must satisfy.  Read `proof_constraint` in `proofbook.admiral.prover.proof_format` for what the constraint
# guaranteed token by token.
# :::

# %% [markdown]
# ### 5. Fewer silver steps per operator
#
# In a copy, add the line
# `settings = dataclasses.replace(settings, operators=OperatorSettings(seed=seed, max_per_operator=100))`
# right after the line that starts `data_path, results, settings =` (add `import dataclasses` and import
# `OperatorSettings` from `proofbook.admiral.prover.operators`); `max_per_operator` is 500 by default.  The
# held-out steps do not depend on this cap, so both runs are scored on the same pairs.
#
# This retrains the operator model.  With it, the built training proofs and the proof generator are retrained
# too, since their cache keys depend on it (many minutes).  Predict:
#
# - the held-out accuracy (glued `operator_accuracy`);
# - the recall of `#` and `>` (rows `recall/#` and `recall/>` of `operator-model`);
# - the glued `operator_vs_lexical`.
#
# Look at the per-operator table and the confusion matrix.
#
# :::{dropdown} Hint
# `operator_data` caps only the training steps.  In the book's run, print `prover.operator_data.counts`: for
# which operators does a cap of 500 bind, and for which does a cap of 100?
# :::

# %% [markdown]
# ### 6. Where the automaton and the file disagree
#
# Before printing them, predict what the few-shot proofs on which the automaton disagrees with the file's
# verdict have in common.  Then list them: add the cell below right after the cell that starts
# `fewshot = read_fewshot_processed(data_path)` (the one that defines `firsts`):
#
# ```python
# [(e.claim_id, e.verdict, [s.operator for s in e.steps])
#  for e in firsts if natlog.verdict(s.operator for s in e.steps) != e.verdict]
# ```
#
# The glued `fewshot_agreement` and the row `verdict_acc` of `natlog-automaton` on `qanatver-fewshot` give the
# share that agree.
#
# :::{dropdown} Hint
# Look at which operators end in NOT ENOUGH INFO (exercise 1) and what verdict the file gives.
# :::
