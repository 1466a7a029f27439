"""The proof generator: a seq2seq model writing ProoFVer proofs, decoded under claim/evidence constraints.

AdMIRaL (Aly & Vlachos 2022, §3.2) generates a natural-logic proof for the claim and the selected
sentences and reads sufficiency off the proofs (:mod:`proofbook.admiral.prover.sufficiency`).  As in ProoFVer
(Krishna, Riedel & Vlachos 2022):

* **input** ``claim </s> Title ; evidence1 </s> Title ; evidence2 ...`` (:func:`proof_input`);
* **output** the proof string ``{ claim span } [ evidence span ] OP ...``;
* **constrained decoding** (:func:`proof_constraint`, on :mod:`proofbook.index.prefix_tree`): each
  triple is a claim span from a trie of the claim's 1-6-word n-grams, an evidence span from a trie of
  the evidence sentences' 1-6-word n-grams, then one of the six operators; triples repeat, then EOS.

**Training proofs** (:func:`training_proofs`): the few-shot gold-like proofs of QA-NatVer (with their
evidence), plus proofs built here for the training claims of HoVer and FEVEROUS-S: the claim is chunked
and each chunk aligned to a gold evidence sentence's span (:mod:`proofbook.admiral.prover.alignment`), and the
operator model labels each pair (:mod:`proofbook.admiral.prover.operators`) -- choosing, as ProoFVer's heuristic
proofs do, the model's most probable operator sequence that reaches the claim's gold verdict.  For every such
claim a second,
*insufficient* input drops one gold sentence (a distractor takes its place); the steps that were aligned
to the dropped sentence are re-aligned to what is left and get independence ``#`` -- the paper's way of
teaching the prover that missing evidence leaves the claim unproven.  Every input also holds
``distractors`` sentences from other pages, shuffled with the gold ones.

Departures, stated: by default the claim spans are the claim's chunks in order (one triple each), which
enforces "in claim order" token by token -- with the free n-gram trie (``claim_spans="ngrams"``) a small
model repeats frequent n-grams out of order and such beams can only be dropped after decoding (measured:
all beams of our CPU-trained generator); spans are lower-cased by the uncased tokenizer; the
model is :class:`proofbook.models.seq2seq.Seq2Seq`, not BART-large: by default (``backend="copy"``) a small
BART trained from scratch with a copy pointer (:class:`proofbook.models.pointer.CopyBart`, See et al. 2017);
also the plain small BART (``"scratch"``), MiniLM warm-started, or a frozen MiniLM encoder with a small decoder.
The paper's path, fine-tuning a pretrained seq2seq model such as BART-large, is ``backend="checkpoint"`` with
``checkpoint`` a local folder: the model hubs cannot be reached here, so it is tested on a tiny local BART only.

What the small model does not learn (development measurements on the 120 calibration selections of
:func:`proofbook.admiral.prover.calibration.calibrate_threshold`, 30 HoVer + 30 FEVEROUS-S claims, each complete and
missing one gold sentence; throwaway scripts, not part of the book's runs):

* the plain scratch generator with inputs cut at 256 tokens and proofs at 128 (which cut 23% of the
  training inputs, 15% of the evidence spans its targets copy, and 29% of the target proofs) ends 11% of its
  beams in NOT ENOUGH INFO on complete selections and 11% on incomplete ones, and the reference rule's
  "sufficient" shares on the two kinds never differ by more than 0.03 at any threshold: it does not see which
  claim spans the evidence covers.  With 384 / 256 tokens the largest gap is 0.07; its training loss stays
  near 3.6 nats per token;
* the copy generator (the default; 384 / 256 tokens, length-pooled batches, 6 epochs, 450-630 s of training)
  ends its training near 1.3 nats per token and copies content spans ("paul rudd", "who would be king"), and
  its scores sit near the reference scale (chosen threshold -1.17 against the reference -0.9).  But 93 of its
  295 beams on complete selections and 92 of 295 on incomplete ones end in NOT ENOUGH INFO, 97% of the steps
  of its best proofs are ``=`` although a fifth of the training steps are ``#``, and the rule's shares differ by
  at most 0.10: it copies spans without judging whether they cover the claim's.  Relabelling each of its steps
  with the operator model's most probable operator instead sends about 94% of the beams of both kinds to NOT
  ENOUGH INFO (mostly ``|`` and ``#`` on its span pairs), a gap of at most 0.02;
* a frozen MiniLM encoder with a small trained decoder (``backend="frozen-encoder"``, 3 layers, d_model 256,
  5 epochs, MiniLM's vocabulary; 900 s of training on a shared CPU) ends 15% and 25% of its beams in NOT ENOUGH INFO, a gap of
  at most 0.13 in the rule's shares -- a weak signal on 60 + 60 selections.  In a full run of the two
  chapters (6 epochs) it raised `suff-natlog`'s HoVer suff_f1 from 0.08 to 0.21, but its threshold, calibrated
  on accuracy, stopped earlier (1.69 iterations, recall@5 0.59) and the chapters took 1339 s instead of 999 s;
* both the plain scratch and the frozen-encoder generators write evidence spans that are mostly function words
  ("is", "and", "in the") where the training proofs hold content spans: neither learns to copy from the
  evidence in a few hundred steps -- the reason for the copy pointer.

With the plain scratch generator and 5 epochs instead of 6 (a minute less), a full run of the two chapters
ended `suff-natlog` at HoVer recall@5 0.62 instead of 0.63 and FEVEROUS-S 0.94 instead of 0.95, with
FEVER-Symmetric verdicts unchanged.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import time
from dataclasses import dataclass
from typing import Sequence

from tqdm.auto import tqdm

from proofbook.admiral.prover.alignment import chunk_claim
from proofbook.admiral.prover.natlog import OPERATORS, Proof, ProofError, ProofStep, best_operators, format_proof
from proofbook.core.cache import ArtifactCache, file_fingerprint, fingerprint, object_codec
from proofbook.core.training import TrainConfig
from proofbook.data.natlog import read_fewshot_processed
from proofbook.index.prefix_tree import PrefixTree, Segment, SequenceConstraint, encode_segments
from proofbook.models.loading import WORDPIECE_VERSION, train_wordpiece
from proofbook.models.seq2seq import Seq2Seq

MAX_NGRAM = 6
#: the generator's :class:`~proofbook.models.seq2seq.Seq2Seq` backends (``ProofgenSettings.backend``)
BACKENDS = ("scratch", "copy", "warm-start", "frozen-encoder", "checkpoint")
_WORDS = re.compile(r"\w+(?:['’\-.]\w+)*", re.UNICODE)
Evidence = Sequence[tuple[str, str]]       # (title, sentence) pairs


def clean(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces: proof strings are one line."""
    return " ".join(text.split())


