"""What each reader does with the oddities an official file may hold that the copies here do not show.

Several official files are held back from the shared data directory (HoVer dev, FEVEROUS-S dev, FM2 test,
ClaimDecomp test and its search-cache lines, LIAR test, LIAR-PLUS test2, OpenBookQA test and its answer keys,
EntailmentBank tasks 1-3 test), and some train files are absent (too large).  They have the formats of the
files here but may hold something these do not: a repeated id, a five-option question, an empty field, a
label value not seen here, another count of columns.  The rule of :mod:`proofbook.data.base`: a reader
either **keeps** such a record (counted in ``.irregular`` -- or ``.skipped`` for a part it leaves out --
when it is unusual but valid in the official data, or kept as it is when it is ordinary data), or
**refuses** the file with a :class:`DataError` naming the file, the line and the field (truly malformed).

One parametrised test per reader module records that rule, one case per oddity.  Each case writes a small
file in the official format into ``tmp_path``, derived from the first records of the real file (so that
every other field is real), changes one thing, and checks the documented behaviour.  Counts are checked
against the same file without the change, so that oddities of the real first records do not matter.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from proofbook.data import entailmentbank, feverous, fever_symmetric, fm2, hover, misc_fever, natlog, nli
from proofbook.data import politifact as pf
from proofbook.data import science_qa
from proofbook.data.entailment_text import proof_depth
from proofbook.data.liar import parse_liar, parse_liar_plus
from proofbook.data.politifact_search import parse_cached_subquestions
from proofbook.data.textfile import DataError

pytestmark = pytest.mark.data


# --- expectations ---------------------------------------------------------------------------------------

@dataclass
class Kept:
    """The file reads: ``irregular`` / ``skipped`` are the counts the change adds (by reason), ``n`` the
    number of records, ``check(records)`` anything else that must hold."""

    irregular: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    n: int | None = None
    check: Callable[[Any], bool] | None = None


@dataclass
class Refused:
    """A :class:`DataError` naming the file (``in_file``: another file of the data set), ``line`` and ``field``."""

    line: int | None
    field: str | None
    in_file: str | None = None


@dataclass
class Case:
    name: str
    edit: Callable[[Any], Any]
    expect: Kept | Refused

    def __str__(self) -> str:
        return self.name


@dataclass
class Reader:
    """How to write a small official file from the real one (``build(folder, real, edit) -> path``) and read it."""

    build: Callable[[Path, Path, Callable | None], Path]
    read: Callable[[Path], Any]


def counts(records, report: str) -> dict[str, int]:
    found = getattr(records, report, None)
    return dict(found.counts) if found is not None else {}


def run(reader: Reader, case: Case, tmp_path: Path, real: Path) -> None:
    path = reader.build(tmp_path / "odd", real, case.edit)
    if isinstance(case.expect, Refused):
        with pytest.raises(DataError) as info:
            reader.read(path)
        err, want = info.value, case.expect
        assert err.path.name == (want.in_file or path.name), str(err)
        assert (None if err.line is None else int(err.line)) == want.line, str(err)
        assert err.field == want.field, str(err)
        assert str(err).startswith(str(err.path)), str(err)
        return
    base = reader.read(reader.build(tmp_path / "base", real, None))
    records = reader.read(path)
    for report, added in (("irregular", case.expect.irregular), ("skipped", case.expect.skipped)):
        before, after = counts(base, report), counts(records, report)
        delta = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
        assert {k: v for k, v in delta.items() if v} == added, f"{report}: {getattr(records, report, None)}"
    if case.expect.n is not None:
        assert len(records) == case.expect.n
    if case.expect.check is not None:
        assert case.expect.check(records)


# --- writing files derived from the real ones -------------------------------------------------------------
# An edit receives the first records (dicts, or cell lists for TSV files) and changes them in place, or returns
# the new list of records; ``mutate`` wraps a change whose own return value is not the records.

def source(real: Path, folder: str, name: str) -> Path:
    path = real / folder / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path


def head_lines(path: Path, n: int) -> list[str]:
    lines = []
    with open(path, encoding="utf-8", newline="") as handle:
        for text in handle:
            if text.strip():
                lines.append(text.rstrip("\r\n"))
            if len(lines) == n:
                break
    return lines


def head_jsonl(path: Path, n: int) -> list[Any]:
    return [json.loads(line) for line in head_lines(path, n)]


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def write_jsonl(path: Path, objects: list) -> Path:
    return write_text(path, "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects))


def jsonl_reader(folder: str, name: str, n: int, read: Callable[[Path], Any], out: str | None = None,
                 one_line_list: bool = False) -> Reader:
    """A reader of a JSON-lines file (or a JSON list on one line) made of the first ``n`` real records."""

    def build(root: Path, real: Path, edit):
        records = head_jsonl(source(real, folder, name), n) if not one_line_list else \
            json.loads(source(real, folder, name).read_text(encoding="utf-8"))[:n]
        if edit is not None:
            records = edit(records) or records
        path = root / folder / (out or name)
        if one_line_list:
            return write_text(path, json.dumps(records, ensure_ascii=False))
        return write_jsonl(path, records)

    return Reader(build, read)


def both(*edits):
    def edit(records):
        for one in edits:
            records = one(records) or records
        return records
    return edit


def set_field(index: int, key: str, value) -> Callable:
    def edit(records):
        records[index][key] = value(records[index]) if callable(value) else value
    return edit


def same_as(key: str, source_index: int, target_index: int) -> Callable:
    def edit(records):
        records[target_index][key] = records[source_index][key]
    return edit


def mutate(change: Callable) -> Callable:
    """An edit that changes the records in place (whatever ``change`` returns is not the new records)."""
    def edit(records):
        change(records)
    return edit


def drop_field(index: int, key: str) -> Callable:
    def edit(records):
        del records[index][key]
    return edit


# --- EntailmentBank trees (the official test files repeat one id) ------------------------------------------------

EB = jsonl_reader("entailmentbank", "dataset__task_1__dev.jsonl", 4, entailmentbank.parse_entailmentbank_file,
                  out="dataset__task_1__test.jsonl")
EB_CASES = [
    Case("an id repeated on the next line with another tree (Mercury_SC_405304 in the official test files)",
         same_as("id", 1, 2),
         Kept(irregular={"duplicate id": 1}, n=4,
              check=lambda trees: trees[1].id == trees[2].id and trees[1].hypothesis != trees[2].hypothesis
              and trees.irregular.examples["duplicate id"] == [f"{trees[1].id} (lines 2, 3)"])),
    Case("a depth_of_proof other than the step proof's depth (5 dev trees do this)",
         set_field(1, "depth_of_proof", lambda r: r["depth_of_proof"] + 3),
         Kept(check=lambda trees: trees[1].depth_of_proof != proof_depth(trees[1].steps))),
    Case("a length_of_proof other than the number of steps", set_field(1, "length_of_proof", lambda r: r["length_of_proof"] + 1),
         Refused(2, "length_of_proof")),
    Case("a proof using a sentence that is not in the context",
         set_field(1, "proof", "sent1 & sent99 -> hypothesis; "), Refused(2, "proof")),
    Case("an empty hypothesis", set_field(2, "hypothesis", " "), Refused(3, "hypothesis")),
]


@pytest.mark.parametrize("case", EB_CASES, ids=str)
def test_entailmentbank_trees(case, tmp_path, real_data_dir):
    run(EB, case, tmp_path, real_data_dir)


# --- HoVer claims and gold paragraphs (held back: 2,050 dev claims; absent: train) -----------------------------

HOVER = jsonl_reader("hover_multihop", "hover_dev_release_v1.1.json", 4, hover.parse_hover_claims, one_line_list=True)
HOVER_CASES = [
    Case("a claim text repeated under another uid (HoVer dev has a few)", same_as("claim", 0, 2),
         Kept(irregular={"claim text repeated under another uid": 1}, n=4)),
    Case("a hop count not seen in dev (5)", set_field(1, "num_hops", 5), Kept(check=lambda c: c[1].num_hops == 5)),
    Case("a supporting fact given twice", set_field(1, "supporting_facts", lambda r: r["supporting_facts"] * 2),
         Kept(check=lambda c: len(c[1].gold_titles) == len(set(c[1].gold_titles)))),
    Case("a uid repeated", same_as("uid", 0, 3), Refused(1, "uid")),
    Case("a label HoVer does not have (NOT ENOUGH INFO)", set_field(1, "label", "NOT ENOUGH INFO"), Refused(1, "label")),
    Case("an empty claim", set_field(1, "claim", ""), Refused(1, "claim")),
    Case("no supporting facts in a labelled split", set_field(2, "supporting_facts", []), Refused(1, "supporting_facts")),
]

GOLD = jsonl_reader("hover_multihop", "gold_negate_8-shot_2-retrieved-evidence_dev_gpt-3.5-turbo.jsonl", 3,
                    hover.parse_gold_paragraphs)
GOLD_CASES = [
    Case("gold paragraphs: an empty mutated claim", set_field(1, "mutated", ""), Kept()),
    Case("gold paragraphs: an original repeated (it pairs a line with its claim)", same_as("original", 0, 2),
         Refused(3, "original")),
    Case("gold paragraphs: an empty paragraph between two", set_field(1, "gold_evidence", lambda r: "\n\n".join(
        r["gold_evidence"].split("\n"))), Refused(2, "gold_evidence")),
]


@pytest.mark.parametrize("case", HOVER_CASES + GOLD_CASES, ids=str)
def test_hover(case, tmp_path, real_data_dir):
    run(GOLD if case in GOLD_CASES else HOVER, case, tmp_path, real_data_dir)


# --- FEVEROUS-S (held back: 1,497 dev claims; absent: train) -----------------------------------------------------

FEVEROUS = jsonl_reader("feverous_s_gold_evidence", "dev.json", 4, feverous.parse_feverous_claims, one_line_list=True)
FEVEROUS_CASES = [
    Case("an evidence sentence repeated within a claim (2 dev claims)",
         set_field(1, "evidence", lambda r: r["evidence"].rstrip("\n") + "\n" + r["evidence"].split("\n")[0]),
         Kept(irregular={"evidence sentence repeated within a claim": 1}, n=4)),
    Case("a challenge value not seen in dev", set_field(1, "challenge", "Some New Challenge"),
         Kept(check=lambda c: c[1].challenge == "Some New Challenge")),
    Case("an id repeated", same_as("id", 0, 3), Refused(1, "id")),
    Case("an id written as a string", set_field(1, "id", lambda r: str(r["id"])), Refused(1, "id")),
    Case("a label FEVEROUS-S does not have (not enough info)", set_field(1, "label", "not enough info"),
         Refused(1, "label")),
    Case("an evidence sentence with no visible text", set_field(1, "evidence", "Some page\t[[Target|]]"),
         Refused(1, "evidence[0]")),
    Case("an evidence line without the page title", set_field(1, "evidence", "a sentence without a title"),
         Refused(1, "evidence[0]")),
]


@pytest.mark.parametrize("case", FEVEROUS_CASES, ids=str)
def test_feverous(case, tmp_path, real_data_dir):
    run(FEVEROUS, case, tmp_path, real_data_dir)


# --- Fool Me Twice (held back: test.jsonl; absent: train) ---------------------------------------------------------

FM2 = jsonl_reader("fool_me_twice", "dev.jsonl", 3, fm2.parse_fm2_claims, out="test.jsonl")
FM2_CASES = [
    Case("no retrieved evidence", set_field(1, "retrieved_evidence", []), Kept(check=lambda c: c[1].retrieved_evidence == [])),
    Case("a category not seen in dev", set_field(1, "category", "Food"), Kept(check=lambda c: c[1].category == "Food")),
    Case("a claim text repeated under another id", same_as("text", 0, 2), Kept(n=3)),
    Case("an id repeated", same_as("id", 0, 2), Refused(3, "id")),
    Case("a label FM2 does not have (NOT ENOUGH INFO)", set_field(1, "label", "NOT ENOUGH INFO"), Refused(2, "label")),
    Case("no gold evidence", set_field(1, "gold_evidence", []), Refused(2, "gold_evidence")),
    Case("a retrieved sentence with empty text", set_field(1, "retrieved_evidence", [{"section_header": "", "text": ""}]),
         Refused(2, "retrieved_evidence[0].text")),
]


@pytest.mark.parametrize("case", FM2_CASES, ids=str)
def test_fm2(case, tmp_path, real_data_dir):
    run(FM2, case, tmp_path, real_data_dir)


# --- ClaimDecomp, its search cache and cached questions (held back: 105 test claims and their cache lines) --------

CLAIMDECOMP = jsonl_reader("claimdecomp", "test.jsonl", 3, pf.parse_claimdecomp)


def empty_first_question(records):
    records[1]["annotations"][0]["questions"][0] = " "


CLAIMDECOMP_CASES = [
    Case("no justification and no article (a failed scrape)",
         both(set_field(1, "justification", []), set_field(1, "full_article", [])),
         Kept(irregular={"no justification": 1, "no full_article": 1}, n=3)),
    Case("an empty annotated question", empty_first_question, Kept(skipped={"empty annotated question": 1})),
    Case("no annotation", set_field(1, "annotations", []), Kept(check=lambda c: c[1].subquestions == [])),
    Case("no speaker", set_field(1, "person", ""), Kept(check=lambda c: c[1].person == "")),
    Case("a venue without a date", set_field(1, "venue", "stated in a TV ad:"), Kept(check=lambda c: c[1].date is None)),
    Case("PolitiFact's own spelling of a label ('Pants on Fire!')", set_field(1, "label", "Pants on Fire!"),
         Kept(check=lambda c: c[1].label == "pants-fire")),
    Case("a Flip-O-Meter rating ('full-flop')", set_field(1, "label", "full-flop"), Refused(2, "label")),
    Case("an example_id repeated", same_as("example_id", 0, 2), Refused(3, "example_id")),
    Case("an example_id written as a string", set_field(1, "example_id", lambda r: str(r["example_id"])),
         Refused(2, "example_id")),
    Case("an empty claim", set_field(1, "claim", ""), Refused(2, "claim")),
]


def search_cache_reader(source_name: str) -> Reader:
    """``websites_{source}_icl.jsonl`` (3 lines) in a data directory with the matching 3 test claims."""

    def build(root: Path, real: Path, edit):
        claims = head_jsonl(source(real, "claimdecomp", "test.jsonl"), 3)
        write_jsonl(root / "claimdecomp" / "test.jsonl", claims)
        lines = head_jsonl(source(real, pf.CACHE_FOLDER, pf.SEARCH_CACHE_FILES[source_name]), 3)
        if edit is not None:
            lines = edit(lines) or lines
        return write_text(root / pf.CACHE_FOLDER / pf.SEARCH_CACHE_FILES[source_name],
                          "".join(json.dumps(hits, ensure_ascii=False) + "\n" for hits in lines))

    return Reader(build, lambda path: pf.read_search_cache(path.parents[2], source_name))


SEARCH = search_cache_reader("gpt")


def set_hit(line: int, key: str, value) -> Callable:
    def edit(lines):
        lines[line][0][key] = value
    return edit


def placeholder_hit(lines):
    # the generator writes this for a query without any result (both files here hold some)
    lines[1][0] = {"question": lines[1][0]["question"], "url": "No URL", "title": "No Title", "snippet": "No Snippet"}


SEARCH_CASES = [
    Case("search cache: a claim without any hit", lambda lines: [lines[0], [], lines[2]],
         Kept(irregular={"no search hit for the claim": 1}, n=3)),
    Case("search cache: an empty snippet", set_hit(1, "snippet", ""), Kept(irregular={"empty snippet": 1})),
    Case("search cache: an empty title", set_hit(1, "title", ""), Kept(irregular={"empty title": 1})),
    Case("search cache: the generator's placeholder for a query without result (left out, counted)",
         placeholder_hit, Kept(skipped={"placeholder hit of a query without a result": 1},
                               check=lambda cache: all(h.url != "No URL" for hits in cache.values() for h in hits))),
    Case("search cache: a real hit whose snippet is the placeholder (read as empty, counted)",
         set_hit(1, "snippet", "No Snippet"),
         Kept(irregular={"placeholder snippet (read as empty)": 1},
              check=lambda cache: all(h.snippet != "No Snippet" for hits in cache.values() for h in hits))),
    Case("search cache: one line fewer than the claims", lambda lines: lines[:2], Refused(None, None)),
    Case("search cache: a snippet that is null", set_hit(1, "snippet", None), Refused(2, "[0].snippet")),
    Case("search cache: an empty url", set_hit(1, "url", ""), Refused(2, "[0].url")),
]

ICL = jsonl_reader(pf.CACHE_FOLDER, pf.SUBQUESTION_FILES["icl_gpt"], 3, parse_cached_subquestions)
FINETUNED = jsonl_reader(pf.CACHE_FOLDER, pf.SUBQUESTION_FILES["gpt_finetune"], 3, parse_cached_subquestions)
SUBQUESTION_CASES = [
    Case("cached questions (ICL): an empty generation", set_field(1, "questions", ""),
         Kept(irregular={"no question": 1}, n=3, check=lambda q: sorted(map(len, q.values()))[0] == 0)),
    Case("cached questions (ICL): only a preamble", set_field(1, "questions", "Claim: something.\nQuestions:"),
         Kept(irregular={"no question": 1}, skipped={"preamble line": 2}, n=3)),
    Case("cached questions (ICL): null", set_field(1, "questions", None), Refused(2, "questions")),
    Case("cached questions (ICL): an example_id repeated", same_as("example_id", 0, 2), Refused(3, "example_id")),
]
FINETUNED_CASES = [
    Case("cached questions (fine-tuned): an empty list", set_field(1, "subquestions", []),
         Kept(irregular={"no question": 1}, n=3)),
    Case("cached questions (fine-tuned): an empty text", set_field(1, "subquestions", [" "]),
         Kept(irregular={"no question": 1}, skipped={"empty subquestions text": 1}, n=3)),
    Case("cached questions (fine-tuned): an empty text beside a real one",
         set_field(1, "subquestions", lambda r: r["subquestions"] + [""]),
         Kept(skipped={"empty subquestions text": 1}, n=3)),
    Case("cached questions (fine-tuned): a text that is not a string", set_field(1, "subquestions", [3]),
         Refused(2, "subquestions[0]")),
]


@pytest.mark.parametrize("case", CLAIMDECOMP_CASES + SEARCH_CASES + SUBQUESTION_CASES + FINETUNED_CASES, ids=str)
def test_claimdecomp(case, tmp_path, real_data_dir):
    reader = (SEARCH if case in SEARCH_CASES else ICL if case in SUBQUESTION_CASES
              else FINETUNED if case in FINETUNED_CASES else CLAIMDECOMP)
    run(reader, case, tmp_path, real_data_dir)


# --- LIAR and LIAR-PLUS (held back: test.tsv, test2.*; absent: train2) ------------------------------------------

def tsv_reader(folder: str, name: str, n: int, read: Callable[[Path], Any], out: str, quoted: bool = False,
               header: bool = False) -> Reader:
    """A TSV file of the first ``n`` real rows as cell lists (LIAR-PLUS: CSV-quoted, as its writer did)."""

    def build(root: Path, real: Path, edit):
        path = source(real, folder, name)
        if quoted:
            with open(path, encoding="utf-8", newline="") as handle:
                rows = [row for _, row in zip(range(n), csv.reader(handle, delimiter="\t", strict=True))]
        else:
            rows = [line.split("\t") for line in head_lines(path, n + header)]
        if edit is not None:
            rows = edit(rows) or rows
        if quoted:
            out_text = io.StringIO()
            writer = csv.writer(out_text, delimiter="\t", lineterminator="\n")
            for row in rows:
                if isinstance(row, str):           # a raw line written as it is
                    out_text.write(row + "\n")
                else:
                    writer.writerow(row)
            text = out_text.getvalue()
        else:
            text = "".join("\t".join(row) + "\n" for row in rows)
        return write_text(root / folder / out, text)

    return Reader(build, read)


def cell(row: int, column: int, value) -> Callable:
    def edit(rows):
        rows[row][column] = value(rows[row][column]) if callable(value) else value
    return edit


LIAR = tsv_reader("liar", "train.tsv", 4, parse_liar, "test.tsv")
LIAR_CASES = [
    Case("no credit history (the five count cells empty)", lambda rows: rows[1].__setitem__(slice(8, 13), [""] * 5),
         Kept(irregular={"no credit history": 1}, n=4, check=lambda s: s[1].credit_counts is None)),
    Case("a statement with an unbalanced quote character (6 train rows)",
         cell(1, 2, "\"Hospitals are more expensive here than anywhere else.''"),
         Kept(n=4, check=lambda s: s[1].statement.startswith('"'))),
    Case("empty subjects, speaker, job, state, party and context",
         mutate(lambda rows: [rows[1].__setitem__(i, "") for i in (3, 4, 5, 6, 7, 13)]),
         Kept(check=lambda s: (s[1].subjects, s[1].speaker, s[1].party, s[1].context) == ((), "", "", ""))),
    Case("a row of 13 columns", mutate(lambda rows: rows[1].pop()), Refused(2, "context")),
    Case("a row of 15 columns (a tab inside a cell)", lambda rows: rows[1].append("x"), Refused(2, None)),
    Case("an id repeated", lambda rows: rows[2].__setitem__(0, rows[0][0]), Refused(3, "id")),
    Case("a label LIAR does not have ('full-flop')", cell(1, 1, "full-flop"), Refused(2, "label")),
    Case("an empty statement", cell(1, 2, " "), Refused(2, "statement")),
    Case("a credit count that is not a number", cell(1, 8, "n/a"), Refused(2, "barely_true_count")),
]

LIAR_PLUS = tsv_reader("liar_plus", "val2.tsv", 4, parse_liar_plus, "test2.tsv", quoted=True)


def swallowing_statement(rows):
    # LIAR-PLUS train2 row 1280 (Tariq60/LIAR-PLUS issue 3): a statement opening with an unbalanced quote ran
    # over the next LIAR row; the CSV writer quoted the whole cell, so the file has it over two lines
    rows[1][3] = rows[1][3] + "''\thealth-care\tsomeone\t\t\t\t1\t2\t3\t4\t5\ta speech\n" + "\t".join(
        ["9874.json", "barely-true", "A swallowed statement.", "health-care", "someone-else", "", "", "republican",
         "2", "3", "2", "2", "1", "a campaign email."])


LIAR_PLUS_CASES = [
    Case("no justification column (15 columns)", mutate(lambda rows: rows[1].pop()),
         Kept(irregular={"no justification column": 1}, n=4, check=lambda s: s[1].justification == "")),
    Case("an empty justification", cell(1, 15, ""), Kept(irregular={"empty justification": 1})),
    Case("a tab inside the justification (17 columns)", lambda rows: rows[1].append("more justification"),
         Kept(irregular={"tab inside the justification": 1}, check=lambda s: "\t" in s[1].justification)),
    Case("a quoted statement over two lines that swallows the next LIAR row (train2 row 1280)", swallowing_statement,
         Kept(irregular={"quoted cell over several lines": 1}, n=4, check=lambda s: "9874.json" in s[1].statement)),
    Case("a row without its row index and justification (14 columns, train2 after row 1280)",
         lambda rows: rows.__setitem__(1, "\t".join(c.replace('"', "") for c in rows[1][1:15])), Refused(2, "context")),
    Case("a row index that is not a number", cell(1, 0, "x"), Refused(2, "row")),
    Case("an id repeated", lambda rows: rows[2].__setitem__(1, rows[0][1]), Refused(3, "id")),
]


@pytest.mark.parametrize("case", LIAR_CASES + LIAR_PLUS_CASES, ids=str)
def test_liar(case, tmp_path, real_data_dir):
    run(LIAR_PLUS if case in LIAR_PLUS_CASES else LIAR, case, tmp_path, real_data_dir)


# --- OpenBookQA and QASC (held back: OBQA test.tsv and its answer keys; absent: QASC train/test) ------------

KEY = 4   # the Answer Key column


def obqa_reader(answer_file: bool = False) -> Reader:
    """OpenBookQA ``test.tsv`` (header + 4 dev rows) in a data directory; with ``answer_file`` also the
    leaderboard answer file holding the rows' real keys (written before the change)."""

    def build(root: Path, real: Path, edit):
        rows = [line.split("\t") for line in head_lines(source(real, "openbookqa", "dev.tsv"), 5)]
        keys = [{"id": r[0], "answerKey": r[KEY]} for r in rows[1:]]
        if edit is not None:
            rows = edit(rows) or rows
        path = write_text(root / "openbookqa" / "test.tsv", "".join("\t".join(r) + "\n" for r in rows))
        if answer_file:
            write_jsonl(root / "openbookqa" / science_qa.obqa_answers_name("test"), keys)
        return path

    return Reader(build, lambda path: science_qa.read_obqa(path.parents[1], "test"))


