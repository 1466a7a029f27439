"""Entailer's error analysis and its belief memory demonstration (Tafjord et al. 2022, §6 and future work).

:func:`error_category` puts a wrong answer of the search in one of :data:`ERROR_CATEGORIES` (a false belief, a
near-tautological or otherwise bad reasoning step, or a dataset problem) from the tree behind it;
:func:`errors` lists them for a run, :func:`paper_population` those the paper classified (Entailer wrong, direct
answering right), and :func:`share_rows` writes each category's share.  :func:`memory_demo` teaches the belief memory
(:mod:`proofbook.entailer.memory`) that the strongest premise of a few wrong answers is false and answers those
questions again, showing how a user's correction changes the chosen tree.
"""
from __future__ import annotations

from proofbook.core import intervals
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer.components import Components
from proofbook.entailer.entailer_experiments import SystemRun, run_system, write_hypotheses
from proofbook.entailer.search import QuestionAnswer
from proofbook.entailer.settings import Settings

ERROR_CATEGORIES = ("belief", "reasoning: near-tautology", "reasoning", "dataset")


def error_category(answer: QuestionAnswer, gold_label: str, predicted: str | None = None,
                   facts: frozenset[str] | set[str] = frozenset()) -> str:
    """An automatic proxy for the paper's error categories of a wrong answer (rules, in this order):

    * ``dataset`` -- the predicted and the gold option say nearly the same thing (token F1 >= 0.8) or
      their hypotheses are identical: the question does not separate them;
    * ``reasoning: near-tautology`` -- a premise of the predicted option's proof restates its hypothesis
      (token F1 >= 0.7 with it);
    * ``reasoning`` -- the weakest link of that proof is the inference (s_e below every premise score), or
      every premise is a sentence of the fact corpus ``facts`` (true by construction: WorldTree is a
      curated set of true science facts, so true premises "proving" a wrong answer is an inference error);
    * ``belief`` -- otherwise: the weakest link is a premise the model believes (a false belief), or no
      proof was found.

    The paper's categories were assigned by people reading the trees; these rules only approximate them.
    """
    chosen = next(o for o in answer.options if o.label == (predicted or answer.entailer.label))
    gold = next(o for o in answer.options if o.label == gold_label)
    if hyp.token_f1(chosen.option, gold.option) >= 0.8 or chosen.hypothesis == gold.hypothesis:
        return "dataset"
    tree = chosen.tree
    if any(hyp.token_f1(p.statement, tree.statement) >= 0.7 for p in tree.premises):
        return "reasoning: near-tautology"
    if tree.premises and tree.entailment is not None and tree.entailment < min(p.score for p in tree.premises):
        return "reasoning"
    if tree.premises and all(" ".join(p.statement.split()) in facts for p in tree.premises):
        return "reasoning"
    return "belief"


def errors(run: SystemRun, questions, facts: frozenset[str] | set[str] = frozenset()) -> list[dict]:
    """Every wrong answer of ``run`` with its automatic error category (``facts``: the fact corpus)."""
    out = []
    for q, answer, predicted in zip(questions, run.answers, run.predictions()):
        if predicted != q.answer_key:
            out.append({"question": q, "answer": answer, "predicted": predicted,
                        "category": error_category(answer, q.answer_key, predicted, facts)})
    return out


def paper_population(run: SystemRun, direct: SystemRun, questions, facts: frozenset[str] | set[str] = frozenset()) -> list[dict]:
    """The wrong answers of ``run`` on the questions that ``direct`` answers right: the cases the paper's error
    analysis classified (Entailer wrong, direct question answering right)."""
    right = {q.id for q, predicted in zip(questions, direct.predictions()) if predicted == q.answer_key}
    return [e for e in errors(run, questions, facts) if e["question"].id in right]


#: the shares written for a set of wrong answers: each category, and both reasoning categories together (the
#: paper's "reasoning" share counts its near-tautologies)
SHARE_GROUPS = {**{category: (category,) for category in ERROR_CATEGORIES},
                "reasoning (all)": ("reasoning", "reasoning: near-tautology")}


def share_rows(wrong: list[dict], base: dict, prefix: str = "error_share", seed: int = 0) -> list[dict]:
    """``<prefix>/<group>`` for each of :data:`SHARE_GROUPS`: the share of ``wrong`` in the group, with its 95%
    bootstrap interval (value 0 and n 0 when there is no wrong answer); ``base`` gives dataset, split, system."""
    rows = []
    for name, members in SHARE_GROUPS.items():
        if wrong:
            rows += intervals.mean_rows(base, f"{prefix}/{name}", [float(e["category"] in members) for e in wrong], seed)
        else:
            rows.append({**base, "metric": f"{prefix}/{name}", "value": 0.0, "n": 0})
    return rows


def strongest_premise(answer: QuestionAnswer, label: str | None = None, facts: frozenset[str] | set[str] = frozenset()):
    """The premise node of an option's proof with the highest direct score (what a user would correct),
    leaving out sentences of the fact corpus ``facts`` (true by construction); ``None`` if there is none."""
    option = next(o for o in answer.options if o.label == (label or answer.entailer.label))
    leaves = [n for n in option.tree.walk() if n is not option.tree and " ".join(n.statement.split()) not in facts]
    return max(leaves, key=lambda n: n.direct) if leaves else None


def memory_demo(run: SystemRun, questions, components: Components, settings: Settings, memory, teach: int = 3,
                progress: bool = True) -> dict:
    """Teach ``teach`` corrections, then re-run the same system on every question with the memory.

    A simulated user reads the trees of the wrong answers in order and marks the most believed premise of
    each wrong proof as false, never a sentence of the fact corpus (true by construction; a wrong proof
    resting only on such sentences has nothing to correct and is skipped), until ``teach`` corrections are
    made.  Every question is then answered again, its statements looked up in the memory (exact or
    MiniLM-similar).  Returns the corrections, the number of wrong answers read, and per-question changes.
    """
    facts = components.facts
    wrong = [(q, a) for q, a, p in zip(questions, run.answers, run.predictions()) if p != q.answer_key]
    taught, read = [], 0
    for q, answer in wrong:
        if len(taught) >= teach:
            break
        read += 1
        node = strongest_premise(answer, facts=facts)
        if node is not None:
            memory.teach(node.statement, False, note=f"taught on question {q.id}")
            taught.append({"question": q.id, "belief marked false": node.statement, "model's score": node.direct})
    hypotheses = write_hypotheses(questions, components.writer)
    again = run_system(run.system, questions, hypotheses, components, settings, memory=memory, progress=progress)
    after = SystemRun(run.system, again, run.gold)
    changes = []
    for q, before_answer, after_answer, b, a in zip(questions, run.answers, again, run.predictions(), after.predictions()):
        touched = sum(o.tree.memory_uses() for o in after_answer.options)
        changes.append({"question": q.id, "gold": q.answer_key, "before": b, "after": a,
                        "memory beliefs used": touched})
    return {"taught": taught, "read": read, "after": after, "changes": changes}
