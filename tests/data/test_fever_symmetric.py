"""Symmetric FEVER pairs and the FEVER claim ids they reserve."""
import json
from pathlib import Path

import pytest

from proofbook.data.fever_symmetric import (SYMMETRIC_FOLDER, describe, fever_claim_id, fever_symmetric_claim_ids,
                                            parse_symmetric_pairs, read_fever_symmetric)
from proofbook.data.textfile import DataError


def pair(pair_id, label="SUPPORTS", claim="Belo is a town .", evidence="Belo is a small town on the Ama ."):
    """A made-up v0.2 record (not a line of the real data)."""
    return {"id": pair_id, "claim": claim, "evidence": evidence, "sentence1": evidence, "sentence2": claim,
            "gold_label": label, "label": label, "evid": [[evidence, 1.0]]}


def write(root: Path, records, split="dev") -> Path:
    folder = root / SYMMETRIC_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"symmetric_v0.2_fever_symmetric_{split}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


FOUR = [pair("4321"), pair("43210000002", "REFUTES"), pair("43210000003", "REFUTES", claim="Belo is a city ."),
        pair("43210000004", claim="Belo is a city .")]


@pytest.mark.unit
def test_fever_claim_id():
    assert fever_claim_id("100584") == (100584, 1)
    assert fever_claim_id("1005840000002") == (100584, 2)
    assert fever_claim_id(970000004) == (97, 4)
    for bad in ("1005840000007", "12a", ""):
        with pytest.raises(ValueError):
            fever_claim_id(bad)


@pytest.mark.unit
def test_valid_file_and_claim_ids(tmp_path):
    write(tmp_path, FOUR)
    write(tmp_path, [pair("17"), pair("170000002", "REFUTES")], split="test")
    pairs = read_fever_symmetric(tmp_path, "dev")
    assert [(p.id, p.fever_id, p.variant, p.label) for p in pairs] == [
        ("4321", 4321, 1, "SUPPORTS"), ("43210000002", 4321, 2, "REFUTES"),
        ("43210000003", 4321, 3, "REFUTES"), ("43210000004", 4321, 4, "SUPPORTS")]
    assert pairs[2].claim == "Belo is a city ." and pairs[0].evidence == "Belo is a small town on the Ama ."
    assert fever_symmetric_claim_ids(tmp_path) == {4321, 17}
    assert [r["split"] for r in describe(tmp_path)] == ["dev", "test"]
    assert describe(tmp_path)[0]["detail"] == "REFUTES 2, SUPPORTS 2; 1 FEVER claims, 3 generated pairs"


@pytest.mark.unit
def test_v01_field_name_is_read(tmp_path):
    path = tmp_path / "v01.jsonl"
    path.write_text(json.dumps({"id": "55", "label": "REFUTES", "claim": "A .", "evidence_sentence": "B ."}) + "\n",
                    encoding="utf-8")
    [only] = parse_symmetric_pairs(path)
    assert (only.evidence, only.fever_id) == ("B .", 55)


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"label": "NOT ENOUGH INFO"}, "label"),
    ({"claim": ""}, "claim"),
    ({"evidence": None}, "evidence"),
    ({"id": "43210000009"}, "id"),
    ({"id": "x12"}, "id"),
    ({"id": "4321"}, "id"),   # repeated
])
def test_bad_records_name_line_and_field(tmp_path, change, field):
    path = write(tmp_path, [FOUR[0], {**FOUR[1], **change}])
    with pytest.raises(DataError) as info:
        parse_symmetric_pairs(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, 2, field), str(err)


@pytest.mark.unit
def test_malformed_json_bad_bytes_and_missing_split(tmp_path):
    path = write(tmp_path, FOUR[:1])
    path.write_text(path.read_text() + '{"id": "1",\n', encoding="utf-8")
    with pytest.raises(DataError, match="malformed JSON") as info:
        parse_symmetric_pairs(path)
    assert info.value.line == 2
    path.write_bytes(b'{"id": "1", "claim": "\x80"}\n')
    with pytest.raises(DataError, match="UTF-8"):
        parse_symmetric_pairs(path)
    with pytest.raises(FileNotFoundError):
        read_fever_symmetric(tmp_path, "test")
    with pytest.raises(ValueError):
        read_fever_symmetric(tmp_path, "train")
    assert fever_symmetric_claim_ids(tmp_path / "nowhere") == set() and describe(tmp_path / "nowhere") == []


@pytest.mark.data
def test_real_fever_symmetric(real_data_dir):
    dev, test = read_fever_symmetric(real_data_dir, "dev"), read_fever_symmetric(real_data_dir, "test")
    assert len(dev) == 708 and sum(p.label == "SUPPORTS" for p in dev) == 354        # SOURCE.md
    assert len(test) == 712 and sum(p.label == "SUPPORTS" for p in test) == 356
    for pairs, claims in ((dev, 177), (test, 178)):                                  # measured: 4 pairs per claim
        assert len({p.fever_id for p in pairs}) == claims
        assert sorted(p.variant for p in pairs) == sorted([1, 2, 3, 4] * claims)
    ids = fever_symmetric_claim_ids(real_data_dir)
    assert len(ids) == 355 and max(ids) < 10 ** 6
    assert [r["records"] for r in describe(real_data_dir)] == [708, 712]
