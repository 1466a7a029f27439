"""The prefix tree, the title trie and the composed constraints of AdMIRaL's decoding (papers.md §1)."""
import pytest
import torch

from proofbook.models.loading import load_tokenizer
from proofbook.index.prefix_tree import PrefixTree
from proofbook.index.constraints import (Segment, SequenceConstraint, TitleTrie, encode_segment, pointer_tree, retrieval_constraint)
from proofbook.models.seq2seq import prefix_allowed_tokens_fn

pytestmark = pytest.mark.unit
EOS = 99


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer("minilm")


# ---------------------------------------------------------------- PrefixTree


def test_prefix_tree_children_membership_values():
    tree = PrefixTree()
    assert tree.add([1, 2, 3], "a") and tree.add([1, 2, 4], "b") and tree.add([1, 2], "ab") and tree.add([5], "c")
    assert len(tree) == 4 and tree.depth == 3
    assert tree.children() == [1, 5]
    assert tree.children([1]) == [2]
    assert tree.children([1, 2]) == [3, 4]
    assert tree.children([1, 2, 3]) == [] and tree.children([7]) == []
    assert [1, 2] in tree and [1, 2, 3] in tree and [1] not in tree and [] not in tree and [1, 2, 3, 4] not in tree
    assert tree.value([1, 2, 4]) == "b" and tree.value([1, 2]) == "ab"
    assert tree.value([1], None) is None
    with pytest.raises(KeyError):
        tree.value([1])
    assert dict(tree.items()) == {(1, 2): "ab", (1, 2, 3): "a", (1, 2, 4): "b", (5,): "c"}
    assert tree.n_nodes() == 6 and tree.approx_bytes() > 0 and tree.compact_bytes() == 48


def test_prefix_tree_keeps_the_first_value_and_accepts_tensors():
    tree = PrefixTree([[1, 2]], ["first"])
    assert not tree.add(torch.tensor([1, 2]), "second")
    assert len(tree) == 1 and tree.value((1, 2)) == "first"
    assert torch.tensor([1, 2]) in tree
    with pytest.raises(ValueError, match="empty sequence"):
        tree.add([])
    with pytest.raises(ValueError, match="2 sequences but 1 values"):
        PrefixTree([[1], [2]], ["x"])


# ---------------------------------------------------------------- TitleTrie


def test_title_trie_maps_tokens_back_to_original_titles(tokenizer):
    titles = ["Paris", "Paris (film)", "M.I.L.F. $", "paris"]
    trie = TitleTrie.from_titles(titles, tokenizer)
    assert len(trie) == 3
    assert trie.collisions == {"paris": "Paris"}  # uncased WordPiece: identical tokens, first one kept
    assert trie.titles == ["Paris", "Paris (film)", "M.I.L.F. $"]
    seq = encode_segment(tokenizer, "[ M.I.L.F. $ ]")
    assert tokenizer.convert_ids_to_tokens(seq) == ["[", "m", ".", "i", ".", "l", ".", "f", ".", "$", "]"]
    assert trie.title(seq) == "M.I.L.F. $"  # the original, not the lower-cased decoding
    assert trie.title(seq[:-1]) is None
    assert trie.children() == tokenizer.convert_tokens_to_ids(["["])


def test_a_restricted_title_trie_keeps_only_known_requested_titles(tokenizer):
    trie = TitleTrie.from_titles(["Paris", "Paris (film)", "Lyon"], tokenizer)
    sub = trie.restricted(["Lyon", "Paris (film)", "Nowhere", "Lyon"])
    assert sorted(sub.titles) == ["Lyon", "Paris (film)"]
    assert len(sub) == 2 and sub.title(encode_segment(tokenizer, "[ Lyon ]")) == "Lyon"
    assert len(trie.restricted([])) == 0 and len(trie) == 3


@pytest.mark.parametrize("bad", ["", "   ", None])
def test_title_trie_refuses_an_empty_title(tokenizer, bad):
    with pytest.raises(ValueError, match="position 1 is empty"):
        TitleTrie.from_titles(["Paris", bad], tokenizer)


# ---------------------------------------------------------------- constraints


def _walk(constraint, target):
    """Allowed tokens at every step of decoding ``target``, then after it."""
    return [constraint.allowed(target[:i]) for i in range(len(target) + 1)]


def test_retrieval_constraint_allows_pointers_then_titles_then_eos(tokenizer):
    trie = TitleTrie.from_titles(["Paris", "Paris (film)", "Lyon"], tokenizer)
    constraint = retrieval_constraint(trie, pointer_tree([0, 2], tokenizer), tokenizer.sep_token_id)
    target = encode_segment(tokenizer, "< E2 > [ Paris (film) ]")
    steps = [tokenizer.convert_ids_to_tokens(ids) for ids in _walk(constraint, target)]
    assert steps == [["<"], ["e"], ["##0", "##2"], [">"], ["["], ["paris", "lyon"], ["]", "("], ["film"], [")"],
                     ["]"], ["[SEP]"]]
    assert constraint.parse(target + [tokenizer.sep_token_id, 0, 0]) == [("pointer", 2), ("title", "Paris (film)")]
    assert constraint.parse(target[:-1]) is None  # unfinished
    assert constraint.max_length() == 4 + trie.depth


