"""Sufficiency: does the selected evidence suffice to verify the claim?  The check that stops AdMIRaL's loop.

AdMIRaL (Aly & Vlachos 2022, §3.2) stops retrieving when a natural-logic
proof of the claim from the selected sentences reaches a verdict: evidence is insufficient when a claim
span gets independence (``#``) -- and cover / reverse entailment do not conclusively decide either, so the
automaton sends them to NOT ENOUGH INFO too.  The reference rule (:class:`NatlogSufficiency`): generate
proofs with beam search, keep those whose length-normalised log-probability is above a threshold (-0.9
in the reference code), and call the evidence sufficient iff at least one proof is kept and every kept
proof ends in SUPPORTS or REFUTES.

Each decision here is a callable ``(claim, sentences) -> bool``: exactly the ``sufficiency`` hook of
:class:`proofbook.admiral.retrieval.multihop.Admiral`, plus a batched ``decide_many`` used by
:func:`simulate_stopping`.  The systems of the paper's Table 6 (as named in ``admiral/06_sufficiency``):

* ``suff-natlog`` -- by default (``builder="aligned"``) :class:`AlignedSufficiency`: proofs built by aligning
  claim chunks to evidence spans and predicting each pair's operator in context (:mod:`proofbook.admiral.prover.aligned`,
  QA-NatVer's design for small models); sufficient iff the proof's sufficiency score reaches a threshold
  calibrated on training claims (:func:`calibrate_aligned`, one per dataset);
* ``suff-natlog-generated`` -- :class:`NatlogSufficiency`, the reference rule on generated proofs (the proof
  generator, constrained beam, the rule above; the paper's path);
* ``suff-lexical`` -- :class:`LexicalSufficiency`: one proof from the same chunking and alignment with
  WordNet operators; sufficient iff its verdict is not NOT ENOUGH INFO;
* ``suff-classifier`` -- :class:`ClassifierSufficiency`: a MiniLM cross-encoder on (claim, the selected
  sentences) trained on sufficient / insufficient selections of the training claims (the paper uses a
  BART classifier), its probability threshold chosen on the same calibration selections as the natural-logic
  rule's (:func:`calibrate_classifier`);
* ``suff-always`` / ``suff-never`` / ``fixed-2`` -- stop after iteration 1 / run to the limit / stop after
  iteration 2; ``oracle`` -- stop as soon as the selected sentences hold a full gold evidence set.

An empty selection is insufficient, with the reason (:data:`NO_EVIDENCE`) recorded in the :class:`Decision`.
Whether a builder's score sees missing evidence at all is measured apart from the loop:
:func:`calibration_auc_rows` on complete vs one-gold-sentence-removed selections of evaluation claims.

The truth at a decision point (:func:`selection_is_sufficient`): HoVer -- the selected sentences contain
every gold sentence; FEVEROUS-S, whose pages hold only gold sentences -- the selected sentences' pages
cover every gold page (page recall).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from tqdm.auto import tqdm

from proofbook.core.corpus import Sentence
from proofbook.admiral.prover.natlog import NEI, Proof

REFERENCE_THRESHOLD = -0.9
#: where ``suff-natlog``'s proofs come from: aligned chunks (:mod:`proofbook.admiral.prover.aligned`) or the generator
BUILDERS = ("aligned", "generated")
NO_EVIDENCE = "no sentence selected"
SYSTEMS = ("suff-natlog", "suff-natlog-generated", "suff-lexical", "suff-classifier", "suff-always", "suff-never", "fixed-2", "oracle")


def _evidence(sentences: Sequence[Sentence]) -> list[tuple[str, str]]:
    return [(s.title, s.text) for s in sentences]


@dataclass
class Decision:
    """One sufficiency decision with the proofs behind it (for the book's error analysis)."""

    sufficient: bool
    proofs: list[Proof] = field(default_factory=list)
    kept: list[Proof] = field(default_factory=list)
    seconds: float = 0.0
    score: float | None = None        # the builder's sufficiency score, where it has one
    reason: str = ""                  # why, where no proof was attempted (e.g. nothing selected)


def reference_rule(proofs: Sequence[Proof], threshold: float = REFERENCE_THRESHOLD) -> tuple[bool, list[Proof]]:
    """Keep proofs scoring above ``threshold``; sufficient iff any is kept and none of the kept ends in NEI."""
    kept = [p for p in proofs if p.score is not None and p.score > threshold]
    return bool(kept) and all(p.verdict != NEI for p in kept), kept


class _Hook:
    """Shared plumbing: ``__call__`` is the Admiral hook, ``decide_many`` the batched form."""

    def __call__(self, claim: str, sentences: Sequence[Sentence]) -> bool:
        return self.decide_many([claim], [list(sentences)])[0].sufficient

    def decide(self, claim: str, sentences: Sequence[Sentence]) -> Decision:
        return self.decide_many([claim], [list(sentences)])[0]

    def decide_many(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[Decision]:
        raise NotImplementedError


class NatlogSufficiency(_Hook):
    """The reference decision rule on proofs from :class:`~proofbook.admiral.prover.proofgen.ProofGenerator`."""

    def __init__(self, generator, beam: int = 5, threshold: float = REFERENCE_THRESHOLD, constrained: bool = True,
                 batch_size: int = 8):
        self.generator, self.beam, self.threshold = generator, beam, threshold
        self.constrained, self.batch_size = constrained, batch_size

    def decide_many(self, claims, selections) -> list[Decision]:
        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]          # no sentence: nothing can be proven
        if todo:
            start = time.perf_counter()
            proofs = self.generator.generate([claims[i] for i in todo], [_evidence(selections[i]) for i in todo],
                                             beam=self.beam, constrained=self.constrained, batch_size=self.batch_size)
            each = (time.perf_counter() - start) / len(todo)
            for i, found in zip(todo, proofs):
                sufficient, kept = reference_rule(found, self.threshold)
                out[i] = Decision(sufficient, found, kept, each)
        return out


class AlignedSufficiency(_Hook):
    """``suff-natlog`` with aligned proofs (:mod:`proofbook.admiral.prover.aligned`): sufficient iff the builder's
    sufficiency score reaches ``threshold``; the proof kept is the most probable one reaching the decided verdict."""

    def __init__(self, prover, score: str = "proven", threshold: float = 0.5):
        self.prover, self.score, self.threshold = prover, score, threshold

    def scores(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[float]:
        """The sufficiency score of each (claim, non-empty selection)."""
        found = self.prover.prove_many(list(claims), [_evidence(s) for s in selections])
        return [f.score(self.score) for f in found]

    def decide_many(self, claims, selections) -> list[Decision]:
        from proofbook.admiral.prover.aligned import reached_verdict

        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            found = self.prover.prove_many([claims[i] for i in todo], [_evidence(selections[i]) for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, f in zip(todo, found):
                score = f.score(self.score)
                sufficient = score >= self.threshold
                proof = f.shown(reached_verdict(f) if sufficient else NEI)
                out[i] = Decision(sufficient, [proof], [proof], each, score)
        return out


class LexicalSufficiency(_Hook):
    """One lexical proof (chunking, MiniLM alignment, WordNet operators); sufficient iff its verdict is not NEI."""

    def __init__(self, aligner):
        self.aligner = aligner

    def decide_many(self, claims, selections) -> list[Decision]:
        from proofbook.admiral.prover.lexical import lexical_proof

        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            rows = self.aligner.align_many([claims[i] for i in todo], [[s.text for s in selections[i]] for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, row in zip(todo, rows):
                proof = lexical_proof(claims[i], [(a.chunk, a.evidence_span) for a in row], _evidence(selections[i]))
                out[i] = Decision(proof.verdict != NEI, [proof], [proof], each)
        return out


CLASSIFIER_LABELS = ("insufficient", "sufficient")


def classifier_passage(sentences: Sequence[Sentence]) -> str:
    return " </s> ".join(f"{s.title} ; {s.text}" for s in sentences)


class ClassifierSufficiency(_Hook):
    """A cross-encoder over (claim, ``Title ; sentence </s> ...``) -> insufficient / sufficient."""

    def __init__(self, encoder, threshold: float = 0.5):
        if list(encoder.labels) != list(CLASSIFIER_LABELS):
            raise ValueError(f"a sufficiency classifier needs labels {list(CLASSIFIER_LABELS)}, got {encoder.labels}")
        self.encoder, self.threshold = encoder, threshold

    def probabilities(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[float]:
        """P(sufficient) of each (claim, selected sentences)."""
        pairs = [(claim, classifier_passage(sentences)) for claim, sentences in zip(claims, selections)]
        return [float(p[1]) for p in self.encoder.predict_proba(pairs, progress=False)] if pairs else []

    def decide_many(self, claims, selections) -> list[Decision]:
        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            probs = self.probabilities([claims[i] for i in todo], [selections[i] for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, p in zip(todo, probs):
                out[i] = Decision(bool(p >= self.threshold), seconds=each)
        return out

    def save(self, folder):
        return self.encoder.save(folder)

    @classmethod
    def load(cls, folder, device: str | None = None) -> "ClassifierSufficiency":
        from proofbook.models.cross_encoder import CrossEncoder

        return cls(CrossEncoder.load(folder, device=device))


@dataclass(frozen=True)
class ClassifierSettings:
    seed: int = 0
    max_claims_per_dataset: int = 200
    distractors: int = 1
    max_evidence: int = 5
    max_length: int = 384             # claim + five titled sentences; 128 cut most of the evidence away
    epochs: int = 1
    batch_size: int = 16
    lr: float = 5e-5

    @classmethod
    def smoke(cls, seed: int = 0) -> "ClassifierSettings":
        return cls(seed=seed, max_claims_per_dataset=4, max_length=48)


def train_classifier(tasks, settings: ClassifierSettings = ClassifierSettings(), cache=None) -> tuple[ClassifierSufficiency, float]:
    """Train (or load) the sufficiency classifier on the tasks' training claims; returns it and the seconds."""
    from proofbook.core.cache import ArtifactCache, fingerprint
    from proofbook.models.cross_encoder import CrossEncoder
    from proofbook.core.training import TrainConfig
    from proofbook.core.cache import object_codec
    from proofbook.models.cross_encoder import HEAD_INIT_VERSION
    from proofbook.admiral.prover.proofgen import evidence_sets

    cache = cache or ArtifactCache()
    sets = evidence_sets(tasks, settings.max_claims_per_dataset, settings.distractors, settings.max_evidence,
                         settings.seed)

    def build() -> ClassifierSufficiency:
        encoder = CrossEncoder("minilm", labels=CLASSIFIER_LABELS, max_length=settings.max_length,
                               seed=settings.seed)
        encoder.fit([(s.claim, classifier_passage(s.sentences)) for s in sets],
                    [CLASSIFIER_LABELS[s.sufficient] for s in sets],
                    config=TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr,
                                       seed=settings.seed))
        return ClassifierSufficiency(encoder)

    key = {"settings": dataclasses.asdict(settings), "head": HEAD_INIT_VERSION,
           "sets": fingerprint([(s.claim_id, [x.id for x in s.sentences], s.sufficient) for s in sets])}
    start = time.perf_counter()
    model = cache.get_or_build("natlog-sufficiency-classifier", key, build, *object_codec(ClassifierSufficiency))
    return model, time.perf_counter() - start


# --- the truth and the stopping simulation ------------------------------------------------------

def selection_is_sufficient(claim, sentences: Sequence[Sentence], dataset: str) -> bool:
    """Whether the selected sentences hold a full gold evidence set (module docstring)."""
    if dataset.startswith("feverous_s") or not claim.gold_sentences:
        return set(claim.gold_titles) <= {s.title for s in sentences}
    return set(claim.gold_sentences) <= {s.id for s in sentences}


def selections(trace, top_sentences: int = 5) -> list[list[Sentence]]:
    """The selected sentences after each iteration of a trace (1, 2, ...), as the loop computed them."""
    current = list(trace.initial_selected)
    out = [[s for s, _ in current]]
    for hop in trace.hops:
        current = sorted(current + hop.new_sentences, key=lambda pair: -pair[1])[:top_sentences]
        out.append([s for s, _ in current])
    return out


def truncated(trace, iterations: int, top_sentences: int = 5):
    """The trace as if the loop had stopped after ``iterations`` (the loop is deterministic given its state)."""
    chosen = selections(trace, top_sentences)[iterations - 1]
    kept = trace.hops[:iterations - 1]
    scored = {s.id: score for hop in [None] + kept for s, score in
              (trace.initial_selected if hop is None else hop.new_sentences)}
    return dataclasses.replace(trace, hops=list(kept), selected=[(s, scored.get(s.id, 0.0)) for s in chosen],
                               stopped_by_sufficiency=iterations < trace.iterations)


@dataclass
class StoppingRun:
    """What one sufficiency system did on a set of traces."""

    system: str
    stops: list[int]                                   # iterations run, per claim
    decisions: list[list[tuple[bool, bool]]]           # per claim: (decided sufficient, truly sufficient) per point
    rankings: dict[str, list[str]]
    details: list[list[Decision]]
    seconds_per_decision: float = 0.0


Decide = Callable[[Sequence[str], Sequence[Sequence[Sentence]]], list[Decision]]


def fixed_rule(stop_after: int) -> Decide:
    """``suff-always`` (1), ``fixed-2`` (2), ``suff-never`` (a number past the limit)."""
    def decide(claims, sels, iteration=None):
        return [Decision(iteration is not None and iteration >= stop_after) for _ in claims]
    decide.needs_iteration = True
    return decide


def simulate_stopping(system: str, traces, claims, dataset: str, decide, limit: int = 3, top_sentences: int = 5,
                      progress: bool = False) -> StoppingRun:
    """Run a sufficiency decision on traces made to ``limit`` iterations without stopping, claim by
    claim as the loop would: at iterations 1..limit-1 decide; stop at the first "sufficient".

    ``decide`` is a hook's ``decide_many``, :func:`fixed_rule`, or ``"oracle"``.
    """
    sels = [selections(t, top_sentences) for t in traces]
    truth = [[selection_is_sufficient(c, s, dataset) for s in per] for c, per in zip(claims, sels)]
    stops = [None] * len(traces)
    decisions: list[list[tuple[bool, bool]]] = [[] for _ in traces]
    details: list[list[Decision]] = [[] for _ in traces]
    seconds, count = 0.0, 0
    for iteration in tqdm(range(1, limit), desc=system, disable=not progress):
        active = [i for i in range(len(traces)) if stops[i] is None]
        if not active:
            break
        claims_now, sels_now = [traces[i].claim for i in active], [sels[i][iteration - 1] for i in active]
        if decide == "oracle":
            made = [Decision(truth[i][iteration - 1]) for i in active]
        elif getattr(decide, "needs_iteration", False):
            made = decide(claims_now, sels_now, iteration)
        else:
            start = time.perf_counter()
            made = decide(claims_now, sels_now)
            seconds += time.perf_counter() - start
            count += len(active)
        for i, decision in zip(active, made):
            decisions[i].append((decision.sufficient, truth[i][iteration - 1]))
            details[i].append(decision)
            if decision.sufficient or iteration >= len(sels[i]):   # stop; or the loop had no further hop
                stops[i] = iteration
    stops = [s if s is not None else min(limit, len(sels[i])) for i, s in enumerate(stops)]
    rankings = {c.id: truncated(t, k, top_sentences).ranking() for c, t, k in zip(claims, traces, stops)}
    return StoppingRun(system, stops, decisions, rankings, details, seconds / count if count else 0.0)


def _decision_scores(decisions: Sequence[Sequence[tuple[bool, bool]]]) -> tuple[float, float, float]:
    """``(suff_acc, suff_f1, suff_balanced_acc)`` over the decision points of the given claims (``(decided,
    truth)`` pairs).  The balanced accuracy is the mean of the recall on truly sufficient and on truly
    insufficient points (a constant rule scores .5); with only one kind of point, that kind's recall."""
    points = [p for per in decisions for p in per]
    if not points:
        return 0.0, 0.0, 0.0
    tp = sum(d and t for d, t in points)
    fp = sum(d and not t for d, t in points)
    fn = sum(t and not d for d, t in points)
    recalls = [sum(d == t for d, t in points if t == kind) / n for kind in (True, False)
               if (n := sum(t == kind for _, t in points))]
    return (sum(d == t for d, t in points) / len(points), (2 * tp / (2 * tp + fp + fn) if tp else 0.0),
            sum(recalls) / len(recalls))


def _per_claim_recall(run: StoppingRun, claims) -> list[float]:
    from proofbook.admiral.retrieval.metrics import recall_at_k

    return [float(recall_at_k(run.rankings[c.id], c.gold_titles, 5)) for c in claims]


def stopping_metrics(run: StoppingRun, claims, seed: int = 0) -> list[dict]:
    """Rows ``{"metric", "value", "n"}``: suff_acc, suff_f1, suff_balanced_acc (over decision points),
    suff_f1@iter1 / @iter2 (the decisions at that iteration), recall@5, avg_hops (over claims), each with its 95%
    bootstrap interval; the bootstrap resamples claims, with all their decision
    points (:mod:`proofbook.core.intervals`)."""
    from proofbook.core import intervals

    rows = []
    n_points = sum(len(per) for per in run.decisions)
    if n_points:
        for index, (metric, value) in enumerate(zip(("suff_acc", "suff_f1", "suff_balanced_acc"),
                                                    _decision_scores(run.decisions))):
            low, high = intervals.interval(lambda idx: _decision_scores([run.decisions[i] for i in idx])[index],
                                           len(run.decisions), seed)
            rows += intervals.interval_rows({"metric": metric, "value": value, "n": n_points}, low, high)
    for iteration in (1, 2):               # the decision at iteration k, on the claims that got that far
        at = [per[iteration - 1:iteration] for per in run.decisions]
        n_at = sum(len(per) for per in at)
        if n_at:
            low, high = intervals.interval(lambda idx: _decision_scores([at[i] for i in idx])[1], len(at), seed)
            rows += intervals.interval_rows({"metric": f"suff_f1@iter{iteration}", "value": _decision_scores(at)[1],
                                             "n": n_at}, low, high)
    rows += intervals.mean_rows({}, "recall@5", _per_claim_recall(run, claims), seed)
    rows += intervals.mean_rows({}, "avg_hops", [float(s) for s in run.stops], seed)
    return rows


#: the paired comparisons ``A-vs-B`` (same claims, same traces): the natural-logic rule against each
#: baseline of the paper's Table 6
COMPARISONS = tuple(("suff-natlog", other) for other in ("suff-always", "suff-never", "suff-classifier",
                                                          "suff-lexical", "fixed-2"))


def stopping_differences(runs: dict[str, StoppingRun], claims, seed: int = 0) -> list[dict]:
    """System ``A-vs-B`` rows in suff_f1 and recall@5 for :data:`COMPARISONS`, with paired intervals."""
    from proofbook.core import intervals

    rows = []
    for a, b in COMPARISONS:
        if a not in runs or b not in runs:
            continue
        run_a, run_b = runs[a], runs[b]
        rows += intervals.difference_rows({}, a, b, "recall@5", _per_claim_recall(run_a, claims),
                                          _per_claim_recall(run_b, claims), seed)
        value = _decision_scores(run_a.decisions)[1] - _decision_scores(run_b.decisions)[1]
        low, high = intervals.interval(
            lambda idx: _decision_scores([run_a.decisions[i] for i in idx])[1]
            - _decision_scores([run_b.decisions[i] for i in idx])[1], len(claims), seed)
        n = sum(len(per) for per in run_a.decisions)
        rows += intervals.interval_rows({"system": f"{a}-vs-{b}", "metric": "suff_f1", "value": value, "n": n},
                                        low, high)
    return rows


# --- the experiment of admiral/06_sufficiency -----------------------------------------------------

@dataclass(frozen=True)
class SufficiencySettings:
    """Everything the sufficiency chapter trains and decodes with; defaults = the book's full-size run."""

    seed: int = 0
    iterations: int = 3                  # the limit on iterations per claim
    beam: int = 5                        # proof beams per decision (the reference uses 25; see the chapter)
    threshold: float = REFERENCE_THRESHOLD
    calibration_claims: int = 30         # per dataset; 0 = keep ``threshold`` (see calibrate_threshold)
    verdict_beam: int = 1                # FEVER-Symmetric verdicts: the best proof of a greedy decode
    builder: str = "aligned"             # suff-natlog's proofs: one of BUILDERS
    operators: object = None
    proofgen: object = None
    aligned: object = None
    classifier: ClassifierSettings = ClassifierSettings()

    def __post_init__(self) -> None:
        from proofbook.admiral.prover.aligned import AlignedSettings
        from proofbook.admiral.prover.operators import OperatorSettings
        from proofbook.admiral.prover.proofgen import ProofgenSettings

        if self.builder not in BUILDERS:
            raise ValueError(f"unknown proof builder {self.builder!r}; expected one of {BUILDERS}")
        if self.operators is None:
            object.__setattr__(self, "operators", OperatorSettings(seed=self.seed))
        if self.proofgen is None:
            object.__setattr__(self, "proofgen", ProofgenSettings(seed=self.seed))
        if self.aligned is None:
            object.__setattr__(self, "aligned", AlignedSettings(seed=self.seed))

    @classmethod
    def smoke(cls, seed: int = 0) -> "SufficiencySettings":
        from proofbook.admiral.prover.aligned import AlignedSettings
        from proofbook.admiral.prover.operators import OperatorSettings
        from proofbook.admiral.prover.proofgen import ProofgenSettings

        return cls(seed=seed, beam=2, calibration_claims=2, operators=OperatorSettings.smoke(seed),
                   proofgen=ProofgenSettings.smoke(seed), aligned=AlignedSettings.smoke(seed),
                   classifier=ClassifierSettings.smoke(seed))


@dataclass
class Prover:
    """The trained pieces of the natural-logic prover and the sufficiency systems built on them."""

    operator_model: object
    operator_data: object
    aligner: object
    generator: object
    training_proofs: list
    classifier: ClassifierSufficiency
    seconds: dict[str, float]
    threshold: float = REFERENCE_THRESHOLD
    calibration: list = field(default_factory=list)   # calibrate_threshold's table rows
    classifier_calibration: dict = field(default_factory=dict)   # calibrate_classifier's result
    context_model: object = None                       # the aligned builder's operator model
    context_data: object = None
    aligned_calibration: dict = field(default_factory=dict)      # aligned.calibrate's result (+ AUC per score)

    def generated(self, settings: SufficiencySettings) -> NatlogSufficiency:
        """The reference rule on generated proofs, with the (calibrated) threshold."""
        return NatlogSufficiency(self.generator, beam=settings.beam, threshold=self.threshold)

    def aligned_prover(self, settings: SufficiencySettings):
        from proofbook.admiral.prover.aligned import AlignedProver

        return AlignedProver(self.aligner, self.context_model, rerank=settings.aligned.rerank)

    def aligned(self, settings: SufficiencySettings, dataset: str | None = None) -> AlignedSufficiency:
        """The aligned builder's rule with its calibrated score and threshold -- the threshold calibrated on
        ``dataset``'s training claims where there is one (:func:`calibrate_aligned`), else on all of them."""
        found = self.aligned_calibration
        threshold = found.get("by_source", {}).get(calibration_source(dataset), found).get(
            "threshold", settings.aligned.threshold)
        score = found.get("score", settings.aligned.score)
        return AlignedSufficiency(self.aligned_prover(settings), "proven" if score == "auto" else score, threshold)

    def natlog(self, settings: SufficiencySettings, dataset: str | None = None):
        """The ``suff-natlog`` rule for ``dataset``: proofs from ``settings.builder``."""
        return self.aligned(settings, dataset) if settings.builder == "aligned" else self.generated(settings)

    def deciders(self, settings: SufficiencySettings, dataset: str | None = None) -> dict:
        """System name (as in the results files) -> what :func:`simulate_stopping` calls on ``dataset``."""
        extra = {"suff-natlog-generated": self.generated(settings).decide_many} if settings.builder == "aligned" else {}
        return {
            "suff-natlog": self.natlog(settings, dataset).decide_many,
            **extra,
            "suff-lexical": LexicalSufficiency(self.aligner).decide_many,
            "suff-classifier": self.classifier.decide_many,
            "suff-always": fixed_rule(1),
            "suff-never": fixed_rule(settings.iterations + 1),
            "fixed-2": fixed_rule(2),
            "oracle": "oracle",
        }


def operator_key(settings, data) -> str:
    """Which operator model labelled the generator's training proofs (part of the generator's cache key)."""
    from proofbook.core.cache import fingerprint

    return fingerprint({"settings": dataclasses.asdict(settings), "train": [dataclasses.astuple(x) for x in data.train]})


def train_prover(tasks, settings: SufficiencySettings, data_dir=None, cache=None, progress: bool = True,
                 stage: str = "all") -> Prover:
    """Operator model, aligner, proof generator and sufficiency classifier, each from the artifact cache
    (trained on a miss) on the training claims of ``tasks`` and the QA-NatVer proofs.

    ``stage`` builds only part of it (each part is cached, so a full-size run can be split into commands
    of a few minutes each): ``"operators"``, ``"proofs"`` (+ the built training proofs), ``"context"`` (+ the
    aligned builder's operator model), ``"generator"``, ``"all"`` (+ the classifier); a partial stage returns None.
    """
    from proofbook.core.cache import ArtifactCache, fingerprint
    from proofbook.admiral.prover.aligned import cached_context_model, context_operator_data
    from proofbook.admiral.prover.alignment import Aligner
    from proofbook.admiral.prover.operators import cached_operator_model
    from proofbook.admiral.prover.proofgen import cached_generator, cached_training_proofs, evidence_sets

    stages = ("operators", "proofs", "context", "generator", "all")
    if stage not in stages:
        raise ValueError(f"unknown stage {stage!r}; expected one of {stages}")
    cache = cache or ArtifactCache()
    seconds = {}
    operator_model, data, seconds["operator model"] = cached_operator_model(data_dir, settings.operators, cache)
    if stage == "operators":
        return None
    aligner = Aligner()
    key = operator_key(settings.operators, data)
    proofs = cached_training_proofs(tasks, aligner, operator_model, settings.proofgen, data_dir, cache, key, progress)
    if stage == "proofs":
        return None
    context_data = context_operator_data(data_dir, data, proofs, settings.aligned)
    context_model, seconds["context operator model"] = cached_context_model(context_data, settings.aligned, cache)
    if stage == "context":
        return None
    generator, proofs, seconds["proof generator"] = cached_generator(tasks, aligner, operator_model, settings.proofgen,
                                                                     data_dir, cache, key, progress)
    if stage == "generator":
        return None
    classifier, seconds["sufficiency classifier"] = train_classifier(tasks, settings.classifier, cache)
    prover = Prover(operator_model, data, aligner, generator, proofs, classifier, seconds, settings.threshold,
                    context_model=context_model, context_data=context_data)
    if settings.calibration_claims:
        start = time.perf_counter()
        sets = evidence_sets(tasks, settings.calibration_claims, settings.proofgen.distractors,
                             settings.proofgen.max_evidence, settings.seed, skip=settings.proofgen.max_claims_per_dataset)
        key = {"generator": fingerprint([dataclasses.astuple(p) for p in proofs]), "proofgen": dataclasses.asdict(settings.proofgen),
               "beam": settings.beam, "sets": fingerprint([(s.claim_id, [x.id for x in s.sentences]) for s in sets]),
               "table": 2}
        found = cache.cache_json("natlog-threshold", key, lambda: calibrate_threshold(generator, sets, settings.beam))
        prover.threshold, prover.calibration = found["threshold"], found["table"]
        prover.classifier_calibration = calibrate_classifier(classifier, sets)
        classifier.threshold = prover.classifier_calibration["threshold"]
        prover.aligned_calibration = calibrate_aligned(prover, settings, sets)
        seconds["threshold calibration"] = time.perf_counter() - start
    return prover


def calibration_source(dataset: str | None) -> str | None:
    """The training task whose calibration selections stand for ``dataset`` (``feverous_s+distractors`` ->
    ``feverous_s``)."""
    return dataset.split("+")[0] if dataset else None


def calibrate_aligned(prover: Prover, settings: SufficiencySettings, sets) -> dict:
    """The aligned rule's score and threshold on the calibration selections: the ROC AUC of each sufficiency
    score there (``auc/proven``, ``auc/weakest``), the score used (``settings.aligned.score``, or for ``"auto"``
    the one with the higher AUC; ties: the first of :data:`~proofbook.admiral.prover.aligned.SCORES`) and its threshold
    (:func:`proofbook.admiral.prover.aligned.calibrate`) on all selections and, under ``by_source``, on each training
    task's own (the loop knows which dataset it runs on; the datasets' claims differ in length and hops)."""
    from proofbook.admiral.prover.aligned import SCORES, calibrate, roc_auc

    found = prover.aligned_prover(settings).prove_many([s.claim for s in sets], [s.evidence for s in sets])
    truth = [s.sufficient for s in sets]
    scores = {kind: [f.score(kind) for f in found] for kind in SCORES}
    aucs = {kind: roc_auc(values, truth) for kind, values in scores.items()}
    kind = settings.aligned.score
    if kind == "auto":
        kind = max(SCORES, key=lambda k: (-1.0 if aucs[k] != aucs[k] else aucs[k], -SCORES.index(k)))
    chosen = calibrate(scores[kind], truth, settings.aligned.threshold)
    by_source = {}
    for source in sorted({s.source for s in sets}):
        picked = [i for i, s in enumerate(sets) if s.source == source]
        by_source[source] = calibrate([scores[kind][i] for i in picked], [truth[i] for i in picked],
                                      settings.aligned.threshold)
    return {**chosen, "score": kind, "by_source": by_source, **{f"auc/{k}": value for k, value in aucs.items()}}


def calibrate_threshold(generator, sets, beam: int, reference: float = REFERENCE_THRESHOLD) -> dict:
    """The log-probability threshold of the reference rule that decides ``sets`` (training-claim selections
    with known sufficiency, not used to train the generator) best; ties go to the value nearest ``reference``.

    Each row of the table also holds the share called sufficient among the complete selections and among
    those missing a gold sentence: where the two are equal, the rule carries no information at that
    threshold, whatever its accuracy.

    A departure, stated in the chapter: -0.9 is calibrated to ProoFVer's BART-large; our small generator's
    length-normalised log-probabilities live on another scale, so the same rule is kept with its threshold
    chosen on training claims.
    """
    found = NatlogSufficiency(generator, beam=beam, threshold=float("-inf")).decide_many(
        [s.claim for s in sets], [list(s.sentences) for s in sets])
    scores = sorted({round(p.score, 4) for d in found for p in d.proofs})
    candidates = sorted(set([reference] + [x - 1e-4 for x in scores]))
    complete = [s.sufficient for s in sets]

    def share(decided, kind):
        picked = [d for d, c in zip(decided, complete) if c == kind]
        return sum(picked) / len(picked) if picked else 0.0

    table = []
    for threshold in candidates:
        decided = [reference_rule(d.proofs, threshold)[0] for d in found]
        accuracy = sum(a == c for a, c in zip(decided, complete)) / max(1, len(sets))
        table.append({"threshold": threshold, "accuracy": accuracy, "said_sufficient": sum(decided) / max(1, len(sets)),
                      "said_sufficient_complete": share(decided, True), "said_sufficient_incomplete": share(decided, False)})
    best = max(table, key=lambda row: (row["accuracy"], -abs(row["threshold"] - reference)))
    return {"threshold": best["threshold"], "table": table, "n": len(sets)}


def calibrate_classifier(classifier: ClassifierSufficiency, sets, reference: float = 0.5) -> dict:
    """The probability threshold of ``classifier`` that decides ``sets`` best (ties: nearest ``reference``),
    with its accuracy -- the classifier's counterpart of :func:`calibrate_threshold`, on the same selections."""
    probs = classifier.probabilities([s.claim for s in sets], [s.sentences for s in sets])
    truth = [s.sufficient for s in sets]

    def accuracy(threshold):
        return sum((p >= threshold) == t for p, t in zip(probs, truth)) / max(1, len(sets))

    candidates = sorted(set(probs) | {reference, 1.0 + 1e-9})
    best = max(candidates, key=lambda t: (accuracy(t), -abs(t - reference)))
    return {"threshold": best, "accuracy": accuracy(best), "reference_accuracy": accuracy(reference), "n": len(sets)}


def cached_traces(task, components, claims, retrieval_settings, iterations: int = 3, beam: int = 25, cache=None,
                  progress: bool = True, earlier_claims: Sequence | None = None) -> list:
    """AdMIRaL run to ``iterations`` without stopping (``suff-never``), cached; every other system is
    simulated from these traces (the loop is deterministic given its state).

    ``earlier_claims``: the claims of the experiments chapter's run (:func:`proofbook.admiral.retrieval.experiments.cached_run`
    with the book's config at this ``beam``).  When that run is in the cache and holds every one of ``claims``, its
    2-iteration traces are extended (:meth:`proofbook.admiral.retrieval.multihop.Admiral.extend`) instead of running the first
    two iterations again; otherwise the loop runs from the start.
    """
    from proofbook.core.cache import ArtifactCache
    from proofbook.admiral.retrieval import experiments

    cache = cache or ArtifactCache()
    config = experiments.book_config(iterations=iterations, beam=beam)
    key = experiments.task_key(task, claims, retrieval_settings, config)

    def build() -> list:
        admiral = experiments.build_admiral(task, components, config)
        earlier = earlier_traces(task, claims, retrieval_settings, beam, earlier_claims, cache) if earlier_claims else None
        if earlier is not None:
            return admiral.extend(earlier, progress=progress)
        return admiral.retrieve_many([c.claim for c in claims], progress=progress)

    return cache.cache_pickle("admiral-traces", key, build)


def earlier_traces(task, claims, retrieval_settings, beam: int, run_claims: Sequence, cache=None) -> list | None:
    """The experiments chapter's AdMIRaL traces for ``claims``, from its cached run on ``run_claims``; None if
    that run is not in the cache or lacks one of ``claims``."""
    from proofbook.admiral.retrieval import experiments

    run = experiments.stored_run(task, list(run_claims), retrieval_settings, experiments.book_config(beam=beam), cache)
    if run is None:
        return None
    by_id = {c.id: t for c, t in zip(run.claims, run.traces)}
    if any(c.id not in by_id or by_id[c.id].claim != c.claim for c in claims):
        return None
    return [by_id[c.id] for c in claims]


def run_systems(task, claims, traces, deciders: dict, iterations: int = 3, progress: bool = True) -> dict[str, StoppingRun]:
    """Every sufficiency system of ``deciders`` on the same traces."""
    return {name: simulate_stopping(name, traces, claims, task.dataset, decide, limit=iterations, progress=progress)
            for name, decide in deciders.items()}


def verdict_accuracy(generator, pairs, beam: int = 1, batch_size: int = 16) -> tuple[float, list[Proof | None]]:
    """Share of FEVER-Symmetric pairs whose best proof's automaton verdict equals the label (no proof: wrong)."""
    claims = [p.claim for p in pairs]
    evidence = [[("", p.evidence)] for p in pairs]
    proofs = generator.generate(claims, evidence, beam=beam, batch_size=batch_size)
    best = [found[0] if found else None for found in proofs]
    correct = [b is not None and b.verdict == p.label for b, p in zip(best, pairs)]
    return (sum(correct) / len(pairs) if pairs else 0.0), best


def verdict_rows(pairs, verdicts: Sequence[str | None], split: str, system: str, seed: int = 0) -> list[dict]:
    """``verdict_acc`` (no verdict or NOT ENOUGH INFO counts as wrong: every pair is SUPPORTS or REFUTES) and
    ``nei_share`` of ``system``'s verdicts on FEVER-Symmetric ``split``, with 95% bootstrap intervals."""
    from proofbook.core import intervals

    if len(pairs) != len(verdicts):
        raise ValueError(f"{len(pairs)} pairs but {len(verdicts)} verdicts")
    base = {"dataset": "fever_symmetric", "split": split, "system": system}
    correct = [float(v is not None and v == p.label) for v, p in zip(verdicts, pairs)]
    return (intervals.mean_rows(base, "verdict_acc", correct, seed)
            + intervals.mean_rows(base, "nei_share", [float(v in (None, NEI)) for v in verdicts], seed))


def aligned_proofs(hook: AlignedSufficiency, pairs) -> list:
    """The aligned builder's :class:`~proofbook.admiral.prover.aligned.AlignedProof` of each FEVER-Symmetric pair."""
    return hook.prover.prove_many([p.claim for p in pairs], [[("", p.evidence)] for p in pairs])


def aligned_verdicts(found, nei_threshold: float | None = None) -> list[Proof]:
    """The proof of each aligned proof's verdict (:func:`proofbook.admiral.prover.aligned.decided_verdict`), reaching it."""
    from proofbook.admiral.prover.aligned import decided_verdict

    return [f.shown(decided_verdict(f, nei_threshold)) for f in found]


# --- does a builder's score see missing evidence? ------------------------------------------------

#: the proof builders compared by calibration_auc, as named in the results files
BUILDER_SYSTEMS = ("natlog-aligned", "natlog-generated", "natlog-lexical")


def generated_score(proofs: Sequence[Proof]) -> float:
    """The generator's sufficiency score: the share of the beam's probability (``exp`` of each proof's
    length-normalised log-probability, normalised over the beam) on proofs that reach a verdict; 0 without proofs."""
    import math

    scored = [(math.exp(p.score), p.verdict != NEI) for p in proofs if p.score is not None]
    total = sum(w for w, _ in scored)
    return sum(w for w, reaches in scored if reaches) / total if total else 0.0


def builder_scores(prover: Prover, settings: SufficiencySettings, sets) -> dict[str, list[float]]:
    """Each builder's sufficiency score on each selection (:data:`BUILDER_SYSTEMS`): the aligned score, the
    generator's :func:`generated_score`, and the lexical proof's verdict (1 reaches a verdict, 0 NEI)."""
    claims, chosen = [s.claim for s in sets], [list(s.sentences) for s in sets]
    aligned = prover.aligned(settings).scores(claims, chosen)
    generated = [generated_score(d.proofs) for d in
                 NatlogSufficiency(prover.generator, beam=settings.beam, threshold=float("-inf")).decide_many(claims, chosen)]
    lexical = [float(d.sufficient) for d in LexicalSufficiency(prover.aligner).decide_many(claims, chosen)]
    return dict(zip(BUILDER_SYSTEMS, (aligned, generated, lexical)))


def calibration_auc_rows(dataset: str, split: str, sets, scores: dict[str, list[float]], seed: int = 0) -> list[dict]:
    """``calibration_auc`` of each builder: ROC AUC of its score on complete vs one-gold-sentence-removed
    selections, with a 95% bootstrap interval that resamples claims (both selections of a claim together)."""
    import numpy as np

    from proofbook.core import intervals
    from proofbook.admiral.prover.aligned import roc_auc

    truth = [s.sufficient for s in sets]
    claim_ids = sorted({s.claim_id for s in sets})
    members = {cid: [i for i, s in enumerate(sets) if s.claim_id == cid] for cid in claim_ids}
    rows = []
    for system, values in scores.items():
        def statistic(idx, values=values):
            chosen = [i for k in idx for i in members[claim_ids[k]]]
            found = roc_auc([values[i] for i in chosen], [truth[i] for i in chosen])
            return 0.5 if np.isnan(found) else found
        low, high = intervals.interval(statistic, len(claim_ids), seed)
        rows += intervals.interval_rows({"dataset": dataset, "split": split, "system": system,
                                         "metric": "calibration_auc", "value": roc_auc(values, truth), "n": len(sets)},
                                        low, high)
    return rows


ERROR_KINDS = ("alignment", "operator", "automaton", "no proof kept")


def _source(span: str, sentences: Sequence[Sentence]) -> list[Sentence]:
    from proofbook.admiral.prover.natlog import span_position

    return [s for s in sentences if span_position(span, s.text) is not None]


def error_kind(claim, sentences: Sequence[Sentence], decision: Decision, truth: bool, dataset: str) -> str | None:
    """Where a wrong decision went wrong (None if it is right):

    * ``no proof kept`` -- no beam scored above the threshold;
    * false *insufficient*: the step that sent the best kept NEI proof to NOT ENOUGH INFO is ``#`` / ``>``
      on an evidence span from a gold sentence (``operator``) or only from other sentences
      (``alignment``), or ``<`` / ``|`` after a negation (``automaton``: the table sends it to NEI);
    * false *sufficient*: a step aligned only to a non-gold sentence without ``#`` (``alignment``), else
      a missing sentence's span was not marked independent (``operator``).
    """
    if decision.sufficient == truth:
        return None
    if not decision.kept:
        return "no proof kept"
    gold = set(claim.gold_sentences)
    is_gold = (lambda s: s.id in gold) if gold and not dataset.startswith("feverous_s") else \
        (lambda s: s.title in set(claim.gold_titles))
    if truth:
        proof = next(p for p in decision.kept if p.verdict == NEI)
        path = proof.path
        step_index = next(i for i in range(len(proof.steps)) if path[i + 1] == NEI)
        step = proof.steps[step_index]
        if step.operator in "#>":
            sources = _source(step.evidence_span, sentences)
            return "operator" if any(is_gold(s) for s in sources) else "alignment"
        return "automaton"
    for proof in decision.kept:
        for step in proof.steps:
            sources = _source(step.evidence_span, sentences)
            if step.operator != "#" and sources and not any(is_gold(s) for s in sources):
                return "alignment"
    return "operator"


def prepare(data_dir=None, stage: str = "all", seed: int = 0) -> None:
    """Build the cached pieces of the full-size run one stage at a time (``python -m proofbook.admiral.prover.sufficiency STAGE``)."""
    from proofbook.admiral.retrieval.tasks import load_task

    tasks = [load_task(name, data_dir) for name in ("hover", "feverous_s")]
    train_prover(tasks, SufficiencySettings(seed=seed), data_dir, stage=stage)


if __name__ == "__main__":
    import sys

    prepare(None, sys.argv[1] if len(sys.argv) > 1 else "all")
