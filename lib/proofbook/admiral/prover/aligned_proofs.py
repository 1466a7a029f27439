"""Aligned natural-logic proofs: chunk the claim, align each chunk to an evidence span, predict its operator.

AdMIRaL (Aly & Vlachos 2022, §3.2) decides sufficiency from ProoFVer proofs, which a pretrained BART-large
*generates*.  QA-NatVer (Aly et al. 2023) builds the same proofs with small models instead: the claim is
chunked, each chunk is aligned to an evidence span, and each aligned pair gets an operator; the proof then
goes through the same automaton.  This module is that builder (``aligned``; the sufficiency rule on its proofs
is the stand-in ``suff-aligned``); the paper's ``suff-natlog`` decides on proofs from the generator
(:mod:`proofbook.admiral.prover.proofgen`).

* **Chunks** come from :func:`proofbook.admiral.prover.alignment.chunk_claim`; each chunk's ``rerank`` best evidence
  spans (1-6 words of any selected sentence) come from :class:`~proofbook.admiral.prover.alignment.Aligner`'s MiniLM
  similarity, and the operator model reranks them: the chunk keeps the candidate it is most confident the span
  *covers* (the highest probability of not ``#``).
* **The operator model** (:class:`~proofbook.admiral.prover.operators.OperatorModel`, a MiniLM cross-encoder over
  the six operators) reads the pair *in context*: ``chunk ; claim`` against ``span ; the span's sentence``,
  each context cut to 12 words either side of its span (:func:`pair_text`).  It is trained
  (:func:`context_operator_data`) on the span model's data -- QA-NatVer's silver proofs and few-shot proofs,
  class-balanced -- with their contexts (the claim; for silver proofs, whose evidence sentences are not
  released, the proof's evidence spans joined), plus the proofs built for HoVer and FEVEROUS-S training claims
  (:func:`proofbook.admiral.prover.training_proofs.build_proofs`): each chunk against its aligned span in a gold sentence with
  the span model's operator, and -- the independence examples -- the chunks whose gold sentence was removed
  from the selection against their best remaining span, labelled ``#`` (unless every content word of the chunk
  still occurs in what is left: such a label is ambiguous and left out).
* **Probabilities, not one proof.** Each step has a distribution over operators; the automaton run forward over
  them (:func:`~proofbook.admiral.prover.natlog.verdict_probabilities`) gives the probability of each verdict.  The
  sufficiency score (``score``) is either ``"proven"`` -- the probability that the proof does *not* end in NOT
  ENOUGH INFO, the reference rule's "every kept proof reaches a verdict" with every operator sequence kept,
  weighted by its probability -- ``"weakest"``, the smallest probability over the chunks that the chunk is
  covered (not ``#``), or ``"mean"``, the mean of those probabilities (the expected share of covered chunks);
  the last two do not shrink with the number of chunks, and ``"mean"`` does not hang on one chunk's error.  By
  default (``"auto"``) the score with the highest ROC AUC on the calibration selections (training claims no model
  trained on) is used (:func:`chosen_score`).  The evidence
  is sufficient iff the score reaches a threshold calibrated on the same selections (:func:`proofbook.admiral.prover.calibration.best_threshold`), as the
  generator rule's is.
  The proof shown is the most probable operator sequence that reaches the decided verdict
  (:func:`~proofbook.admiral.prover.natlog.best_operators`); its ``score`` is the mean log-probability of its operators.
* **Verdicts** (:func:`decided_verdict`): the automaton's most probable verdict, or -- for data whose evidence is
  known to suffice, such as FEVER-Symmetric -- NOT ENOUGH INFO only when its probability reaches a threshold
  chosen on labelled development pairs (:func:`tune_nei_threshold`), else the more probable of SUPPORTS and
  REFUTES.

Departures, stated: QA-NatVer predicts operators by asking a question-answering model one question per
operator and aligns with awesome-align; here one cross-encoder predicts all six and MiniLM aligns.  Silver
proofs carry no evidence sentences, so their context is reconstructed from their spans.
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from proofbook.admiral.prover import natlog
from proofbook.admiral.prover.alignment import FUNCTION_WORDS, content_words, word_matches
from proofbook.admiral.prover.operators import LABELS, OperatorData, OperatorModel
from proofbook.admiral.prover.training_proofs import build_proofs
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.core.codecs import object_codec
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig
from proofbook.data.natlog import read_fewshot_processed, read_fewshot_targets, read_silver_proofs
from proofbook.models.cross_encoder import HEAD_INIT_VERSION

SCORES = ("proven", "weakest", "mean")
INDEPENDENCE = "#"
CONTEXT_WORDS = 12          # words of context either side of a span in the operator model's input


@dataclass(frozen=True)
class ContextModelSettings(ComponentSettings):
    """How the context operator model is trained (every field keys its cache entry); defaults = the book's run."""

    CODE_VERSION = {"head": HEAD_INIT_VERSION, "batching": BATCHING_VERSION}

    seed: int = 0
    max_built_per_operator: int = 800   # built steps per source (HoVer, FEVEROUS-S) and operator (class balance)
    max_silver_per_operator: int = 300  # of the span model's silver steps, per operator
    max_length: int = 128
    epochs: int = 3
    batch_size: int = 32
    lr: float = 1e-4


