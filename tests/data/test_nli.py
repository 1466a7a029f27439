"""Tests of proofbook.data.nli: SICK, SciTail, MED, MED 2-hop, WiCE oracle chunks and FraCaS sentences."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from proofbook.data import nli
from proofbook.data.med_2hop import MED_2HOP_COLUMNS, Med2HopRow, parse_med_2hop, parse_med_2hop_formula
from proofbook.data.nli import (NliPair, WiceRow, parse_fracas_sentences, parse_med, parse_med_genre, parse_scitail,
                                parse_sick, parse_wice)
from proofbook.data.textfile import DataError


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def check_error(err: pytest.ExceptionInfo, path: Path, line: int | None, field: str | None) -> None:
    assert (err.value.path, err.value.line, err.value.field) == (path, line, field)
    assert str(path) in str(err.value)


def tsv(*rows: tuple | list, crlf: bool = False) -> str:
    end = "\r\n" if crlf else "\n"
    return "".join("\t".join(str(c) for c in row) + end for row in rows)


# --- SICK ------------------------------------------------------------------------------------------

SICK_HEADER = ("pair_ID", "sentence_A", "sentence_B", "entailment_label", "relatedness_score", "entailment_AB",
               "entailment_BA", "sentence_A_original", "sentence_B_original", "sentence_A_dataset",
               "sentence_B_dataset", "SemEval_set")


def sick_row(pair_id, a="A cat sleeps on a mat", b="A cat is sleeping", label="ENTAILMENT", score="4.1", split="TRAIN"):
    return (pair_id, a, b, label, score, "A_entails_B", "B_neutral_A", a, b, "FLICKR", "FLICKR", split)


def sick_file(tmp_path: Path, *rows) -> Path:
    return write(tmp_path / nli.SICK_FOLDER / nli.SICK_FILE, tsv(SICK_HEADER, *rows, crlf=True))


@pytest.mark.unit
def test_sick_splits_are_case_insensitive(tmp_path):
    sick_file(tmp_path, sick_row(1), sick_row(2, label="CONTRADICTION", split="TRIAL"), sick_row(3, label="NEUTRAL", split="TEST"))
    (pair,) = nli.read_sick(tmp_path, "train")
    assert pair == NliPair("1", "A cat sleeps on a mat", "A cat is sleeping", "ENTAILMENT", "sick", raw_label="ENTAILMENT")
    assert pair.meta["split"] == "train" and pair.meta["relatedness_score"] == "4.1"
    assert [p.id for p in nli.read_sick(tmp_path, "TRIAL")] == ["2"]
    assert [p.label for p in nli.read_sick(tmp_path, "Test")] == ["NEUTRAL"]
    assert len(parse_sick(tmp_path / nli.SICK_FOLDER / nli.SICK_FILE)) == 3
    with pytest.raises(ValueError, match="unknown split"):
        nli.read_sick(tmp_path, "dev")


@pytest.mark.unit
@pytest.mark.parametrize("row, field", [
    (sick_row(2, label="entails"), "entailment_label"),
    (sick_row(2, a=" "), "sentence_A"),
    (sick_row(2, b=""), "sentence_B"),
    (sick_row(2, score="high"), "relatedness_score"),
    (sick_row(2, split="DEV"), "SemEval_set"),
    (sick_row("", split="TRAIN"), "pair_ID"),
    (sick_row(2)[:5], "entailment_AB"),                        # a short row names its first missing column
])
def test_sick_errors_name_line_and_field(tmp_path, row, field):
    path = sick_file(tmp_path, sick_row(1), row)
    with pytest.raises(DataError) as err:
        nli.read_sick(tmp_path, "train")
    check_error(err, path, 3, field)


@pytest.mark.unit
def test_sick_non_utf8(tmp_path):
    path = sick_file(tmp_path, sick_row(1))
    path.write_bytes(path.read_bytes() + b"2\tna\xefve\tb\tNEUTRAL\t1\tx\tx\tx\tx\tx\tx\tTEST\r\n")
    with pytest.raises(DataError) as err:
        nli.read_sick(tmp_path, "test")
    check_error(err, path, 3, None)


# --- SciTail ---------------------------------------------------------------------------------------

def scitail_line(**changes) -> str:
    row = {"id": "dev_1", "sentence1": "Plants make sugar by photosynthesis.", "sentence2": "Photosynthesis makes sugar.",
           "gold_label": "E"}
    row.update(changes)
    return json.dumps({k: v for k, v in row.items() if v is not ...}) + "\n"


@pytest.mark.unit
def test_scitail_reads_pairs(tmp_path):
    write(tmp_path / nli.SCITAIL_FOLDER / "dev.jsonl", scitail_line() + "\n" + scitail_line(id="dev_2", gold_label="N"))
    pairs = nli.read_scitail(tmp_path, "dev")
    assert [(p.id, p.label, p.raw_label, p.source) for p in pairs] == [("dev_1", "ENTAILMENT", "E", "scitail"),
                                                                      ("dev_2", "NEUTRAL", "N", "scitail")]
    with pytest.raises(FileNotFoundError, match="test.jsonl"):
        nli.read_scitail(tmp_path, "test")
    with pytest.raises(ValueError, match="unknown split"):
        nli.read_scitail(tmp_path, "validation")


@pytest.mark.unit
@pytest.mark.parametrize("changes, field", [
    ({"gold_label": "C"}, "gold_label"),
    ({"gold_label": ...}, "gold_label"),
    ({"sentence1": ""}, "sentence1"),
    ({"sentence2": 3}, "sentence2"),
    ({"id": None}, "id"),
    ({"id": 2}, "id"),               # a number where the official files write a string
    ({"id": "dev_1"}, "id"),         # duplicate id
])
def test_scitail_errors(tmp_path, changes, field):
    path = write(tmp_path / "test.jsonl", scitail_line() + scitail_line(**{"id": "dev_2", **changes}))
    with pytest.raises(DataError) as err:
        parse_scitail(path)
    check_error(err, path, 2, field)


@pytest.mark.unit
def test_scitail_malformed_json(tmp_path):
    path = write(tmp_path / "test.jsonl", scitail_line() + '{"id": "x", "sentence1": \n')
    with pytest.raises(DataError) as err:
        parse_scitail(path)
    check_error(err, path, 2, None)


# --- MED -------------------------------------------------------------------------------------------

MED_HEADER = ("index", "promptID", "pairID", "genre", "sentence1_binary_parse", "sentence2_binary_parse",
              "sentence1_parse", "sentence2_parse", "sentence1", "sentence2", "label1", "label2", "label3", "label4",
              "label5", "gold_label")


def med_row(i, genre="crowd:downward_monotone:npi", s1="No dog ever barked loudly.", s2="No dog ever barked.",
            label="neutral"):
    return (i, i, i, genre, "", "", "", "", s1, s2, "", "", "", "", "", label)


@pytest.mark.unit
def test_med_reads_pairs_and_genre(tmp_path):
    write(tmp_path / nli.MED_FOLDER / nli.MED_FILE, tsv(MED_HEADER, med_row(1), med_row(2, "paper:GLUE:upward_monotone:conjunction", label="entailment")))
    pairs = nli.read_med(tmp_path)
    assert [(p.id, p.label, p.raw_label, p.source) for p in pairs] == [("1", "NEUTRAL", "neutral", "med"), ("2", "ENTAILMENT", "entailment", "med")]
    assert parse_med_genre(pairs[0].genre) == nli.MedGenre("crowd", "downward_monotone", ("npi",))
    assert parse_med_genre(pairs[1].genre) == nli.MedGenre("paper", "upward_monotone", ("GLUE", "conjunction"))
    assert parse_med_genre("crowd").monotonicity == ""


@pytest.mark.unit
@pytest.mark.parametrize("row, field", [
    (med_row(2, label="yes"), "gold_label"),
    (med_row(2, s1=""), "sentence1"),
    (med_row(2, s2="  "), "sentence2"),
    (med_row(2, genre=""), "genre"),
    (med_row(2)[:9], "sentence2"),
])
def test_med_errors(tmp_path, row, field):
    path = write(tmp_path / "MED.tsv", tsv(MED_HEADER, med_row(1), row))
    with pytest.raises(DataError) as err:
        parse_med(path)
    check_error(err, path, 3, field)


# --- MED 2-hop ---------------------------------------------------------------------------------------

# the real header pads its names with spaces
MED_2HOP_HEADER = tuple(f" {name} " for name in MED_2HOP_COLUMNS)


def hop_row(formula="['ent_f*', 'ent_r']->['ent_r', 'ent_r']", start_ends="[([2], [2]), ([4, 5], [4])]", new_label="neutral",
            relation="ent_f", consistent="True", original_id="12"):
    return (original_id, "no *animal* ran fast", "no cat ran.", "cat", relation, "[('cat-', ' < Hyper', '*')]",
            "entailment", "crowd:downward_monotone", consistent, formula, start_ends, new_label)


@pytest.mark.unit
def test_med_2hop_reads_rows(tmp_path):
    write(tmp_path / nli.MED_FOLDER / nli.MED_2HOP_FILE, tsv(MED_2HOP_HEADER, hop_row(),
                                                          hop_row(formula="['alt*']->None", start_ends="[([], [1])]",
                                                                  new_label="None", relation="alt", consistent="False")))
    first, second = nli.read_med_2hop(tmp_path)
    assert isinstance(first, Med2HopRow)
    assert (first.original_id, first.keyword, first.relation, first.consistent) == (12, "cat", "ent_f", True)
    assert (first.edit_relations, first.keyword_edit, first.projected_relations) == (("ent_f", "ent_r"), 0, ("ent_r", "ent_r"))
    assert first.edit_operators == ("<", ">") and first.projected_operators == (">", ">")
    assert first.start_ends == (((2,), (2,)), ((4, 5), (4,)))
    assert (first.original_label, first.new_label, first.line) == ("ENTAILMENT", "NEUTRAL", 2)
    assert (second.projected_relations, second.projected_operators, second.new_label) == (None, None, None)
    assert second.start_ends == (((), (1,)),)


@pytest.mark.unit
def test_med_2hop_formula_variants():
    assert parse_med_2hop_formula("['ent_f', 'ent_f']->['ind', 'alt']") == (("ent_f", "ent_f"), None, ("ind", "alt"))
    assert parse_med_2hop_formula("['']->None") == ((), None, None)


@pytest.mark.unit
@pytest.mark.parametrize("changes, field", [
    ({"formula": "['ent_f*', 'ent_r']"}, "formula"),
    ({"formula": "['ent_f*', 'ent_x']->['ent_r', 'ent_r']"}, "formula"),
    ({"formula": "['ent_f*', 'ent_r*']->['ent_r', 'ent_r']"}, "formula"),
    ({"formula": "['ent_f*', 'ent_r']->['ent_r']"}, "formula"),
    ({"formula": "[ent_f]->None"}, "formula"),
    ({"start_ends": "[([2], [2]"}, "start_ends"),
    ({"start_ends": "[([2], ['x'])]"}, "start_ends"),
    ({"new_label": "maybe"}, "new_label"),
    ({"relation": "eq"}, "relation 1to2"),
    ({"consistent": "yes"}, "consistent"),
    ({"original_id": "a12"}, "original_id"),
])
def test_med_2hop_errors(tmp_path, changes, field):
    path = write(tmp_path / "med_2hop.tsv", tsv(MED_2HOP_HEADER, hop_row(), hop_row(**changes)))
    with pytest.raises(DataError) as err:
        parse_med_2hop(path)
    check_error(err, path, 3, field)


# --- WiCE ------------------------------------------------------------------------------------------

def wice_line(**changes) -> str:
    row = {"label": "partially_supported", "claim": "The bridge opened in 1901 and cost a fortune.",
           "evidence": ["Bridge history", "The bridge opened in 1901.", ""],
           "meta": {"id": "dev00001", "claim_title": "Bridge", "claim_section": "History.", "chunk_idx": [0, 4, 9],
                    "oracle_idx": [4]}}
    row.update(changes)
    return json.dumps({k: v for k, v in row.items() if v is not ...}) + "\n"


@pytest.mark.unit
def test_wice_reads_rows(tmp_path):
    no_oracle = {"id": "dev00002", "chunk_idx": [1]}
    write(tmp_path / nli.WICE_FOLDER / "dev.jsonl", wice_line() + wice_line(label="not_supported", evidence=["x"], meta=no_oracle))
    first, second = nli.read_wice(tmp_path, "dev")
    assert isinstance(first, WiceRow)
    assert (first.id, first.label, first.chunk_idx, first.oracle_idx, first.line) == ("dev00001", "partially_supported", (0, 4, 9), (4,), 1)
    assert first.evidence[-1] == ""                                   # empty padding sentences are kept
    assert (second.id, second.oracle_idx) == ("dev00002", ())


@pytest.mark.unit
@pytest.mark.parametrize("changes, field", [
    ({"label": "refuted"}, "label"),
    ({"claim": ""}, "claim"),
    ({"evidence": "one sentence"}, "evidence"),
    ({"evidence": ["a", 3, "b"]}, "evidence[1]"),
    ({"meta": ...}, "meta"),
    ({"meta": {"chunk_idx": [0, 1, 2]}}, "meta.id"),
    ({"meta": {"id": "d1", "chunk_idx": [0]}}, "meta.chunk_idx"),
])
def test_wice_errors(tmp_path, changes, field):
    path = write(tmp_path / "test.jsonl", wice_line() + wice_line(**changes))
    with pytest.raises(DataError) as err:
        parse_wice(path)
    check_error(err, path, 2, field)


# --- FraCaS -----------------------------------------------------------------------------------------

@pytest.mark.unit
def test_fracas_sentences_count_blank_lines(tmp_path):
    path = write(tmp_path / nli.FRACAS_FOLDER / nli.FRACAS_FILE, "Every dog barks.\n\nSome dog barks.\n")
    sentences = nli.read_fracas_sentences(tmp_path)
    assert [(s.line, s.text) for s in sentences] == [(1, "Every dog barks."), (3, "Some dog barks.")]
    assert sentences.skipped.counts["blank line"] == 1
    path.write_bytes(b"Every dog barks.\nSome \xff dog.\n")
    with pytest.raises(DataError) as err:
        parse_fracas_sentences(path)
    check_error(err, path, 2, None)


@pytest.mark.unit
def test_describe_skips_absent_files(tmp_path):
    assert nli.describe(tmp_path) == []
    write(tmp_path / nli.SCITAIL_FOLDER / "test.jsonl", scitail_line())
    assert nli.describe(tmp_path) == [{"dataset": "scitail", "split": "test", "records": 1, "detail": "ENTAILMENT 1"}]


# --- real data ----------------------------------------------------------------------------------------

@pytest.mark.data
def test_real_sick(real_data_dir):
    counts = {split: len(nli.read_sick(real_data_dir, split)) for split in ("train", "trial", "test")}
    assert counts == {"train": 4_439, "trial": 495, "test": 4_906}
    labels = Counter(p.label for p in parse_sick(real_data_dir / nli.SICK_FOLDER / nli.SICK_FILE))
    assert labels == Counter({"NEUTRAL": 5_595, "ENTAILMENT": 2_821, "CONTRADICTION": 1_424})


@pytest.mark.data
def test_real_scitail(real_data_dir):
    assert Counter(p.raw_label for p in nli.read_scitail(real_data_dir, "dev")) == Counter({"E": 657, "N": 647})
    assert Counter(p.raw_label for p in nli.read_scitail(real_data_dir, "test")) == Counter({"N": 1_284, "E": 842})


@pytest.mark.data
def test_real_med(real_data_dir):
    pairs = nli.read_med(real_data_dir)
    assert len(pairs) == 5_382
    assert Counter(p.raw_label for p in pairs) == Counter({"entailment": 2_705, "neutral": 2_677})
    genres = [parse_med_genre(p.genre) for p in pairs]
    assert Counter(g.origin for g in genres) == Counter({"crowd": 4_068, "paper": 1_314})
    assert all(g.monotonicity in nli.MED_MONOTONICITY for g in genres)


@pytest.mark.data
def test_real_med_2hop(real_data_dir):
    rows = nli.read_med_2hop(real_data_dir)
    assert len(rows) == 6_396
    assert Counter(r.relation for r in rows) == Counter({"alt": 2_150, "ent_r": 2_123, "ent_f": 2_123})
    assert sum(r.new_label is None for r in rows) == 6            # irregular rows kept, label None
    assert sum(r.projected_relations is None for r in rows) == 6
    assert all(len(r.start_ends) == len(r.edit_relations) for r in rows if r.edit_relations)


@pytest.mark.data
def test_real_wice(real_data_dir):
    dev, test = nli.read_wice(real_data_dir, "dev"), nli.read_wice(real_data_dir, "test")
    assert (len(dev), len({r.id for r in dev}), len(test), len({r.id for r in test})) == (1_043, 349, 1_070, 358)
    assert Counter(r.label for r in dev) == Counter({"partially_supported": 576, "supported": 342, "not_supported": 125})
    assert all(not r.oracle_idx for r in dev if r.label == "not_supported")


@pytest.mark.data
def test_real_fracas(real_data_dir):
    sentences = nli.read_fracas_sentences(real_data_dir)
    assert len(sentences) == 204 and sentences.skipped.total == 0


@pytest.mark.data
def test_real_describe(real_data_dir):
    rows = nli.describe(real_data_dir)
    assert [(r["dataset"], r["split"], r["records"]) for r in rows] == [
        ("sick", "train", 4_439), ("sick", "trial", 495), ("sick", "test", 4_906), ("scitail", "dev", 1_304),
        ("scitail", "test", 2_126), ("med", "all", 5_382), ("med-2hop", "all", 6_396), ("wice-oracle", "dev", 1_043),
        ("wice-oracle", "test", 1_070), ("fracas", "1-80", 204)]