def proof_input(claim: str, evidence: Evidence, separator: str = "</s>") -> str:
    """``claim </s> Title ; evidence1 </s> Title ; evidence2 ...`` (ProoFVer's encoder input)."""
    parts = [clean(claim)] + [clean(f"{title} ; {sentence}" if title else sentence) for title, sentence in evidence]
    return f" {separator} ".join(parts)


def ngrams(text: str, max_words: int = MAX_NGRAM) -> list[str]:
    """Every run of 1..max_words consecutive words of ``text``, as substrings (inner punctuation kept), in text order."""
    words = list(_WORDS.finditer(text))
    out = []
    for start in range(len(words)):
        for end in range(start + 1, min(len(words), start + max_words) + 1):
            out.append(clean(text[words[start].start():words[end - 1].end()]))
    return list(dict.fromkeys(out))


def proof_constraint(tokenizer, claim: str, evidence: Evidence, eos_token_id: int, max_steps: int | None = None,
                     claim_spans: str = "chunks"):
    """The :class:`~proofbook.index.prefix_tree.SequenceConstraint` of a proof of ``claim`` from ``evidence``.

    ``claim_spans="ngrams"``: ``({ claim n-gram } [ evidence n-gram ] OP)+`` -- any 1-6-word claim n-gram
    in each triple (claim order is then checked after decoding); ``"chunks"`` (default): the claim spans
    are the claim's chunks (:func:`~proofbook.admiral.prover.alignment.chunk_claim`, 1-6-word n-grams) in claim
    order, one triple each, so every output covers the claim in order -- the order the paper asks for,
    enforced token by token.  Evidence spans come from the trie of evidence n-grams; after ``]`` only an
    operator.
    """

    if claim_spans not in ("chunks", "ngrams"):
        raise ValueError(f"claim_spans must be 'chunks' or 'ngrams', got {claim_spans!r}")
    claim_grams = ngrams(claim) if claim_spans == "ngrams" else [clean(c) for c in chunk_claim(claim)]
    evidence_grams = list(dict.fromkeys(g for _, sentence in evidence for g in ngrams(sentence)))
    if not claim_grams:
        raise ProofError(f"the claim has no words to prove: {claim!r}")
    if not evidence_grams:
        raise ProofError(f"no evidence words to align the claim {claim[:60]!r} to")

    def tree(texts):
        built = PrefixTree()
        for text, ids in zip(texts, encode_segments(tokenizer, texts)):
            if ids:
                built.add(ids, text)
        return built

    evidence_tree, operator_tree = tree([f"[ {g} ]" for g in evidence_grams]), tree(list(OPERATORS))
    if claim_spans == "chunks":
        segments = []
        for number, chunk in enumerate(claim_grams):
            segments += [Segment(tree([f"{{ {chunk} }}"]), name=f"claim{number}"), Segment(evidence_tree, name="evidence"),
                         Segment(operator_tree, name="operator")]
        return SequenceConstraint(segments, eos_token_id, min_cycles=1, max_cycles=1)
    steps = max_steps or min(12, len(_WORDS.findall(claim)))
    segments = [Segment(tree([f"{{ {g} }}" for g in claim_grams]), name="claim"), Segment(evidence_tree, name="evidence"),
                Segment(operator_tree, name="operator")]
    return SequenceConstraint(segments, eos_token_id, min_cycles=1, max_cycles=steps)


