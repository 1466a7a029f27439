"""Climate-FEVER and EX-FEVER readers."""
import json
from pathlib import Path

import pytest

from proofbook.data.misc_fever import (CLIMATE_FILE, CLIMATE_FOLDER, EX_FEVER_FOLDER, build_climate_fever_corpus,
                                       describe, parse_climate_fever, parse_ex_fever, read_climate_fever, read_ex_fever)
from proofbook.data.textfile import DataError

HEADER = "claim,explanation,label,golden entity,mention,result entity,discard number\n"


def evidence(article="Belo", position=3, text="Belo is a town.", label="SUPPORTS", votes=("SUPPORTS", None)):
    return {"evidence_id": f"{article}:{position}", "evidence_label": label, "article": article,
            "evidence": text, "entropy": 0.0, "votes": list(votes)}


def climate(claim_id="0", label="SUPPORTS", evidences=None, **extra):
    """A made-up Climate-FEVER record (not a line of the real data)."""
    record = {"claim_id": claim_id, "claim": "Belo is warming.", "claim_label": label,
              "evidences": evidences if evidences is not None else [evidence()]}
    record.update(extra)
    return record


def write_climate(root: Path, records) -> Path:
    (root / CLIMATE_FOLDER).mkdir(parents=True, exist_ok=True)
    path = root / CLIMATE_FOLDER / CLIMATE_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_ex(root: Path, body: str, split="test") -> Path:
    (root / EX_FEVER_FOLDER).mkdir(parents=True, exist_ok=True)
    path = root / EX_FEVER_FOLDER / f"{split}.csv"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


EX_ROWS = ('Belo lies on a river that flows north.,"Belo lies on the Ama.\nThe Ama flows north.",SUPPORT,'
           '"[\'Belo_(town)\', \'Ama_(river)\', \'Belo_(town)\']","[\'Ama\']",,\n'
           'Kestry is in Belo.,No information.,NOT ENOUGH INFO,"[\'Kestry\', \'Belo_(town)\']",[],,2.0\n')


# ---------------------------------------------------------------- Climate-FEVER

@pytest.mark.unit
def test_climate_valid_file_and_corpus(tmp_path):
    write_climate(tmp_path, [
        climate("0", evidences=[evidence(position=7, text="Belo has a river."), evidence(position=2)]),
        climate("1", "DISPUTED", evidences=[evidence(position=2), evidence("Ama", 0, "The Ama is long.", "NOT_ENOUGH_INFO")]),
    ])
    claims = read_climate_fever(tmp_path)
    assert [c.claim_id for c in claims] == ["0", "1"] and claims[1].label == "DISPUTED"
    first = claims[0].evidences[0]
    assert (first.article, first.sentence, first.position, first.votes) == ("Belo", "Belo has a river.", 7, ["SUPPORTS"])
    corpus = build_climate_fever_corpus(claims)
    assert corpus.titles == ["Belo", "Ama"]
    assert corpus["Belo"].sentences == ["Belo is a town.", "Belo has a river."]  # article order, each once


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"claim_label": "SUPPORTED"}, "claim_label"),
    ({"claim": " "}, "claim"),
    ({"claim_id": None}, "claim_id"),
    ({"evidences": []}, "evidences"),
    ({"evidences": [evidence(), "text"]}, "evidences[1]"),
    ({"evidences": [evidence(label="DISPUTED")]}, "evidences[0].evidence_label"),
    ({"evidences": [evidence(text="")]}, "evidences[0].evidence"),
    ({"evidences": [evidence(votes=("SUPPORTS", "MAYBE"))]}, "evidences[0].votes"),
    ({"evidences": [dict(evidence(), entropy="low")]}, "evidences[0].entropy"),
])
def test_climate_bad_records(tmp_path, change, field):
    path = write_climate(tmp_path, [climate("0"), {**climate("1"), **change}])
    with pytest.raises(DataError) as info:
        parse_climate_fever(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, 2, field), str(err)


@pytest.mark.unit
def test_climate_malformed_json_and_bytes(tmp_path):
    path = write_climate(tmp_path, [climate("0")])
    path.write_text(path.read_text() + "[1, 2]\n", encoding="utf-8")
    with pytest.raises(DataError, match="expected a JSON object") as info:
        parse_climate_fever(path)
    assert info.value.line == 2
    path.write_bytes(b'{"claim_id": "\xc3"}\n')
    with pytest.raises(DataError, match="UTF-8"):
        parse_climate_fever(path)


# ---------------------------------------------------------------- EX-FEVER

