"""One training loop for every model the book trains: seeds, progress, early stopping.

All three papers fine-tune transformers: AdMIRaL's sentence reranker, operator model and seq2seq
retriever/prover (Aly & Vlachos 2022, §3), the veracity classifier of claims in the wild, and
Entailer's scorers and premise generator (Tafjord et al. 2022, §3).  They all go through
:func:`train`: AdamW with a linear warm-up and decay, batches shuffled by a seeded generator,
evaluation on a dev metric every ``eval_every`` steps (or every epoch), early stopping after
``patience`` evaluations without improvement, and the best weights restored at the end.  The same
seed gives bit-identical weights on the same machine.
"""
from __future__ import annotations

import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm


def set_seed(seed: int, deterministic: bool = True) -> None:
    """Seed Python, NumPy and torch; with ``deterministic`` ask torch for deterministic kernels.

    Kernels without a deterministic version only warn (``warn_only``), so code never fails on them.
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # needed by deterministic cuBLAS
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False


#: how :func:`train` forms its batches by default; part of the cache key of every trained component
#: (``CODE_VERSION``), so that models trained the old way are not reused (2: pools of examples of
#: similar length, ``TrainConfig.length_pool`` 20; 1 was plain shuffled batches)
BATCHING_VERSION = 2


@dataclass
class TrainConfig:
    """Settings of :func:`train`; ``max_steps`` (if set) overrides ``epochs``.

    ``eval_every`` is a number of optimiser steps or ``"epoch"``; ``patience`` is the number of
    evaluations without improvement after which training stops (``None``: never stop early).
    ``length_pool`` > 0 (with example lengths given to :func:`train`) groups examples of similar length
    into batches: see :func:`batch_order`.  It is on by default (pools of 20 batches): on HoVer claim and
    paragraph pairs of mixed length (MiniLM cross-encoder, ``max_length`` 384, batch 16, 2 threads) one
    epoch took 65 s instead of 184 s; 0 gives the plain shuffled batches.
    """

    epochs: int = 3
    batch_size: int = 16
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_steps: int | None = None
    eval_every: int | Literal["epoch"] = "epoch"
    patience: int | None = None
    grad_clip: float | None = 1.0
    seed: int = 13
    higher_is_better: bool = True
    progress: bool = True
    length_pool: int = 20

    def __post_init__(self) -> None:
        if self.eval_every != "epoch" and not (isinstance(self.eval_every, int) and self.eval_every > 0):
            raise ValueError(f"eval_every must be a positive number of steps or 'epoch', got {self.eval_every!r}")
        if self.batch_size < 1 or self.epochs < 1:
            raise ValueError("batch_size and epochs must be positive")
        if not 0 <= self.warmup_ratio < 1:
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        if self.length_pool < 0:
            raise ValueError(f"length_pool must be 0 (off) or a positive number of batches, got {self.length_pool}")


@dataclass
class Evaluation:
    """One point of the history: mean training loss since the last evaluation and the dev metric."""

    step: int
    epoch: float
    loss: float
    metric: float | None
    seconds: float


@dataclass
class TrainResult:
    """What :func:`train` did; the model it was given now holds the best weights."""

    best_metric: float | None
    best_step: int
    steps: int
    stopped_early: bool
    seconds: float
    examples_per_second: float
    history: list[Evaluation] = field(default_factory=list)


def default_loss(model: torch.nn.Module, batch: Any) -> torch.Tensor:
    """The model output's ``.loss`` (transformers models compute it when the batch has labels)."""
    output = model(**batch) if isinstance(batch, dict) else model(batch)
    loss = getattr(output, "loss", None)
    if loss is None:
        raise ValueError(f"{type(model).__name__} returned no .loss: put 'labels' in the batch or pass loss_fn")
    return loss


def _to_device(batch: Any, device: torch.device) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict) or hasattr(batch, "items"):
        return {key: _to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_device(value, device) for value in batch)
    return batch


