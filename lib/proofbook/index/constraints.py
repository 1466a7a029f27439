"""Constrained decoding: the title trie, sentence pointers and sequence constraints that walk prefix trees.

AdMIRaL (Aly & Vlachos 2022, §3, "multi-hop autoregressive retrieval") decodes new document titles
with beam search restricted by a **prefix tree of all corpus titles** (as GENRE does, De Cao et al.
2021), preceded by **dynamic constraints** that only allow pointers ``< E{i} >`` to sentences present
in the encoder input.  The same machinery serves the natural-logic proof decoder (:mod:`proofbook.admiral.prover.proof_format`:
claim-span trie, evidence-span trie, operator set), so it is split into three generic pieces:

* :class:`~proofbook.index.prefix_tree.PrefixTree` -- a trie over token-id sequences, each complete
  sequence mapped to a value (its own module);
* :class:`SequenceConstraint` -- an ordered list of :class:`Segment` s (one trie each, repeated
  between ``min_count`` and ``max_count`` times), optionally cycled, then EOS;
* :func:`proofbook.models.decoding.prefix_allowed_tokens_fn` (in the model layer) -- the adapter ``generate()``
  calls at every step.

GENRE's pitfalls are handled here: the first token of a decoded sequence is the decoder start token
and is skipped before walking the trie; the adapter never returns an empty list (a dead prefix gets
``[eos]``, newer transformers raise on an empty list); callers must also disable
``no_repeat_ngram_size`` (titles repeat tokens), which every generator built on
:class:`proofbook.models.seq2seq.Seq2Seq` does.

:class:`TitleTrie` stores each title as the tokens of ``[ Title ]`` and maps them back to the
**original** title: an uncased WordPiece tokenizer lower-cases, so decoded text is not the title.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Iterable, NamedTuple, Sequence

from proofbook.index.prefix_tree import PrefixTree, TrieNode, token_ids

#: how a title and a sentence pointer are written in AdMIRaL's decoder targets
TITLE_TEMPLATE = "[ {} ]"
POINTER_TEMPLATE = "< E{} >"


def encode_segment(tokenizer, text: str) -> list[int]:
    """Token ids of one piece of a target or input, without special tokens.

    The piece is prefixed with a space so that byte-level BPE tokenizers (BART, GENRE) give the
    word-initial form they give in running text; WordPiece and SentencePiece ignore the space.
    Every target, trie entry and encoder input is built from such pieces, so they always agree.
    """
    return list(tokenizer(" " + text, add_special_tokens=False)["input_ids"])


def encode_segments(tokenizer, texts: Sequence[str], chunk: int = 10_000) -> list[list[int]]:
    """:func:`encode_segment` for many texts, tokenized in batches (100k titles in seconds)."""
    out: list[list[int]] = []
    for first in range(0, len(texts), chunk):
        batch = [" " + text for text in texts[first:first + chunk]]
        out += [list(ids) for ids in tokenizer(batch, add_special_tokens=False)["input_ids"]]
    return out


class TitleTrie(PrefixTree):
    """The prefix tree of all corpus titles, each stored as the tokens of ``[ Title ]``.

    The value of a stored sequence is the **original** title.  Two titles can tokenize identically
    (an uncased tokenizer, unknown characters): the first is kept, the later one is recorded in
    ``collisions`` (dropped title -> kept title) and cannot be generated.
    """

    def __init__(self) -> None:
        super().__init__()
        self.collisions: dict[str, str] = {}
        self.template = TITLE_TEMPLATE
        self._sequences: dict[str, tuple[int, ...]] | None = None

    @classmethod
    def from_titles(cls, titles: Iterable[str], tokenizer, template: str = TITLE_TEMPLATE) -> "TitleTrie":
        """Tokenize every title as ``template.format(title)`` and store it; empty titles are refused."""
        trie = cls()
        trie.template = template
        titles = list(titles)
        for position, title in enumerate(titles):
            if not isinstance(title, str) or not title.strip():
                raise ValueError(f"TitleTrie: title at position {position} is empty ({title!r})")
        for title, tokens in zip(titles, encode_segments(tokenizer, [template.format(t) for t in titles])):
            if not trie.add(tokens, title):
                kept = trie.value(tokens)
                if kept != title:
                    trie.collisions[title] = kept
        return trie

    def title(self, seq: Sequence[int]) -> str | None:
        """The original title of a complete token sequence, or None."""
        return self.value(seq, None)

    @property
    def titles(self) -> list[str]:
        """The titles that can be generated (collided ones excluded), in trie order."""
        return [value for _, value in self.items()]

    def restricted(self, titles: Iterable[str]) -> "TitleTrie":
        """A trie of only those ``titles`` that this trie can generate (unknown ones are ignored).

        Reuses this trie's tokenization, so building a per-query trie of a few dozen titles is cheap.
        """
        if self._sequences is None:
            self._sequences = {value: seq for seq, value in self.items()}
        sub = TitleTrie()
        sub.template = self.template
        for title in titles:
            seq = self._sequences.get(title)
            if seq is not None:
                sub.add(seq, title)
        return sub


def pointer_tree(indices: Iterable[int], tokenizer, template: str = POINTER_TEMPLATE) -> PrefixTree:
    """A small trie of the sentence pointers ``< E{i} >`` allowed for one input; values are the ``i``."""
    tree = PrefixTree()
    for index in dict.fromkeys(int(i) for i in indices):
        tree.add(encode_segment(tokenizer, template.format(index)), index)
    return tree


@dataclass(frozen=True)
class Segment:
    """One part of a constrained output: a sequence from ``tree``, repeated ``min_count``..``max_count`` times."""

    tree: PrefixTree
    min_count: int = 1
    max_count: int = 1
    name: str = ""

    def __post_init__(self) -> None:
        if self.min_count < 0 or self.max_count < max(1, self.min_count):
            raise ValueError(f"Segment {self.name!r}: need 0 <= min_count <= max_count and max_count >= 1, "
                             f"got {self.min_count}..{self.max_count}")


class _State(NamedTuple):
    """Where a partial output is: cycle, segment, sequences completed in it, trie node (None = between
    sequences), and the values of the sequences completed so far as ``(segment name, value)``."""

    cycle: int
    segment: int
    count: int
    node: TrieNode | None
    values: tuple[tuple[str, Hashable], ...]


class SequenceConstraint:
    """Outputs made of segments in order, then EOS: e.g. ``pointer{1,2} title`` or ``(claim evidence op)+``.

    The whole segment list is one cycle, repeated ``min_cycles``..``max_cycles`` times (``None``: no
    upper bound), which covers a proof's repeated ``{ claim span } [ evidence span ] OP`` triples.
    The walk is a small non-deterministic automaton, so a stored sequence that is also the prefix of
    another (or of the next segment) is handled correctly.  :meth:`allowed` never returns an empty
    list: a prefix that left every trie can only end (``[eos]``).
    """

    def __init__(self, segments: Sequence[Segment], eos_token_id: int, *, min_cycles: int = 1,
                 max_cycles: int | None = 1):
        if not segments:
            raise ValueError("SequenceConstraint needs at least one segment")
        if min_cycles < 0 or (max_cycles is not None and max_cycles < max(1, min_cycles)):
            raise ValueError(f"SequenceConstraint: bad cycles {min_cycles}..{max_cycles}")
        if max_cycles is None and all(s.min_count == 0 for s in segments):
            raise ValueError("SequenceConstraint: unbounded cycles need a segment with min_count >= 1")
        self.segments = list(segments)
        self.eos_token_id = int(eos_token_id)
        self.min_cycles, self.max_cycles = min_cycles, max_cycles
        self._start = self._closure({_State(0, 0, 0, None, ())})

    def __repr__(self) -> str:
        parts = " ".join(f"{s.name or 'segment'}{{{s.min_count},{s.max_count}}}" for s in self.segments)
        return f"SequenceConstraint({parts}, cycles {self.min_cycles}..{self.max_cycles})"

    def max_length(self) -> int | None:
        """The most tokens an output can have before EOS (``None`` when cycles are unbounded)."""
        if self.max_cycles is None:
            return None
        return self.max_cycles * sum(s.max_count * s.tree.depth for s in self.segments)

    # -- the automaton
    def _closure(self, states: set[_State]) -> frozenset:
        """Add every state reachable without reading a token (finishing a segment or a cycle)."""
        todo, seen = list(states), set(states)
        while todo:
            state = todo.pop()
            if state.node is not None or state.segment == len(self.segments):
                continue
            segment = self.segments[state.segment]
            if state.count >= segment.min_count:
                nxt = _State(state.cycle, state.segment + 1, 0, None, state.values)
                if state.segment + 1 == len(self.segments) and self._may_cycle(state.cycle + 1):
                    again = _State(state.cycle + 1, 0, 0, None, state.values)
                    if again not in seen:
                        seen.add(again)
                        todo.append(again)
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return frozenset(seen)

    def _may_cycle(self, cycles_done: int) -> bool:
        return self.max_cycles is None or cycles_done < self.max_cycles

    def _accepting(self, state: _State) -> bool:
        return state.node is None and state.segment == len(self.segments) and state.cycle + 1 >= self.min_cycles

    def _step(self, states: frozenset, token: int) -> frozenset:
        """The states after reading ``token``."""
        out: set[_State] = set()
        for state in states:
            if state.segment == len(self.segments):
                continue
            segment = self.segments[state.segment]
            if state.node is None:
                if state.count >= segment.max_count:
                    continue
                child = segment.tree.root.children.get(token)
            else:
                child = state.node.children.get(token)
            if child is None:
                continue
            if child.children:
                out.add(state._replace(node=child))
            if child.terminal:
                done = state.values + ((segment.name, child.value),)
                out.add(_State(state.cycle, state.segment, state.count + 1, None, done))
        return self._closure(out)

    def states(self, tokens: Sequence[int], memo: dict | None = None) -> frozenset:
        """The automaton states after ``tokens`` (decoder start already removed); empty when dead.

        ``memo`` (a dict keyed by token tuples) makes walking a beam that grows by one token per
        step cost one step instead of the whole prefix.
        """
        tokens = token_ids(tokens)
        if memo is None:
            states = self._start
            for token in tokens:
                states = self._step(states, token)
            return states
        if tokens not in memo:
            memo[tokens] = self._step(self.states(tokens[:-1], memo), tokens[-1]) if tokens else self._start
        return memo[tokens]

    def allowed_from(self, states: frozenset) -> list[int]:
        """Tokens allowed after reaching ``states``; ``[eos]`` if nothing else (never empty)."""
        allowed: dict[int, None] = {}
        for state in states:
            if self._accepting(state):
                allowed[self.eos_token_id] = None
            elif state.node is not None:
                allowed.update(dict.fromkeys(state.node.children))
            elif state.segment < len(self.segments):
                segment = self.segments[state.segment]
                if state.count < segment.max_count:
                    allowed.update(dict.fromkeys(segment.tree.root.children))
        return list(allowed) or [self.eos_token_id]

    def allowed(self, tokens: Sequence[int], memo: dict | None = None) -> list[int]:
        """The tokens that may follow ``tokens``: never empty."""
        tokens = token_ids(tokens)
        if self.eos_token_id in tokens:  # a finished output (then padding): only EOS keeps it finished
            return [self.eos_token_id]
        return self.allowed_from(self.states(tokens, memo))

    def parse(self, tokens: Sequence[int]) -> list[tuple[str, Hashable]] | None:
        """The ``(segment name, value)`` of each stored sequence in a complete output, or None.

        ``tokens`` may end with EOS and padding; an output that is unfinished or leaves the tries
        gives None.
        """
        tokens = list(token_ids(tokens))
        if self.eos_token_id in tokens:
            tokens = tokens[:tokens.index(self.eos_token_id)]
        for state in sorted(self.states(tokens), key=lambda s: len(s.values)):
            if self._accepting(state):
                return list(state.values)
        return None


def retrieval_constraint(title_trie: TitleTrie, pointers: PrefixTree | None, eos_token_id: int,
                         max_pointers: int = 1) -> SequenceConstraint:
    """AdMIRaL's decoder output: ``pointer{1..max_pointers}`` (if any) then ``[ Title ]``, then EOS.

    ``pointers`` is the :func:`pointer_tree` of the sentences present in this input; ``None`` or an
    empty tree gives titles only (the hop-0 / GENRE step).
    """
    segments = []
    if pointers is not None and len(pointers):
        segments.append(Segment(pointers, 1, max(1, min(max_pointers, len(pointers))), name="pointer"))
    segments.append(Segment(title_trie, name="title"))
    return SequenceConstraint(segments, eos_token_id)
