"""The data that trains Entailer's behaviours here: premise-generation pairs and the scorers' labelled examples.

Entailer (Tafjord et al. 2022, §3.1-3.2) is one T5-11B model with three behaviours: H -> P (generate
premises that together entail H), H -> Sd (is H true?) and PH -> Se (do the premises entail H?).  The
book trains one model for each (:class:`~proofbook.entailer.behaviours.TrainedEntailer`); this module
builds what they learn from.

Premise generator H -> P (:func:`premise_pairs`): EntailmentBank's one-step entailments in the official
H -> P format, optionally with a ``$context$`` of five facts -- the gold premises and BM25-retrieved
WorldTree distractors, as in the paper's training contexts (:func:`premise_pairs_with_context`, with a
:class:`~proofbook.entailer.behaviours.FactRetriever`).

Training data for the scorers (the paper's crowdsourced negatives -- 7,013 labelled premises, 3,391
labelled inferences -- are not public, so negatives are built, with these sources):

Truth scorer H -> Sd (:func:`truth_groups`), pair ``(statement, "")``, or ``(statement, retrieved facts)``
with a :class:`~proofbook.entailer.behaviours.TruthContext` (a departure, see :mod:`.entailer_experiments`).  The data are *groups* of statements
with exactly one true member, learnt as multiple-choice items
(:meth:`proofbook.models.cross_encoder.CrossEncoder.fit_groups`: rank the true member first, and score each member on
its own):

* one group per OpenBookQA train question: the hypothesis of the correct option (true) and those of
  every wrong option (false statements about the same topic, the most realistic negatives);
* one group per EntailmentBank statement -- every sentence used in a train proof (premise), every
  intermediate conclusion and hypothesis (all true by construction) -- with its *perturbed* copy (a
  content word replaced by a content word of another premise: "a leaf is a kind of plant part" -> "a
  magnet is a kind of plant part") and/or its *negated* copy ("is" -> "is not"; "can" -> "cannot").

Grouping a true statement with false ones of the same style and topic keeps style from giving the label
away; the EntailmentBank groups teach the scorer what a true *premise* (a general fact) looks like, the
OpenBookQA groups what a true *answer* looks like.  (During development, training on all four options of
each question, rather than on balanced single statements, was what lifted ``direct`` on OBQA dev well
above chance; the multiple-choice loss added a little more.)

Entailment scorer PH -> Se (:func:`entailment_examples`), pair ``(premises joined by " . ", hypothesis)``:

* positives: EntailmentBank train one-step entailments (premises -> conclusion); SciTail ``E`` and SICK
  ``ENTAILMENT`` pairs;
* negatives: (1) *shuffled* premises: the premises of another step of another tree with this
  conclusion; (2) *incomplete* premises: a step with two or more premises, one premise dropped and
  replaced by an unrelated premise (the remaining premise alone rarely entails the conclusion: an
  approximation, stated here); (3) SciTail ``N`` and SICK ``NEUTRAL``/``CONTRADICTION`` pairs.

Every training set is cleaned of near-duplicates of the evaluation statements (:func:`near_duplicate_key`:
the sorted set of lower-cased word tokens; an exact key match counts as a near-duplicate) and the
number removed is reported.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from proofbook.entailer import formats
from proofbook.entailer.behaviours import FALSE, TRUE, FactRetriever, join_premises

__all__ = ["Cleaned", "LabelledPairs", "StatementGroups", "drop_near_duplicates", "entailment_examples",
           "near_duplicate_key", "negate", "perturb", "premise_pairs", "premise_pairs_with_context",
           "truth_groups"]

_STOP = frozenset("""a an the of to in on at by for with from and or but is are was were be been being it its this that
these those as into than then so such can cannot not no do does did has have had will would should could may might
must kind type example something someone used use uses part when which what who how why where there their they""".split())


# --- near-duplicates ---------------------------------------------------------------------------------

def near_duplicate_key(text: str) -> str:
    """The sorted set of lower-cased word tokens: equal keys = near-duplicates (order, case, punctuation)."""
    return " ".join(sorted(set(re.findall(r"\w+", str(text).lower()))))


@dataclass
class Cleaned:
    """Examples kept after removing near-duplicates of evaluation statements, and how many went."""

    examples: list
    removed: int


def drop_near_duplicates(examples: Sequence, texts_of, evaluation_texts: Iterable[str]) -> Cleaned:
    """Drop every example one of whose ``texts_of(example)`` near-duplicates an evaluation text."""
    banned = {near_duplicate_key(t) for t in evaluation_texts}
    kept = [e for e in examples if not any(near_duplicate_key(t) in banned for t in texts_of(e))]
    return Cleaned(kept, len(examples) - len(kept))


# --- premise generator H -> P ----------------------------------------------------------------------

def premise_pairs(entailments: Iterable) -> list[tuple[str, str]]:
    """Official H -> P (input, target) pairs from one-step entailments (``.premises``, ``.conclusion``)."""
    return [(formats.premise_input(e.conclusion), formats.premise_target(e.premises)) for e in entailments]


def premise_pairs_with_context(entailments: Iterable, retriever: FactRetriever, n_context: int = 5,
                               seed: int = 0) -> list[tuple[str, str]]:
    """H -> P pairs whose input carries ``$context$``: the gold premises plus BM25 distractors, shuffled."""
    rng = random.Random(seed)
    pairs = []
    for e in entailments:
        gold = list(e.premises)
        distractors = retriever.retrieve(e.conclusion, max(0, n_context - len(gold)), exclude=gold)
        context = gold + distractors
        rng.shuffle(context)
        pairs.append((formats.premise_input(e.conclusion, context=context), formats.premise_target(gold)))
    return pairs


# --- truth scorer H -> Sd --------------------------------------------------------------------------

def _content_positions(words: list[str]) -> list[int]:
    return [i for i, w in enumerate(words) if len(w) > 2 and w.isalpha() and w.lower() not in _STOP]


def perturb(statement: str, donors: Sequence[str], rng: random.Random) -> str | None:
    """Replace one content word of ``statement`` by a different content word of a donor statement."""
    words = statement.split()
    positions = _content_positions(words)
    if not positions or not donors:
        return None
    for _ in range(5):
        donor = rng.choice(donors).split()
        donor_positions = _content_positions(donor)
        if not donor_positions:
            continue
        i, j = rng.choice(positions), rng.choice(donor_positions)
        if donor[j].lower() != words[i].lower():
            return " ".join(words[:i] + [donor[j]] + words[i + 1:])
    return None


_NEGATIONS = ((" is not ", " is "), (" are not ", " are "), (" cannot ", " can "), (" does not ", " does "),
              (" do not ", " do "))


def negate(statement: str) -> str | None:
    """A negated copy ("is" -> "is not", "can" -> "cannot", ...), or None if no rule applies."""
    padded = f" {statement} "
    for negated, plain in _NEGATIONS:
        if negated in padded:  # already negative: remove the negation instead
            return padded.replace(negated, plain, 1).strip()
    for negated, plain in _NEGATIONS:
        if plain in padded:
            return padded.replace(plain, negated, 1).strip()
    return None


@dataclass
class LabelledPairs:
    """Pairs with labels (``true``/``false``) and where each came from (for the book's data table)."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def add(self, pair: tuple[str, str], label: str, source: str) -> None:
        """Append one pair with its label (``true``/``false``) and its source."""
        self.pairs.append(pair)
        self.labels.append(label)
        self.sources.append(source)

    def __len__(self) -> int:
        return len(self.pairs)

    def counts(self) -> dict[str, int]:
        """Pairs per (label, source), for the book's data table."""
        out: dict[str, int] = {}
        for label, source in zip(self.labels, self.sources):
            out[f"{label}: {source}"] = out.get(f"{label}: {source}", 0) + 1
        return dict(sorted(out.items()))

    def shuffled(self, seed: int) -> "LabelledPairs":
        """A copy with the pairs (with their labels and sources) in an order fixed by ``seed``."""
        order = list(range(len(self)))
        random.Random(seed).shuffle(order)
        return LabelledPairs([self.pairs[i] for i in order], [self.labels[i] for i in order],
                             [self.sources[i] for i in order])


@dataclass
class StatementGroups:
    """Groups of statements with exactly one true member each (the truth scorer's training data).

    ``groups[i]`` is a list of ``(statement, is_true)``; ``sources[i]`` says where the group came from.
    """

    groups: list[list[tuple[str, bool]]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.groups)

    def counts(self) -> dict[str, int]:
        """Statements per (label, source), for the book's data table."""
        out: dict[str, int] = {}
        for group, source in zip(self.groups, self.sources):
            for _, flag in group:
                key = f"{TRUE if flag else FALSE}: {source}"
                out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))

    def split(self, n_first: int) -> tuple["StatementGroups", "StatementGroups"]:
        """``(first, rest)``: the first ``n_first`` groups and the others, each with their sources."""
        return (StatementGroups(self.groups[:n_first], self.sources[:n_first]),
                StatementGroups(self.groups[n_first:], self.sources[n_first:]))

    def statements(self) -> list[str]:
        """Every statement, group after group (the order :meth:`true_ranked_first` reads its scores in)."""
        return [text for group in self.groups for text, _ in group]

    def true_ranked_first(self, scores: Sequence[float]) -> list[bool]:
        """Per group, whether its true statement has the highest of ``scores`` (one score per statement, in
        :meth:`statements` order; of equal scores the first counts), as a question's correct option must."""
        if len(scores) != sum(map(len, self.groups)):
            raise ValueError(f"true_ranked_first: {len(scores)} scores for {sum(map(len, self.groups))} statements")
        ranked, at = [], 0
        for group in self.groups:
            best = max(range(len(group)), key=lambda i: scores[at + i])
            ranked.append(bool(group[best][1]))
            at += len(group)
        return ranked


