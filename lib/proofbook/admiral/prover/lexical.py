"""The lexical-resource natural-logic baseline: operators from WordNet relations and negation cues.

AdMIRaL's Table 6 (Aly & Vlachos 2022, §4.4) compares its proof-based sufficiency check with "a NatLog
proof built from lexical resources": the claim is chunked and aligned to the evidence exactly as for
the learned prover (:mod:`proofbook.admiral.prover.alignment`), but each aligned pair's operator comes from
lexical relations instead of a model (MacCartney & Manning 2009 style):

* a negation cue on one side only (``not``, ``never``, ``no``, ...) -> ``!`` negation;
* the same content words -> ``=``; extra content words in the evidence span (it is more specific)
  -> ``<`` forward entailment (evidence entails claim); extra words in the claim span -> ``>``;
* otherwise each claim content word left over is related to a left-over evidence word through
  WordNet: a shared synset -> ``=``; the claim word a hypernym of the evidence word -> ``<``; a hyponym
  -> ``>``; antonyms, co-hyponyms (a shared hypernym at most two levels up) or two different numbers / names -> ``|``;
* a claim word with no relation at all -> ``#`` independence.

Word relations combine as: any ``|`` -> ``|``; only ``=`` -> ``=``; ``=`` with ``<`` (or ``>``) ->
``<`` (``>``); ``<`` with ``>`` -> ``#``.  Departures: the paper does not spell out its rules; these are
ours, stated here.  Names (capitalised words) and numbers that differ count as alternation, as in the
silver ProoFVer proofs (``born in New Jersey`` / ``born in New Orleans`` -> ``|``).
"""
from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Sequence

from proofbook.admiral.prover.natlog import Proof
from proofbook.admiral.prover.wordnet import wordnet

NEGATION_CUES = frozenset({"not", "no", "never", "n't", "none", "nobody", "nothing", "neither", "nor", "without",
                           "cannot", "nowhere", "refused", "failed", "denied", "unable"})
STOPWORDS = frozenset("""a an the of in on at by for to from with as and or is are was were be been being has have
had do does did its it this that these those which who whom whose what there their his her he she they we you i
s 's , . ; : ' " ( ) - – — also only then than into onto over under about after before during since until""".split())
_TOKEN = re.compile(r"n't|\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)


def tokens(text: str) -> list[str]:
    """The words (hyphen and apostrophe compounds whole, a lone ``n't`` apart) and punctuation of ``text``."""
    return _TOKEN.findall(text)


def _is_name_or_number(word: str) -> bool:
    return word[:1].isupper() or any(ch.isdigit() for ch in word)


@lru_cache(maxsize=1)
def _wordnet():

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "multilingual functions are not available"
        return wordnet()


@lru_cache(maxsize=100_000)
def _lemma(word: str) -> str:
    word = word.lower()
    wn = _wordnet()
    for pos in ("n", "v", "a", "r"):
        base = wn.morphy(word, pos)
        if base:
            return base
    return word


@lru_cache(maxsize=200_000)
def word_relation(claim_word: str, evidence_word: str) -> str | None:
    """The operator relating one evidence word to one claim word, or None if WordNet knows none.

    ``=`` synonyms (or the same lemma), ``<`` the evidence word is a hyponym of the claim word,
    ``>`` a hypernym, ``|`` antonyms / co-hyponyms (a shared hypernym at most two levels up) / different numbers or names.
    """
    c, e = _lemma(claim_word), _lemma(evidence_word)
    if c == e:
        return "="
    wn = _wordnet()
    c_sets, e_sets = wn.synsets(c), wn.synsets(e)
    if set(c_sets) & set(e_sets):
        return "="
    for es in e_sets:
        for cs in c_sets:
            if es.pos() != cs.pos():
                continue
            for lemma in es.lemmas():
                if any(a.synset() == cs for a in lemma.antonyms()):
                    return "|"
    e_up = {h for s in e_sets for h in s.closure(lambda x: x.hypernyms() + x.instance_hypernyms(), depth=6)}
    if set(c_sets) & e_up:
        return "<"
    c_up = {h for s in c_sets for h in s.closure(lambda x: x.hypernyms() + x.instance_hypernyms(), depth=6)}
    if set(e_sets) & c_up:
        return ">"
    if _ancestors(c_sets[:3], 2) & _ancestors(e_sets[:3], 2):
        return "|"
    if _is_name_or_number(claim_word) and _is_name_or_number(evidence_word):
        return "|"
    return None


#: the relation after negating one side (MacCartney's join with ``!``; cover counts as independence)
NEGATED = {"=": "!", "<": "|", ">": "#", "|": "<", "!": "=", "#": "#"}


def _ancestors(synsets, depth: int) -> set:
    """Hypernyms up to ``depth`` levels above (co-hyponyms share one: dog / cat under carnivore)."""
    return {h for s in synsets for h in s.closure(lambda x: x.hypernyms(), depth=depth)}


def _combine(relations: Sequence[str]) -> str:
    kinds = set(relations)
    if "#" in kinds:
        return "#"
    if "|" in kinds:
        return "|"
    if kinds <= {"="}:
        return "="
    if "<" in kinds and ">" in kinds:
        return "#"
    return "<" if "<" in kinds else ">"


def lexical_operator(claim_span: str, evidence_span: str) -> str:
    """The natural-logic operator of one aligned (claim span, evidence span) pair by the rules above."""
    c_tokens, e_tokens = tokens(claim_span), tokens(evidence_span)
    c_neg = any(t.lower() in NEGATION_CUES for t in c_tokens)
    e_neg = any(t.lower() in NEGATION_CUES for t in e_tokens)
    content = lambda ts: [t for t in ts if t.lower() not in STOPWORDS and t.lower() not in NEGATION_CUES]  # noqa: E731
    c_words, e_words = content(c_tokens), content(e_tokens)
    c_lemmas = {_lemma(w) for w in c_words}
    e_lemmas = {_lemma(w) for w in e_words}
    c_rest = [w for w in c_words if _lemma(w) not in e_lemmas]
    e_rest = [w for w in e_words if _lemma(w) not in c_lemmas]
    if not c_words and not e_words:
        base = "="
    elif not c_rest:
        base = "=" if not e_rest else "<"
    else:
        relations = []
        for word in c_rest:
            found = [r for r in (word_relation(word, other) for other in e_rest) if r is not None]
            relations.append(min(found, key="=<>|".index) if found else "#")
        if not e_rest and all(r == "#" for r in relations) and len(c_rest) < len(c_words):
            base = ">"          # the claim adds words the evidence lacks: the claim is more specific
        else:
            base = _combine(relations)
    if c_neg != e_neg:   # one side negated: compose the relation with negation
        return NEGATED[base]
    return base


def lexical_proof(claim: str, alignment: Sequence[tuple[str, str]], evidence: Sequence[tuple[str, str]] = ()) -> Proof:
    """A proof from ``(claim chunk, aligned evidence span)`` pairs with lexical operators."""
    return Proof.from_triples([(c, e, lexical_operator(c, e)) for c, e in alignment], claim=claim, evidence=evidence)
