"""AdMIRaL's autoregressive retriever: a seq2seq model that writes the title of the next document.

Aly & Vlachos 2022, §3 (pipeline steps 1 and 4, and training).  The encoder
reads the claim and the selected sentences,

    claim </s> < E0 > [ Title0 ] sent0 < E1 > [ Title1 ] sent1 ...      (at most 4 sentences)

and the decoder writes the pointer(s) of the sentence(s) it conditions on, then a new title:
``< E1 > [ Title ]`` (the format and the training examples: :mod:`proofbook.admiral.retrieval.hop_examples`).
Beam search (beam 25) is constrained by the prefix tree of all corpus titles and by dynamic
constraints that only allow pointers present in the input (:mod:`proofbook.index.constraints`).  At
hop 0 the same model class writes ``[ Title ]`` from the claim alone -- the paper's GENRE step.  One
model is trained per hop by maximum likelihood.

Choices made here (the paper leaves them open or they follow from our tokenizer):

* **Separator.**  With a tokenizer that has a SEP token (MiniLM's WordPiece: ``[SEP]``) that token
  stands where the paper writes ``</s>``; BART's SEP token is ``</s>`` itself; T5 uses its EOS.
* **Truncation** to ``max_input_length`` tokens: the claim is never cut unless the claim alone is
  too long (then it is cut and no sentence is kept).  Otherwise each kept sentence keeps its pointer
  and title, and the sentence *texts* share the remaining budget fairly: short texts stay whole,
  long ones are cut at the end to an equal share.  If even pointers and titles do not fit, whole
  sentences are dropped from the end; the pointer constraint then allows only the pointers left.
  More than ``max_sentences`` sentences: the first ``max_sentences`` are used.
* **Training examples**: :func:`proofbook.admiral.retrieval.hop_examples.make_examples`.
* **Dev metric** of :meth:`AutoregressiveRetriever.fit`: title accuracy of constrained greedy
  decoding (the predicted title is one of the example's ``valid_titles``).

Backends: :meth:`AutoregressiveRetriever.warm_start` (MiniLM encoder and decoder,
``EncoderDecoderModel``, 49M parameters), :meth:`AutoregressiveRetriever.from_scratch` (a small BART
with the MiniLM tokenizer) and :meth:`AutoregressiveRetriever.from_checkpoint` (any local seq2seq
folder, e.g. BART/GENRE with its own tokenizer, then fine-tuned in this format).  The retriever is a
:class:`proofbook.models.seq2seq.Seq2Seq`: these constructors, the device and length handling, the
training loop, the ``generate()`` call and the persistence are that class's.
"""
from __future__ import annotations

import json
import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

# the format and the examples are re-exported here, where notebooks and other modules import them
from proofbook.admiral.retrieval.hop_examples import (POINTER_RULES, RetrievalExample, SentenceLike,  # noqa: F401
                                                      check_claim, format_input, format_target, make_examples,
                                                      negative_sampler, sentence_text, title_and_text)
from proofbook.core.training import TrainConfig, TrainResult
from proofbook.index.constraints import (POINTER_TEMPLATE, TITLE_TEMPLATE, TitleTrie, encode_segment, pointer_tree,
                                         retrieval_constraint)
from proofbook.models.decoding import FILLER_SCORE, batched
from proofbook.models.loading import load_tokenizer
from proofbook.models.seq2seq import Seq2Seq

logger = logging.getLogger(__name__)

CONFIG_FILE = "autoregressive_retriever.json"
TITLES_FILE = "titles.json"


@dataclass(frozen=True)
class Beam:
    """One decoded output: the pointer(s) it conditions on, the (original) title, its beam score.

    ``score`` is the length-normalised log-probability of the whole output (pointers, title, EOS).
    """

    pointers: tuple[int, ...]
    title: str
    score: float


def _fair_shares(lengths: list[int], budget: int) -> list[int]:
    """How many tokens each text keeps: short ones whole, long ones an equal share of what is left."""
    shares = [0] * len(lengths)
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for rank, i in enumerate(order):
        equal = budget // (len(lengths) - rank)
        shares[i] = min(lengths[i], max(0, equal))
        budget -= shares[i]
    return shares