@pytest.mark.unit
def test_ex_fever_valid_file(tmp_path):
    write_ex(tmp_path, EX_ROWS)
    claims = read_ex_fever(tmp_path, "test")
    first, second = claims
    assert claims.irregular.total == 1 and "line 2" in str(claims.irregular)
    assert first.row == 1 and first.label == "SUPPORT"
    assert first.explanation == "Belo lies on the Ama.\nThe Ama flows north."     # a field spanning two lines
    assert first.gold_titles == ["Belo (town)", "Ama (river)"]                    # spaces, distinct, in order
    assert (second.row, second.claim, second.label) == (2, "Kestry is in Belo.", "NOT ENOUGH INFO")


@pytest.mark.unit
@pytest.mark.parametrize("row, field", [
    ('Kestry is in Belo.,No information.,NEI,"[\'Kestry\']",[],,\n', "label"),
    (',No information.,SUPPORT,"[\'Kestry\']",[],,\n', "claim"),
    ('Kestry is in Belo.,No information.,SUPPORT,"Kestry",[],,\n', "golden entity"),
    ('Kestry is in Belo.,No information.,SUPPORT,"[\'Kestry\'",[],,\n', "golden entity"),
    ('Kestry is in Belo.,No information.,SUPPORT,[],[],,\n', "golden entity"),
    ('Kestry is in Belo.,No information.,SUPPORT\n', "golden entity"),
])
def test_ex_fever_bad_rows_name_their_first_line(tmp_path, row, field):
    path = write_ex(tmp_path, EX_ROWS + row)
    with pytest.raises(DataError) as info:
        parse_ex_fever(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, 5, field), str(err)   # header, a 2-line row, a row


@pytest.mark.unit
def test_ex_fever_bad_header_quotes_and_bytes(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("claim,label,golden entity\nA.,SUPPORT,['A']\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        parse_ex_fever(path)
    assert (info.value.line, info.value.field) == (1, "explanation")
    path.write_text(HEADER + 'A.,"unclosed,SUPPORT,"[\'A\']",,,\n', encoding="utf-8")
    with pytest.raises(DataError, match="malformed CSV"):
        parse_ex_fever(path)
    path.write_bytes(HEADER.encode() + b"A \xff.,B,SUPPORT,\"['A']\",,,\n")
    with pytest.raises(DataError, match="UTF-8") as info:
        parse_ex_fever(path)
    assert info.value.line == 2


@pytest.mark.unit
def test_splits_and_describe(tmp_path):
    with pytest.raises(ValueError):
        read_ex_fever(tmp_path, "validation")
    with pytest.raises(FileNotFoundError):
        read_ex_fever(tmp_path, "dev")
    assert describe(tmp_path) == []
    write_ex(tmp_path, EX_ROWS, split="mini_test")
    assert [(r["dataset"], r["split"], r["records"]) for r in describe(tmp_path)] == [("ex_fever", "mini_test", 2)]
    write_climate(tmp_path, [climate("0")])
    rows = describe(tmp_path)
    assert [(r["dataset"], r["split"]) for r in rows] == [("climate_fever", "all"), ("ex_fever", "mini_test")]


# ---------------------------------------------------------------- real data

@pytest.mark.data
def test_real_climate_fever(real_data_dir):
    claims = read_climate_fever(real_data_dir)
    labels = {label: sum(c.label == label for c in claims) for label in ("SUPPORTS", "NOT_ENOUGH_INFO", "REFUTES", "DISPUTED")}
    assert labels == {"SUPPORTS": 654, "NOT_ENOUGH_INFO": 474, "REFUTES": 253, "DISPUTED": 154}   # SOURCE.md
    assert sum(len(c.evidences) for c in claims) == 7675 and all(len(c.evidences) == 5 for c in claims)
    corpus = build_climate_fever_corpus(claims)
    assert len(corpus) == 1344 and corpus.n_sentences() == 5240                                   # measured


@pytest.mark.data
def test_real_ex_fever(real_data_dir):
    test = read_ex_fever(real_data_dir, "test")
    labels = {label: sum(c.label == label for c in test) for label in ("REFUTE", "NOT ENOUGH INFO", "SUPPORT")}
    assert (len(test), labels) == (6099, {"REFUTE": 2066, "NOT ENOUGH INFO": 2028, "SUPPORT": 2005})  # SOURCE.md
    assert all(2 <= len(c.gold_titles) <= 3 and "_" not in "".join(c.gold_titles) for c in test)
    assert test.irregular.total == 16   # measured: rows whose title list repeats a title
    mini = read_ex_fever(real_data_dir, "mini_test")
    assert len(mini) == 1000 and {c.claim for c in mini} <= {c.claim for c in test}
    assert [r["records"] for r in describe(real_data_dir)] == [1535, 6099, 1000]
