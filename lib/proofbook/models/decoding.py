"""What every seq2seq generator here needs around transformers' ``generate()``.

Constrained decoding follows GENRE (De Cao et al. 2021) as AdMIRaL uses it (Aly & Vlachos 2022, §3,
"multi-hop autoregressive retrieval"): ``generate()`` asks :func:`prefix_allowed_tokens_fn` at every
step which tokens a prefix tree allows.  Greedy and sampled outputs are scored like beam search's
``sequences_scores`` with ``length_penalty=1`` (:func:`mean_logprob`).  The model classes that use these
pieces are :class:`proofbook.models.seq2seq.Seq2Seq` and its subclass, AdMIRaL's title generator
(:class:`proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever`).

* :func:`first_id`, :func:`generation_ids` -- the special token ids a model generates with;
* :func:`prefix_allowed_tokens_fn` -- the adapter from constraints (such as
  :class:`proofbook.index.constraints.SequenceConstraint`) to ``generate()``;
* :func:`mean_logprob` and :data:`FILLER_SCORE` -- scoring outputs and recognising filler beams;
* :func:`batched` -- generation in chunks of inputs, with a progress bar when asked.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

import torch
from tqdm.auto import tqdm

#: transformers starts beams 2..n at -1e9; a beam still below this at the end is a filler copy
FILLER_SCORE = -1e6


def first_id(value) -> int | None:
    """A token id from a config field that may hold one id or a list of ids."""
    if isinstance(value, (list, tuple)):
        return int(value[0]) if value else None
    return None if value is None else int(value)


def generation_ids(model) -> tuple[int, int]:
    """The end-of-sequence and padding token ids of a seq2seq ``model``'s generation config; a clear error when it
    lacks them or a decoder start token (set them with :func:`proofbook.models.loading.set_special_token_ids`)."""
    config = model.generation_config
    eos, pad = first_id(config.eos_token_id), first_id(config.pad_token_id)
    if eos is None or pad is None or config.decoder_start_token_id is None:
        raise ValueError("the model's generation config lacks eos/pad/decoder_start token ids; "
                         "use proofbook.models.loading.set_special_token_ids")
    return eos, pad


def mean_logprob(step_logits: Sequence[torch.Tensor], tokens: torch.Tensor, eos_token_id: int) -> list[float]:
    """Mean log-probability of ``tokens`` (up to and including the first EOS) under per-step logits."""
    logprobs = torch.stack([torch.log_softmax(step.float(), dim=-1) for step in step_logits], dim=1)
    tokens = tokens[:, :logprobs.shape[1]]
    picked = logprobs.gather(-1, tokens[:, :, None]).squeeze(-1)
    is_eos = tokens == eos_token_id
    ends = torch.where(is_eos.any(dim=1), is_eos.int().argmax(dim=1), torch.full_like(tokens[:, 0], tokens.shape[1] - 1))
    mask = torch.arange(picked.shape[1])[None, :] <= ends[:, None]
    return ((picked * mask).sum(dim=1) / mask.sum(dim=1)).tolist()


def prefix_allowed_tokens_fn(constraints, skip_first: int = 1) -> Callable[[int, Any], list[int]]:
    """The ``prefix_allowed_tokens_fn(batch_id, sent)`` that ``generate()`` calls at every step.

    ``constraints`` is one constraint (an object with ``allowed(prefix, memo) -> list[int]``, such as
    :class:`proofbook.index.constraints.SequenceConstraint`) for the whole batch, or one per batch item
    (``batch_id`` indexes the batch, not the beams).  The first ``skip_first`` tokens of ``sent`` -- the
    decoder start token of an encoder-decoder model -- are skipped before walking.  States are memoised per
    batch item, so each step costs one trie step per beam.
    """
    per_item = hasattr(constraints, "allowed")
    memos: dict[int, dict] = {}

    def allowed(batch_id: int, sent) -> list[int]:
        constraint = constraints if per_item else constraints[batch_id]
        tokens = tuple(sent.tolist()) if hasattr(sent, "tolist") else tuple(int(token) for token in sent)
        return constraint.allowed(tokens[skip_first:], memos.setdefault(batch_id, {}))

    return allowed


def batched(items: Sequence, batch_size: int, run: Callable[[list, int], list], desc: str | None = None) -> list:
    """``run(chunk, first)`` on consecutive chunks of ``batch_size`` items (``first``: the chunk's first position),
    the results concatenated.  With ``desc``, a progress bar on stderr when there are more than ten chunks."""
    firsts = range(0, len(items), batch_size)
    results: list = []
    for first in tqdm(firsts, desc=desc, unit="batch", file=sys.stderr, leave=False,
                      disable=desc is None or len(firsts) <= 10):
        results += run(list(items[first:first + batch_size]), first)
    return results
