"""AdMIRaL's autoregressive retriever: a seq2seq model that writes the title of the next document.

Aly & Vlachos 2022, §3 (pipeline steps 1 and 4, and training).  The encoder
reads the claim and the selected sentences,

    claim </s> < E0 > [ Title0 ] sent0 < E1 > [ Title1 ] sent1 ...      (at most 4 sentences)

and the decoder writes the pointer(s) of the sentence(s) it conditions on, then a new title:
``< E1 > [ Title ]``.  Beam search (beam 25) is constrained by the prefix tree of all corpus titles
and by dynamic constraints that only allow pointers present in the input
(:mod:`proofbook.index.prefix_tree`).  At hop 0 the same model class writes ``[ Title ]`` from the
claim alone -- the paper's GENRE step.  One model is trained per hop by maximum likelihood.

Choices made here (the paper leaves them open or they follow from our tokenizer):

* **Separator.**  With a tokenizer that has a SEP token (MiniLM's WordPiece: ``[SEP]``) that token
  stands where the paper writes ``</s>``; BART's SEP token is ``</s>`` itself; T5 uses its EOS.
* **Truncation** to ``max_input_length`` tokens: the claim is never cut unless the claim alone is
  too long (then it is cut and no sentence is kept).  Otherwise each kept sentence keeps its pointer
  and title, and the sentence *texts* share the remaining budget fairly: short texts stay whole,
  long ones are cut at the end to an equal share.  If even pointers and titles do not fit, whole
  sentences are dropped from the end; the pointer constraint then allows only the pointers left.
  More than ``max_sentences`` sentences: the first ``max_sentences`` are used.
* **Training examples** (:func:`make_examples`).  Hop ``h`` >= 1: ``h`` previous gold sentences
  from ``h`` distinct gold documents (an *ordering*), plus negatives -- sentences sampled from pages
  that are not gold for the claim -- up to ``max_sentences``, shuffled; the target is the pointer of
  the last previous sentence (``pointer_rule="last"``: the bridge it conditions on; ``"all"``: the
  pointers of every previous sentence) and the title of a gold document not yet in the input.
  HoVer and FEVEROUS give no evidence order, so every ordering is generated
  (``orderings="all"``) and at most ``max_orderings`` per claim are kept, sampled with a seed
  derived from ``(seed, claim id, hop)``; ``orderings="given"`` keeps the listed evidence order only.
  Hop 0: the claim alone, one example per gold title.
* **Dev metric** of :meth:`AutoregressiveRetriever.fit`: title accuracy of constrained greedy
  decoding (the predicted title is one of the example's ``valid_titles``).

Backends: :meth:`AutoregressiveRetriever.warm_start` (MiniLM encoder and decoder,
``EncoderDecoderModel``, 49M parameters), :meth:`AutoregressiveRetriever.from_scratch` (a small BART
with the MiniLM tokenizer) and :meth:`AutoregressiveRetriever.from_checkpoint` (any local seq2seq
folder, e.g. BART/GENRE with its own tokenizer, then fine-tuned in this format).
"""
from __future__ import annotations

import itertools
import json
import logging
import math
import os
import random
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import torch
from tqdm.auto import tqdm

from proofbook.core.corpus import Corpus, Sentence
from proofbook.core.training import TrainConfig, TrainResult, set_seed, train
from proofbook.index.prefix_tree import (POINTER_TEMPLATE, TITLE_TEMPLATE, TitleTrie, encode_segment, pointer_tree,
                                         retrieval_constraint)
from proofbook.models.loading import (load_model, load_seq2seq, load_tokenizer, quiet_transformers, read_settings,
                                      resolve_checkpoint, save_with_settings, set_special_token_ids, small_seq2seq,
                                      special_token_ids, warm_start_seq2seq_from_encoder)
from proofbook.models.seq2seq import (FILLER_SCORE, collate, first_id, generation_ids, mean_logprob,
                                      prefix_allowed_tokens_fn, special_frame)

logger = logging.getLogger(__name__)

