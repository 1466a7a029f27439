"""Tables that show what AdMIRaL's retrieval did for one claim (method and error-analysis chapters).

Each function returns a pandas DataFrame, so a notebook shows it as a table and a test can read it.
Gold documents and sentences are marked, so a reader sees at a glance where the evidence is.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd


def ranking_frame(scored: Sequence[tuple[str, float]], gold: Sequence[str], top: int = 10) -> pd.DataFrame:
    """Titles with scores (e.g. BM25), best first, gold ones marked."""
    return pd.DataFrame([{"rank": i + 1, "title": title, "score": round(float(score), 3), "gold": title in gold}
                         for i, (title, score) in enumerate(scored[:top])]).set_index("rank")


def sentences_frame(selected, gold_sentences: Sequence[tuple[str, int]]) -> pd.DataFrame:
    """Selected ``(Sentence, score)`` pairs with their reranker score, gold sentences marked."""
    return pd.DataFrame([{"title": s.title, "sentence": s.index, "score": round(float(score), 3),
                          "gold": s.id in set(gold_sentences), "text": s.text}
                         for s, score in selected])


def beams_frame(beams, gold: Sequence[str], top: int = 10, copied: Sequence[float | None] | None = None
                ) -> pd.DataFrame:
    """Decoded beams (pointers, title, length-normalised log-probability), gold titles marked; with ``copied``
    (one share per beam, :meth:`~proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever.copy_shares`)
    a column of the share of each title that came by copying from the input, empty for a model without a copy
    head."""
    frame = pd.DataFrame([{"pointers": " ".join(f"E{p}" for p in getattr(b, "pointers", ())), "title": b.title,
                           "score": round(float(b.score), 3), "gold": b.title in gold} for b in beams[:top]])
    if copied is not None:
        shares = list(copied)[:len(frame)]
        if len(shares) != len(frame):
            raise ValueError(f"beams_frame: {len(frame)} beams shown but {len(shares)} copied shares")
        frame["copied"] = [None if c is None else round(float(c), 3) for c in shares]
    return frame


def decoding_steps(model, n_sentences: int, beam, show: int = 6, titles=None) -> pd.DataFrame:
    """The prefix tree at work: for each step of ``beam``'s output, how many tokens were allowed.

    ``model`` is an :class:`~proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever`; the output is
    re-encoded from the beam's pointers and title, and the constraint is asked, step by step, which tokens
    may follow the prefix (the same function ``generate()`` calls).  ``titles`` narrows the prefix tree
    to those titles, as ``AdmiralConfig(hop_titles="linked")`` does.
    """
    constraint = model.constraint(n_sentences, model.title_trie.restricted(titles) if titles is not None else None)
    target = model.encode_target(beam.title, getattr(beam, "pointers", ()))
    rows = []
    for step, token in enumerate(target):
        allowed = constraint.allowed(target[:step])
        rows.append({"step": step + 1, "prefix": model.tokenizer.decode(target[:step]) or "(start)",
                     "allowed tokens": len(allowed),
                     "examples": " ".join(model.tokenizer.convert_ids_to_tokens(allowed[:show])),
                     "chosen": model.tokenizer.convert_ids_to_tokens([token])[0]})
    return pd.DataFrame(rows).set_index("step")