@dataclass(frozen=True)
class AlignedSettings(ContextModelSettings):
    """The context operator model and the aligned builder; defaults = the book's full-size run.

    The training fields are those of :class:`ContextModelSettings` (:attr:`context_model` hands just them to
    the training); ``rerank``, ``score`` and ``threshold`` only say how the trained model is used.
    """

    rerank: int = 3                     # candidate spans per chunk that the operator model reranks
    score: str = "auto"                 # one of SCORES, or "auto": the one with the best AUC on the calibration selections
    threshold: float = 0.5              # kept when calibration is off; else chosen on the calibration selections

    def __post_init__(self) -> None:
        if self.score not in SCORES + ("auto",):
            raise ValueError(f"unknown sufficiency score {self.score!r}; expected one of {SCORES}")
        if self.rerank < 1:
            raise ValueError(f"rerank must be at least 1, got {self.rerank}")

    @property
    def context_model(self) -> ContextModelSettings:
        """The settings the context operator model is trained with (and keyed by)."""
        return ContextModelSettings(**{f.name: getattr(self, f.name) for f in dataclasses.fields(ContextModelSettings)})

    @classmethod
    def smoke(cls, seed: int = 0) -> "AlignedSettings":
        """Tiny sizes for the tests: seconds, not minutes (the model learns next to nothing)."""
        return cls(seed=seed, max_built_per_operator=12, max_silver_per_operator=12, max_length=48, epochs=1)


def chosen_score(score: str, aucs: dict[str, float]) -> str:
    """The aligned proofs' sufficiency score to use: ``score`` itself, or for ``"auto"`` the one of
    :data:`~proofbook.admiral.prover.aligned_proofs.SCORES` with the highest ROC AUC in ``aucs`` (ties, an undefined AUC
    and no AUC at all: the first of them)."""
    if score != "auto":
        return score

    def rank(name: str) -> tuple[float, int]:
        auc = aucs.get(name)
        defined = auc is not None and not math.isnan(auc)
        return (auc if defined else -1.0, -SCORES.index(name))    # higher AUC first, then the earlier score

    return max(SCORES, key=rank)


@dataclass(frozen=True)
class ContextExample:
    """One (claim chunk, evidence span) pair with its contexts and operator."""

    claim_span: str
    evidence_span: str
    operator: str
    source: str            # "silver", "fewshot", "hover", "feverous_s"
    claim_id: str
    claim: str
    sentence: str


def window(span: str, text: str, words: int = CONTEXT_WORDS) -> str:
    """``text`` cut to ``words`` words either side of the first occurrence of ``span`` (lower-cased words and
    punctuation, as :func:`proofbook.admiral.prover.natlog.normalize` splits them); the first ``2 * words`` words of
    ``text`` if the span does not occur in it."""
    tokens = natlog.normalize(text).split()
    found = natlog.span_position(span, text)
    if found is None:
        return " ".join(tokens[:2 * words])
    start, end = found
    return " ".join(tokens[max(0, start - words):end + words])