OBQA = obqa_reader()
OBQA_WITH_KEYS = obqa_reader(answer_file=True)


def choices(row: int, text: str, key: str) -> Callable:
    return both(cell(row, 2, text), cell(row, KEY, key))


OBQA_CASES = [
    Case("five options, two labelled (D), the answer another (as train row 12-1145)",
         choices(2, "(A) one (B) two (C) three (D) four (D) five", "B"),
         Kept(irregular={"5 options": 1, "duplicate option label 'D'": 1}, n=4)),
    Case("three options", choices(2, "(A) one (B) two (C) three", "C"), Kept(irregular={"3 options": 1})),
    Case("five options labelled A-E", choices(2, "(A) one (B) two (C) three (D) four (E) five", "E"),
         Kept(irregular={"5 options": 1}, check=lambda q: q[1].answer_text == "five")),
    Case("an option text holding '(A)' inside a word", choices(2, "(A) one (B) type(A) blood (C) three (D) four", "B"),
         Kept(check=lambda q: q[1].options[1].text == "type(A) blood")),
    Case("the answer key names two options", choices(2, "(A) one (B) two (C) three (D) four (D) five", "D"),
         Refused(3, "Answer Key")),
    Case("an empty Answer Key and no answer file", cell(2, KEY, ""), Refused(3, "Answer Key")),
    Case("an answer key that names no option", cell(2, KEY, "E"), Refused(3, "Answer Key")),
    Case("an ID repeated", lambda rows: rows[3].__setitem__(0, rows[1][0]), Refused(4, "ID")),
    Case("an empty option", choices(2, "(A) (B) two (C) three (D) four", "B"), Refused(3, "Choices")),
]
OBQA_KEY_CASES = [
    Case("answer file: fills an empty Answer Key", cell(2, KEY, ""),
         Kept(check=lambda q: q[1].answer_key in q[1].labels)),
    Case("answer file: disagrees with the Answer Key column", cell(2, KEY, lambda key: "C" if key == "B" else "B"),
         Refused(2, "answerKey", in_file=science_qa.obqa_answers_name("test"))),
]

