"""Who may write a results folder now: one ``run-all`` alone, or any number of ``run`` on different notebooks.

Two runs that write the same results folder at once would interleave their files, stamps and executed
copies.  The runner (:mod:`proofbook.cli.runner`) therefore takes locks under ``<results_dir>/.locks/``:

* ``run-all`` holds the folder lock (``folder.lock``) exclusively for its whole run;
* ``run`` holds the folder lock shared and its notebook's lock (``<paper>__<stem>.lock``) exclusively.

So a second ``run-all``, a ``run`` during a ``run-all``, or two ``run`` of one notebook are refused at once
with :class:`Busy`, whose message names the holder (its pid, command and start time, which each holder
writes into its lock file); two ``run`` of different notebooks proceed side by side (sharing the artifact
cache is safe, see :mod:`proofbook.core.cache`).  The locks are ``flock`` locks: the operating system
releases them when their process ends, however it ends, so the lock of a process that was killed is taken
over by the next run without any clean-up (the file stays, with the dead holder's details in it).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
from pathlib import Path
from typing import Iterator

LOCKS = ".locks"
FOLDER_LOCK = "folder.lock"


class Busy(RuntimeError):
    """Another process holds a lock this run needs."""


def _holder(path: Path) -> str:
    """What a lock file says about its holder, in words."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {info['pid']} ({info['command']}, since {info['started']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _holders(folder: Path) -> str:
    """The holders of the notebook locks under ``folder`` that are held now (:func:`_taken`)."""
    held = []
    for path in sorted(folder.glob("*.lock")):
        if path.name == FOLDER_LOCK:
            continue
        if _taken(path):
            held.append(_holder(path))
    return "; ".join(held) or "another process"


@contextlib.contextmanager
def _flock(path: Path, shared: bool, refusal: str, describe: bool) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(refusal) from None
        if describe:
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": os.getpid(), "command": " ".join(["proofbook", *sys.argv[1:3]]),
                                     "started": time.strftime("%Y-%m-%d %H:%M:%S")}))
            handle.flush()
        yield
    finally:
        handle.close()                  # closing the file releases the lock


@contextlib.contextmanager
def hold(results_dir: os.PathLike | str, notebook: str | None = None) -> Iterator[None]:
    """Hold ``results_dir`` for one notebook's ``run`` (``notebook`` like ``admiral/02_experiments``) or, with
    ``notebook=None``, for a ``run-all``; :class:`Busy` when another process holds what is needed."""
    folder = Path(results_dir) / LOCKS
    folder_lock = folder / FOLDER_LOCK
    if notebook is None:
        refusal = (f"{results_dir} is in use by {_holder(folder_lock)}" if _taken(folder_lock)
                   else f"{results_dir} is in use by {_holders(folder)}")
        with _flock(folder_lock, shared=False, refusal=refusal + "; wait for it to finish", describe=True):
            yield
        return
    with _flock(folder_lock, shared=True, describe=False,
                refusal=f"{results_dir} is in use by {_holder(folder_lock)}; wait for it to finish"):
        lock = folder / f"{notebook.replace('/', '__')}.lock"
        with _flock(lock, shared=False, describe=True,
                    refusal=f"{notebook} is being run into {results_dir} by {_holder(lock)}; wait for it to finish"):
            yield


def _taken(path: Path) -> bool:
    """Whether ``path`` is locked exclusively by another process now (a shared try-lock fails)."""
    if not path.is_file():
        return False
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False