def _optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.AdamW:
    """AdamW; biases and normalisation weights (1-d tensors) get no weight decay."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.ndim >= 2], "weight_decay": config.weight_decay},
              {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=config.lr)


def linear_schedule(optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int):
    """Learning rate rising linearly over ``warmup_steps``, then falling linearly to 0 at ``total_steps``."""
    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _snapshot(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {name: tensor.detach().to("cpu", copy=True) for name, tensor in model.state_dict().items()}


@dataclass
class _Best:
    """The best dev metric so far, its step and weights, and evaluations since it last improved."""

    higher_is_better: bool
    patience: int | None
    metric: float | None = None
    step: int = 0
    state: dict[str, torch.Tensor] | None = None
    stale: int = 0

    def update(self, metric: float, step: int, model: torch.nn.Module) -> bool:
        """Record one dev metric; True when ``patience`` evaluations in a row brought no gain."""
        gain = self.metric is None or (metric > self.metric if self.higher_is_better else metric < self.metric)
        if gain:
            self.metric, self.step, self.state, self.stale = metric, step, _snapshot(model), 0
            return False
        self.stale += 1
        return self.patience is not None and self.stale >= self.patience


def batch_order(order: Sequence[int], batch_size: int, lengths: Sequence[int] | None = None, pool: int = 0,
                generator: torch.Generator | None = None) -> list[list[int]]:
    """The batches of one epoch, from a shuffled ``order`` of example indices.

    Without ``lengths`` or ``pool``: consecutive slices of ``order``.  With them: ``order`` is cut into
    pools of ``pool`` batches, each pool is sorted by length and cut into batches, and the batches are
    shuffled (by ``generator``) -- every example once per epoch, as before, but far less padding.
    """
    if not lengths or pool <= 0:
        return [list(order[first:first + batch_size]) for first in range(0, len(order), batch_size)]
    batches = []
    for first in range(0, len(order), batch_size * pool):
        part = sorted(order[first:first + batch_size * pool], key=lambda i: lengths[i])
        batches += [part[start:start + batch_size] for start in range(0, len(part), batch_size)]
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in shuffled]


def _dev_metric(model: torch.nn.Module, evaluate_fn: Callable[[torch.nn.Module], float] | None) -> float | None:
    """``evaluate_fn(model)`` in eval mode without gradients; the model goes back to training mode."""
    if evaluate_fn is None:
        return None
    model.eval()
    with torch.no_grad():
        metric = float(evaluate_fn(model))
    model.train()
    return metric


def train(model: torch.nn.Module, train_examples: Sequence, collate_fn: Callable[[list], Any],
          evaluate_fn: Callable[[torch.nn.Module], float] | None, config: TrainConfig,
          loss_fn: Callable[[torch.nn.Module, Any], torch.Tensor] | None = None,
          lengths: Sequence[int] | None = None) -> TrainResult:
    """Train ``model`` on ``train_examples`` and leave the best weights (by ``evaluate_fn``) in it.

    ``collate_fn`` turns a list of examples into a batch (a dict of tensors for transformers models);
    ``evaluate_fn(model)`` returns the dev metric and is called with the model in eval mode;
    ``loss_fn(model, batch)`` defaults to :func:`default_loss`.  Without ``evaluate_fn`` the final
    weights are kept and ``best_metric`` is ``None``.  ``lengths`` (one per example) with
    ``config.length_pool`` batch examples of similar length together (:func:`batch_order`).
    """
    if len(train_examples) == 0:
        raise ValueError("train: no training examples")
    loss_fn = loss_fn or default_loss
    set_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    device = next(model.parameters()).device
    steps_per_epoch = math.ceil(len(train_examples) / config.batch_size)
    total_steps = config.max_steps or config.epochs * steps_per_epoch
    eval_every = steps_per_epoch if config.eval_every == "epoch" else config.eval_every
    optimizer = _optimizer(model, config)
    scheduler = linear_schedule(optimizer, int(config.warmup_ratio * total_steps), total_steps)

    history: list[Evaluation] = []
    best = _Best(config.higher_is_better, config.patience)
    step, losses, seen, stopped_early, start = 0, [], 0, False, time.perf_counter()
    bar = tqdm(total=total_steps, desc="train", unit="step", file=sys.stderr, disable=not config.progress,
               leave=False, dynamic_ncols=True)
    postfix: dict[str, str] = {}

    def evaluate() -> bool:
        """Add one point to the history; True when training should stop early."""
        metric = _dev_metric(model, evaluate_fn)
        history.append(Evaluation(step, step / steps_per_epoch, float(np.mean(losses)) if losses else math.nan,
                                  metric, time.perf_counter() - start))
        losses.clear()
        if metric is None:
            return False
        postfix["dev"] = f"{metric:.4f}"
        return best.update(metric, step, model)

    model.train()
    while step < total_steps and not stopped_early:
        order = torch.randperm(len(train_examples), generator=generator).tolist()
        for indices in batch_order(order, config.batch_size, lengths, config.length_pool, generator):
            batch = collate_fn([train_examples[i] for i in indices])
            loss = loss_fn(model, _to_device(batch, device))
            if not torch.isfinite(loss):
                raise FloatingPointError(f"train: loss is {loss.item()} at step {step + 1}")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.grad_clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            scheduler.step()
            step += 1
            seen += len(indices)
            losses.append(loss.item())
            bar.update(1)
            postfix["loss"] = f"{loss.item():.4f}"
            bar.set_postfix(postfix, refresh=False)
            if step % eval_every == 0 and evaluate():
                stopped_early = True
            if stopped_early or step >= total_steps:
                break
    if losses:  # steps since the last evaluation
        evaluate()
    bar.close()
    if best.state is not None:
        model.load_state_dict(best.state)
    model.eval()
    seconds = time.perf_counter() - start
    return TrainResult(best.metric, best.step if best.state is not None else step, step, stopped_early,
                       seconds, seen / seconds if seconds else math.nan, history)
