"""HoVer claims, the gold-paragraph file and the closed corpus built from them."""
import json
import time
from pathlib import Path

import pytest

from proofbook.data.base import require
from proofbook.data.hover import (GOLD_PARAGRAPHS_FILE, HOVER_FOLDER, build_hover_corpus, describe,
                                  parse_gold_paragraphs, parse_hover_claims, read_gold_paragraphs, read_hover_claims)
from proofbook.data.hover_match import align_paragraphs, match_score, strip_disambiguation
from proofbook.data.jsonparse import iter_json_array
from proofbook.data.textfile import DataError

# Made-up claims and paragraphs in the official formats (not lines of the real data).
CLAIM_A = "The river Ama flows past the town of Belo, home of the painter Cora Dune."
CLAIM_B = "Cora Dune painted the Belo bridge."
PARA_AMA = "The Ama is a river in the north. It flows past Belo and Kestry."
PARA_BELO = "In 2010 the population of Belo was 3,000. It lies on the Ama."
PARA_CORA = "Cora Dune (born 1901) was a painter from Belo. She painted bridges."


def dev_record(uid, claim, titles, label="SUPPORTED", hops=None):
    return {"uid": uid, "claim": claim, "supporting_facts": [[t, 0] for t in titles], "label": label,
            "num_hops": hops or len(set(titles)), "hpqa_id": f"h{uid}"}


def write_dev(root: Path, records, split="dev", pretty=False) -> Path:
    folder = root / HOVER_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"hover_{split}_release_v1.1.json"
    path.write_text(json.dumps(records, indent=2 if pretty else None, ensure_ascii=False), encoding="utf-8")
    return path


def write_gold(root: Path, rows) -> Path:
    folder = root / HOVER_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / GOLD_PARAGRAPHS_FILE
    lines = [json.dumps({"mutated": "x", "original": claim, "gold_evidence": "\n".join(paragraphs)}, ensure_ascii=False)
             for claim, paragraphs in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def raises_at(exc_info, path: Path, line, field):
    err = exc_info.value
    assert err.path == path and err.line == line and err.field == field, str(err)


# ---------------------------------------------------------------- unit: claims

@pytest.mark.unit
def test_valid_dev_file_and_gold_titles(tmp_path):
    write_dev(tmp_path, [dev_record("u1", CLAIM_A, ["Ama (river)", "Belo", "Ama (river)", "Cora Dune"]),
                         dev_record("u2", CLAIM_B, ["Cora Dune", "Belo"], label="NOT_SUPPORTED")])
    claims = read_hover_claims(tmp_path, "dev")
    assert [c.uid for c in claims] == ["u1", "u2"]
    first = claims[0]
    assert first.gold_titles == ["Ama (river)", "Belo", "Cora Dune"]
    assert first.supporting_facts[0] == ("Ama (river)", 0)
    assert first.label == "SUPPORTED" and first.num_hops == 3 and first.hpqa_id == "hu1"
    assert claims[1].label == "NOT_SUPPORTED" and claims.skipped.total == 0


@pytest.mark.unit
def test_test_split_may_be_unlabelled_but_dev_may_not(tmp_path):
    write_dev(tmp_path, [{"uid": "t1", "claim": CLAIM_B}], split="test", pretty=True)
    [claim] = read_hover_claims(tmp_path, "test")
    assert claim.label is None and claim.supporting_facts == [] and claim.gold_titles == []
    path = write_dev(tmp_path, [{"uid": "t1", "claim": CLAIM_B}], split="dev", pretty=True)
    with pytest.raises(DataError) as info:
        read_hover_claims(tmp_path, "dev")
    raises_at(info, path, 2, "supporting_facts")


@pytest.mark.unit
def test_bad_record_names_its_line_in_a_pretty_printed_file(tmp_path):
    good = dev_record("u1", CLAIM_A, ["Belo", "Cora Dune"])
    bad = dict(dev_record("u2", CLAIM_B, ["Belo", "Cora Dune"]), label="REFUTED")
    path = write_dev(tmp_path, [good, bad], pretty=True)
    second_record_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if '"u2"' in line) - 1
    with pytest.raises(DataError) as info:
        parse_hover_claims(path)
    raises_at(info, path, second_record_line, "label")
    assert "REFUTED" in str(info.value)


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"claim": "  "}, "claim"),
    ({"uid": None}, "uid"),
    ({"supporting_facts": [["Belo", "zero"]]}, "supporting_facts[0]"),
    ({"supporting_facts": [["Belo", 0], ["", 1]]}, "supporting_facts[1]"),
    ({"supporting_facts": []}, "supporting_facts"),
    ({"num_hops": "2"}, "num_hops"),
    ({"num_hops": True}, "num_hops"),
    ({"hpqa_id": None}, "hpqa_id"),
])
def test_missing_or_wrong_fields(tmp_path, change, field):
    path = write_dev(tmp_path, [dict(dev_record("u1", CLAIM_A, ["Belo", "Cora Dune"]), **change)])
    with pytest.raises(DataError) as info:
        parse_hover_claims(path)
    raises_at(info, path, 1, field)