QASC = jsonl_reader("qasc", "dev.jsonl", 3, science_qa.parse_qasc_file, out="test.jsonl")


def qasc_choices(n: int) -> Callable:
    def edit(records):
        records[1]["question"]["choices"] = records[1]["question"]["choices"][:n]
        records[1]["answerKey"] = "A"
    return edit


QASC_CASES = [
    Case("QASC: five choices", qasc_choices(5), Kept(irregular={"5 options": 1})),
    Case("QASC: no fact1, fact2 or combinedfact", both(drop_field(1, "fact1"), drop_field(1, "fact2"),
                                                      drop_field(1, "combinedfact")),
         Kept(check=lambda q: q[1].facts == () and q[1].combined_fact == "")),
    Case("QASC: no answerKey (the official test file has none)", drop_field(1, "answerKey"), Refused(2, "answerKey")),
]


@pytest.mark.parametrize("case", OBQA_CASES + OBQA_KEY_CASES + QASC_CASES, ids=str)
def test_science_qa(case, tmp_path, real_data_dir):
    reader = OBQA_WITH_KEYS if case in OBQA_KEY_CASES else QASC if case in QASC_CASES else OBQA
    run(reader, case, tmp_path, real_data_dir)


# --- the readers whose official files are all here (the rule for other files of the same format) ----------

