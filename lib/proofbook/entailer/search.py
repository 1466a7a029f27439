"""Entailer's backward-chaining search and its answer selection (Tafjord et al. 2022, §3.3).

For each answer option of a multiple-choice question, a declarative hypothesis H is proved (or not)
by backward chaining with the three behaviours of one model (:mod:`.behaviours`):

1. **One step at node N.**  Generate ``k`` candidate premise sets P for N (H -> P; greedy decoding for
   k = 1, else nucleus sampling with temperature 2.0 and top-p 0.95), score every premise directly
   (H -> Sd) and the inference (PH -> Se).  A candidate is *rejected* if any of those scores is below
   0.5; the others are ranked by s = (prod_i s_d(p_i)) * s_e(P |- N) and the best is taken.
2. **Recursion.**  Each premise of the chosen set is itself a node: within the depth limit it is
   expanded the same way.  A node's proof score is s_r(N) = (prod_i s(p_i)) * s_e(P |- N) with s(p_i)
   each premise's selected score; the node keeps its proof only if s_r(N) > c_d(N) =
   max(s_d(N), 1 - s_d(N)), else it is a leaf with score s_d(N).  Expansion stops at the depth limit
   or when it does not improve on the direct confidence.
3. **Top level.**  The hypothesis is always expanded at least one step; its score is its proof score.
   The answer is the option whose hypothesis scores highest.
4. **Systems.**  ``greedy`` = k 1 everywhere; ``sampled`` = k 6 sampled at the top level, greedy
   below (the paper samples only the top level); ``direct`` = the option with the highest s_d(H);
   ``entailer+direct`` = the more confident of the proof answer (its s_r) and the direct answer (its
   s_d).  When the direct answer wins and differs from the proof answer, the answer is no longer the
   one the tree supports: a *faithfulness break* (the paper: 16.8% of OBQA questions).

Departures and choices the paper leaves open, stated here:

* If every top-level candidate is rejected, the hypothesis is still scored by a proof (the paper always
  expands the top level): the best rejected candidate by its ranking score, recursion included.  The
  node's ``note`` says so.  If there is no candidate at all (no generation well formed, an empty
  retrieval pool), the hypothesis is a leaf scored by its direct score (``OptionProof.fallback``).
* A premise identical to the statement it should prove, or to one of its ancestors, is not expanded
  (a loop guard; the paper does not say what it does with near-tautologies).
* Nodes are expanded level by level across all options of a question at once, so that generation and
  scoring run in batches.  Because a child's expansion never depends on its parent's decision, this
  builds the same trees as the recursive description above.
* Duplicate candidate premise sets (same premises, same order after normalising white space) are merged;
  malformed generations (no ``[PREMISE]``) are dropped and counted in ``SearchStats``.
* Scores are memoised per search (the same statement is scored once per question).
* A :class:`~proofbook.entailer.memory.BeliefMemory` (the paper's future work) overrides s_d for
  every statement it matches: a taught belief is a leaf with score 1 (true) or 0 (false).

The interfaces the search calls (:class:`BehaviourModel`, :class:`Memory`) and its settings
(:class:`SearchConfig`) are in :mod:`.search_config`.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Sequence

from proofbook.entailer.search_config import TEMPERATURE, THRESHOLD, TOP_P, BehaviourModel, Memory, SearchConfig
from proofbook.entailer.trees import Candidate, ProofNode


@dataclass
class SearchStats:
    """Counts of one search: candidate sets generated, empty and duplicate ones dropped, candidates rejected,
    and the statements (s_d) and premise sets (s_e) sent to the model."""
    generated: int = 0
    malformed: int = 0
    duplicates: int = 0
    rejected: int = 0
    truth_calls: int = 0
    entailment_calls: int = 0


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class _Scorer:
    """Memoised s_d and s_e for one search, with memory overrides."""

    def __init__(self, model: BehaviourModel, memory: Memory | None, stats: SearchStats):
        self.model, self.memory, self.stats = model, memory, stats
        self.truth: dict[str, tuple[float, str]] = {}
        self.entail: dict[tuple[tuple[str, ...], str], float] = {}

    def score_truth(self, statements: Sequence[str]) -> None:
        todo = list(dict.fromkeys(s for s in statements if _norm(s) not in self.truth))
        if not todo:
            return
        taught = self.memory.lookup(todo) if self.memory is not None else [None] * len(todo)
        ask = [s for s, belief in zip(todo, taught) if belief is None]
        scores = iter(self.model.truth_scores(ask) if ask else [])
        self.stats.truth_calls += len(ask)
        for statement, belief in zip(todo, taught):
            if belief is None:
                self.truth[_norm(statement)] = (float(next(scores)), "model")
            else:
                self.truth[_norm(statement)] = (1.0 if belief.truth else 0.0, "memory")

    def score_entailment(self, proofs: Sequence[tuple[tuple[str, ...], str]]) -> None:
        todo: dict[tuple[tuple[str, ...], str], tuple[tuple[str, ...], str]] = {}
        for premises, hypothesis in proofs:
            key = (tuple(map(_norm, premises)), _norm(hypothesis))
            if key not in self.entail:
                todo.setdefault(key, (tuple(premises), hypothesis))
        if not todo:
            return
        scores = self.model.entailment_scores([(list(p), h) for p, h in todo.values()])
        self.stats.entailment_calls += len(todo)
        for key, score in zip(todo, scores):
            self.entail[key] = float(score)

    def direct(self, statement: str) -> tuple[float, str]:
        return self.truth[_norm(statement)]

    def entailment(self, premises: Sequence[str], hypothesis: str) -> float:
        return self.entail[(tuple(map(_norm, premises)), _norm(hypothesis))]


def _unique_candidates(sets: list[list[str]], stats: SearchStats) -> list[tuple[str, ...]]:
    seen, unique = set(), []
    for premises in sets:
        premises = tuple(" ".join(p.split()) for p in premises if p and p.strip())
        if not premises:
            stats.malformed += 1
            continue
        key = tuple(map(_norm, premises))
        if key in seen:
            stats.duplicates += 1
            continue
        seen.add(key)
        unique.append(premises)
    return unique


def _expand_level(nodes: list[ProofNode], ancestors: dict[int, set[str]], top: bool, config: SearchConfig,
                  model: BehaviourModel, scorer: _Scorer, stats: SearchStats) -> list[ProofNode]:
    """One step for every node in ``nodes`` (batched); returns the new premise nodes."""
    if not nodes:
        return []
    k, sample = (config.k_top, config.sample_top) if top else (config.k_below, config.sample_below)
    seed = config.seed + (0 if top else 7919 * nodes[0].depth)
    generated = model.generate_premises([n.statement for n in nodes], k, sample and k > 1, config.temperature,
                                        config.top_p, seed)
    if len(generated) != len(nodes):
        raise ValueError(f"generate_premises returned {len(generated)} lists for {len(nodes)} hypotheses")
    per_node = []
    for node, sets in zip(nodes, generated):
        stats.generated += len(sets)
        per_node.append(_unique_candidates(sets, stats))
    scorer.score_truth([p for candidates in per_node for c in candidates for p in c])
    scorer.score_entailment([(c, node.statement) for node, candidates in zip(nodes, per_node) for c in candidates])
    children: list[ProofNode] = []
    for node, candidates in zip(nodes, per_node):
        node.candidates = []
        for premises in candidates:
            direct = tuple(scorer.direct(p)[0] for p in premises)
            sources = tuple(scorer.direct(p)[1] for p in premises)
            entailment = scorer.entailment(premises, node.statement)
            reasons = []
            if min(direct) < config.threshold:
                reasons.append(f"premise score {min(direct):.2f} < {config.threshold}")
            if entailment < config.threshold:
                reasons.append(f"inference score {entailment:.2f} < {config.threshold}")
            node.candidates.append(Candidate(premises, direct, entailment, "; ".join(reasons) or None, sources))
        stats.rejected += sum(c.rejected is not None for c in node.candidates)
        survivors = [c for c in node.candidates if c.rejected is None]
        pool = survivors or (node.candidates if top else [])
        if not pool:
            node.note = "no candidate survived" if node.candidates else "no well-formed candidate"
            continue
        if not survivors:
            node.note = "every candidate rejected; scored by the best rejected one"
        best = max(pool, key=lambda c: c.score)
        node.entailment = best.entailment
        lineage = ancestors[id(node)] | {_norm(node.statement)}
        for premise in best.premises:
            score, source = scorer.direct(premise)
            child = ProofNode(premise, score, source, node.depth + 1)
            ancestors[id(child)] = lineage
            node.premises.append(child)
            children.append(child)
    return children


def _settle(node: ProofNode, top: bool) -> None:
    """Bottom-up: keep a non-top node's proof only if s_r > c_d (children settled first)."""
    for premise in node.premises:
        _settle(premise, False)
    if top or not node.premises:
        return
    proof = node.proof_score
    if proof is None or proof <= node.direct_confidence:
        node.note = f"proof {proof:.2f} <= direct confidence {node.direct_confidence:.2f}; kept as a leaf"
        node.dropped_proof = proof
        node.premises = []
        node.entailment = None