@pytest.mark.unit
def test_duplicate_uid_and_non_object(tmp_path):
    record = dev_record("u1", CLAIM_A, ["Belo", "Cora Dune"])
    path = write_dev(tmp_path, [record, record], pretty=True)
    with pytest.raises(DataError) as info:
        parse_hover_claims(path)
    assert info.value.field == "uid" and "first on line 2" in str(info.value)
    path = write_dev(tmp_path, [record, ["not", "an", "object"]], pretty=True)
    with pytest.raises(DataError, match="expected a JSON object"):
        parse_hover_claims(path)


@pytest.mark.unit
def test_malformed_json_not_a_list_and_bad_bytes(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text('[\n {"uid": "u1", "claim": "x"},\n {"uid": "u2" "claim": "y"}\n]\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        parse_hover_claims(path, labelled=False)
    assert info.value.line == 3 and "malformed JSON" in str(info.value)
    path.write_text('{"uid": "u1"}', encoding="utf-8")
    with pytest.raises(DataError, match="one JSON list"):
        parse_hover_claims(path, labelled=False)
    path.write_text('[{"uid": "u1", "claim": "x"}] extra', encoding="utf-8")
    with pytest.raises(DataError, match="after the closing"):
        parse_hover_claims(path, labelled=False)
    path.write_bytes(b'[\n{"uid": "u1", "claim": "caf\xe9"}\n]')
    with pytest.raises(DataError) as info:
        parse_hover_claims(path, labelled=False)
    assert info.value.line == 2 and "UTF-8" in str(info.value)


@pytest.mark.unit
def test_iter_json_array_lines(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('[\n  {"a": 1},\n\n  {"a": 2}, {"a": 3}\n]', encoding="utf-8")
    located = [(line, line.record, line.offset, obj["a"]) for line, obj in iter_json_array(path)]
    assert [tuple(map(int, item)) for item in located] == [(2, 1, 5, 1), (4, 2, 18, 2), (4, 3, 28, 3)]
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match="no records"):
        list(iter_json_array(path))


@pytest.mark.unit
def test_errors_in_a_one_line_list_name_the_record_and_its_character(tmp_path):
    path = tmp_path / "a.json"
    records = [{"uid": f"u{i}", "claim": "c"} for i in range(1500)]
    records[1499] = {"uid": "u1499", "claim": 7}
    text = json.dumps(records)
    path.write_text(text, encoding="utf-8")
    start = text.index('{"uid": "u1499"') + 1
    with pytest.raises(DataError) as info:
        for line, record in iter_json_array(path):
            require(record, "claim", path, line)
    assert str(info.value).startswith(f"{path}:1 (record 1500, character {start}): field 'claim':")
    path.write_text(text.replace('"u1499", "claim"', '"u1499" "claim"'), encoding="utf-8")
    with pytest.raises(DataError, match=r":1 \(record 1500, character \d+\): malformed JSON"):
        list(iter_json_array(path))


@pytest.mark.unit
def test_split_names_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="unknown split"):
        read_hover_claims(tmp_path, "validation")
    with pytest.raises(FileNotFoundError, match="hover_train_release_v1.1.json"):
        read_hover_claims(tmp_path, "train")


# ---------------------------------------------------------------- unit: gold paragraphs and corpus

@pytest.mark.unit
def test_gold_file_errors(tmp_path):
    path = write_gold(tmp_path, [(CLAIM_A, [PARA_AMA])])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"original": CLAIM_B, "mutated": "m"}) + "\n")
    with pytest.raises(DataError) as info:
        parse_gold_paragraphs(path)
    raises_at(info, path, 2, "gold_evidence")
    path = write_gold(tmp_path, [(CLAIM_A, [PARA_AMA, "  ", PARA_BELO])])
    with pytest.raises(DataError, match="paragraph 2 is empty") as info:
        parse_gold_paragraphs(path)
    raises_at(info, path, 1, "gold_evidence")