SYMMETRIC = jsonl_reader("fever_symmetric", "symmetric_v0.2_fever_symmetric_dev.jsonl", 4,
                         fever_symmetric.parse_symmetric_pairs)
SYMMETRIC_CASES = [
    Case("the v0.1 field name evidence_sentence",
         lambda records: [dict((("evidence_sentence" if k == "evidence" else k), v) for k, v in r.items()) for r in records],
         Kept(n=4)),
    Case("an id repeated", same_as("id", 0, 3), Refused(4, "id")),
    Case("an id that is no generated variant (ending in 0000005)", set_field(1, "id", "1005840000005"), Refused(2, "id")),
    Case("a label not in FEVER-Symmetric (NOT ENOUGH INFO)", set_field(1, "label", "NOT ENOUGH INFO"), Refused(2, "label")),
]


@pytest.mark.parametrize("case", SYMMETRIC_CASES, ids=str)
def test_fever_symmetric(case, tmp_path, real_data_dir):
    run(SYMMETRIC, case, tmp_path, real_data_dir)


SCITAIL = jsonl_reader("scitail", "dev.jsonl", 3, nli.parse_scitail, out="train.jsonl")
WICE = jsonl_reader("wice_oracle_chunks", "dev.jsonl", 3, nli.parse_wice)
SICK = tsv_reader("sick", "SICK.txt", 3, lambda path: nli.parse_sick(path), "SICK.txt", header=True)
NLI_CASES = [
    Case("SciTail: a contradiction label (SciTail is two-way)", set_field(1, "gold_label", "C"), Refused(2, "gold_label")),
    Case("SciTail: an id repeated", same_as("id", 0, 2), Refused(3, "id")),
    Case("WiCE: a row repeated (same meta.id and chunk_idx; 13 in dev and in test)",
         lambda records: [records[0], records[1], dict(records[1])],
         Kept(irregular={"row repeated (same meta.id and chunk_idx)": 1}, n=3)),
    Case("WiCE: a chunk_idx of another length than the evidence",
         lambda records: records[1]["meta"].__setitem__("chunk_idx", records[1]["meta"]["chunk_idx"] + [999]),
         Refused(2, "meta.chunk_idx")),
]
SICK_CASES = [
    Case("SICK: a SemEval_set value SICK does not have", cell(2, 11, "DEV"), Refused(3, "SemEval_set")),
    Case("SICK: a pair_ID repeated", lambda rows: rows[3].__setitem__(0, rows[1][0]), Refused(4, "pair_ID")),
]