def prove_depths(hypotheses: Sequence[str], model: BehaviourModel, config: SearchConfig, depths: Sequence[int],
                 memory: Memory | None = None, stats: SearchStats | None = None
                 ) -> dict[int, tuple[list[ProofNode], float]]:
    """One search to the deepest of ``depths``, with the trees (and elapsed seconds) a search stopped at
    each depth would have built.

    A search with depth limit d does exactly the first d levels of a deeper search (same seeds, same
    candidates), so the trees at depth d are the deeper search's levels 1..d settled on their own, and its
    time is the time spent up to the end of level d.
    """

    if not hypotheses:
        return {d: ([], 0.0) for d in depths}
    depths = sorted(set(depths))
    if depths[0] < 1 or depths[-1] > config.max_depth:
        raise ValueError(f"depths {depths} must lie in 1..max_depth ({config.max_depth})")
    start = time.perf_counter()
    stats = stats if stats is not None else SearchStats()
    scorer = _Scorer(model, memory, stats)
    scorer.score_truth(hypotheses)
    roots = [ProofNode(h, *scorer.direct(h), depth=0) for h in hypotheses]
    ancestors: dict[int, set[str]] = {id(r): set() for r in roots}
    frontier = _expand_level(roots, ancestors, True, config, model, scorer, stats)
    out: dict[int, tuple[list[ProofNode], float]] = {}

    def snapshot(depth: int) -> None:
        trees = copy.deepcopy(roots)
        for tree in trees:
            for node in tree.walk():
                if not node.expanded and node.depth == depth and not node.note:
                    node.note = "depth limit"
            _settle(tree, True)
        out[depth] = (trees, time.perf_counter() - start)

    if 1 in depths:
        snapshot(1)
    for depth in range(2, depths[-1] + 1):
        expandable = []
        for node in frontier:
            if node.source == "memory":
                node.note = "taught belief (memory): not expanded"
            elif _norm(node.statement) in ancestors[id(node)]:
                node.note = "repeats an ancestor: not expanded"
            else:
                expandable.append(node)
        frontier = _expand_level(expandable, ancestors, False, config, model, scorer, stats)
        if depth in depths:
            snapshot(depth)
    return out