@pytest.mark.unit
def test_repeated_original_is_an_error(tmp_path):
    path = write_gold(tmp_path, [(CLAIM_A, [PARA_AMA]), (CLAIM_A, [PARA_BELO])])
    with pytest.raises(DataError, match="first on line 1") as info:
        parse_gold_paragraphs(path)
    assert (info.value.line, info.value.field) == (2, "original")


@pytest.mark.unit
def test_corpus_assigns_paragraphs_by_title_overlap(tmp_path):
    write_dev(tmp_path, [
        dev_record("u1", CLAIM_A, ["Cora Dune", "Ama (river)", "Belo"]),
        dev_record("u1-copy", CLAIM_A, ["Cora Dune", "Ama (river)", "Belo"]),  # same text, another uid
        dev_record("u2", CLAIM_B, ["Cora Dune", "Belo bridge"], label="NOT_SUPPORTED"),
        dev_record("u3", "A claim without gold paragraphs.", ["Belo", "Ama (river)"], label="NOT_SUPPORTED"),
    ])
    write_gold(tmp_path, [(CLAIM_A, [PARA_AMA, PARA_BELO, PARA_CORA]), ("Another claim.", [PARA_AMA])])
    corpus = build_hover_corpus(tmp_path)
    assert corpus.titles == ["Ama (river)", "Belo", "Cora Dune"]  # the full title names the page
    assert corpus["Ama (river)"].sentences == ["The Ama is a river in the north.", "It flows past Belo and Kestry."]
    assert corpus["Cora Dune"].sentences[0].startswith("Cora Dune (born 1901)")
    assert corpus.paragraph_titles["u1"] == corpus.paragraph_titles["u1-copy"] == ("Ama (river)", "Belo", "Cora Dune")
    stats = corpus.stats
    assert (stats.claims, stats.claims_with_paragraphs, stats.duplicate_claims) == (4, 2, 1)
    assert (stats.gold_lines, stats.gold_lines_used, stats.paragraphs, stats.matched) == (2, 1, 3, 3)
    assert stats.opened_with_title == 2 and stats.ties == 0 and stats.conflicts == 0  # "In 2010 ... Belo" does not
    claims = read_hover_claims(tmp_path)
    assert [corpus.evaluable(c) for c in claims] == [True, True, False, True]
    assert claims.irregular.total == 1 and "uid u1-copy = u1" in str(claims.irregular)