def pair_text(claim_span: str, claim: str, evidence_span: str, sentence: str) -> tuple[str, str]:
    """The operator model's input: ``chunk ; its claim context`` and ``span ; its sentence context`` (each
    context a :func:`window` around the span)."""
    return f"{claim_span} ; {window(claim_span, claim)}", f"{evidence_span} ; {window(evidence_span, sentence)}"


def _pair(x: ContextExample) -> tuple[str, str]:
    return pair_text(x.claim_span, x.claim, x.evidence_span, x.sentence)


def _contexts(data_dir) -> dict[int, tuple[str, str]]:
    """Claim id -> (claim, evidence) for the QA-NatVer proofs: the few-shot claims' own text where the processed
    file has it, else the proof's claim spans and evidence spans joined."""

    found: dict[int, tuple[str, str]] = {}
    for proof in list(read_silver_proofs(data_dir)) + list(read_fewshot_targets(data_dir)):
        found.setdefault(proof.claim_id, (" ".join(s.claim_span for s in proof.steps),
                                          " ".join(s.evidence_span for s in proof.steps)))
    for example in read_fewshot_processed(data_dir):
        found[example.claim_id] = (example.claim, example.evidence)
    return found


def sentence_of(span: str, evidence: Sequence[tuple[str, str]]) -> str:
    """The first evidence sentence holding ``span`` (case and spacing ignored); the span itself if none does."""
    target = natlog.normalize(span)
    for _, text in evidence:
        if target and target in natlog.normalize(text):
            return text
    return span


def _still_covered(claim_span: str, evidence: Sequence[tuple[str, str]]) -> bool:
    """Whether every content word of ``claim_span`` occurs in the evidence (lower-cased): a chunk whose gold
    sentence was removed but whose words all appear in what is left may well be covered still."""
    words = content_words(word_matches(claim_span))
    present = {w.group().lower() for _, text in evidence for w in word_matches(text)}
    return bool(words) and words <= present


def built_examples(proofs, sources: Sequence[str] = ("hover", "feverous_s")) -> tuple[list[ContextExample], int]:
    """Context examples from built training proofs: every step of a complete selection's proof, and the ``#``
    steps of an incomplete one (its other steps repeat the complete proof's) -- except a ``#`` chunk whose
    content words all occur in the remaining evidence (:func:`_still_covered`: an ambiguous label, left out).
    Also the number of proofs passed over because their text cannot be read back (an evidence span holding the
    format's braces, e.g. corpus markup such as ``{'1``)."""
    out, unreadable = [], 0
    for p in proofs:
        if p.source not in sources:
            continue
        try:
            steps = natlog.Proof.parse(p.target).steps
        except natlog.ProofError:
            unreadable += 1
            continue
        for step in steps:
            if p.sufficient or (step.operator == INDEPENDENCE and not _still_covered(step.claim_span, p.evidence)):
                out.append(ContextExample(step.claim_span, step.evidence_span, step.operator, p.source,
                                          f"{p.source}:{p.claim_id}", p.claim, sentence_of(step.evidence_span, p.evidence)))
    return out, unreadable


@dataclass
class ContextData:
    """The context operator model's training and held-out examples (:func:`context_operator_data`),
    with per-operator counts."""
    train: list[ContextExample]
    heldout: list[ContextExample]                                    # QA-NatVer held-out steps, with contexts
    counts: dict[str, dict[str, int]] = field(default_factory=dict)   # part -> operator -> examples
    unreadable: int = 0                                              # built proofs passed over (built_examples)


def context_operator_data(data_dir, span_data: OperatorData, proofs, settings: ContextModelSettings) -> ContextData:
    """The span model's training steps (its silver ones at most ``max_silver_per_operator`` per operator) and
    held-out steps with their contexts, plus the built HoVer / FEVEROUS-S steps (at most
    ``max_built_per_operator`` per source and operator); every draw with the seed."""
    contexts = _contexts(data_dir)

    def with_context(x) -> ContextExample:
        claim, evidence = contexts.get(x.claim_id, (x.claim_span, x.evidence_span))
        return ContextExample(x.claim_span, x.evidence_span, x.operator, x.source, str(x.claim_id), claim,
                              sentence_of(x.evidence_span, [("", evidence)]))

    rng = random.Random(settings.seed)
    groups: dict[tuple[str, str], list] = defaultdict(list)
    examples, unreadable = built_examples(proofs)
    for x in examples:
        groups[(x.source, x.operator)].append(x)
    for x in span_data.train:
        if x.source == "silver":
            groups[("silver", x.operator)].append(with_context(x))
    train = [with_context(x) for x in span_data.train if x.source != "silver"]
    for (source, _), items in sorted(groups.items()):
        rng.shuffle(items)
        train += items[:settings.max_silver_per_operator if source == "silver" else settings.max_built_per_operator]
    rng.shuffle(train)
    heldout = [with_context(x) for x in span_data.heldout]
    counts = {name: dict(Counter(x.operator for x in part)) for name, part in (("train", train), ("heldout", heldout))}
    return ContextData(train, heldout, counts, unreadable)


