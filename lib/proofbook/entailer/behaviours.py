"""The two implementations of Entailer's three behaviours, and the facts they read (Tafjord et al. 2022, §3.1-3.2).

Entailer is one T5-11B model with three behaviours: H -> P (generate premises that together entail H),
H -> Sd (is H true?) and PH -> Se (do the premises entail H, whether or not they are true?).  The
search (:mod:`.search`) sees only :class:`~proofbook.entailer.search.BehaviourModel`:
``generate_premises``, ``truth_scores``, ``entailment_scores``.  This module holds the two classes that
implement it, and what they read at search time:

* :class:`EntailerCheckpoint` -- a local T5 checkpoint folder in the official formats
  (:mod:`.formats`), e.g. ``allenai/entailer-large`` downloaded elsewhere.  Scores are read as the paper's
  code does: teacher-force ``$valid$ = true`` and ``$valid$ = false`` (``$implied$ = ...``), and
  normalise the two sequence probabilities.  Tested with a tiny random T5 and a tokenizer built offline.
* :class:`TrainedEntailer` -- the models trained in this book (no pretrained seq2seq model or NLI model
  is installable here): the premise generator is a :class:`proofbook.models.seq2seq.Seq2Seq`, optionally
  given a ``$context$`` of the five facts :class:`FactRetriever` (BM25 over WorldTree) retrieves for the
  hypothesis; the truth scorer and the entailment scorer are two MiniLM
  :class:`proofbook.models.cross_encoder.CrossEncoder` (labels ``false``/``true``; the score is P(true)),
  the truth scorer's second segment given by a :class:`TruthContext`.  **Departure:** three models
  instead of one multi-task model.

The data these models are trained on is built in :mod:`.training_data`.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Sequence

from proofbook.entailer import formats
from proofbook.index.bm25 import BM25, tokenize
from proofbook.models.loading import CheckpointError, resolve_checkpoint
from proofbook.models.seq2seq import Seq2Seq

FALSE, TRUE = "false", "true"
LABELS = (FALSE, TRUE)


def join_premises(premises: Sequence[str]) -> str:
    """The first segment of an entailment pair: premises joined by `` . ``."""
    return " . ".join(" ".join(p.split()).rstrip(".") for p in premises)


class FactRetriever:
    """BM25 over a fact corpus (WorldTree): the facts that the premise generator may copy from.

    The paper trains Entailer with contexts of up to five sentences mixing gold and BM25-retrieved facts;
    here the same context is given to the premise generator at training and at search time.
    """

    def __init__(self, facts: Sequence[str]):

        self.facts = list(dict.fromkeys(" ".join(f.split()) for f in facts if f and f.strip()))
        if not self.facts:
            raise ValueError("FactRetriever: no facts")
        self._tokenize = tokenize
        self.bm25 = BM25([tokenize(f) for f in self.facts], k1=0.9, b=0.4)

    def retrieve(self, statement: str, k: int, exclude: Sequence[str] = ()) -> list[str]:
        """The best ``k`` facts for ``statement`` (facts in ``exclude`` skipped)."""
        tokens = self._tokenize(statement)
        if not tokens:
            return []
        banned = {" ".join(e.split()).lower() for e in exclude}
        ranked = self.bm25.top_k(tokens, k + len(banned))
        out = [self.facts[i] for i, score in ranked if score > 0 and self.facts[i].lower() not in banned]
        return out[:k]


class TruthContext:
    """The second segment of a truth-scorer pair: the ``k`` facts BM25 retrieves for the statement
    (joined by `` . ``), or nothing without a retriever."""

    def __init__(self, retriever: FactRetriever | None = None, k: int = 0):
        self.retriever, self.k = retriever, k

    def pair(self, statement: str) -> tuple[str, str]:
        """The ``(statement, context)`` pair the truth scorer reads (no context without a retriever)."""
        if self.retriever is None or self.k <= 0:
            return (statement, "")
        return (statement, join_premises(self.retriever.retrieve(statement, self.k)))


def _generate_premise_sets(owner, generator, inputs: list[str], k: int, sample: bool, temperature: float,
                           top_p: float, seed: int) -> list[list[list[str]]]:
    """H -> P with ``generator`` (nucleus sampling or beam search), each output parsed into a premise list;
    a malformed output is dropped and counted in ``owner.malformed``."""
    if sample:
        outputs = generator.generate(inputs, sample=True, num_return=k, top_p=top_p, temperature=temperature,
                                     max_new_tokens=owner.max_new_tokens, batch_size=owner.batch_size, seed=seed)
    else:
        outputs = generator.generate(inputs, beam=k, num_return=k, max_new_tokens=owner.max_new_tokens,
                                     batch_size=owner.batch_size)
    sets = []
    for generated in outputs:
        parsed = []
        for g in generated:
            try:
                parsed.append(formats.parse_premises(g.text))
            except formats.FormatError:
                owner.malformed += 1
        sets.append(parsed)
    return sets


class TrainedEntailer:
    """The behaviours as three models trained here (premise Seq2Seq + truth and entailment CrossEncoders)."""

    def __init__(self, premise_generator, truth_scorer, entailment_scorer, max_new_tokens: int = 64,
                 batch_size: int = 32, retriever: FactRetriever | None = None, n_context: int = 5,
                 truth_context: TruthContext | None = None):
        for name, scorer in (("truth_scorer", truth_scorer), ("entailment_scorer", entailment_scorer)):
            if list(scorer.labels) != list(LABELS):
                raise ValueError(f"{name} must have labels {list(LABELS)}, has {scorer.labels}")
        self.premise_generator, self.truth_scorer, self.entailment_scorer = premise_generator, truth_scorer, entailment_scorer
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size
        self.retriever, self.n_context = retriever, n_context
        self.truth_context = truth_context or TruthContext()
        self.malformed = 0

    def premise_inputs(self, hypotheses: Sequence[str]) -> list[str]:
        """H -> P inputs, with ``$context$`` = the retrieved facts when the generator was trained with them."""
        if self.retriever is None:
            return [formats.premise_input(h) for h in hypotheses]
        return [formats.premise_input(h, context=self.retriever.retrieve(h, self.n_context) or None) for h in hypotheses]

    def generate_premises(self, hypotheses: Sequence[str], k: int, sample: bool, temperature: float = 2.0,
                          top_p: float = 0.95, seed: int = 0) -> list[list[list[str]]]:
        """H -> P: up to ``k`` premise lists per hypothesis, by beam search or (``sample``) nucleus sampling;
        malformed outputs are dropped and counted in ``malformed``."""
        return _generate_premise_sets(self, self.premise_generator, self.premise_inputs(hypotheses), k, sample,
                                      temperature, top_p, seed)

    def truth_scores(self, statements: Sequence[str]) -> list[float]:
        """H -> Sd: s_d of each statement, the truth scorer's P(true) on its :class:`TruthContext` pair."""
        if not statements:
            return []
        probabilities = self.truth_scorer.predict_proba([self.truth_context.pair(s) for s in statements],
                                                        progress=False)
        return probabilities[:, 1].astype(float).tolist()

    def entailment_scores(self, proofs: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        """PH -> Se: s_e of each ``(premises, hypothesis)``, the entailment scorer's P(true)
        (premises joined)."""
        if not proofs:
            return []
        pairs = [(join_premises(premises), hypothesis) for premises, hypothesis in proofs]
        return self.entailment_scorer.predict_proba(pairs, progress=False)[:, 1].astype(float).tolist()


def _check_t5_folder(folder: os.PathLike | str) -> Path:
    """A local T5-style seq2seq folder, or a CheckpointError saying what kind of folder it is instead."""

    path = resolve_checkpoint(folder)
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    if not config.get("is_encoder_decoder", False) and config.get("model_type") != "encoder-decoder":
        kind = config.get("model_type", "unknown")
        hint = (" (this looks like a CrossEncoder folder: pass it as a scorer)" if (path / "cross_encoder.json").is_file()
                else "")
        raise CheckpointError(path, f"an Entailer checkpoint must be a seq2seq model (T5, like "
                              f"allenai/entailer-large); this folder holds a {kind!r} encoder{hint}")
    return path


class EntailerCheckpoint:
    """A local Entailer T5 folder (``allenai/entailer-large`` or ``-11b``) driven in the official formats."""

    def __init__(self, folder: os.PathLike | str, max_new_tokens: int = 96, batch_size: int = 8, **kwargs):
        path = _check_t5_folder(folder)

        self.model = Seq2Seq.from_checkpoint(path, **kwargs)
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size
        self.malformed = 0
        self._lengths = {t: len(self.model.encode_target(t)) for slot in (formats.VALID, formats.IMPLIED)
                         for t in formats.boolean_targets(slot)}

    def generate_premises(self, hypotheses: Sequence[str], k: int, sample: bool, temperature: float = 2.0,
                          top_p: float = 0.95, seed: int = 0) -> list[list[list[str]]]:
        """H -> P from the official ``$proof$`` input: up to ``k`` premise lists per hypothesis, by beam
        search or (``sample``) nucleus sampling; malformed outputs are dropped, counted in ``malformed``."""
        return _generate_premise_sets(self, self.model, [formats.premise_input(h) for h in hypotheses], k, sample,
                                      temperature, top_p, seed)

    def _boolean(self, inputs: list[str], slot: str) -> list[float]:
        """P(true) from the two teacher-forced sequence log-probabilities (mean x length = total)."""
        yes, no = formats.boolean_targets(slot)
        score_yes = self.model.score(inputs, [yes] * len(inputs), batch_size=self.batch_size)
        score_no = self.model.score(inputs, [no] * len(inputs), batch_size=self.batch_size)
        out = []
        for a, b in zip(score_yes, score_no):
            a, b = a * self._lengths[yes], b * self._lengths[no]
            top = max(a, b)
            out.append(math.exp(a - top) / (math.exp(a - top) + math.exp(b - top)))
        return out

    def truth_scores(self, statements: Sequence[str]) -> list[float]:
        """H -> Sd: s_d of each statement, P(``$valid$ = true``) against ``false``, teacher-forced."""
        return self._boolean([formats.valid_input(s) for s in statements], formats.VALID) if statements else []

    def entailment_scores(self, proofs: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        """PH -> Se: s_e of each ``(premises, hypothesis)``, P(``$implied$ = true``) against ``false``,
        teacher-forced."""
        if not proofs:
            return []
        return self._boolean([formats.implied_input(p, h) for p, h in proofs], formats.IMPLIED)