@pytest.mark.unit
def test_match_score_prefers_opening_words():
    assert strip_disambiguation("Life Goes On (Fergie song)") == "Life Goes On"
    assert strip_disambiguation("(film)") == "(film)"
    opening = match_score("Cora Dune", PARA_CORA)
    mention = match_score("Cora Dune", "Belo is a town. The painter Cora Dune lived there.")
    assert opening > mention > match_score("Cora Dune", PARA_AMA) == 0
    assert match_score("Dohchay", "Dochay is a 2015 film.") > 0  # near-spelling among the opening words
    assert match_score("Bolt &amp; Nut", "Bolt & Nut is a band.") == match_score("Bolt & Nut", "Bolt & Nut is a band.")


@pytest.mark.unit
def test_tennis_draw_page_takes_the_champions_paragraph():
    titles = ["Ann Vole", "1990 Kestry Open – Doubles"]
    paragraphs = ["Ann Vole and Bea Wren were the defending champions, but lost in the first round.",
                  "Ann Vole (born 1970) is a former tennis player who played doubles."]
    alignment = align_paragraphs(titles, paragraphs)
    assert alignment.titles == ("1990 Kestry Open – Doubles", "Ann Vole") and not alignment.tie


@pytest.mark.unit
def test_ties_are_counted_and_broken_deterministically(tmp_path):
    titles = ["1990 Kestry Open – Singles", "1991 Belo Cup – Singles"]
    paragraphs = ["Ann Vole was the defending champion, but lost in the first round.",
                  "Bea Wren was the defending champion, but did not compete."]
    by_order = align_paragraphs(titles, paragraphs)
    assert by_order.tie and by_order.tie_broken_by_order and by_order.titles == tuple(titles)
    by_known = align_paragraphs(titles, paragraphs, known={paragraphs[0]: titles[1]})
    assert by_known.tie and not by_known.tie_broken_by_order and by_known.titles == tuple(reversed(titles))
    # in a corpus, an untied claim fixes the paragraph of one draw page for the tied claim
    write_dev(tmp_path, [dev_record("tied", "Claim one.", titles),
                         dev_record("clear", "Claim two.", ["1991 Belo Cup – Singles", "Cora Dune"])])
    write_gold(tmp_path, [("Claim one.", paragraphs), ("Claim two.", [PARA_CORA, paragraphs[0]])])
    corpus = build_hover_corpus(tmp_path)
    assert corpus.paragraph_titles["tied"] == tuple(reversed(titles))
    assert (corpus.stats.ties, corpus.stats.ties_broken_by_order, corpus.stats.conflicts) == (1, 0, 0)


@pytest.mark.unit
def test_conflicts_keep_the_first_paragraph(tmp_path):
    write_dev(tmp_path, [dev_record("u1", CLAIM_A, ["Belo", "Cora Dune"]),
                         dev_record("u2", CLAIM_B, ["Belo", "Ama (river)"])])
    other_belo = "Belo is a small town. It lies on a hill."
    write_gold(tmp_path, [(CLAIM_A, [PARA_CORA, PARA_BELO]), (CLAIM_B, [PARA_AMA, other_belo])])
    corpus = build_hover_corpus(tmp_path)
    assert corpus["Belo"].sentences[0] == "In 2010 the population of Belo was 3,000."
    assert corpus.stats.conflicts == 1 and corpus.conflicts == {"Belo": 1}


@pytest.mark.unit
def test_paragraph_count_mismatch_is_skipped_and_counted(tmp_path):
    write_dev(tmp_path, [dev_record("u1", CLAIM_A, ["Belo", "Cora Dune", "Ama (river)"])])
    write_gold(tmp_path, [(CLAIM_A, [PARA_CORA, PARA_BELO])])
    corpus = build_hover_corpus(tmp_path)
    assert len(corpus) == 0 and corpus.stats.count_mismatches == 1
    assert corpus.skipped.total == 1 and "uid u1" in str(corpus.skipped)