CONFIG_FILE = "autoregressive_retriever.json"
TITLES_FILE = "titles.json"
POINTER_RULES = ("last", "all")
#: a sentence of the encoder input: a corpus Sentence or a ``(title, text)`` pair
SentenceLike = Sentence | tuple[str, str]


# ---------------------------------------------------------------- formats


def _title_and_text(sentence: SentenceLike) -> tuple[str, str]:
    if isinstance(sentence, Sentence):
        return sentence.title, sentence.text
    title, text = sentence
    return str(title), str(text)


def _check_claim(claim: str) -> str:
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError(f"the claim is empty ({claim!r}); the retriever needs a claim to condition on")
    return " ".join(claim.split())


def sentence_text(index: int, sentence: SentenceLike) -> str:
    """One sentence of the encoder input: ``< E{index} > [ Title ] text``."""
    title, text = _title_and_text(sentence)
    return f"{POINTER_TEMPLATE.format(index)} {TITLE_TEMPLATE.format(title)} {text}"


def format_input(claim: str, sentences: Sequence[SentenceLike] = (), separator: str = "</s>") -> str:
    """The encoder input ``claim </s> < E0 > [ Title0 ] sent0 < E1 > ...`` (just the claim without sentences)."""
    claim = _check_claim(claim)
    sentences = list(sentences)
    if not sentences:
        return claim
    return f"{claim} {separator} " + " ".join(sentence_text(i, s) for i, s in enumerate(sentences))


def format_target(title: str, pointers: Sequence[int] = ()) -> str:
    """The decoder target ``< E{i} > ... [ Title ]`` (``[ Title ]`` alone at hop 0)."""
    return " ".join([POINTER_TEMPLATE.format(i) for i in pointers] + [TITLE_TEMPLATE.format(title)])


# ---------------------------------------------------------------- training examples


@dataclass(frozen=True)
class RetrievalExample:
    """One input/target pair: the claim, the input sentences, the target pointer(s) and title.

    ``valid_titles`` are all gold titles not yet in the input (any of them is a correct answer).
    """

    claim: str
    sentences: tuple[Sentence, ...]
    pointers: tuple[int, ...]
    title: str
    valid_titles: tuple[str, ...]


def negative_sampler(corpus: Corpus):
    """Draw sentences uniformly from the corpus, avoiding given titles (rejection sampling)."""
    ids = [(doc.title, i) for doc in corpus for i in range(len(doc.sentences))]

    def draw(rng: random.Random, count: int, avoid: set[str]) -> list[Sentence]:
        chosen: dict[tuple[str, int], None] = {}
        for _ in range(50 * count + 50):
            if len(chosen) == count:
                break
            title, index = ids[rng.randrange(len(ids))]
            if title not in avoid:
                chosen[(title, index)] = None
        return [corpus.sentence(sid) for sid in chosen]
    return draw


def _orderings(sentence_titles: list[str], titles: list[str], hop: int, orderings: str) -> list[tuple]:
    """``(previous titles, target title)`` pairs: previous ones need a gold sentence, all distinct."""
    if orderings == "given":
        if len(sentence_titles) < hop:
            return []
        previous = tuple(sentence_titles[:hop])
        rest = [t for t in titles if t not in previous]
        return [(previous, rest[0])] if rest else []
    return [(previous, target) for previous in itertools.permutations(sentence_titles, hop)
            for target in titles if target not in previous]


