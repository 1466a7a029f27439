"""ClaimDecomp's cached web search and cached LLM subquestions (folder ``claimdecomp/derived_web_search_cache``).

The claims-in-the-wild pipeline (Chen et al. 2023) searches the web for each subquestion of a claim; this
copy stands in for the paper's Bing search with cached results.  ``websites_{gpt,mixtral}_icl.jsonl``
line *i* is a bare JSON list of ``{"question", "url", "title", "snippet"}`` (:class:`SearchResult`) for
line *i* of the claims file, with no id (:func:`parse_search_cache`); ``subquestions_*.jsonl`` hold
the questions an LLM generated per ``example_id``, in one of two schemas (:func:`parse_cached_subquestions`).
The readers that take a data directory (:func:`~proofbook.data.politifact.read_search_cache`,
:func:`~proofbook.data.politifact.read_cached_subquestions`) are in :mod:`proofbook.data.politifact`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from proofbook.data.base import RecordMap, SkipReport, require, require_records
from proofbook.data.jsonparse import iter_jsonl, loads
from proofbook.data.politifact_text import clean_question, split_question_list
from proofbook.data.textfile import DataError, iter_lines


@dataclass(frozen=True)
class SearchResult:
    """One cached web-search hit (title and snippet only; no page text)."""

    question: str
    url: str
    title: str
    snippet: str


def record_example_id(record: dict, path: Path, line: int) -> int:
    """The integer ``example_id`` (the official files write a JSON number; a string is an error)."""
    return require(record, "example_id", path, line, int)


def parse_search_cache(path: os.PathLike | str, example_ids: list[int]) -> RecordMap:
    """Parse a ``websites_*.jsonl`` file whose line *i* belongs to ``example_ids[i]``.

    A line count that differs from ``len(example_ids)`` is a :class:`DataError` (the pairing would be
    wrong), and so is an empty file, a blank line or an id given twice in ``example_ids`` (named as
    field ``example_id`` on the second line).  An empty title or snippet, and a hit repeated for the
    same question (same URL), are kept (counted in ``.irregular``).  The search script that wrote these
    files puts a placeholder hit ``{"url": "No URL", "title": "No Title", "snippet": "No Snippet"}`` where a
    query found nothing: it is no page, so it is left out and counted in ``.skipped``; a real hit whose title
    or snippet is the placeholder ``No Title`` / ``No Snippet`` is kept with that field empty (counted in
    ``.irregular``), so that the placeholder text never reads as evidence.
    """
    path = Path(path)
    irregular, skipped = SkipReport(str(path), kept=True), SkipReport(str(path))
    lists = [(line, _result_list(text, path, line, irregular, skipped)) for line, text in iter_lines(path)]
    require_records(lists, path, "lines")
    if len(lists) != len(example_ids):
        raise DataError(path, None, None, f"{len(lists)} lines for {len(example_ids)} claims: "
                                          "line i must belong to claim i of the claims file")
    cache = RecordMap(skipped=skipped, irregular=irregular)
    for example_id, (line, results) in zip(example_ids, lists):
        if example_id in cache:
            raise DataError(path, line, "example_id",
                            f"a second line for example_id {example_id} (the id is given twice)")
        cache[example_id] = results
    return cache


#: what the search script wrote for a query without a result, or a result without a title or snippet
PLACEHOLDERS = {"url": "No URL", "title": "No Title", "snippet": "No Snippet"}


def _result_list(text: str, path: Path, line: int, irregular: SkipReport, skipped: SkipReport) -> list[SearchResult]:
    if not text.strip():
        raise DataError(path, line, None, "a blank line: line i must hold the JSON list of results of claim i")
    hits = loads(text, path, line)
    if not isinstance(hits, list):
        raise DataError(path, line, None, f"expected a JSON list of results, found {type(hits).__name__}")
    if not hits:
        irregular.add("no search hit for the claim", f"line {line}")
    results = []
    for index, hit in enumerate(hits):
        if not isinstance(hit, dict):
            raise DataError(path, line, f"[{index}]", f"expected an object, found {type(hit).__name__}")
        fields = {key: require(hit, key, path, line, nonempty=key in ("question", "url"), name=f"[{index}].{key}")
                  for key in ("question", "url", "title", "snippet")}
        if fields["url"] == PLACEHOLDERS["url"]:
            skipped.add("placeholder hit of a query without a result", f"line {line}")
            continue
        for key in ("title", "snippet"):
            if fields[key] == PLACEHOLDERS[key]:
                irregular.add(f"placeholder {key} (read as empty)", f"line {line}")
                fields[key] = ""
            elif not fields[key].strip():
                irregular.add(f"empty {key}", f"line {line}")
        if any(r.question == fields["question"] and r.url == fields["url"] for r in results):
            irregular.add("hit repeated for the same question", f"line {line}")
        results.append(SearchResult(**fields))
    if hits and not results:
        irregular.add("no search hit for the claim", f"line {line}")
    return results


_PREAMBLE = re.compile(r"^(?:claim|questions?)\s*:|:$", re.IGNORECASE)


def parse_cached_subquestions(path: os.PathLike | str) -> RecordMap:
    """Parse a cached-subquestion file; either schema is recognised line by line.

    ``{"example_id", "questions": "<one a line>"}`` (ICL) or ``{"example_id", "subquestions":
    ["<q1>, <q2>, ..."]}`` (fine-tuned GPT).  Numbering and bullets are removed; lines that are no
    question -- a preamble ending in ``:`` or an echoed ``Claim:``/``Questions:`` line -- and repeated
    questions are dropped and counted in ``.skipped``, and so is an empty text inside a ``subquestions``
    list (``"empty subquestions text"``).  A record that gives no question -- all its lines are
    preambles, its ``questions`` text is empty, or its ``subquestions`` list is empty or holds only
    empty texts -- is kept with no question and counted in ``.irregular`` (``"no question"``): these
    files are LLM outputs, and an empty generation is a valid (if useless) output that their generator
    could write (ardandirin/factcheck-with-llm re-runs claims whose questions came back empty).  A missing or
    ``null`` field, or a value of the wrong JSON type, is a :class:`DataError`.
    """
    path = Path(path)
    skipped = SkipReport(str(path))
    questions = RecordMap(skipped=skipped, irregular=SkipReport(str(path), kept=True))
    for line, record in iter_jsonl(path):
        example_id = record_example_id(record, path, line)
        if example_id in questions:
            raise DataError(path, line, "example_id", f"duplicate id {example_id}")
        kept: list[str] = []
        for candidate in _raw_questions(record, path, line, skipped):
            if _PREAMBLE.search(candidate):
                skipped.add("preamble line", f"line {line}")
            elif candidate in kept:
                skipped.add("repeated question", f"line {line}")
            else:
                kept.append(candidate)
        if not kept:
            questions.irregular.add("no question", f"line {line}")
        questions[example_id] = kept
    return questions


def _raw_questions(record: dict, path: Path, line: int, skipped: SkipReport) -> Iterator[str]:
    if "subquestions" in record:
        texts = require(record, "subquestions", path, line, list, nonempty=False)
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise DataError(path, line, f"subquestions[{index}]", f"expected str, found {type(text).__name__}")
            if not text.strip():
                skipped.add("empty subquestions text", f"line {line}")
                continue
            yield from split_question_list(text)
    elif "questions" in record:
        text = require(record, "questions", path, line, nonempty=False)
        for part in text.split("\n"):
            if clean_question(part):
                yield clean_question(part)
    else:
        # the fine-tuned file gives the "prompt", the ICL files the "claim": name the field of that schema
        name = "subquestions" if "prompt" in record else "questions"
        raise DataError(path, line, name, "missing (neither 'questions' nor 'subquestions')")