@pytest.mark.unit
def test_describe_lists_only_what_is_present(tmp_path):
    assert describe(tmp_path) == []
    write_dev(tmp_path, [dev_record("u1", CLAIM_A, ["Belo", "Cora Dune"])])
    rows = describe(tmp_path)
    assert [(r["dataset"], r["split"], r["records"]) for r in rows] == [("hover", "dev", 1)]
    write_gold(tmp_path, [(CLAIM_A, [PARA_CORA, PARA_BELO])])
    write_dev(tmp_path, [{"uid": "t1", "claim": CLAIM_B}], split="test")
    rows = describe(tmp_path)
    assert [r["split"] for r in rows] == ["dev", "test", "corpus"]
    assert rows[2]["records"] == 2 and "1 of 1 dev claims evaluable" in rows[2]["detail"]
    assert set(rows[0]) == {"dataset", "split", "records", "detail"}


# ---------------------------------------------------------------- real data

@pytest.fixture(scope="module")
def real_dev(real_data_dir):
    return read_hover_claims(real_data_dir, "dev")


@pytest.fixture(scope="module")
def real_corpus(real_data_dir, real_dev):
    return build_hover_corpus(real_data_dir, real_dev)


@pytest.mark.data
def test_real_dev_counts(real_dev):
    labels = {label: sum(c.label == label for c in real_dev) for label in ("SUPPORTED", "NOT_SUPPORTED")}
    hops = {h: sum(c.num_hops == h for c in real_dev) for h in (2, 3, 4)}
    copy = (1950, {"SUPPORTED": 978, "NOT_SUPPORTED": 972}, {2: 533, 3: 907, 4: 510})   # SOURCE.md "In this copy"
    full = (4000, {"SUPPORTED": 2000, "NOT_SUPPORTED": 2000}, {2: 1126, 3: 1835, 4: 1039})  # the official file
    assert (len(real_dev), labels, hops) in (copy, full)
    assert all(len(c.gold_titles) == c.num_hops for c in real_dev)
    assert real_dev.skipped.total == 0
    if len(real_dev) == 1950:   # measured: 6 claim texts occur under two uids each
        assert real_dev.irregular.counts == {"claim text repeated under another uid": 6}


@pytest.mark.data
def test_real_test_claims_are_unlabelled(real_data_dir):
    claims = read_hover_claims(real_data_dir, "test")
    assert len(claims) == 4000 and all(c.label is None and c.claim for c in claims)


@pytest.mark.data
def test_real_gold_paragraph_file(real_data_dir):
    gold = read_gold_paragraphs(real_data_dir)
    assert len(gold) == 1985 and gold.skipped.total == 0
    assert sum(len(r.paragraphs) for r in gold) == 2 * 521 + 3 * 954 + 4 * 510


@pytest.mark.data
def test_real_corpus_matching(real_dev, real_corpus):
    stats = real_corpus.stats
    assert stats.count_mismatches == 0 and stats.match_rate >= 0.99 and stats.opened_rate >= 0.88
    assert stats.ties <= 10 and stats.duplicate_claims >= 1
    supported = [c for c in real_dev if c.label == "SUPPORTED"]
    assert all(real_corpus.evaluable(c) for c in supported)
    evaluable = len(real_corpus.evaluable_claims(real_dev))
    if len(real_dev) == 1950:    # this copy (measured): 972 gold lines used, 2,254 pages
        assert (stats.gold_lines_used, stats.paragraphs, len(real_corpus)) == (972, 2923, 2254)
        assert stats.conflicts == 0 and evaluable == 1396
    else:                         # the full dev file: SOURCE.md reports 3,619 pages, 23 conflicts, 3,421 evaluable
        assert abs(len(real_corpus) - 3619) <= 40 and stats.conflicts <= 40 and abs(evaluable - 3421) <= 40


@pytest.mark.data
def test_real_describe_is_fast(real_data_dir):
    start = time.perf_counter()
    rows = describe(real_data_dir)
    assert time.perf_counter() - start < 5
    assert [r["split"] for r in rows][-1] == "corpus" and {"dev", "test"} <= {r["split"] for r in rows}