def test_pointers_absent_from_the_input_are_never_allowed(tokenizer):
    trie = TitleTrie.from_titles(["Paris"], tokenizer)
    constraint = retrieval_constraint(trie, pointer_tree([1], tokenizer), tokenizer.sep_token_id)
    assert tokenizer.convert_ids_to_tokens(constraint.allowed(encode_segment(tokenizer, "< E"))) == ["##1"]
    # no pointer tree (hop 0): the title comes first
    hop0 = retrieval_constraint(trie, None, tokenizer.sep_token_id)
    assert tokenizer.convert_ids_to_tokens(hop0.allowed([])) == ["["]


def test_a_dead_prefix_gets_eos_never_an_empty_list():
    constraint = SequenceConstraint([Segment(PrefixTree([[1, 2]]))], EOS)
    assert constraint.allowed([7]) == [EOS]
    assert constraint.allowed([1, 3, 4]) == [EOS]
    assert constraint.allowed([1, 2]) == [EOS]
    assert constraint.allowed([1, 2, EOS, 0]) == [EOS]  # finished beams stay finished
    assert constraint.parse([7, EOS]) is None


def test_a_stored_sequence_that_prefixes_another_keeps_both_paths():
    constraint = SequenceConstraint([Segment(PrefixTree([[1], [1, 2]], ["short", "long"]), name="t")], EOS)
    assert sorted(constraint.allowed([1])) == [2, EOS]
    assert constraint.parse([1, EOS]) == [("t", "short")]
    assert constraint.parse([1, 2, EOS]) == [("t", "long")]


def test_segments_repeat_between_their_counts():
    pointers = Segment(PrefixTree([[10], [11]], [0, 1]), min_count=1, max_count=2, name="pointer")
    titles = Segment(PrefixTree([[20, 21]], ["T"]), name="title")
    constraint = SequenceConstraint([pointers, titles], EOS)
    assert constraint.allowed([]) == [10, 11]
    assert sorted(constraint.allowed([10])) == [10, 11, 20]
    assert constraint.allowed([10, 11]) == [20]  # max_count reached
    assert constraint.parse([11, 10, 20, 21, EOS]) == [("pointer", 1), ("pointer", 0), ("title", "T")]
    optional = SequenceConstraint([Segment(pointers.tree, 0, 1, "pointer"), titles], EOS)
    assert sorted(optional.allowed([])) == [10, 11, 20]


def test_cycles_cover_a_natural_logic_proof():
    """``{ claim span } [ evidence span ] OP`` repeated: the shape of the proof decoder's output."""
    claim_spans = Segment(PrefixTree([[1, 2, 3]], ["{ a }"]), name="claim")
    evidence_spans = Segment(PrefixTree([[4, 5, 6], [4, 7, 6]], ["[ b ]", "[ c ]"]), name="evidence")
    operators = Segment(PrefixTree([[30], [31]], ["=", "<"]), name="op")
    proof = SequenceConstraint([claim_spans, evidence_spans, operators], EOS, min_cycles=1, max_cycles=None)
    one = [1, 2, 3, 4, 7, 6, 31]
    assert sorted(proof.allowed(one)) == [1, EOS]
    assert proof.parse(one + one[:3] + [4, 5, 6, 30, EOS]) == [
        ("claim", "{ a }"), ("evidence", "[ c ]"), ("op", "<"), ("claim", "{ a }"), ("evidence", "[ b ]"), ("op", "=")]
    assert proof.max_length() is None
    two = SequenceConstraint([claim_spans, evidence_spans, operators], EOS, min_cycles=2, max_cycles=2)
    assert two.allowed(one) == [1]  # one triple is not enough
    assert two.allowed(one + one) == [EOS]
    with pytest.raises(ValueError, match="unbounded cycles"):
        SequenceConstraint([Segment(claim_spans.tree, 0, 1)], EOS, max_cycles=None)


def test_prefix_allowed_tokens_fn_skips_the_decoder_start_and_serves_each_batch_item():
    first = SequenceConstraint([Segment(PrefixTree([[1, 2]]))], EOS)
    second = SequenceConstraint([Segment(PrefixTree([[3, 4]]))], EOS)
    start = 0
    fn = prefix_allowed_tokens_fn([first, second])
    assert fn(0, torch.tensor([start])) == [1]
    assert fn(1, torch.tensor([start])) == [3]
    assert fn(0, torch.tensor([start, 1])) == [2]
    assert fn(1, torch.tensor([start, 3, 4])) == [EOS]
    assert fn(1, torch.tensor([start, 1])) == [EOS]  # left item 1's tree: never empty
    same = prefix_allowed_tokens_fn(first)
    assert same(5, torch.tensor([start, 1])) == [2]