# --- training data ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingProof:
    """One training pair of the generator, with where it came from."""

    claim: str
    evidence: tuple[tuple[str, str], ...]
    target: str
    sufficient: bool          # the input holds every gold sentence (few-shot: always True)
    source: str               # "fewshot", "hover", "feverous_s"
    claim_id: str

    @property
    def input(self) -> str:
        return proof_input(self.claim, self.evidence)


@dataclass(frozen=True)
class ProofgenSettings:
    """How the generator is trained; the defaults are the book's full-size run."""

    seed: int = 0
    max_claims_per_dataset: int = 250
    distractors: int = 1
    max_evidence: int = 5
    fewshot_repeat: int = 2
    verdict_constrained: bool = True  # complete-evidence proofs reach the claim's label (see build_proofs)
    max_fewshot: int | None = None    # at most this many few-shot proofs (None: all 162)
    backend: str = "copy"             # one of BACKENDS: small BART / + a copy pointer / MiniLM encoder-decoder / frozen MiniLM + decoder / a local checkpoint
    checkpoint: str | None = None     # backend "checkpoint": a local pretrained seq2seq folder to fine-tune (ProoFVer: BART-large)
    vocab_size: int | None = 4000     # scratch: a WordPiece vocabulary trained on the proofs (None: MiniLM's)
    d_model: int = 256
    layers: int = 3
    epochs: int = 6
    batch_size: int = 16
    lr: float = 5e-4
    max_input_length: int = 384       # 256 cut 23% of the training inputs and 15% of their evidence spans
    max_target_length: int = 256      # 128 cut 29% of the training proofs (and every proof of a long claim)
    length_pool: int = 20             # batches of similar length (TrainConfig.length_pool); 0: random batches

    @classmethod
    def smoke(cls, seed: int = 0) -> "ProofgenSettings":
        return cls(seed=seed, max_claims_per_dataset=4, fewshot_repeat=1, max_fewshot=8, epochs=1,
                   max_input_length=64, max_target_length=40)


def _rng(seed: int, key: str) -> random.Random:
    return random.Random(int(hashlib.sha1(f"{seed}:{key}".encode()).hexdigest(), 16))


def fewshot_proofs(data_dir=None) -> list[TrainingProof]:
    """QA-NatVer's processed few-shot proofs with gold evidence (FEVER train claims), one per proof variant."""

    out = []
    for example in read_fewshot_processed(data_dir, num_samples=64, use_retr="False"):
        out.append(TrainingProof(example.claim, tuple(example.evidence_sentences), format_proof(example.steps), True,
                                 "fewshot", str(example.claim_id)))
    return out


@dataclass(frozen=True)
class EvidenceSet:
    """A claim with a selection of sentences: all gold ones (``missing`` None) or all but gold sentence ``missing``."""

    claim: str
    claim_id: str
    sentences: tuple                  # proofbook.core.corpus.Sentence, gold and distractors shuffled
    gold: tuple                       # the gold Sentence objects present
    missing: object = None            # the dropped gold Sentence, if any
    source: str = ""
    label: str = ""                   # the claim's dataset label (SUPPORTED, refutes, ...)

    @property
    def sufficient(self) -> bool:
        return self.missing is None

    @property
    def evidence(self) -> tuple[tuple[str, str], ...]:
        return tuple((s.title, s.text) for s in self.sentences)