@pytest.mark.parametrize("case", NLI_CASES + SICK_CASES, ids=str)
def test_nli(case, tmp_path, real_data_dir):
    reader = SICK if case in SICK_CASES else WICE if case.name.startswith("WiCE") else SCITAIL
    run(reader, case, tmp_path, real_data_dir)


def block_reader(name: str, blocks: int, read: Callable[[Path], Any]) -> Reader:
    """The first ``blocks`` claim blocks (lines separated by blank lines) of a natural-logic proof file."""

    def build(root: Path, real: Path, edit):
        text = source(real, natlog.FOLDER, name).read_text(encoding="utf-8")
        parts = [block.split("\n") for block in text.split("\n\n") if block.strip()][:blocks]
        if edit is not None:
            parts = edit(parts) or parts
        return write_text(root / natlog.FOLDER / name, "\n\n".join("\n".join(b) for b in parts) + "\n")

    return Reader(build, read)


def claim_id_back(parts):
    # a later block for the first block's claim id
    first = parts[0][0].split("\t")[0]
    parts.append([first + "\t" + line.split("\t", 1)[1] for line in parts[1]])


TARGETS = block_reader(natlog.FEWSHOT_TARGET_FILE, 3, natlog.parse_fewshot_targets)
SILVER = block_reader(natlog.SILVER_FILE, 3, natlog.parse_silver_proofs)
NATLOG_CASES = [
    Case("few-shot targets: a claim id back in a later block (claim 110631 in the official file)", claim_id_back,
         Kept(irregular={"claim id back in a later block": 1})),
]
SILVER_CASES = [
    Case("silver proofs: a claim id back in a later block", claim_id_back, Refused(None, "id")),
    Case("silver proofs: an operator not in ProoFVer", lambda parts: parts[1].__setitem__(
        0, parts[1][0].rsplit("\t", 1)[0] + "\t?"), Refused(None, "operator")),
]


