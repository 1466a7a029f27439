"""The prefix tree over token-id sequences, each complete sequence mapped to a value.

AdMIRaL (Aly & Vlachos 2022, §3, "multi-hop autoregressive retrieval") decodes document titles with
beam search restricted by a prefix tree of all corpus titles, as GENRE does (De Cao et al. 2021).
:class:`PrefixTree` is that tree, generic over what it stores: the titles
(:class:`proofbook.index.constraints.TitleTrie`), the sentence pointers ``< E{i} >`` of one input, and
the claim spans, evidence spans and operators of the natural-logic proof decoder.  The constraints that
walk these trees while decoding are in :mod:`proofbook.index.constraints`.
"""
from __future__ import annotations

import sys
from typing import Any, Iterable, Iterator, Sequence

_MISSING = object()


def token_ids(seq: Iterable) -> tuple[int, ...]:
    """A token sequence (list, tuple, tensor, array) as a tuple of Python ints.

    A tuple is returned as it is (the memo keys of
    :meth:`proofbook.index.constraints.SequenceConstraint.states` are tuples that grow by one token per
    decoding step: converting them again at every step made constrained decoding quadratic)."""
    if type(seq) is tuple:
        return seq
    if hasattr(seq, "tolist"):
        return tuple(seq.tolist())
    return tuple(int(token) for token in seq)


class TrieNode:
    """A trie node: children by token id; ``terminal`` when a stored sequence ends here."""

    __slots__ = ("children", "terminal", "value")

    def __init__(self) -> None:
        self.children: dict[int, TrieNode] = {}
        self.terminal = False
        self.value: Any = None


class PrefixTree:
    """A trie over token-id sequences; every stored (complete) sequence carries a value.

    ``add`` keeps the first value of a sequence added twice and returns False for the repeat, so
    callers can count collisions.  ``children(prefix)`` lists the tokens that may follow ``prefix``
    (empty if the prefix leaves the tree or ends at a leaf).
    """

    def __init__(self, sequences: Iterable[Sequence[int]] = (), values: Iterable[Any] | None = None):
        self.root = TrieNode()
        self._size = 0
        self._depth = 0
        sequences = list(sequences)
        values = [None] * len(sequences) if values is None else list(values)
        if len(values) != len(sequences):
            raise ValueError(f"PrefixTree: {len(sequences)} sequences but {len(values)} values")
        for seq, value in zip(sequences, values):
            self.add(seq, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._size} sequences, depth {self._depth})"

    def add(self, seq: Sequence[int], value: Any = None) -> bool:
        """Store ``seq`` with ``value``; False (and nothing changed) if ``seq`` is already stored."""
        tokens = token_ids(seq)
        if not tokens:
            raise ValueError("PrefixTree.add: an empty sequence cannot be stored")
        node = self.root
        for token in tokens:
            node = node.children.setdefault(token, TrieNode())
        if node.terminal:
            return False
        node.terminal, node.value = True, value
        self._size += 1
        self._depth = max(self._depth, len(tokens))
        return True

    def node(self, prefix: Sequence[int] = ()) -> TrieNode | None:
        """The node reached by walking ``prefix`` from the root, or None if it leaves the tree."""
        node = self.root
        for token in token_ids(prefix):
            node = node.children.get(token)
            if node is None:
                return None
        return node

    def children(self, prefix: Sequence[int] = ()) -> list[int]:
        """Token ids that can follow ``prefix`` inside the tree (in insertion order)."""
        node = self.node(prefix)
        return list(node.children) if node is not None else []

    def has_prefix(self, prefix: Sequence[int]) -> bool:
        """True if ``prefix`` is a prefix of (or equal to) a stored sequence."""
        return self.node(prefix) is not None

    def __contains__(self, seq: object) -> bool:
        try:
            node = self.node(seq)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return node is not None and node.terminal and node is not self.root

    def value(self, seq: Sequence[int], default: Any = _MISSING) -> Any:
        """The value stored with the complete sequence ``seq``; KeyError (or ``default``) if absent."""
        node = self.node(seq)
        if node is None or not node.terminal:
            if default is _MISSING:
                raise KeyError(f"sequence {list(token_ids(seq))} is not stored in the tree")
            return default
        return node.value

    def __len__(self) -> int:
        return self._size

    @property
    def depth(self) -> int:
        """The length of the longest stored sequence."""
        return self._depth

    def items(self) -> Iterator[tuple[tuple[int, ...], Any]]:
        """Every stored ``(sequence, value)``, depth-first in insertion order."""
        stack: list[tuple[TrieNode, tuple[int, ...]]] = [(self.root, ())]
        while stack:
            node, prefix = stack.pop()
            if node.terminal:
                yield prefix, node.value
            stack.extend((child, prefix + (token,)) for token, child in reversed(node.children.items()))

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return (seq for seq, _ in self.items())

    def n_nodes(self) -> int:
        """Number of nodes, the root included."""
        count, stack = 0, [self.root]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children.values())
        return count

    def compact_bytes(self) -> int:
        """Bytes of the tree stored flat, as a serialised trie would be: per node one int32 token id and one
        int32 offset to its children (values not counted).  Compare :meth:`approx_bytes` (Python objects)."""
        return 8 * self.n_nodes()

    def approx_bytes(self) -> int:
        """Approximate memory of the tree's nodes and child dicts (``sys.getsizeof``; values not counted)."""
        total, stack = 0, [self.root]
        while stack:
            node = stack.pop()
            total += sys.getsizeof(node) + sys.getsizeof(node.children)
            total += sum(sys.getsizeof(token) for token in node.children if token > 256)  # small ints are shared
            stack.extend(node.children.values())
        return total
