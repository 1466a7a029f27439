"""Result rows: the one file format every experiment writes and every table, figure and test reads.

The contract: ``{results_dir}/{paper}/{stem}.json`` holds ``{"notebook", "git_commit", "params",
"input_digest", "environment", "complete", "rows"}`` (the digest and environment say what the numbers depend
on and where they were measured, see :mod:`proofbook.core.provenance`; paths are relative to the data
directory); each row is
``{"dataset", "split", "system", "metric", "value", "n"}`` -- one row per number.  Values are plain
numbers: fractions in [0, 1] for accuracies and recalls, seconds, bytes.  The file is rewritten
(atomically) after every ``add``, so a run cut short still leaves every finished row, and says so:
``complete`` is false until the runner (``python -m proofbook run``) marks the file complete after the
notebook's last cell has run (:func:`mark_complete`).  A write that fails (a full disk, a read-only folder)
raises an ``OSError`` naming the file and leaves the previous file as it was.  A paper's own numbers are
never rows.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from proofbook.core import provenance
from proofbook.core.paths import PROJECT_ROOT, files_read
from proofbook.core.paths import resolve_data_dir

ROW_FIELDS = ("dataset", "split", "system", "metric", "value", "n")


@dataclass(frozen=True)
class Row:
    """One result row (:data:`ROW_FIELDS`), checked: non-empty names, a finite value, a count ``n``."""
    dataset: str
    split: str
    system: str
    metric: str
    value: float
    n: int

    def __post_init__(self):
        for name in ("dataset", "split", "system", "metric"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"result row: field '{name}' must be a non-empty string, got {getattr(self, name)!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)) or not math.isfinite(self.value):
            raise ValueError(f"result row {self.dataset}/{self.system}/{self.metric}: value must be a finite number, got {self.value!r}")
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 0:
            raise ValueError(f"result row {self.dataset}/{self.system}/{self.metric}: n must be a count, got {self.n!r}")


#: what the notebooks write: a changed file here does not make the work tree dirty (a full run rewrites
#: every results file and figure one chapter after another, from the same clean code)
OUTPUT_FOLDERS = ("results", "figures")


def git_commit(root: Path = PROJECT_ROOT) -> str:
    """The checked-out commit (with ``-dirty`` if a tracked file outside :data:`OUTPUT_FOLDERS` differs), or
    ``unknown``."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if sha.returncode != 0:
            return "unknown"
        outputs = [f":(exclude){folder}" for folder in OUTPUT_FOLDERS]
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *outputs],
                               cwd=root, capture_output=True, text=True, timeout=10)
        return sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def temporary_prefix(path: Path) -> str:
    """The name prefix of the temporary files ``write_json_atomic`` makes beside ``path`` (``.<name>.*.tmp``)."""
    return f".{Path(path).name}."


TEMPORARY_SUFFIX = ".tmp"


def stray_temporaries(path: Path) -> list[Path]:
    """Temporary files that a write killed part-way left behind (sorted): those of the JSON file ``path``, or, when
    ``path`` is a folder, every one under it."""
    path = Path(path)
    if path.is_dir():
        return sorted(path.rglob(f".*{TEMPORARY_SUFFIX}"))
    return sorted(path.parent.glob(f"{temporary_prefix(path)}*{TEMPORARY_SUFFIX}"))


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write JSON to ``path`` through a temporary file and ``os.replace`` (never half-written).

    A failed write (ENOSPC, EROFS, EACCES, ...) leaves the previous file intact, removes the temporary one
    and raises an ``OSError`` with the same errno whose message names ``path``.
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix(path), suffix=TEMPORARY_SUFFIX)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(obj, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
        os.replace(tmp, path)
        tmp = None
    except OSError as err:
        raise OSError(err.errno, f"cannot write {path}: {err.strerror or err}") from err
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def mark_complete(path: os.PathLike | str) -> None:
    """Set ``complete: true`` in the results file at ``path`` (the runner does this after a notebook's last cell)."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["complete"] = True
    write_json_atomic(path, data)


class Results:
    """The results file of one notebook run: ``Results("admiral/02_experiments", params)``."""

    def __init__(self, notebook: str, params: dict, results_dir: str | os.PathLike = "results"):
        if notebook.count("/") != 1:
            raise ValueError(f"notebook must be '<paper>/<stem>', got {notebook!r}")
        self.notebook = notebook
        self.data_dir = resolve_data_dir(params.get("data_dir"))
        self.params = provenance.relative_params(params, self.data_dir)
        self.code = provenance.code_digest(notebook)
        self._hashes: dict = {}
        results_dir = Path(results_dir)
        if not results_dir.is_absolute():
            results_dir = PROJECT_ROOT / results_dir
        self.path = results_dir / f"{notebook}.json"
        self.rows: list[Row] = []
        self.commit = git_commit()

    def add(self, dataset: str, split: str, system: str, metric: str, value: float, n: int) -> Row:
        """Append one number (replacing an earlier row with the same keys) and rewrite the file."""
        value, n = (x.item() if hasattr(x, "item") else x for x in (value, n))  # numpy scalars -> Python
        row = Row(dataset, split, system, metric, value, n)
        key = (dataset, split, system, metric)
        self.rows = [r for r in self.rows if (r.dataset, r.split, r.system, r.metric) != key] + [row]
        self.save()
        return row

    def extend(self, rows: Iterable[dict]) -> None:
        """Add each row, a dict of :meth:`add`'s arguments (the file is rewritten after each)."""
        for row in rows:
            self.add(**row)

    def save(self) -> Path:
        """Write the file (provenance and every row) atomically; returns its path."""
        digest = {**self.code, "params": self.params,
                  "data": provenance.data_digest(files_read(), self.data_dir, self._hashes)}
        write_json_atomic(self.path, {"notebook": self.notebook, "git_commit": self.commit, "params": self.params,
                                      "input_digest": digest, "environment": provenance.environment(),
                                      "complete": False, "rows": [asdict(r) for r in self.rows]})
        return self.path

    def value(self, dataset: str, split: str, system: str, metric: str) -> float:
        """The value of the row with these keys; a KeyError if there is none."""
        for r in self.rows:
            if (r.dataset, r.split, r.system, r.metric) == (dataset, split, system, metric):
                return r.value
        raise KeyError((dataset, split, system, metric))

    def table(self, index=("dataset", "split", "system"), columns="metric"):
        """The rows as a pandas table (:func:`rows_table`)."""
        return rows_table([asdict(r) for r in self.rows], index=index, columns=columns)


def load_results(path: str | os.PathLike) -> dict:
    """Read and validate a results file; bad JSON or a bad row raises a ValueError naming the file (line, row)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with 'notebook', 'git_commit', 'params' and 'rows', "
                         f"got a {type(data).__name__}")
    for key in ("notebook", "git_commit", "params", "rows"):
        if key not in data:
            raise ValueError(f"{path}: missing key '{key}'")
    for i, row in enumerate(data["rows"]):
        missing = [f for f in ROW_FIELDS if f not in row]
        if missing:
            raise ValueError(f"{path}: row {i}: missing field(s) {missing}")
        try:
            Row(**{f: row[f] for f in ROW_FIELDS})
        except (TypeError, ValueError) as err:
            raise ValueError(f"{path}: row {i}: {err}") from None
    return data


def rows_table(rows: list[dict], index=("dataset", "split", "system"), columns="metric"):
    """Rows as a pandas table (index x metric), for the book."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(ROW_FIELDS))
    if frame.empty:
        return frame
    return frame.pivot_table(index=list(index), columns=columns, values="value", aggfunc="first", sort=False)