@pytest.mark.parametrize("case", NATLOG_CASES + SILVER_CASES, ids=str)
def test_natlog(case, tmp_path, real_data_dir):
    reader = SILVER if case in SILVER_CASES else TARGETS
    if isinstance(case.expect, Refused):    # the line depends on the real blocks: find it
        path = reader.build(tmp_path / "odd", real_data_dir, case.edit)
        with pytest.raises(DataError) as info:
            reader.read(path)
        assert info.value.path == path and info.value.field == case.expect.field and info.value.line is not None
        return
    run(reader, case, tmp_path, real_data_dir)


CLIMATE = jsonl_reader("climate_fever", "climate-fever.jsonl", 3, misc_fever.parse_climate_fever)
MISC_CASES = [
    Case("Climate-FEVER: all votes null", lambda records: records[1]["evidences"][0].__setitem__("votes", [None] * 5),
         Kept(check=lambda c: c[1].evidences[0].votes == [])),
    Case("Climate-FEVER: a claim_id repeated", same_as("claim_id", 0, 2), Refused(3, "claim_id")),
    Case("Climate-FEVER: a claim label not in Climate-FEVER", set_field(1, "claim_label", "MIXED"),
         Refused(2, "claim_label")),
]


@pytest.mark.parametrize("case", MISC_CASES, ids=str)
def test_misc_fever(case, tmp_path, real_data_dir):
    run(CLIMATE, case, tmp_path, real_data_dir)