class AutoregressiveRetriever(Seq2Seq):
    """A seq2seq title generator for one hop, with prefix-tree constrained beam search.

    ``titles`` are the corpus titles (or a ready :class:`TitleTrie`); generated titles are always
    among them.  ``hop`` 0 writes ``[ Title ]`` from the claim; ``hop`` >= 1 writes the pointer(s)
    first (one with ``pointer_rule="last"``, up to ``hop`` with ``"all"``).  ``use_pointers=False``
    trains and decodes titles without pointers at every hop (an ablation).

    A :class:`~proofbook.models.seq2seq.Seq2Seq` whose inputs are ``(claim, sentences)`` and whose outputs
    are parsed titles: :meth:`encode_input`, :meth:`encode_target`, :meth:`fit` and :meth:`generate` take
    this format's arguments; the text-pair method ``score`` and the ``frozen_encoder`` backend (whose
    training only :meth:`Seq2Seq.fit` does) do not apply to it.
    """

    SETTINGS_FILE, SAVED_BY = CONFIG_FILE, "AutoregressiveRetriever.save"

    def __init__(self, model, tokenizer, titles: Iterable[str] | TitleTrie, *, hop: int = 1,
                 max_input_length: int = 256, max_sentences: int = 4, pointer_rule: str = "last",
                 use_pointers: bool = True, length_penalty: float = 1.0, backend: str = "checkpoint",
                 device: str | None = None):
        if hop < 0:
            raise ValueError(f"hop must be >= 0, got {hop}")
        if pointer_rule not in POINTER_RULES:
            raise ValueError(f"pointer_rule must be one of {POINTER_RULES}, got {pointer_rule!r}")
        if max_sentences < 1:
            raise ValueError(f"max_sentences must be positive, got {max_sentences}")
        super().__init__(model, tokenizer, max_input_length=max_input_length, backend=backend, device=device)
        self.hop, self.max_sentences, self.pointer_rule = hop, max_sentences, pointer_rule
        self.use_pointers, self.length_penalty = use_pointers, length_penalty
        self.use_titles(titles)
        self.separator = tokenizer.sep_token or tokenizer.eos_token
        if self.separator is None:
            raise ValueError(f"{type(tokenizer).__name__} has neither a SEP nor an EOS token to separate the claim")
        self._separator_ids = encode_segment(tokenizer, self.separator)

    def __repr__(self) -> str:
        return (f"AutoregressiveRetriever(hop={self.hop}, backend={self.backend!r}, "
                f"{type(self.model).__name__}, {len(self.title_trie)} titles)")

    # -- constructors: Seq2Seq's, with the titles and the hop
    @classmethod
    def warm_start(cls, titles, *, hop: int = 1, checkpoint: os.PathLike | str = "minilm", seed: int = 0,
                   **kwargs) -> "AutoregressiveRetriever":
        """Encoder and decoder warm-started from a local encoder (MiniLM: 49M parameters)."""
        return super().warm_start(checkpoint, seed=seed, titles=titles, hop=hop, **kwargs)

    @classmethod
    def from_scratch(cls, titles, *, hop: int = 1, tokenizer: os.PathLike | str = "minilm", d_model: int = 256,
                     layers: int = 3, heads: int = 4, ffn_dim: int | None = None, dropout: float = 0.1,
                     seed: int = 0, **kwargs) -> "AutoregressiveRetriever":
        """A small BART initialised at random (seeded) for the tokenizer of a local checkpoint (MiniLM's)."""
        return super().from_scratch(tokenizer, d_model=d_model, layers=layers, heads=heads, ffn_dim=ffn_dim,
                                    dropout=dropout, seed=seed, titles=titles, hop=hop, **kwargs)

    @classmethod
    def from_checkpoint(cls, folder: os.PathLike | str, titles, *, hop: int = 1,
                        **kwargs) -> "AutoregressiveRetriever":
        """Any local seq2seq checkpoint folder (BART, GENRE, T5, EncoderDecoderModel) with its own tokenizer.

        Special ids the checkpoint lacks are filled from its tokenizer; ones it has are kept (BART
        starts decoding with ``</s>``).
        """
        return super().from_checkpoint(folder, titles=titles, hop=hop, **kwargs)

    def use_titles(self, titles: Iterable[str] | TitleTrie) -> None:
        """Decode over another title set (e.g. a grown corpus) with the same model."""
        if isinstance(titles, TitleTrie):
            self.title_trie, self._all_titles = titles, None
        else:
            self._all_titles = list(titles)
            self.title_trie = TitleTrie.from_titles(self._all_titles, self.tokenizer)
        if self.title_trie.collisions:
            logger.info("%d titles tokenize like an earlier one and cannot be generated (e.g. %s)",
                        len(self.title_trie.collisions), next(iter(self.title_trie.collisions)))

    # -- formats and encoding
    def format_input(self, claim: str, sentences: Sequence[SentenceLike] = ()) -> str:
        """:func:`format_input` with this tokenizer's separator (``[SEP]`` for MiniLM) in place of ``</s>``."""
        return format_input(claim, list(sentences)[:self.max_sentences], self.separator)

    def _with_pointers(self) -> bool:
        return self.hop > 0 and self.use_pointers

    def format_target(self, title: str, pointers: Sequence[int] = ()) -> str:
        """:func:`format_target` for this hop (no pointers at hop 0 or with ``use_pointers=False``)."""
        return format_target(title, pointers if self._with_pointers() else ())

    def encode_input(self, claim: str, sentences: Sequence[SentenceLike] = ()) -> tuple[list[int], int]:
        """Encoder ids of :meth:`format_input`, truncated by the module's rule; and how many sentences were kept.

        For MiniLM, without truncation, the ids equal ``tokenizer(format_input(...))``.
        """
        claim = check_claim(claim)
        sentences = list(sentences)[:self.max_sentences]
        budget = self.max_input_length - len(self._prefix_ids) - len(self._suffix_ids)
        claim_ids = list(self.tokenizer(claim, add_special_tokens=False)["input_ids"])
        if len(claim_ids) + len(self._separator_ids) >= budget or not sentences:
            return self._framed(claim_ids[:budget]), 0
        budget -= len(claim_ids) + len(self._separator_ids)
        heads, texts = [], []
        for index, sentence in enumerate(sentences):
            title, text = title_and_text(sentence)
            head = encode_segment(self.tokenizer, f"{POINTER_TEMPLATE.format(index)} {TITLE_TEMPLATE.format(title)}")
            if sum(map(len, heads)) + len(head) > budget:
                break  # pointers and titles do not fit: drop this and later sentences
            heads.append(head)
            texts.append(encode_segment(self.tokenizer, text) if text.strip() else [])
        if not heads:
            return self._framed(claim_ids), 0
        shares = _fair_shares([len(t) for t in texts], budget - sum(map(len, heads)))
        body = list(claim_ids) + list(self._separator_ids)
        for head, text, share in zip(heads, texts, shares):
            body += head + text[:share]
        return self._framed(body), len(heads)

    def encode_target(self, title: str, pointers: Sequence[int] = ()) -> list[int]:
        """Decoder label ids: the pieces of :meth:`format_target`, then EOS."""
        pieces = [POINTER_TEMPLATE.format(i) for i in pointers] if self._with_pointers() else []
        ids = [t for piece in pieces for t in encode_segment(self.tokenizer, piece)]
        return ids + encode_segment(self.tokenizer, TITLE_TEMPLATE.format(title)) + [self.eos_token_id]

    def constraint(self, n_sentences: int, title_trie: TitleTrie | None = None):
        """The decoding constraint for an input with ``n_sentences`` (kept) sentences.

        ``title_trie`` (default: all titles of the model's corpus) narrows the titles for one query.
        """
        pointers = None
        if self._with_pointers() and n_sentences:
            pointers = pointer_tree(range(n_sentences), self.tokenizer)
        max_pointers = 1 if self.pointer_rule == "last" else self.hop
        return retrieval_constraint(title_trie or self.title_trie, pointers, self.eos_token_id, max_pointers)

    # -- training
    def _encode_example(self, example: RetrievalExample) -> tuple[list[int], list[int]]:
        ids, kept = self.encode_input(example.claim, example.sentences)
        pointers = tuple(p for p in example.pointers if p < kept)  # truncation may drop a sentence
        return ids, self.encode_target(example.title, pointers)

    def fit(self, examples: Sequence[RetrievalExample], config: TrainConfig | None = None,
            dev_examples: Sequence[RetrievalExample] | None = None, dev_size: int = 200) -> TrainResult:
        """Maximum-likelihood training on ``examples`` through :func:`proofbook.core.training.train`.

        With ``dev_examples`` (the first ``dev_size`` used), the weights with the best dev title
        accuracy of constrained greedy decoding are kept.
        """
        if not examples:
            raise ValueError("fit: no training examples")
        encoded = [self._encode_example(e) for e in examples]
        evaluate = None
        if dev_examples:
            dev = list(dev_examples)[:dev_size]
            evaluate = lambda model: self.title_accuracy(dev, beam=1)  # noqa: E731
        return self._train(encoded, self.collate, evaluate, config)

    def title_accuracy(self, examples: Sequence[RetrievalExample], beam: int = 1, batch_size: int = 32) -> float:
        """Share of examples whose best constrained output's title is one of their ``valid_titles``."""
        if not examples:
            return math.nan
        outputs = self.generate_batch([(e.claim, e.sentences) for e in examples], beam=beam, num_return=1,
                                      batch_size=batch_size)
        hits = [bool(beams) and beams[0].title in e.valid_titles for beams, e in zip(outputs, examples)]
        return sum(hits) / len(hits)

    # -- generation
    def generate(self, claim: str, sentences: Sequence[SentenceLike] = (), beam: int = 25,
                 num_return: int | None = None, exclude: Iterable[str] = ()) -> list[Beam]:
        """Constrained beam search for one input: distinct corpus titles, best first.

        ``num_return`` (default ``beam``, at most ``beam``) sequences are decoded; duplicate titles
        keep their best beam; titles in ``exclude`` (e.g. those already retrieved) are dropped.
        """
        return self.generate_batch([(claim, sentences)], beam, num_return, exclude=exclude)[0]

    def generate_batch(self, queries: Sequence[tuple[str, Sequence[SentenceLike]]], beam: int = 25,
                       num_return: int | None = None, batch_size: int = 8,
                       exclude: Iterable[str] = (),
                       candidates: Sequence[Iterable[str]] | None = None) -> list[list[Beam]]:
        """:meth:`generate` for many ``(claim, sentences)`` pairs, ``batch_size`` inputs per ``generate()``.

        Every input is checked before any decoding: an empty claim is a ValueError naming its position;
        at hop >= 1 an input without sentences is a ValueError (use the hop-0 model).
        ``candidates`` (one title list per query) narrows each query's prefix tree to those titles
        (:meth:`TitleTrie.restricted`; titles outside the corpus are ignored); a query whose list
        holds no known title gets no beams.
        """
        if beam < 1:
            raise ValueError(f"beam must be >= 1, got {beam}")
        num_return = beam if num_return is None else num_return
        if num_return < 1:
            raise ValueError(f"num_return must be >= 1, got {num_return}")
        num_return = min(num_return, beam)
        encoded = []
        for position, (claim, sentences) in enumerate(queries):
            try:
                check_claim(claim)
            except ValueError as err:
                raise ValueError(f"query {position}: {err}") from None
            if self.hop > 0 and not list(sentences):
                raise ValueError(f"query {position}: the hop-{self.hop} model needs at least one input sentence "
                                 "(titles from the claim alone are the hop-0 model's job)")
            encoded.append(self.encode_input(claim, sentences))
        excluded = set(exclude)
        if candidates is not None and len(candidates) != len(encoded):
            raise ValueError(f"generate_batch: {len(encoded)} queries but {len(candidates)} candidate lists")
        tries = ([self.title_trie.restricted(c) for c in candidates] if candidates is not None
                 else [self.title_trie] * len(encoded))
        live = [i for i, trie in enumerate(tries) if len(trie)]
        results: list[list[Beam]] = [[] for _ in encoded]
        outputs = batched(live, batch_size, lambda chunk, _: self._generate_chunk(
            [encoded[i] for i in chunk], [tries[i] for i in chunk], beam, num_return, excluded),
            desc=f"hop-{self.hop} titles")
        for i, beams in zip(live, outputs):
            results[i] = beams
        return results

    def _generate_chunk(self, chunk: list[tuple[list[int], int]], tries: list[TitleTrie], beam: int,
                        num_return: int, excluded: set[str]) -> list[list[Beam]]:
        constraints = [self.constraint(kept, trie) for (_, kept), trie in zip(chunk, tries)]
        lengths = [c.max_length() or self.max_target_length for c in constraints]
        # unlike Seq2Seq.generate, the model's forced EOS (BART's forced_eos_token_id) stays on
        settings = dict(num_beams=beam, num_return_sequences=num_return, max_new_tokens=max(lengths) + 1,
                        do_sample=False)
        if beam > 1:
            # early_stopping=False: forced tokens (every output starts with "< E") leave transformers'
            # initial filler beams (score -1e9) alive, copying the live path; with early stopping
            # their finished copies would fill the beam and end the search after one title
            settings.update(length_penalty=self.length_penalty, early_stopping=False, output_scores=True)
        else:
            settings.update(output_logits=True)
        tokens, scores = self._run_generate([ids for ids, _ in chunk], constraints, **settings)
        sequences = tokens.tolist()
        results = []
        for item, constraint in enumerate(constraints):
            beams: dict[str, Beam] = {}
            for row in range(item * num_return, (item + 1) * num_return):
                parsed = constraint.parse(sequences[row])
                if parsed is None or not scores[row] > FILLER_SCORE:
                    continue  # unfinished within the length limit, or a filler beam
                title = next(value for name, value in parsed if name == "title")
                pointers = tuple(dict.fromkeys(value for name, value in parsed if name == "pointer"))
                if title in excluded or title in beams:
                    continue
                beams[title] = Beam(pointers, title, scores[row])
            results.append(sorted(beams.values(), key=lambda b: -b.score))
        return results

    # -- where a title came from: copying or generation
    @property
    def copies(self) -> bool:
        """Whether the model has a copy head (:class:`proofbook.models.pointer.CopyBart`)."""
        return hasattr(self.model, "copy_gate") and hasattr(self.model, "lm_head")

    def copy_shares(self, queries: Sequence[tuple[str, Sequence[SentenceLike]]], beams: Sequence[Sequence[Beam]],
                    batch_size: int = 16) -> list[list[float | None]]:
        """For each query's beams, the share of the title's probability that came by copying from the input.

        The beam's output (pointers, title, EOS) is fed back to the model; at each token ``w`` of the title the
        copy head's mix ``P(w) = g * P_vocab(w) + (1 - g) * copy(w)`` is split, and the copy part's share
        ``1 - g * P_vocab(w) / P(w)`` is averaged over the title's tokens.  1 = the title was copied, 0 = it was
        generated from the vocabulary.  The gate ``g`` and ``P_vocab`` are read from the model's own layers with
        forward hooks.  Without a copy head every share is None.
        """
        import torch

        if len(beams) != len(queries):
            raise ValueError(f"copy_shares: {len(queries)} queries but {len(beams)} beam lists")
        if not self.copies:
            return [[None] * len(b) for b in beams]
        items = []       # (query position, encoded pair, first title token, title tokens)
        for position, ((claim, sentences), query_beams) in enumerate(zip(queries, beams)):
            ids, kept = self.encode_input(claim, sentences)
            for beam in query_beams:
                pointers = tuple(p for p in beam.pointers if p < kept)
                target = self.encode_target(beam.title, pointers)
                start = len(target) - 1 - len(encode_segment(self.tokenizer, TITLE_TEMPLATE.format(beam.title)))
                items.append((position, (ids, target), start, len(target) - 1 - start))
        captured: dict[str, torch.Tensor] = {}
        hooks = [self.model.copy_gate.register_forward_hook(lambda m, i, out: captured.__setitem__("gate", out)),
                 self.model.lm_head.register_forward_hook(lambda m, i, out: captured.__setitem__("vocab", out))]
        shares: list[float] = []
        try:
            self.model.eval()
            for first in range(0, len(items), batch_size):
                chunk = items[first:first + batch_size]
                batch = {k: v.to(self.device) for k, v in self.collate([pair for _, pair, _, _ in chunk]).items()}
                with torch.no_grad():
                    log_p = self.model(**batch).logits.float()
                labels = batch["labels"].clamp(min=0)[:, :, None]
                p_all = log_p.gather(-1, labels).squeeze(-1).exp()
                vocab = captured["vocab"].float() + self.model.final_logits_bias.float()
                p_vocab = torch.softmax(vocab, dim=-1).gather(-1, labels).squeeze(-1)
                gate = torch.sigmoid(captured["gate"].float()).squeeze(-1)
                copied = (1 - gate * p_vocab / p_all.clamp_min(1e-10)).clamp(0.0, 1.0)
                for row, (_, _, start, length) in enumerate(chunk):
                    shares.append(float(copied[row, start:start + length].mean()))
        finally:
            for hook in hooks:
                hook.remove()
        out: list[list[float | None]] = [[] for _ in queries]
        for (position, *_), share in zip(items, shares):
            out[position].append(share)
        return out

    # -- persistence: Seq2Seq's, with these settings and the titles
    def _settings(self) -> dict:
        return {"hop": self.hop, "max_input_length": self.max_input_length, "max_sentences": self.max_sentences,
                "pointer_rule": self.pointer_rule, "use_pointers": self.use_pointers,
                "length_penalty": self.length_penalty, "backend": self.backend,
                "model_class": type(self.model).__name__}

    def save(self, folder: os.PathLike | str) -> Path:
        """Write model, tokenizer, settings and titles into ``folder`` (for ``object_codec``)."""
        folder = super().save(folder)
        titles = self._all_titles if self._all_titles is not None else self.title_trie.titles
        (folder / TITLES_FILE).write_text(json.dumps(titles, ensure_ascii=False), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None) -> "AutoregressiveRetriever":
        """A retriever written by :meth:`save`; its title trie is rebuilt from the saved titles."""
        folder, model, settings = cls._read_saved(folder)
        titles = json.loads((folder / TITLES_FILE).read_text(encoding="utf-8"))
        return cls(model, load_tokenizer(folder), titles, device=device, **settings)