def train_context_model(data: ContextData, settings: ContextModelSettings) -> OperatorModel:
    """Fine-tune a MiniLM :class:`OperatorModel` on ``data.train``, in context (:func:`pair_text`)."""

    model = OperatorModel.new(settings.max_length, seed=settings.seed)
    config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr, seed=settings.seed)
    model.encoder.fit([_pair(x) for x in data.train], [x.operator for x in data.train], config=config)
    return model


def cached_context_model(data: ContextData, settings: ContextModelSettings, cache=None) -> tuple[OperatorModel, float]:
    """The context operator model from the cache (kind ``natlog-context-operator-model``; trained on a miss)."""

    cache = cache or ArtifactCache()
    key = settings.cache_config(train=fingerprint([dataclasses.astuple(x) for x in data.train]))
    start = time.perf_counter()
    model = cache.get_or_build("natlog-context-operator-model", key, lambda: train_context_model(data, settings),
                               *object_codec(OperatorModel))
    return model, time.perf_counter() - start


def heldout_predictions(model: OperatorModel, examples: Sequence[ContextExample]) -> list[str]:
    """The model's operator for each example's pair in context (:func:`pair_text`); empty for no examples."""
    return model.predict([_pair(x) for x in examples]) if examples else []


def independence_examples(sets, aligner, span_model) -> tuple[list[ContextExample], int]:
    """Held-out pairs of evaluation-split claims (``dataset independence-heldout``): the steps of each complete
    selection's built proof, and the ``#`` steps of the chunks whose gold sentence was removed (and the count of
    unreadable proofs, as :func:`built_examples`)."""

    return built_examples(build_proofs(sets, aligner, span_model, progress=False),
                          sources=tuple(sorted({s.source for s in sets})))


# --- the builder --------------------------------------------------------------------------------

@dataclass
class AlignedProof:
    """One aligned proof with the probabilities behind it."""

    proof: natlog.Proof
    probabilities: list[dict[str, float]]     # per step: operator -> probability
    verdicts: dict[str, float]                # verdict -> probability (the automaton run forward)
    covered: list[float]                      # per step: probability that the chunk is covered (not #)

    def score(self, kind: str) -> float:
        """The sufficiency score ``"proven"`` (P(verdict is not NEI)), ``"weakest"`` (min P(covered)) or
        ``"mean"`` (mean P(covered)); a proof without steps scores 0 on the last two."""
        if kind == "proven":
            return 1.0 - self.verdicts[natlog.NEI]
        if kind == "weakest":
            return min(self.covered) if self.covered else 0.0
        if kind == "mean":
            return sum(self.covered) / len(self.covered) if self.covered else 0.0
        raise ValueError(f"unknown sufficiency score {kind!r}; expected one of {SCORES}")

    def shown(self, verdict: str) -> natlog.Proof:
        """The most probable operator sequence that reaches ``verdict`` (over the same spans)."""
        logs = [{op: math.log(max(p, 1e-9)) for op, p in step.items()} for step in self.probabilities]
        ops = natlog.best_operators(logs, verdict)
        mean = sum(step[op] for step, op in zip(logs, ops)) / max(1, len(ops))
        return natlog.Proof.from_triples([(s.claim_span, s.evidence_span, op) for s, op in zip(self.proof.steps, ops)],
                                         self.proof.claim, self.proof.evidence, mean)


def _has_content(claim: str) -> bool:
    return any(w.group().lower() not in FUNCTION_WORDS for w in word_matches(claim))


