"""The proof generator's input and output, and its constrained decoding (AdMIRaL §3.2, after ProoFVer).

AdMIRaL (Aly & Vlachos 2022, §3.2) reads sufficiency off natural-logic proofs generated for the claim and
the selected sentences, in the format of ProoFVer (Krishna, Riedel & Vlachos 2022):

* **input** ``claim </s> Title ; evidence1 </s> Title ; evidence2 ...`` (:func:`proof_input`);
* **output** the proof string ``{ claim span } [ evidence span ] OP ...`` (:mod:`proofbook.admiral.prover.natlog`);
* **constrained decoding** (:func:`proof_constraint`, on :mod:`proofbook.index.constraints`): each
  triple is a claim span from a trie of the claim's 1-6-word n-grams (by default the claim's chunks in
  order, one triple each), an evidence span from a trie of the evidence sentences' 1-6-word n-grams, then
  one of the six operators; triples repeat, then EOS.

The generator that decodes under these constraints is :class:`proofbook.admiral.prover.proofgen.ProofGenerator`.
"""
from __future__ import annotations

import re
from typing import Sequence


from proofbook.admiral.prover.alignment import chunk_claim
from proofbook.admiral.prover.natlog import ProofError
from proofbook.data.proofver import OPERATORS
from proofbook.index.prefix_tree import PrefixTree
from proofbook.index.constraints import Segment, SequenceConstraint, encode_segments

#: (title, sentence) pairs: the evidence of one proof input
Evidence = Sequence[tuple[str, str]]
#: the longest claim or evidence span a triple may hold, in words
MAX_NGRAM = 6


_WORDS = re.compile(r"\w+(?:['’\-.]\w+)*", re.UNICODE)


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
    """The :class:`~proofbook.index.constraints.SequenceConstraint` of a proof of ``claim`` from ``evidence``.

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