def prove(hypotheses: Sequence[str], model: BehaviourModel, config: SearchConfig = SearchConfig(),
          memory: Memory | None = None, stats: SearchStats | None = None) -> list[ProofNode]:
    """Backward-chain every hypothesis (batched); one tree per hypothesis, root scored by its proof."""
    return prove_depths(hypotheses, model, config, [config.max_depth], memory, stats)[config.max_depth][0]


# --- questions --------------------------------------------------------------------------------------

@dataclass
class OptionProof:
    """One answer option: its label and text, its hypothesis, and the tree the search built for it."""
    label: str
    option: str
    hypothesis: str
    tree: ProofNode

    @property
    def fallback(self) -> bool:
        """No candidate premise set at all (none generated well formed, an empty pool): a leaf."""
        return not self.tree.candidates

    @property
    def proof_score(self) -> float:
        """The hypothesis' proof score; its direct score when it had no candidate at all (:attr:`fallback`)."""
        score = self.tree.proof_score
        if score is None:
            return self.tree.direct if self.fallback else 0.0
        return score

    @property
    def direct(self) -> float:
        return self.tree.direct


@dataclass
class QuestionAnswer:
    """Entailer's answer to one question, with the direct and Entailer+Direct answers and timing."""

    question_id: str
    options: list[OptionProof]
    seconds: float
    stats: SearchStats = field(default_factory=SearchStats)

    def _best(self, key) -> OptionProof:
        return max(self.options, key=key)  # ties: the first option

    @property
    def entailer(self) -> OptionProof:
        """The option whose hypothesis has the highest proof score."""
        return self._best(lambda o: o.proof_score)

    @property
    def direct(self) -> OptionProof:
        """The option whose hypothesis has the highest direct score s_d."""
        return self._best(lambda o: o.direct)

    @property
    def combined(self) -> OptionProof:
        """Entailer+Direct: the proof answer unless the direct answer is more confident."""
        proof, direct = self.entailer, self.direct
        return direct if direct.direct > proof.proof_score else proof

    @property
    def faithfulness_break(self) -> bool:
        """Entailer+Direct answers with an option that its proof answer does not support."""
        return self.combined.label != self.entailer.label