class AlignedProver:
    """Chunk, align (then rerank by coverage), and predict each pair's operator in context (module docstring)."""

    def __init__(self, aligner, model: OperatorModel, rerank: int = 3, batch_size: int = 64):
        if list(model.encoder.labels) != list(LABELS):
            raise ValueError(f"an operator model needs labels {list(LABELS)}, got {model.encoder.labels}")
        self.aligner, self.model, self.rerank, self.batch_size = aligner, model, rerank, batch_size

    def prove_many(self, claims: Sequence[str], evidence: Sequence[Sequence[tuple[str, str]]]) -> list[AlignedProof]:
        """One :class:`AlignedProof` per claim from its ``(title, sentence)`` evidence (at least one sentence)."""
        if len(claims) != len(evidence):
            raise ValueError(f"prove_many: {len(claims)} claims but {len(evidence)} evidence lists")
        for i, (claim, sentences) in enumerate(zip(claims, evidence)):
            if not _has_content(claim):
                raise ValueError(f"claim {i} has no content word to prove: {claim!r}")
            if not sentences:
                raise ValueError(f"claim {i}: no evidence sentence to align to ({claim[:60]!r})")
        if not claims:
            return []
        texts = [[text for _, text in sentences] for sentences in evidence]
        candidates = self.aligner.candidates_many(list(claims), texts, k=self.rerank)
        pairs = [pair_text(a.chunk, claim, a.evidence_span, sentences[a.sentence])
                 for claim, sentences, row in zip(claims, texts, candidates) for found in row for a in found]
        flat = iter(self.model.predict_proba(pairs, batch_size=self.batch_size))
        independent = LABELS.index(INDEPENDENCE)
        out = []
        for claim, sentences, row in zip(claims, evidence, candidates):
            triples, probabilities, covered = [], [], []
            for found in row:
                scored = [(a, next(flat)) for a in found]
                best, p = max(scored, key=lambda pair: 1.0 - pair[1][independent])   # first of equals: the aligner's best
                step = {op: float(x) for op, x in zip(LABELS, p)}
                probabilities.append(step)
                covered.append(1.0 - step[INDEPENDENCE])
                triples.append((best.chunk, best.evidence_span, max(step, key=step.get)))
            verdicts = natlog.verdict_probabilities(probabilities)
            argmax = natlog.Proof.from_triples(triples, claim, tuple(sentences))
            out.append(AlignedProof(argmax, probabilities, verdicts, covered))
        return out


def decided_verdict(found: AlignedProof, nei_threshold: float | None = None) -> str:
    """The verdict of an aligned proof.  ``nei_threshold`` None: the automaton's most probable verdict over the
    step distributions; else NOT ENOUGH INFO iff its probability reaches ``nei_threshold``, and otherwise the more
    probable of SUPPORTS and REFUTES (the verdict given that the proof reaches one)."""
    if nei_threshold is None:
        return max(found.verdicts, key=found.verdicts.get)
    if found.verdicts[natlog.NEI] >= nei_threshold:
        return natlog.NEI
    return reached_verdict(found)


def reached_verdict(found: AlignedProof) -> str:
    """The more probable of SUPPORTS and REFUTES: the verdict given that the proof reaches one."""
    return max((natlog.SUPPORTS, natlog.REFUTES), key=found.verdicts.get)


def tune_nei_threshold(found: Sequence[AlignedProof], labels: Sequence[str]) -> dict:
    """The ``nei_threshold`` of :func:`decided_verdict` with the best verdict accuracy on labelled proofs (ties:
    the highest threshold, i.e. the fewest NOT ENOUGH INFO answers); a value above 1 never answers NEI."""
    if len(found) != len(labels):
        raise ValueError(f"{len(found)} proofs but {len(labels)} labels")
    candidates = sorted({f.verdicts[natlog.NEI] for f in found} | {1.0 + 1e-9})

    def accuracy(t):
        return sum(decided_verdict(f, t) == y for f, y in zip(found, labels)) / max(1, len(labels))

    best = max(candidates, key=lambda t: (accuracy(t), t))
    return {"nei_threshold": best, "accuracy": accuracy(best), "argmax_accuracy":
            sum(decided_verdict(f) == y for f, y in zip(found, labels)) / max(1, len(labels)), "n": len(labels)}