#: the source of the truth scorer's groups built from multiple-choice training questions (:func:`truth_groups`)
QUESTION_SOURCE = "obqa question options"


def truth_groups(trees: Sequence, questions: Sequence[tuple[str, Sequence[str]]], seed: int = 0,
                 max_questions: int | None = None, max_statements: int | None = None) -> StatementGroups:
    """Training groups for the truth scorer, each with one true statement (sources in the module docstring).

    * one group per multiple-choice training question: its correct hypothesis and every wrong one
      (``questions`` are ``(correct hypothesis, [wrong hypotheses])``), at most ``max_questions``;
    * one group per EntailmentBank statement (premise or conclusion, true by construction) with its
      perturbed and/or negated copies, at most ``max_statements``.

    A group is learnt as a multiple-choice item (:meth:`proofbook.models.cross_encoder.CrossEncoder.fit_groups`): the
    scorer must rank its true member first, and score each member on its own.  Grouping a statement with
    false statements *of the same style and topic* keeps style from giving the label away.
    """
    rng = random.Random(seed)
    positives: dict[str, str] = {}
    premises: list[str] = []
    for tree in trees:
        for step in tree.steps:
            for p in step.premises:
                if p.startswith("sent"):
                    text = tree.context[p]
                    premises.append(text)
                    positives.setdefault(text, "entailmentbank premise")
            positives.setdefault(step.conclusion_text, "entailmentbank conclusion")
    premises = list(dict.fromkeys(premises))
    statement_groups = []
    for text, source in positives.items():
        false = []
        changed = perturb(text, premises, rng)
        if changed and changed not in positives:
            false.append(changed)
        flipped = negate(text)
        if flipped and flipped not in positives and flipped not in false:
            false.append(flipped)
        if false:
            statement_groups.append(([(text, True)] + [(f, False) for f in false], f"{source} + perturbed/negated"))
    question_groups = []
    for right, wrong in questions:
        wrong = [w for w in dict.fromkeys(wrong) if w != right]
        if wrong:
            question_groups.append(([(right, True)] + [(w, False) for w in wrong], QUESTION_SOURCE))
    rng.shuffle(statement_groups)
    rng.shuffle(question_groups)
    chosen = question_groups[:max_questions] + statement_groups[:max_statements]
    rng.shuffle(chosen)
    return StatementGroups([group for group, _ in chosen], [source for _, source in chosen])


