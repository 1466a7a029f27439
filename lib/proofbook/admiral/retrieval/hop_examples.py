"""The input and target format of AdMIRaL's title generator, and its training examples in that format.

Aly & Vlachos 2022, §3 (multi-hop autoregressive retrieval, and training).  The encoder of the title
generator (:class:`proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever`) reads the claim
and the selected sentences, each behind its pointer and title,

    claim </s> < E0 > [ Title0 ] sent0 < E1 > [ Title1 ] sent1 ...      (:func:`format_input`)

and its decoder writes the pointer(s) of the sentence(s) it conditions on, then a new title,
``< E1 > [ Title ]`` (:func:`format_target`; ``[ Title ]`` alone at hop 0, the GENRE step).

Training examples (:func:`make_examples`), a choice the paper leaves open.  Hop ``h`` >= 1: ``h``
previous gold sentences from ``h`` distinct gold documents (an *ordering*), plus negatives --
sentences sampled from pages that are not gold for the claim -- up to ``max_sentences``, shuffled;
the target is the pointer of the last previous sentence (``pointer_rule="last"``: the bridge it
conditions on; ``"all"``: the pointers of every previous sentence) and the title of a gold document
not yet in the input.  HoVer and FEVEROUS give no evidence order, so every ordering is generated
(``orderings="all"``) and at most ``max_orderings`` per claim are kept, sampled with a seed
derived from ``(seed, claim id, hop)``; ``orderings="given"`` keeps the listed evidence order only.
Hop 0: the claim alone, one example per gold title.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Iterable, Sequence

from proofbook.core.corpus import Corpus, Sentence
from proofbook.index.constraints import POINTER_TEMPLATE, TITLE_TEMPLATE

#: which previous sentences a hop-``h`` target points to: the last one (the bridge) or all of them
POINTER_RULES = ("last", "all")
#: a sentence of the encoder input: a corpus Sentence or a ``(title, text)`` pair
SentenceLike = Sentence | tuple[str, str]


def title_and_text(sentence: SentenceLike) -> tuple[str, str]:
    """The title and text of a corpus Sentence or a ``(title, text)`` pair."""
    if isinstance(sentence, Sentence):
        return sentence.title, sentence.text
    title, text = sentence
    return str(title), str(text)


def written_in(title: str, claim: str, sentences: Sequence[SentenceLike] = ()) -> bool:
    """Whether ``title`` is written (case-insensitively) in the claim or the sentences' texts: a title a model
    could copy from its input."""
    text = " ".join([claim] + [title_and_text(s)[1] for s in sentences]).lower()
    return title.lower() in text


def check_claim(claim: str) -> str:
    """The claim with its whitespace collapsed; a ValueError when it is empty."""
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError(f"the claim is empty ({claim!r}); the retriever needs a claim to condition on")
    return " ".join(claim.split())


def sentence_text(index: int, sentence: SentenceLike) -> str:
    """One sentence of the encoder input: ``< E{index} > [ Title ] text``."""
    title, text = title_and_text(sentence)
    return f"{POINTER_TEMPLATE.format(index)} {TITLE_TEMPLATE.format(title)} {text}"


def format_input(claim: str, sentences: Sequence[SentenceLike] = (), separator: str = "</s>") -> str:
    """The encoder input ``claim </s> < E0 > [ Title0 ] sent0 < E1 > ...`` (just the claim without sentences)."""
    claim = check_claim(claim)
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
        text = check_claim(claim.claim)
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