def evidence_sets(tasks, max_claims: int, distractors: int, max_evidence: int, seed: int = 0,
                  claims_per_task: dict | None = None, skip: int = 0) -> list[EvidenceSet]:
    """For each training claim (at most ``max_claims`` per task): a sufficient and an insufficient selection.

    Distractors are sentences of other pages of the same corpus, drawn with ``seed``; the insufficient
    selection drops one gold sentence (drawn) and adds one more distractor in its place.  ``skip`` passes
    over the first claims of the seeded order (the generator trains on the first ``max_claims``; the
    threshold calibration takes the next ones).
    """
    out = []
    for task in tasks:
        claims = (claims_per_task or {}).get(task.dataset) or task.train
        # a seeded order, not file order (HoVer's file is grouped by label)
        claims = sorted(claims, key=lambda c: hashlib.sha1(f"{seed}:order:{c.id}".encode()).hexdigest())
        claims = [c for c in claims if c.gold_sentences][skip:]
        titles = task.corpus.titles
        kept = 0
        for claim in claims:
            if kept >= max_claims:
                break
            gold = [task.corpus.sentence(sid) for sid in claim.gold_sentences][:max_evidence - 1]
            if not gold:
                continue
            kept += 1
            rng = _rng(seed, f"{task.dataset}:{claim.id}")
            pool = [t for t in rng.sample(titles, min(len(titles), 8)) if t not in claim.gold_titles]
            noise = []
            for title in pool:
                doc = task.corpus[title]
                if doc.sentences:
                    noise.append(doc.sentence(rng.randrange(len(doc.sentences))))
                if len(noise) >= distractors + 1:
                    break
            full = gold + noise[:max(0, min(distractors, max_evidence - len(gold)))]
            rng.shuffle(full)
            out.append(EvidenceSet(claim.claim, claim.id, tuple(full), tuple(gold), None, task.dataset, claim.label))
            drop = rng.randrange(len(gold))
            partial = [s for s in full if s != gold[drop]] + noise[distractors:distractors + 1]
            rng.shuffle(partial)
            out.append(EvidenceSet(claim.claim, claim.id, tuple(partial), tuple(g for i, g in enumerate(gold) if i != drop),
                                   gold[drop], task.dataset, claim.label))
    return out


def target_verdict(label: str) -> str | None:
    """The verdict a proof of complete evidence must reach: SUPPORTS for a supported claim, REFUTES for a
    refuted / not supported one (HoVer's NOT_SUPPORTED claims come with their full evidence), else None."""
    label = label.strip().upper().replace(" ", "_")
    if label in ("SUPPORTED", "SUPPORTS"):
        return "SUPPORTS"
    if label in ("REFUTED", "REFUTES", "NOT_SUPPORTED"):
        return "REFUTES"
    return None