# --- entailment scorer PH -> Se ------------------------------------------------------------------------

def entailment_examples(entailments: Sequence, nli_pairs: Sequence = (), seed: int = 0,
                        max_examples: int | None = None, nli_share: float = 0.3) -> LabelledPairs:
    """Balanced entailing / non-entailing (premises, hypothesis) pairs (sources in the module docstring).

    ``nli_pairs`` are :class:`proofbook.data.nli.NliPair` (SciTail, SICK); at most ``nli_share`` of the
    examples come from them.
    """
    rng = random.Random(seed)
    entailments = list(entailments)
    positives, negatives = [], []
    all_premises = [p for e in entailments for p in e.premises]
    for e in entailments:
        positives.append(((join_premises(e.premises), e.conclusion), "entailmentbank step"))
        other = rng.choice(entailments)
        if other.conclusion != e.conclusion and other.premises != e.premises:
            negatives.append(((join_premises(other.premises), e.conclusion), "shuffled premises"))
        if len(e.premises) >= 2:
            kept = list(e.premises)
            kept[rng.randrange(len(kept))] = rng.choice(all_premises)
            if set(kept) != set(e.premises):
                negatives.append(((join_premises(kept), e.conclusion), "incomplete premises"))
    nli_pos = [((p.premise, p.hypothesis), f"{p.source} entailment") for p in nli_pairs if p.label == "ENTAILMENT"]
    nli_neg = [((p.premise, p.hypothesis), f"{p.source} {p.label.lower()}") for p in nli_pairs
               if p.label != "ENTAILMENT"]
    for group in (positives, negatives, nli_pos, nli_neg):
        rng.shuffle(group)
    n_eb = min(len(positives), len(negatives))
    n_nli = min(len(nli_pos), len(nli_neg), int(n_eb * nli_share / (1 - nli_share)) if nli_share < 1 else n_eb)
    if max_examples is not None:
        total = 2 * (n_eb + n_nli)
        if total > max_examples:
            factor = max_examples / total
            n_eb, n_nli = int(n_eb * factor), int(n_nli * factor)
    out = LabelledPairs()
    for group, n, label in ((positives, n_eb, TRUE), (negatives, n_eb, FALSE), (nli_pos, n_nli, TRUE),
                            (nli_neg, n_nli, FALSE)):
        for pair, source in group[:n]:
            out.add(pair, label, source)
    return out.shuffled(seed)
