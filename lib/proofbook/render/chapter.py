"""The set-up every chapter of the book starts with, in one call.

A chapter is a notebook with one ``parameters`` cell (``data_dir``, ``split``, ``limit``, ``seed``, ``smoke``,
``results_dir``, ...).  Its first code cell applies the book's plotting style, seeds every random generator,
finds the data directory, picks its settings at smoke or full size and opens its results file; :func:`start`
does all of that, so that a reader sees the same five steps named the same way in every chapter.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from proofbook.core.paths import resolve_data_dir
from proofbook.core.results import Results
from proofbook.core.training import set_seed
from proofbook.render.figures import use_style


@dataclass
class Chapter:
    """What :func:`start` set up: the data directory, the chapter's results file and its settings (or None)."""

    data_path: Path
    results: Results
    settings: Any = None


def sized_settings(settings: type, seed: int, smoke: bool) -> Any:
    """``settings.smoke(seed)`` for a smoke run, else the full size: ``settings.full(seed)`` where the class has
    one, else ``settings(seed=seed)`` (its defaults are the book's full-size run)."""
    if smoke:
        return settings.smoke(seed)
    return settings.full(seed) if hasattr(settings, "full") else settings(seed=seed)


def start(notebook: str, *, data_dir: os.PathLike | str | None, split: str | None, limit: int | None, seed: int,
          smoke: bool, results_dir: os.PathLike | str, settings: type | None = None,
          record_settings: str | None = None, **params: Any) -> Chapter:
    """Style, seed, data directory, settings and results file of the chapter ``notebook`` (``"admiral/02_experiments"``).

    The results file records ``data_dir`` (resolved), ``split``, ``limit``, ``seed`` and ``smoke``, then ``params``;
    with ``record_settings`` also the chosen settings' fields (nested settings as dicts) under that name (``"settings"``, ``"training"``).
    """
    use_style()
    set_seed(seed)
    data_path = resolve_data_dir(data_dir)
    chosen = sized_settings(settings, seed, smoke) if settings is not None else None
    recorded = dict(data_dir=str(data_path), split=split, limit=limit, seed=seed, smoke=smoke, **params)
    if record_settings:
        if chosen is None:
            raise ValueError(f"{notebook}: record_settings={record_settings!r} but no settings class was given")
        recorded[record_settings] = asdict(chosen)
    return Chapter(data_path, Results(notebook, recorded, results_dir), chosen)
