"""FEVEROUS-S gold-evidence claims and their pooled corpus."""
import json
from pathlib import Path

import pytest

from proofbook.data.feverous import (FEVEROUS_FOLDER, build_feverous_corpus, describe, parse_feverous_claims,
                                     read_feverous_claims, strip_wiki_markup)
from proofbook.data.textfile import DataError

# Made-up records in the official format (not lines of the real data).
EV_1 = "Kestry Mill\tKestry Mill is a [[Water_mill|water mill]] on the [[Ama_(river)|Ama]].\nBelo\tBelo lies on the [[Ama]]."
EV_2 = "Belo\tBelo lies on the [[Ama]].\nBelo\tIts mayor is [[Cora_Dune|Cora Dune]]."


def record(claim_id, claim="Kestry Mill is on the Ama.", label="supports", evidence=EV_1, challenge="Other"):
    return {"id": claim_id, "claim": claim, "label": label, "challenge": challenge, "evidence": evidence}


def write(root: Path, records, split="dev", pretty=False) -> Path:
    folder = root / FEVEROUS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{split}.json"
    path.write_text(json.dumps(records, indent=1 if pretty else None, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.unit
def test_strip_wiki_markup():
    assert strip_wiki_markup("a [[New_Orleans,_Louisiana|New Orleans, Louisiana]] b") == "a New Orleans, Louisiana b"
    assert strip_wiki_markup("[[A]] and [[Big_City]]") == "A and Big City"
    assert strip_wiki_markup("IPA: [[Russian|[ˈroːma]]) is") == "IPA: [ˈroːma]) is"   # FEVEROUS lost one "]"
    assert strip_wiki_markup("IPA: [[Russian|[ˈroːma]]]) is") == "IPA: [ˈroːma]) is"
    assert strip_wiki_markup("no links [here]") == "no links [here]"


@pytest.mark.unit
def test_valid_file_and_corpus(tmp_path):
    write(tmp_path, [record(7), record(9, label="refutes", evidence=EV_2 + "\nBelo\tBelo lies on the [[Ama]].",
                                        challenge="Multi-hop Reasoning")])
    claims = read_feverous_claims(tmp_path, "dev")
    assert claims.irregular.counts == {"evidence sentence repeated within a claim": 1}
    first, second = claims
    assert first.id == 7 and first.label == "supports" and first.challenge == "Other"
    assert first.evidence == [("Kestry Mill", "Kestry Mill is a water mill on the Ama."), ("Belo", "Belo lies on the Ama.")]
    assert first.gold_titles == ["Kestry Mill", "Belo"] and second.gold_titles == ["Belo"]
    corpus = build_feverous_corpus(claims)
    assert corpus.titles == ["Kestry Mill", "Belo"]
    assert corpus["Belo"].sentences == ["Belo lies on the Ama.", "Its mayor is Cora Dune."]  # pooled, once each
    assert corpus.sentence(("Belo", 1)).text == "Its mayor is Cora Dune."


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"claim": ""}, "claim"),
    ({"label": "SUPPORTS"}, "label"),
    ({"label": None}, "label"),
    ({"id": "7"}, "id"),
    ({"id": True}, "id"),
    ({"challenge": " "}, "challenge"),
    ({"evidence": ""}, "evidence"),
    ({"evidence": "Belo: no tab here"}, "evidence[0]"),
    ({"evidence": "Belo\tfine.\n\tno title"}, "evidence[1]"),
    ({"evidence": "Belo\t [[A|]] "}, "evidence[0]"),
])
def test_bad_records_name_line_and_field(tmp_path, change, field):
    path = write(tmp_path, [record(1), {**record(2), **change}], pretty=True)
    text = path.read_text().splitlines()
    second_line = [n for n, line in enumerate(text, 1) if line.strip() == "{"][1]
    with pytest.raises(DataError) as info:
        parse_feverous_claims(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, second_line, field), str(err)


@pytest.mark.unit
def test_duplicate_id_malformed_json_and_bad_bytes(tmp_path):
    path = write(tmp_path, [record(1), record(1)])
    with pytest.raises(DataError, match="duplicate id 1") as info:
        parse_feverous_claims(path)
    assert info.value.line == 1 and info.value.field == "id"
    path.write_text('[{"id": 1,\n "claim": }]', encoding="utf-8")
    with pytest.raises(DataError, match="malformed JSON") as info:
        parse_feverous_claims(path)
    assert info.value.line == 2
    path.write_bytes(b'[{"id": 1, "claim": "\xff"}]')
    with pytest.raises(DataError, match="UTF-8") as info:
        parse_feverous_claims(path)
    assert info.value.line == 1


@pytest.mark.unit
def test_splits_and_describe(tmp_path):
    with pytest.raises(ValueError):
        read_feverous_claims(tmp_path, "valid")
    with pytest.raises(FileNotFoundError):
        read_feverous_claims(tmp_path, "test")
    assert describe(tmp_path) == []
    write(tmp_path, [record(7), record(9, label="refutes", evidence=EV_2)])
    [row] = describe(tmp_path)
    assert (row["dataset"], row["split"], row["records"]) == ("feverous_s", "dev", 2)
    assert "refutes 1, supports 1" in row["detail"] and "2 pages, 3 sentences" in row["detail"]


@pytest.mark.data
def test_real_feverous_counts(real_data_dir):
    claims = read_feverous_claims(real_data_dir, "dev")
    labels = {label: sum(c.label == label for c in claims) for label in ("supports", "refutes")}
    assert (len(claims), labels) in [(1465, {"supports": 705, "refutes": 760}),      # this copy
                                     (2962, {"supports": 1411, "refutes": 1551})]    # SOURCE.md, whole file
    assert len({c.id for c in claims}) == len(claims) and claims.skipped.total == 0
    if len(claims) == 1465:   # measured: ids 603 and 2742 repeat an evidence sentence
        assert claims.irregular.counts == {"evidence sentence repeated within a claim": 2}
    assert not any("[[" in s or "]]" in s for c in claims for _, s in c.evidence)
    corpus = build_feverous_corpus(claims)
    if len(claims) == 1465:   # measured on this copy
        assert sum(len(c.evidence) for c in claims) == 3083
        assert (len(corpus), corpus.n_sentences()) == (1262, 2525)
        pages = {k: sum(len(c.gold_titles) == k for c in claims) for k in (1, 2, 3, 4)}
        assert pages == {1: 1260, 2: 185, 3: 17, 4: 3}
    else:                      # SOURCE.md: 1,957 pages, 6,272 gold sentences
        assert len(corpus) == 1957 and corpus.n_sentences() <= 6272
    assert {c.challenge for c in claims} <= {"Other", "Multi-hop Reasoning", "Entity Disambiguation", "Numerical",
                                             "Numerical Reasoning", "Search terms not in claim",
                                             "Combining Tables and Text"}
    assert describe(real_data_dir)[0]["records"] == len(claims)