def check_options(options: Sequence[tuple[str, str]], question_id: str = "") -> None:
    """At least two options, none empty; raises ValueError naming the question and option."""
    where = f"question {question_id!r}: " if question_id else ""
    if len(options) < 2:
        raise ValueError(f"{where}a multiple-choice question needs at least two options, got {len(options)}")
    for label, text in options:
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}option {label!r} is empty")


def answer_question(question_id: str, options: Sequence[tuple[str, str]], hypotheses: Sequence[str],
                    model: BehaviourModel, config: SearchConfig, memory: Memory | None = None) -> QuestionAnswer:
    """Prove the hypothesis of every option (``(label, text)`` pairs, hypotheses in the same order)."""
    check_options(options, question_id)
    if len(hypotheses) != len(options):
        raise ValueError(f"question {question_id!r}: {len(hypotheses)} hypotheses for {len(options)} options")
    start = time.perf_counter()
    stats = SearchStats()
    trees = prove(hypotheses, model, config, memory, stats)
    seconds = time.perf_counter() - start
    return QuestionAnswer(question_id, [OptionProof(label, text, h, t) for (label, text), h, t
                                        in zip(options, hypotheses, trees)], seconds, stats)


def answer_question_depths(question_id: str, options: Sequence[tuple[str, str]], hypotheses: Sequence[str],
                           model: BehaviourModel, config: SearchConfig, depths: Sequence[int],
                           memory: Memory | None = None) -> dict[int, QuestionAnswer]:
    """:func:`answer_question` at several depth limits from one search (see :func:`prove_depths`);
    each answer's ``seconds`` is the time the search took up to its depth."""
    check_options(options, question_id)
    if len(hypotheses) != len(options):
        raise ValueError(f"question {question_id!r}: {len(hypotheses)} hypotheses for {len(options)} options")
    stats = SearchStats()
    trees = prove_depths(hypotheses, model, config, depths, memory, stats)
    return {depth: QuestionAnswer(question_id, [OptionProof(label, text, h, t) for (label, text), h, t
                                                in zip(options, hypotheses, roots)], seconds, stats)
            for depth, (roots, seconds) in trees.items()}


def answer_directly(question_id: str, options: Sequence[tuple[str, str]], hypotheses: Sequence[str],
                    model: BehaviourModel, memory: Memory | None = None) -> QuestionAnswer:
    """The ``direct`` system: score every hypothesis with s_d only (no proof)."""
    check_options(options, question_id)
    start = time.perf_counter()
    stats = SearchStats()
    scorer = _Scorer(model, memory, stats)
    scorer.score_truth(hypotheses)
    nodes = [ProofNode(h, *scorer.direct(h)) for h in hypotheses]
    seconds = time.perf_counter() - start
    return QuestionAnswer(question_id, [OptionProof(label, text, h, node) for (label, text), h, node
                                        in zip(options, hypotheses, nodes)], seconds, stats)


__all__ = ["BehaviourModel", "OptionProof", "QuestionAnswer", "SearchConfig", "SearchStats", "TEMPERATURE",
           "THRESHOLD", "TOP_P", "answer_directly", "answer_from_dict", "answer_question", "answer_question_depths",
           "answer_to_dict", "check_options", "prove", "prove_depths"]


def answer_to_dict(answer: QuestionAnswer) -> dict:
    """A JSON-able copy of an answer (trees included), for the artifact cache."""
    return {"question_id": answer.question_id, "seconds": answer.seconds, "stats": vars(answer.stats),
            "options": [{"label": o.label, "option": o.option, "hypothesis": o.hypothesis, "tree": o.tree.to_dict()}
                        for o in answer.options]}


def answer_from_dict(data: dict) -> QuestionAnswer:
    """The :class:`QuestionAnswer` that :func:`answer_to_dict` wrote (trees and stats included)."""
    return QuestionAnswer(data["question_id"],
                          [OptionProof(o["label"], o["option"], o["hypothesis"], ProofNode.from_dict(o["tree"]))
                           for o in data["options"]], data["seconds"], SearchStats(**data.get("stats", {})))
