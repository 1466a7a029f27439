"""What Entailer's backward-chaining search is given (Tafjord et al. 2022, §3.3): its model, its memory, its settings.

* :class:`BehaviourModel` -- the interface of the one model with the three behaviours the search calls:
  H -> P (``generate_premises``), H -> Sd (``truth_scores``) and PH -> Se (``entailment_scores``); the
  implementations are in :mod:`.behaviours`.
* :class:`Memory` -- the interface of a belief memory (:class:`~proofbook.entailer.memory.BeliefMemory`)
  whose taught beliefs override s_d.
* :class:`SearchConfig` -- the settings of one search: the depth limit, how many candidate premise sets
  each node gets and whether they are sampled (the paper: nucleus sampling with temperature
  :data:`TEMPERATURE` 2.0 and top-p :data:`TOP_P` 0.95 at the top level, greedy below), and the
  rejection threshold :data:`THRESHOLD` 0.5; :meth:`SearchConfig.greedy` and :meth:`SearchConfig.sampled`
  are the paper's two searches.

The search itself is in :mod:`.search`, which these names are also importable from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

#: the paper's rejection threshold for premise and inference scores
THRESHOLD = 0.5
TEMPERATURE, TOP_P = 2.0, 0.95


class BehaviourModel(Protocol):
    """What the search needs from a model (see :mod:`proofbook.entailer.behaviours`)."""

    def generate_premises(self, hypotheses: Sequence[str], k: int, sample: bool, temperature: float,
                          top_p: float, seed: int) -> list[list[list[str]]]:
        """For each hypothesis, ``k`` candidate premise lists (fewer if some were malformed)."""

    def truth_scores(self, statements: Sequence[str]) -> list[float]:
        """s_d for each statement, in [0, 1]."""

    def entailment_scores(self, proofs: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        """s_e(P |- H) for each (premises, hypothesis), in [0, 1]."""


class Memory(Protocol):
    """What the search needs from a belief memory (see :class:`~proofbook.entailer.memory.BeliefMemory`)."""
    def lookup(self, statements: Sequence[str]) -> list:  # each: an object with .truth (bool) or None
        """For each statement, the taught belief it matches (an object with ``.truth``) or ``None``."""
        ...


@dataclass(frozen=True)
class SearchConfig:
    """Settings of one search: ``max_depth`` 1 = one step below the hypothesis."""

    max_depth: int = 1
    k_top: int = 6
    sample_top: bool = True
    k_below: int = 1
    sample_below: bool = False
    temperature: float = TEMPERATURE
    top_p: float = TOP_P
    threshold: float = THRESHOLD
    seed: int = 0

    def __post_init__(self):
        if self.max_depth < 1:
            raise ValueError(f"max_depth must be at least 1 (the top level is always expanded), got {self.max_depth}")
        if self.k_top < 1 or self.k_below < 1:
            raise ValueError(f"k_top and k_below must be positive, got {self.k_top}, {self.k_below}")

    @classmethod
    def greedy(cls, max_depth: int = 1, seed: int = 0) -> "SearchConfig":
        """The paper's greedy search: one greedy candidate at every node."""
        return cls(max_depth=max_depth, k_top=1, sample_top=False, k_below=1, sample_below=False, seed=seed)

    @classmethod
    def sampled(cls, max_depth: int = 1, k: int = 6, seed: int = 0) -> "SearchConfig":
        """The paper's sampled search: ``k`` nucleus samples at the top level, greedy below."""
        return cls(max_depth=max_depth, k_top=k, sample_top=True, k_below=1, sample_below=False, seed=seed)