def make_examples(claims: Iterable, corpus: Corpus, hop: int, *, max_sentences: int = 4,
                  negatives: int | None = None, max_orderings: int | None = 6, orderings: str = "all",
                  pointer_rule: str = "last", seed: int = 0) -> list[RetrievalExample]:
    """Training (or evaluation) examples for the model of ``hop`` from RetrievalClaims and their corpus.

    ``negatives`` defaults to filling the input up to ``max_sentences``.  Every random choice (which
    orderings, which gold sentence of a page, negatives, shuffling) uses a generator seeded by
    ``(seed, claim id, hop)``, so a claim's examples do not depend on the other claims.  Claims with
    too few gold documents for ``hop`` give no example.  A gold title missing from the corpus or an
    empty claim is a ValueError.
    """
    if hop < 0:
        raise ValueError(f"hop must be >= 0, got {hop}")
    if hop > max_sentences:
        raise ValueError(f"hop {hop} needs {hop} previous sentences but max_sentences is {max_sentences}")
    if orderings not in ("all", "given"):
        raise ValueError(f"orderings must be 'all' or 'given', got {orderings!r}")
    if pointer_rule not in POINTER_RULES:
        raise ValueError(f"pointer_rule must be one of {POINTER_RULES}, got {pointer_rule!r}")
    n_negatives = max_sentences - hop if negatives is None else negatives
    if n_negatives < 0 or hop + n_negatives > max_sentences:
        raise ValueError(f"{hop} gold + {n_negatives} negative sentences exceed max_sentences={max_sentences}")
    draw = negative_sampler(corpus)
    examples: list[RetrievalExample] = []
    for claim in claims:
        text = _check_claim(claim.claim)
        titles = list(dict.fromkeys(claim.gold_titles))
        missing = [t for t in titles if t not in corpus]
        if missing:
            raise ValueError(f"claim {claim.id}: gold title(s) {missing} are not in corpus {corpus.name!r}")
        if hop == 0:
            examples += [RetrievalExample(text, (), (), title, tuple(titles)) for title in titles]
            continue
        rng = random.Random(f"{seed}:{claim.id}:{hop}")
        examples += _hop_examples(claim, text, titles, corpus, hop, rng, lambda n: draw(rng, n, set(titles)),
                                  n_negatives, max_orderings, orderings, pointer_rule)
    return examples


def _hop_examples(claim, text: str, titles: list[str], corpus: Corpus, hop: int, rng: random.Random, draw,
                  n_negatives: int, max_orderings: int | None, orderings: str,
                  pointer_rule: str) -> list[RetrievalExample]:
    """The examples of one claim at ``hop`` >= 1 (see :func:`make_examples`)."""
    by_title: dict[str, list[tuple[str, int]]] = {}  # gold pages with a gold sentence, in evidence order
    for sid in claim.gold_sentences:
        by_title.setdefault(sid[0], []).append(sid)
    pairs = _orderings(list(by_title), titles, hop, orderings)
    if max_orderings is not None and len(pairs) > max_orderings:
        pairs = rng.sample(pairs, max_orderings)
    examples = []
    for previous, target in pairs:
        # the given order uses each page's first gold sentence; orderings use a random one
        gold = [corpus.sentence(by_title[t][0] if orderings == "given" else rng.choice(by_title[t])) for t in previous]
        inputs = gold + draw(n_negatives)
        rng.shuffle(inputs)
        conditioned = gold[-1:] if pointer_rule == "last" else gold
        pointers = tuple(inputs.index(s) for s in conditioned)
        valid = tuple(t for t in titles if t not in previous)
        examples.append(RetrievalExample(text, tuple(inputs), pointers, target, valid))
    return examples


# ---------------------------------------------------------------- the retriever


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