def build_proofs(sets: Sequence[EvidenceSet], aligner, operator_model, progress: bool = True,
                 verdict_constrained: bool = True) -> list[TrainingProof]:
    """Chunk, align and label: a sufficient set's proof aligns chunks to its gold sentences and asks the
    operator model; an insufficient set's proof is the same, with the chunks that were aligned to the
    missing sentence re-aligned to the remaining sentences and given ``#``.

    With ``verdict_constrained`` the operators of a complete-evidence proof are the operator model's most
    probable sequence *that reaches the claim's label* (:func:`~proofbook.admiral.prover.natlog.best_operators`), as
    ProoFVer's heuristic training proofs always reach the gold verdict; without it, each pair's argmax.
    """
    import numpy as np


    out: list[TrainingProof] = []
    full_sets = [s for s in sets if s.sufficient]
    by_claim = {(s.source, s.claim_id): s for s in full_sets}
    batch = 32
    alignments: dict[tuple[str, str], list] = {}
    for first in tqdm(range(0, len(full_sets), batch), desc="align gold evidence", disable=not progress):
        chunk = full_sets[first:first + batch]
        rows = aligner.align_many([s.claim for s in chunk], [[g.text for g in s.gold] for s in chunk])
        for s, row in zip(chunk, rows):
            alignments[(s.source, s.claim_id)] = row
    pairs = [(a.chunk, a.evidence_span) for row in alignments.values() for a in row]
    probabilities = iter(operator_model.predict_proba(pairs)) if pairs else iter(())
    labels = list(operator_model.encoder.labels) if hasattr(operator_model, "encoder") else list(OPERATORS)
    labelled = {}
    for key, row in alignments.items():
        steps = [dict(zip(labels, np.log(np.clip(next(probabilities), 1e-9, 1.0)).tolist())) for _ in row]
        target = target_verdict(by_claim[key].label) if verdict_constrained else None
        labelled[key] = best_operators(steps, target)
    lost: dict[int, list[str]] = {}
    for n, s in enumerate(sets):
        key = (s.source, s.claim_id)
        if not s.sufficient and key in alignments:
            missing_index = by_claim[key].gold.index(s.missing)
            chunks = [a.chunk for a in alignments[key] if a.sentence == missing_index]
            if chunks:   # nothing aligned to the dropped sentence: the variant says nothing, drop it
                lost[n] = chunks
    realigned: dict[int, dict[str, object]] = {}
    order = list(lost)
    for first in tqdm(range(0, len(order), batch), desc="re-align partial evidence", disable=not progress):
        part = order[first:first + batch]
        rows = aligner.align_many([sets[n].claim for n in part], [[x.text for x in sets[n].sentences] for n in part],
                                  chunks=[lost[n] for n in part])
        for n, row in zip(part, rows):
            realigned[n] = {a.chunk: a for a in row}
    for n, s in enumerate(sets):
        key = (s.source, s.claim_id)
        if key not in alignments or (not s.sufficient and n not in realigned):
            continue
        redo = realigned.get(n, {})
        steps = [ProofStep(clean(a.chunk), clean(redo[a.chunk].evidence_span), "#") if a.chunk in redo
                 else ProofStep(clean(a.chunk), clean(a.evidence_span), op) for a, op in zip(alignments[key], labelled[key])]
        out.append(TrainingProof(s.claim, s.evidence, format_proof(steps), s.sufficient, s.source, s.claim_id))
    return out


# --- the generator ------------------------------------------------------------------------------

class ProofGenerator:
    """A :class:`~proofbook.models.seq2seq.Seq2Seq` that writes proofs, with constrained decoding."""

    def __init__(self, seq2seq):
        self.seq2seq = seq2seq

    def __repr__(self) -> str:
        return f"ProofGenerator({self.seq2seq!r})"

    @classmethod
    def new(cls, settings: ProofgenSettings = ProofgenSettings(), texts: Sequence[str] = ()) -> "ProofGenerator":
        """An untrained generator; a scratch model with ``settings.vocab_size`` learns its vocabulary from
        ``texts`` (the training inputs and proofs)."""

        lengths = dict(max_input_length=settings.max_input_length, max_target_length=settings.max_target_length)
        if settings.backend == "checkpoint":
            if not settings.checkpoint:
                raise ValueError("backend 'checkpoint' needs ProofgenSettings.checkpoint: a local seq2seq folder "
                                 "(e.g. facebook/bart-large, downloaded beforehand)")
            return cls(Seq2Seq.from_checkpoint(settings.checkpoint, **lengths))
        kwargs = dict(seed=settings.seed, **lengths)
        if settings.backend == "warm-start":
            return cls(Seq2Seq.warm_start("minilm", **kwargs))
        if settings.backend == "frozen-encoder":
            return cls(Seq2Seq.frozen_encoder("minilm", d_model=settings.d_model, layers=settings.layers, **kwargs))
        if settings.backend not in ("scratch", "copy"):
            raise ValueError(f"unknown backend {settings.backend!r}; expected one of {BACKENDS}")
        tokenizer = "minilm"
        if settings.vocab_size:
            if not texts:
                raise ValueError("a scratch generator with its own vocabulary needs the training texts")
            tokenizer = train_wordpiece(texts, settings.vocab_size)
        return cls(Seq2Seq.from_scratch(tokenizer, d_model=settings.d_model, layers=settings.layers,
                                        copy=settings.backend == "copy", **kwargs))

    def fit(self, proofs: Sequence[TrainingProof], settings: ProofgenSettings, dev: Sequence[TrainingProof] = ()):

        config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr, warmup_ratio=0.1,
                             seed=settings.seed, patience=2 if dev else None, length_pool=settings.length_pool)
        return self.seq2seq.fit([(p.input, p.target) for p in proofs], config,
                                dev_pairs=[(p.input, p.target) for p in dev] or None)

    def constraint(self, claim: str, evidence: Evidence, claim_spans: str = "chunks"):
        return proof_constraint(self.seq2seq.tokenizer, claim, evidence, self.seq2seq.eos_token_id,
                                claim_spans=claim_spans)

    def generate(self, claims: Sequence[str], evidence: Sequence[Evidence], beam: int = 5, num_return: int | None = None,
                 constrained: bool = True, batch_size: int = 8, claim_spans: str = "chunks") -> list[list[Proof]]:
        """Proofs per claim, best first; beams that do not read as a proof of the claim are dropped
        (:attr:`dropped` counts them)."""
        if len(claims) != len(evidence):
            raise ValueError(f"generate: {len(claims)} claims but {len(evidence)} evidence lists")
        inputs = [proof_input(c, e) for c, e in zip(claims, evidence)]
        constraints = [self.constraint(c, e, claim_spans) for c, e in zip(claims, evidence)] if constrained else None
        outputs = self.seq2seq.generate(inputs, beam=beam, num_return=num_return or beam, constraints=constraints,
                                        batch_size=batch_size)
        self.dropped = 0
        results = []
        for claim, ev, beams in zip(claims, evidence, outputs):
            proofs = []
            for generated in beams:
                try:
                    proofs.append(Proof.parse(generated.text, claim=claim, evidence=tuple(ev), score=generated.score))
                except ProofError:
                    self.dropped += 1
            results.append(proofs)
        return results

    def save(self, folder):
        return self.seq2seq.save(folder)

    @classmethod
    def load(cls, folder, device: str | None = None) -> "ProofGenerator":

        return cls(Seq2Seq.load(folder, device=device))


