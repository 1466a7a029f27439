"""Fool Me Twice claims and their one-page-per-claim corpus."""
import json
from pathlib import Path

import pytest

from proofbook.data.fm2 import FM2_FOLDER, build_fm2_corpus, describe, parse_fm2_claims, read_fm2_claims
from proofbook.data.textfile import DataError


def record(claim_id="c1", page="Kestry Mill", gold=("The mill was built in 1820.",), label="SUPPORTS", **extra):
    """A made-up record in the official format (not a line of the real data)."""
    base = {"category": "History", "correct_votes": 1, "id": claim_id, "label": label,
            "gold_evidence": [{"section_header": "History", "text": text} for text in gold],
            "retrieved_evidence": [{"section_header": "History", "text": "The mill was built in 1820."},
                                   {"section_header": "", "text": "It burned down in 1901."}],
            "text": "Kestry Mill is older than 1900.", "total_likes": 0, "total_votes": 1, "wikipedia_page": page}
    base.update(extra)
    return base


def write(root: Path, records, split="dev") -> Path:
    folder = root / FM2_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{split}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.unit
def test_valid_file_and_corpus(tmp_path):
    write(tmp_path, [record("c1"), record("c2", gold=("It burned down in 1901.", "The mill was built in 1820."), label="REFUTES"),
                     record("c3", page="Belo", gold=("Belo is a town.",))])
    claims = read_fm2_claims(tmp_path, "dev")
    first = claims[0]
    assert (first.id, first.claim, first.label, first.wikipedia_page, first.category) == \
        ("c1", "Kestry Mill is older than 1900.", "SUPPORTS", "Kestry Mill", "History")
    assert first.gold_evidence == ["The mill was built in 1820."]
    assert first.retrieved_evidence == ["The mill was built in 1820.", "It burned down in 1901."]
    corpus = build_fm2_corpus(claims)
    assert corpus.titles == ["Kestry Mill", "Belo"]
    assert corpus["Kestry Mill"].sentences == ["The mill was built in 1820.", "It burned down in 1901."]


@pytest.mark.unit
def test_retrieved_evidence_stays_out_of_the_corpus(tmp_path):
    write(tmp_path, [record("c1", retrieved_evidence=[{"section_header": "X", "text": "Only retrieved."}])])
    claims = read_fm2_claims(tmp_path)
    assert claims[0].retrieved_evidence == ["Only retrieved."]
    assert "Only retrieved." not in build_fm2_corpus(claims)["Kestry Mill"].sentences


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"text": ""}, "text"),
    ({"label": "NOT ENOUGH INFO"}, "label"),
    ({"wikipedia_page": None}, "wikipedia_page"),
    ({"gold_evidence": []}, "gold_evidence"),
    ({"gold_evidence": ["a bare string"]}, "gold_evidence[0]"),
    ({"gold_evidence": [{"section_header": "H", "text": " "}]}, "gold_evidence[0].text"),
    ({"retrieved_evidence": [{"section_header": "H"}]}, "retrieved_evidence[0].text"),
    ({"retrieved_evidence": "none"}, "retrieved_evidence"),
    ({"id": 17}, "id"),
])
def test_bad_records_name_line_and_field(tmp_path, change, field):
    path = write(tmp_path, [record("c1"), record("c2", **change)])
    with pytest.raises(DataError) as info:
        parse_fm2_claims(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, 2, field), str(err)


@pytest.mark.unit
def test_malformed_lines_and_duplicates(tmp_path):
    path = write(tmp_path, [record("c1")])
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n" + json.dumps(record("c1")) + "\n")   # a blank line, then a repeated id on line 3
    with pytest.raises(DataError, match="duplicate id") as info:
        parse_fm2_claims(path)
    assert info.value.line == 3
    path.write_text(json.dumps(record("c1")) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match="malformed JSON") as info:
        parse_fm2_claims(path)
    assert info.value.line == 2
    path.write_bytes(json.dumps(record("c1")).encode() + b"\n" + json.dumps(record("c2")).encode()[:-2] + b'\xe9"}\n')
    with pytest.raises(DataError, match="UTF-8") as info:
        parse_fm2_claims(path)
    assert info.value.line == 2


@pytest.mark.unit
def test_splits_and_describe(tmp_path):
    with pytest.raises(ValueError):
        read_fm2_claims(tmp_path, "validation")
    with pytest.raises(FileNotFoundError):
        read_fm2_claims(tmp_path, "test")
    assert describe(tmp_path) == []
    write(tmp_path, [record("c1"), record("c2", label="REFUTES")], split="test")
    [row] = describe(tmp_path)
    assert (row["dataset"], row["split"], row["records"]) == ("fm2", "test", 2)
    assert row["detail"] == "REFUTES 1, SUPPORTS 1; 1 pages, 1 gold sentences"


@pytest.mark.data
def test_real_fm2_counts(real_data_dir):
    claims = read_fm2_claims(real_data_dir, "dev")
    labels = {label: sum(c.label == label for c in claims) for label in ("SUPPORTS", "REFUTES")}
    assert (len(claims), labels) == (1169, {"SUPPORTS": 596, "REFUTES": 573})   # SOURCE.md
    corpus = build_fm2_corpus(claims)
    assert len(corpus) == 209 and corpus.n_sentences() == 1210                  # 209 pages (SOURCE.md); measured
    assert sum(len(c.retrieved_evidence) for c in claims) == 13522 - 1472        # measured: all entries minus gold
    assert all(set(c.gold_evidence) <= set(c.retrieved_evidence) for c in claims)
    assert [row["split"] for row in describe(real_data_dir)][0] == "dev"