class AutoregressiveRetriever:
    """A seq2seq title generator for one hop, with prefix-tree constrained beam search.

    ``titles`` are the corpus titles (or a ready :class:`TitleTrie`); generated titles are always
    among them.  ``hop`` 0 writes ``[ Title ]`` from the claim; ``hop`` >= 1 writes the pointer(s)
    first (one with ``pointer_rule="last"``, up to ``hop`` with ``"all"``).  ``use_pointers=False``
    trains and decodes titles without pointers at every hop (an ablation).
    """

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
        self.model, self.tokenizer = model, tokenizer
        self.hop, self.max_sentences, self.pointer_rule = hop, max_sentences, pointer_rule
        self.use_pointers, self.length_penalty, self.backend = use_pointers, length_penalty, backend
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model.to(self.device).eval()
        self.use_titles(titles)
        positions = self._max_positions()
        self.max_input_length = min(max_input_length, positions) if positions else max_input_length
        self.eos_token_id, self.pad_token_id = generation_ids(model)
        self.separator = tokenizer.sep_token or tokenizer.eos_token
        if self.separator is None:
            raise ValueError(f"{type(tokenizer).__name__} has neither a SEP nor an EOS token to separate the claim")
        self._separator_ids = encode_segment(tokenizer, self.separator)
        self._prefix_ids, self._suffix_ids = special_frame(tokenizer)
        self._special_overhead = len(self._prefix_ids) + len(self._suffix_ids)

    def __repr__(self) -> str:
        return (f"AutoregressiveRetriever(hop={self.hop}, backend={self.backend!r}, "
                f"{type(self.model).__name__}, {len(self.title_trie)} titles)")

    # -- constructors
    @classmethod
    def warm_start(cls, titles, *, hop: int = 1, checkpoint: os.PathLike | str = "minilm", seed: int = 0,
                   **kwargs) -> "AutoregressiveRetriever":
        """Encoder and decoder warm-started from a local encoder (MiniLM: 49M parameters)."""
        set_seed(seed)
        model = warm_start_seq2seq_from_encoder(checkpoint)
        return cls(model, load_tokenizer(checkpoint), titles, hop=hop, backend="warm-start", **kwargs)

    @classmethod
    def from_scratch(cls, titles, *, hop: int = 1, tokenizer: os.PathLike | str = "minilm", d_model: int = 256,
                     layers: int = 3, heads: int = 4, ffn_dim: int | None = None, dropout: float = 0.1,
                     seed: int = 0, **kwargs) -> "AutoregressiveRetriever":
        """A small BART initialised at random (seeded) for the tokenizer of a local checkpoint (MiniLM's)."""
        tok = load_tokenizer(tokenizer)
        set_seed(seed)
        max_positions = max(kwargs.get("max_input_length", 256), 128)
        model = small_seq2seq(len(tok), d_model=d_model, layers=layers, heads=heads, ffn_dim=ffn_dim,
                              max_positions=max_positions, dropout=dropout, **special_token_ids(tok))
        return cls(model, tok, titles, hop=hop, backend="scratch", **kwargs)

    @classmethod
    def from_checkpoint(cls, folder: os.PathLike | str, titles, *, hop: int = 1,
                        **kwargs) -> "AutoregressiveRetriever":
        """Any local seq2seq checkpoint folder (BART, GENRE, T5, EncoderDecoderModel) with its own tokenizer.

        Special ids the checkpoint lacks are filled from its tokenizer; ones it has are kept (BART
        starts decoding with ``</s>``).
        """
        tokenizer = load_tokenizer(folder)
        model = load_seq2seq(folder)
        config = model.generation_config
        kept = {name: first_id(getattr(config, name)) for name in ("pad_token_id", "eos_token_id",
                                                                     "decoder_start_token_id")}
        if any(value is None for value in kept.values()):  # T5 tokenizers have no CLS/BOS: ask only when needed
            ids = special_token_ids(tokenizer)
            kept = {name: ids[name] if value is None else value for name, value in kept.items()}
        set_special_token_ids(model, **kept)
        return cls(model, tokenizer, titles, hop=hop, backend="checkpoint", **kwargs)

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

    def _max_positions(self) -> int | None:
        config = getattr(self.model.config, "encoder", self.model.config)
        return getattr(config, "max_position_embeddings", None)

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
        claim = _check_claim(claim)
        sentences = list(sentences)[:self.max_sentences]
        budget = self.max_input_length - self._special_overhead
        claim_ids = list(self.tokenizer(claim, add_special_tokens=False)["input_ids"])
        if len(claim_ids) + len(self._separator_ids) >= budget or not sentences:
            return self._framed(claim_ids[:budget]), 0
        budget -= len(claim_ids) + len(self._separator_ids)
        heads, texts = [], []
        for index, sentence in enumerate(sentences):
            title, text = _title_and_text(sentence)
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

    def _framed(self, ids: list[int]) -> list[int]:
        """``ids`` between the tokenizer's special tokens (``[CLS] ... [SEP]``, ``<s> ... </s>``, ``... </s>``)."""
        return self._prefix_ids + list(ids) + self._suffix_ids

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

    def _collate(self, batch: list[tuple[list[int], list[int]]]) -> dict[str, torch.Tensor]:
        return collate(batch, self.pad_token_id)

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
        with warnings.catch_warnings():  # EncoderDecoderModel warns on every step that it computes the loss
            warnings.filterwarnings("ignore", message="Version v4.12.0 introduces", category=FutureWarning)
            result = train(self.model, encoded, self._collate, evaluate, config or TrainConfig())
        self.model.eval()
        return result

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
                _check_claim(claim)
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
        firsts = range(0, len(live), batch_size)
        for first in tqdm(firsts, desc=f"hop-{self.hop} titles", unit="batch", file=sys.stderr, leave=False,
                          disable=len(firsts) <= 10):    # a progress bar for more than ten batches
            chunk = live[first:first + batch_size]
            outputs = self._generate_chunk([encoded[i] for i in chunk], [tries[i] for i in chunk], beam, num_return,
                                           excluded)
            for i, beams in zip(chunk, outputs):
                results[i] = beams
        return results

    def _generate_chunk(self, chunk: list[tuple[list[int], int]], tries: list[TitleTrie], beam: int,
                        num_return: int, excluded: set[str]) -> list[list[Beam]]:
        constraints = [self.constraint(kept, trie) for (_, kept), trie in zip(chunk, tries)]
        batch = self._collate([(ids, [self.eos_token_id]) for ids, _ in chunk])
        lengths = [c.max_length() or 64 for c in constraints]
        settings = dict(num_beams=beam, num_return_sequences=num_return, max_new_tokens=max(lengths) + 1,
                        prefix_allowed_tokens_fn=prefix_allowed_tokens_fn(constraints), do_sample=False,
                        no_repeat_ngram_size=0, repetition_penalty=1.0, min_length=0, return_dict_in_generate=True,
                        forced_bos_token_id=None)
        if beam > 1:
            # early_stopping=False: forced tokens (every output starts with "< E") leave transformers'
            # initial filler beams (score -1e9) alive, copying the live path; with early stopping
            # their finished copies would fill the beam and end the search after one title
            settings.update(length_penalty=self.length_penalty, early_stopping=False, output_scores=True)
        else:
            settings.update(output_logits=True)
        with torch.no_grad(), quiet_transformers():
            out = self.model.generate(input_ids=batch["input_ids"].to(self.device),
                                      attention_mask=batch["attention_mask"].to(self.device), **settings)
        sequences = out.sequences[:, 1:].tolist()  # drop the decoder start token
        scores = self._sequence_scores(out, beam)
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

    def _sequence_scores(self, out, beam: int) -> list[float]:
        """Beam search's length-normalised scores; for greedy, the mean log-probability of the tokens."""
        if beam > 1:
            return out.sequences_scores.tolist()
        return mean_logprob(out.logits, out.sequences[:, 1:], self.eos_token_id)

    # -- persistence
    def save(self, folder: os.PathLike | str) -> Path:
        """Write model, tokenizer, settings and titles into ``folder`` (for ``object_codec``)."""
        settings = {"hop": self.hop, "max_input_length": self.max_input_length, "max_sentences": self.max_sentences,
                    "pointer_rule": self.pointer_rule, "use_pointers": self.use_pointers,
                    "length_penalty": self.length_penalty, "backend": self.backend,
                    "model_class": type(self.model).__name__}
        folder = save_with_settings(folder, self.model, self.tokenizer, CONFIG_FILE, settings)
        titles = self._all_titles if self._all_titles is not None else self.title_trie.titles
        (folder / TITLES_FILE).write_text(json.dumps(titles, ensure_ascii=False), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None) -> "AutoregressiveRetriever":
        """A retriever written by :meth:`save`; its title trie is rebuilt from the saved titles."""
        import transformers

        folder = resolve_checkpoint(folder)
        settings = read_settings(folder, CONFIG_FILE, "AutoregressiveRetriever.save")
        model = load_model(getattr(transformers, settings.pop("model_class")), folder)
        titles = json.loads((folder / TITLES_FILE).read_text(encoding="utf-8"))
        return cls(model, load_tokenizer(folder), titles, device=device, **settings)