def training_proofs(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None,
                    progress: bool = True) -> list[TrainingProof]:
    """The few-shot proofs (repeated ``fewshot_repeat`` times) plus proofs built for the tasks' training claims."""
    sets = evidence_sets(tasks, settings.max_claims_per_dataset, settings.distractors, settings.max_evidence,
                         settings.seed)
    built = build_proofs(sets, aligner, operator_model, progress=progress, verdict_constrained=settings.verdict_constrained)
    return fewshot_proofs(data_dir)[:settings.max_fewshot] * settings.fewshot_repeat + built


def _data_key(tasks, settings: ProofgenSettings, operator_key: str) -> dict:

    return {"settings": dataclasses.asdict(settings), "operator_model": operator_key,
            "tasks": fingerprint([(t.dataset, sorted(c.id for c in t.train),
                                   t.corpus.n_sentences()) for t in tasks])}


def cached_training_proofs(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None, cache=None,
                           operator_key: str = "", progress: bool = True) -> list[TrainingProof]:
    """:func:`training_proofs` from the artifact cache (``natlog-training-proofs``; built on a miss).

    The key holds the settings, the tasks' training claims and ``operator_key`` (which operator model
    labelled the pairs)."""

    cache = cache or ArtifactCache()
    return cache.cache_pickle("natlog-training-proofs", _data_key(tasks, settings, operator_key),
                              lambda: training_proofs(tasks, aligner, operator_model, settings, data_dir, progress))


def cached_generator(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None, cache=None,
                     operator_key: str = "", progress: bool = True):
    """Train (or load) the generator on :func:`cached_training_proofs`; returns ``(generator, proofs, seconds)``."""

    cache = cache or ArtifactCache()
    start = time.perf_counter()
    proofs = cached_training_proofs(tasks, aligner, operator_model, settings, data_dir, cache, operator_key, progress)

    def build():
        texts = [text for p in proofs for text in (p.input, p.target)]
        texts += [f"{doc.title} ; {doc.text}" for task in tasks for doc in task.corpus]   # words of any evidence
        generator = ProofGenerator.new(settings, texts)
        generator.fit(proofs, settings)
        return generator

    key = {**_data_key(tasks, settings, operator_key), "proofs": fingerprint([dataclasses.astuple(p) for p in proofs]),
           "wordpiece": WORDPIECE_VERSION if settings.vocab_size else None,
           **({"checkpoint_files": file_fingerprint(settings.checkpoint)} if settings.checkpoint else {})}
    generator = cache.get_or_build("natlog-proof-generator", key, build, *object_codec(ProofGenerator))
    return generator, proofs, time.perf_counter() - start
