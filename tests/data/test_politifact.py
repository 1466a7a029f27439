"""Tests of the PolitiFact readers: ClaimDecomp (+ fine-tuning chats, search cache), LIAR, LIAR-PLUS."""
import csv
import json
import time
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from proofbook.data import politifact as pf
from proofbook.data.liar import LIAR_COLUMNS, LiarPlusStatement, LiarStatement, parse_liar, parse_liar_plus
from proofbook.data.politifact_search import SearchResult, parse_cached_subquestions, parse_search_cache
from proofbook.data.politifact_text import (LABELS, claim_date, classifier_input, label_index, liar_overlap,
                                            person_text, split_question_list, split_venue, statement_key,
                                            three_way_index, venue_text)
from proofbook.data.textfile import DataError


# --- helpers writing small files of our own ---------------------------------------------------------

def claim_record(example_id=1, **changes):
    record = {
        "example_id": example_id, "label": "half-true", "url": "https://example.org/fc/1",
        "annotations": [{"questions": ["Is the tax higher?", "Did the tax rise, as said?"], "answers": ["yes", "no"]},
                        {"questions": [" Was it 5%? "], "answers": ["no"]}],
        "claim": "The tax went up by 5%.", "person": "Jane Roe",
        "venue": "stated on March 24, 2015 in a mailer:",
        "justification": ["The tax rose by 4%.", "We rate it Half True."], "full_article": ["Para one."],
    }
    record.update(changes)
    return record


def write_jsonl(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def chat(user, assistant):
    return {"messages": [{"role": "system", "content": "Assume you are a fact-checker."},
                         {"role": "user", "content": user}, {"role": "assistant", "content": assistant}]}


def liar_row(**changes):
    row = dict(zip(LIAR_COLUMNS, ["11.json", "barely-true", 'Says "the budget" doubled.', "economy,taxes",
                                   "jane-roe", "Mayor", "Ohio", "democrat", "1", "2", "3", "4", "5", "a mailer"]))
    row.update(changes)
    return [row[c] for c in LIAR_COLUMNS]


def write_tsv(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join("\t".join(cells) + "\n" for cells in rows), encoding="utf-8")
    return path


def write_quoted_tsv(path: Path, rows) -> Path:
    """As LIAR-PLUS was written: CSV quoting, a cell with a quote character wrapped in quotes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)
    return path


def check_error(err: pytest.ExceptionInfo, path: Path, line, field):
    assert err.value.path == path
    assert err.value.line == line
    assert err.value.field == field


# --- labels ---------------------------------------------------------------------------------------

@pytest.mark.unit
def test_labels_are_in_the_papers_index_order():
    assert LABELS == ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")
    assert [label_index(label) for label in LABELS] == list(range(6))
    assert label_index("Pants on Fire!") == 0
    assert label_index("Mostly False") == 2 and label_index("half true") == 3
    assert [three_way_index(label) for label in LABELS] == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ValueError):
        label_index("unproven")


@pytest.mark.unit
def test_unknown_label_names_the_field(tmp_path):
    path = write_jsonl(tmp_path / "dev.jsonl", [claim_record(1), claim_record(2, label="four-pinocchios")])
    with pytest.raises(DataError) as err:
        pf.parse_claimdecomp(path)
    check_error(err, path, 2, "label")


# --- venues, dates, classifier input ---------------------------------------------------------------

@pytest.mark.unit
@pytest.mark.parametrize("venue, text, when", [
    ("stated on March 24, 2015 in a mailer:", "a mailer", date(2015, 3, 24)),
    ("stated on Sept. 5, 2014 in a TV ad:", "a TV ad", date(2014, 9, 5)),
    ("stated on December 17, 2014:", "", date(2014, 12, 17)),
    ("stated on March 10, 2016 in in a GOP debate in Miami:", "a GOP debate in Miami", date(2016, 3, 10)),
    ("stated on February 30, 2016 in a speech:", "a speech", None),
    ("stated on sometime last year in a speech:", "a speech", None),
    ("stated on:", "", None),
    ("a mailer", "a mailer", None),
    ("", "", None),
])
def test_split_venue(venue, text, when):
    assert split_venue(venue) == (text, when)
    assert venue_text(venue) == text and claim_date(venue) == when


@pytest.mark.unit
def test_classifier_input_has_one_form_for_both_datasets():
    claimdecomp = classifier_input("Dwayne Bohac", "stated on May 2, 2012 in a mailer:", "Says  it rose.")
    liar = classifier_input("dwayne-bohac", "a mailer", "Says it rose.")
    assert claimdecomp == liar == "Dwayne Bohac a mailer Says it rose."
    assert person_text("Facebook posts") == "Facebook posts"
    assert classifier_input("x-y", "", "Claim.") == "X Y Claim."


@pytest.mark.unit
def test_statement_key_matches_liars_stripped_copy():
    claimdecomp = "\u201cI\u2019m the only governor\u00a0in America \u2014 really.\u201d"
    liar = "Im the only governorin America  really."
    assert statement_key(claimdecomp) == statement_key(liar)
    assert liar_overlap([claimdecomp, "Something else."], [liar]) == [0]


# --- ClaimDecomp ------------------------------------------------------------------------------------

@pytest.mark.unit
def test_claimdecomp_valid_file(tmp_path):
    write_jsonl(tmp_path / "claimdecomp" / "dev.jsonl",
                [claim_record(7), claim_record(8, label="Pants on Fire!", justification=[])])
    claims = pf.read_claimdecomp(tmp_path, "dev")
    assert len(claims) == 2 and claims.skipped.total == 0
    first = claims[0]
    assert isinstance(first, pf.ClaimDecompClaim) and first.example_id == 7 and first.label_index == 3
    assert first.subquestions == ["Is the tax higher?", "Did the tax rise, as said?", "Was it 5%?"]
    assert first.date == date(2015, 3, 24) and first.venue_text == "a mailer"
    assert first.classifier_input == "Jane Roe a mailer The tax went up by 5%."
    assert len(first.annotations) == 2 and first.justification[1] == "We rate it Half True."
    assert claims[1].example_id == 8 and claims[1].label == "pants-fire"
    assert claims.irregular.counts["no justification"] == 1


@pytest.mark.unit
@pytest.mark.parametrize("line2, field", [
    ('{"example_id": 2, "label": "true"', None),                    # malformed JSON
    ('["not", "an", "object"]', None),
    (claim_record(2, claim="   "), "claim"),
    ({k: v for k, v in claim_record(2).items() if k != "claim"}, "claim"),
    (claim_record("two"), "example_id"),
    (claim_record("8"), "example_id"),                               # a number written as a string
    (claim_record(1), "example_id"),                                 # duplicate id
    (claim_record(2, justification="one string"), "justification"),
    (claim_record(2, full_article=["ok", 3]), "full_article[1]"),
    (claim_record(2, annotations=[{"answers": []}]), "annotations[0].questions"),
    (claim_record(2, annotations=[{"questions": ["ok?", None]}]), "annotations[0].questions[1]"),
])
def test_claimdecomp_bad_lines(tmp_path, line2, field):
    path = write_jsonl(tmp_path / "test.jsonl", [claim_record(1), line2])
    with pytest.raises(DataError) as err:
        pf.parse_claimdecomp(path)
    check_error(err, path, 2, field)


@pytest.mark.unit
def test_claimdecomp_non_utf8_byte(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_bytes(json.dumps(claim_record(1)).encode() + b"\n" + json.dumps(claim_record(2)).encode()[:-2] + b"\xff}\n")
    with pytest.raises(DataError) as err:
        pf.parse_claimdecomp(path)
    assert err.value.line == 2 and "UTF-8" in str(err.value)


@pytest.mark.unit
def test_claimdecomp_split_names(tmp_path):
    with pytest.raises(ValueError):
        pf.read_claimdecomp(tmp_path, "validation")
    with pytest.raises(FileNotFoundError):
        pf.read_claimdecomp(tmp_path, "test")


# --- fine-tuning chats --------------------------------------------------------------------------------

@pytest.mark.unit
@pytest.mark.parametrize("text, questions", [
    ("Is A true?, Did B say, \"x\"?, Was C 5%?", ["Is A true?", 'Did B say, "x"?', "Was C 5%?"]),
    ("Did he say \"it is a hate group\", Was it said?", ['Did he say "it is a hate group"', "Was it said?"]),
    ("Is GDP down 2.8 % , Was context left out?", ["Is GDP down 2.8 %", "Was context left out?"]),
    ("Is A true?, \n\nIs B true?\n", ["Is A true?", "Is B true?"]),
    ("Is A true?\nIs B true?", ["Is A true?", "Is B true?"]),
    ("Did he say, immigrants brought courage?", ["Did he say, immigrants brought courage?"]),
    ("", []),
])
def test_split_question_list(text, questions):
    assert split_question_list(text) == questions


@pytest.mark.unit
def test_finetune_valid_file(tmp_path):
    write_jsonl(tmp_path / "claimdecomp" / "finetune_val.jsonl", [
        chat("Jane Roe stated on May 2, 2012 in a mailer:\n\"Taxes\ndoubled.\"", "Did taxes rise?, Did they double?"),
        chat("Facebook posts stated on July 9, 2020:\nSays a thing.", "1. Is it so?"),
    ])
    chats = pf.read_claimdecomp_finetune(tmp_path, "val")
    assert [c.line for c in chats] == [1, 2]
    assert (chats[0].person, chats[0].venue, chats[0].claim) == ("Jane Roe", "stated on May 2, 2012 in a mailer:",
                                                                 "\"Taxes\ndoubled.\"")
    assert chats[0].subquestions == ["Did taxes rise?", "Did they double?"] and chats[0].date == date(2012, 5, 2)
    assert chats[1].person == "Facebook posts" and chats[1].venue_text == "" and chats[1].subquestions == ["Is it so?"]
    with pytest.raises(ValueError):
        pf.read_claimdecomp_finetune(tmp_path, "dev")


@pytest.mark.unit
@pytest.mark.parametrize("record, field", [
    (chat("Jane Roe said in a mailer: Taxes doubled.", "Is it?"), "messages.user"),
    (chat("Jane Roe stated on May 2, 2012 in a mailer:\n   ", "Is it?"), "messages.user"),
    (chat("Jane Roe stated on May 2, 2012 in a mailer:\nTaxes doubled.", " , "), "messages.assistant"),
    ({"messages": [{"role": "user", "content": "Jane Roe stated on May 2, 2012:\nX."}]}, "messages.assistant"),
    ({"messages": [{"role": "user"}]}, "messages[0].content"),
    ({"text": "no messages"}, "messages"),
])
def test_finetune_bad_lines(tmp_path, record, field):
    good = chat("Jane Roe stated on May 2, 2012 in a mailer:\nTaxes doubled.", "Is it?")
    path = write_jsonl(tmp_path / "finetune_train.jsonl", [good, good, record])
    with pytest.raises(DataError) as err:
        pf.parse_claimdecomp_finetune(path)
    check_error(err, path, 3, field)


# --- the search cache ----------------------------------------------------------------------------------

def hit(question="Is A true?", url="https://a.example/1", title="A", snippet="A is true."):
    return {"question": question, "url": url, "title": title, "snippet": snippet}


@pytest.mark.unit
def test_search_cache_zips_with_the_claims(tmp_path):
    write_jsonl(tmp_path / "claimdecomp" / "test.jsonl", [claim_record(5), claim_record(9)])
    cache_dir = tmp_path / "claimdecomp" / "derived_web_search_cache"
    write_jsonl(cache_dir / "websites_gpt_icl.jsonl", [json.dumps([hit(), hit(snippet="")]), "[]"])
    cache = pf.read_search_cache(tmp_path, "gpt")
    assert list(cache) == [5, 9] and cache[9] == []
    assert cache[5][0] == SearchResult("Is A true?", "https://a.example/1", "A", "A is true.")
    assert cache.irregular.counts["empty snippet"] == 1
    assert cache.irregular.counts["no search hit for the claim"] == 1
    with pytest.raises(ValueError):
        pf.read_search_cache(tmp_path, "bing")
    with pytest.raises(FileNotFoundError):
        pf.read_search_cache(tmp_path, "mixtral")


@pytest.mark.unit
@pytest.mark.parametrize("lines, line, field", [
    ([json.dumps([hit()])], None, None),                                      # one line for two claims
    ([json.dumps([hit()]), json.dumps([hit()]), "[]"], None, None),           # three lines
    ([json.dumps([hit()]), json.dumps({"question": "x"})], 2, None),         # an object, not a list
    ([json.dumps([hit()]), "[{\"question\": "], 2, None),                     # malformed
    ([json.dumps([hit()]), json.dumps([hit(), {"question": "q", "title": "", "snippet": ""}])], 2, "[1].url"),
    ([json.dumps([hit(question=" ")]), "[]"], 1, "[0].question"),
])
def test_search_cache_bad_lines(tmp_path, lines, line, field):
    path = write_jsonl(tmp_path / "websites_mixtral_icl.jsonl", lines)
    with pytest.raises(DataError) as err:
        parse_search_cache(path, [5, 9])
    check_error(err, path, line, field)


@pytest.mark.unit
def test_cached_subquestions_both_schemas(tmp_path):
    cache_dir = tmp_path / "claimdecomp" / "derived_web_search_cache"
    write_jsonl(cache_dir / "subquestions_icl_mixtral.jsonl", [
        {"example_id": 5, "claim": "c", "questions": " For the claim about Jane Roe:\n\n1. Is A true?\n2. Is B true?"},
        {"example_id": 9, "claim": "c", "questions": " * Is C true?\n* Is C true?\n- Is D true?"},
        {"example_id": 10, "claim": "c", "questions": "Claim: Jane said X.\n\nQuestions:\n"},
    ])
    write_jsonl(cache_dir / "subquestions_gpt_finetune.jsonl", [
        {"example_id": 5, "prompt": "p", "subquestions": ["Is A true?, Did B say, \"x\"?, Is A true?"]},
    ])
    mixtral = pf.read_cached_subquestions(tmp_path, "icl_mixtral")
    assert mixtral == {5: ["Is A true?", "Is B true?"], 9: ["Is C true?", "Is D true?"], 10: []}
    assert mixtral.skipped.counts == Counter({"preamble line": 3, "repeated question": 1})
    assert mixtral.irregular.counts["no question"] == 1
    finetuned = pf.read_cached_subquestions(tmp_path, "gpt_finetune")
    assert finetuned == {5: ["Is A true?", 'Did B say, "x"?']} and finetuned.skipped.total == 1
    with pytest.raises(ValueError):
        pf.read_cached_subquestions(tmp_path, "davinci")


@pytest.mark.unit
@pytest.mark.parametrize("record, field", [
    ({"example_id": 9, "claim": "c"}, "questions"),
    ({"example_id": 9, "questions": ["a list"]}, "questions"),
    ({"example_id": 9, "subquestions": [3]}, "subquestions[0]"),
    ({"claim": "c", "questions": "Is it?"}, "example_id"),
    ({"example_id": 5, "questions": "Is it?"}, "example_id"),                # duplicate
])
def test_cached_subquestions_bad_lines(tmp_path, record, field):
    path = write_jsonl(tmp_path / "subquestions_icl_gpt.jsonl", [{"example_id": 5, "questions": "Is it?"}, record])
    with pytest.raises(DataError) as err:
        parse_cached_subquestions(path)
    check_error(err, path, 2, field)


# --- LIAR and LIAR-PLUS ---------------------------------------------------------------------------------

@pytest.mark.unit
def test_liar_valid_file_keeps_quotes_and_lines(tmp_path):
    rows = [liar_row(), liar_row(id="12.json", statement='"An unbalanced quote', label="TRUE"),
            liar_row(id="13.json", statement="Next line stays a row.", job="", state="", context="",
                     barely_true_count="", false_count="", half_true_count="", mostly_true_count="",
                     pants_fire_count="")]
    write_tsv(tmp_path / "liar" / "valid.tsv", rows)
    statements = pf.read_liar(tmp_path, "valid")
    assert len(statements) == 3                      # the default csv quoting would merge rows 2 and 3
    first = statements[0]
    assert isinstance(first, LiarStatement)
    assert first.statement == 'Says "the budget" doubled.' and first.subjects == ("economy", "taxes")
    assert first.credit_counts == (1, 2, 3, 4, 5) and first.credit_history["pants-fire"] == 5
    assert first.classifier_input == 'Jane Roe a mailer Says "the budget" doubled.'
    assert statements[1].statement == '"An unbalanced quote' and statements[1].label == "true"
    assert statements[2].credit_counts is None and statements.irregular.counts["no credit history"] == 1
    with pytest.raises(ValueError):
        pf.read_liar(tmp_path, "dev")
    with pytest.raises(FileNotFoundError):
        pf.read_liar(tmp_path, "test")


@pytest.mark.unit
@pytest.mark.parametrize("cells, field", [
    (liar_row()[:13], "context"),
    (liar_row()[:2], "statement"),
    (liar_row() + ["extra"], None),
    (liar_row(label="mostly-false-ish"), "label"),
    (liar_row(statement="  "), "statement"),
    (liar_row(id=""), "id"),
    (liar_row(false_count="two"), "false_count"),
    (liar_row(half_true_count=""), "half_true_count"),
])
def test_liar_bad_rows(tmp_path, cells, field):
    path = write_tsv(tmp_path / "train.tsv", [liar_row(), cells])
    with pytest.raises(DataError) as err:
        parse_liar(path)
    check_error(err, path, 2, field)


@pytest.mark.unit
def test_liar_non_utf8_byte(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_bytes(("\t".join(liar_row()) + "\n").encode() + "\t".join(liar_row()).encode().replace(b"budget", b"b\xe9dget"))
    with pytest.raises(DataError) as err:
        parse_liar(path)
    assert err.value.line == 2


@pytest.mark.unit
def test_liar_plus_valid_and_irregular_rows(tmp_path):
    rows = [["0", *liar_row(statement='"I never said that."'), 'He said "so" in 2015.'],
            ["1", *liar_row(id="12.json"), ""],
            ["2", *liar_row(id="13.json")],
            ["3", *liar_row(id="14.json"), "Part one", "part two."],
            ["4", *liar_row(id="15.json"), "A justification\nover two lines."]]
    path = write_quoted_tsv(tmp_path / "liar_plus" / "val2.tsv", rows)
    assert path.read_text().splitlines()[0].split("\t")[3] == '"""I never said that."""'   # CSV quoting
    statements = pf.read_liar_plus(tmp_path)
    assert [s.row for s in statements] == [0, 1, 2, 3, 4]
    assert isinstance(statements[0], LiarPlusStatement) and isinstance(statements[0], LiarStatement)
    assert statements[0].statement == '"I never said that."' and statements[0].context == "a mailer"
    assert statements[0].justification == 'He said "so" in 2015.'
    assert [s.justification for s in statements[1:]] == ["", "", "Part one\tpart two.",
                                                         "A justification\nover two lines."]
    assert statements.irregular.counts == Counter({"empty justification": 1, "no justification column": 1,
                                                   "tab inside the justification": 1,
                                                   "quoted cell over several lines": 1})
    with pytest.raises(ValueError):
        pf.read_liar_plus(tmp_path, "val")


@pytest.mark.unit
@pytest.mark.parametrize("cells, field", [
    (["1", *liar_row()[:13]], "context"),
    (["x", *liar_row(), "J."], "row"),
    (["1", *liar_row(label="pants-on-ice"), "J."], "label"),
    (["1", *liar_row(statement=" "), "J."], "statement"),
])
def test_liar_plus_bad_rows(tmp_path, cells, field):
    path = write_quoted_tsv(tmp_path / "test2.tsv", [["0", *liar_row(), "J."], cells])
    with pytest.raises(DataError) as err:
        parse_liar_plus(path)
    check_error(err, path, 2, field)


@pytest.mark.unit
def test_liar_plus_bad_quoting(tmp_path):
    good = "\t".join(["0", *liar_row(statement="Plain."), "J."])
    path = tmp_path / "train2.tsv"
    path.write_text(good + "\n" + good.replace("Plain.", '"Quoted" then text') + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        parse_liar_plus(path)
    assert err.value.path == path and err.value.line == 2 and "quoting" in err.value.message


@pytest.mark.unit
def test_describe_lists_only_present_files(tmp_path):
    write_jsonl(tmp_path / "claimdecomp" / "dev.jsonl", [claim_record(1), claim_record(2, label="true")])
    write_tsv(tmp_path / "liar" / "train.tsv", [liar_row(statement="the tax went up by 5%.")])
    rows = pf.describe(tmp_path)
    assert [(r["dataset"], r["split"], r["records"]) for r in rows] == [("claimdecomp", "dev", 2), ("liar", "train", 1)]
    assert rows[0]["detail"] == "half-true 1, true 1; 2 claims also in LIAR train"
    assert pf.describe(tmp_path / "nothing") == []


# --- the real data ---------------------------------------------------------------------------------

@pytest.mark.data
def test_real_claimdecomp(real_data_dir):
    dev, test = pf.read_claimdecomp(real_data_dir, "dev"), pf.read_claimdecomp(real_data_dir, "test")
    assert Counter(c.label for c in dev) == {"half-true": 49, "barely-true": 41, "mostly-true": 36, "false": 34,
                                             "true": 24, "pants-fire": 16}
    assert len(test) in (95, 200)                    # this copy holds 95 of the 200 test claims
    if len(test) == 95:
        assert Counter(c.label for c in test) == {"half-true": 23, "true": 20, "pants-fire": 15, "mostly-true": 15,
                                                  "barely-true": 12, "false": 10}
    for claims in (dev, test):
        assert claims.skipped.total == 0 and claims.irregular.total == 0
        assert all(c.date is not None for c in claims)                  # every venue has a readable date
        assert all(len(c.annotations) == 2 and c.subquestions for c in claims)
    assert sum(c.venue_text == "" for c in dev + test) == 3             # "stated on <date>:" only
    assert sum(len(c.subquestions) for c in dev) == 1067


@pytest.mark.data
def test_real_finetune_val_is_dev(real_data_dir):
    train = pf.read_claimdecomp_finetune(real_data_dir, "train")
    val = pf.read_claimdecomp_finetune(real_data_dir, "val")
    dev = pf.read_claimdecomp(real_data_dir, "dev")
    assert len(train) == 800 and len(val) == 200
    assert all(e.date is not None for e in train)
    assert [(v.person, v.venue, v.claim) for v in val] == [(d.person, d.venue, d.claim) for d in dev]
    assert [v.subquestions for v in val] == [d.subquestions for d in dev]   # the list split is exact here


@pytest.mark.data
def test_real_search_cache(real_data_dir):
    test_ids = [c.example_id for c in pf.read_claimdecomp(real_data_dir, "test")]
    for source, results, placeholders in (("gpt", 2519, 3), ("mixtral", 2848, 32)):
        cache = pf.read_search_cache(real_data_dir, source)
        assert list(cache) == test_ids
        if len(test_ids) == 95:     # the placeholder hits of queries without a result are left out, and counted
            assert sum(map(len, cache.values())) == results - placeholders
            assert cache.skipped.counts == {"placeholder hit of a query without a result": placeholders}
    for source in pf.SUBQUESTION_FILES:
        cached = pf.read_cached_subquestions(real_data_dir, source)
        assert list(cached) == test_ids and all(cached.values())
        questions = [q for qs in cached.values() for q in qs]
        assert not any(q.endswith(":") or q[:2] in ("1.", "* ") for q in questions)
    mixtral = pf.read_cached_subquestions(real_data_dir, "icl_mixtral")
    assert mixtral.skipped.counts["preamble line"] > 0


@pytest.mark.data
def test_real_liar_and_liar_plus(real_data_dir):
    train, valid = pf.read_liar(real_data_dir, "train"), pf.read_liar(real_data_dir, "valid")
    assert len(train) == 10269 and len(valid) == 1284
    assert Counter(s.label for s in train) == {"half-true": 2123, "false": 1998, "mostly-true": 1966, "true": 1683,
                                               "barely-true": 1657, "pants-fire": 842}
    assert all(s.credit_counts is not None for s in train + valid)
    assert sum(s.context == "" for s in train) == 100
    val2 = pf.read_liar_plus(real_data_dir, "val2")
    assert len(val2) == 1284
    assert [(s.id, s.label, s.speaker, s.context, s.credit_counts) for s in val2] == \
        [(s.id, s.label, s.speaker, s.context, s.credit_counts) for s in valid]
    # LIAR-PLUS holds LIAR's statements as a quoting CSV reader saw them: only quotes (and spaces) differ
    changed = [(a, b) for a, b in zip(val2, valid) if a.statement != b.statement]
    assert len(changed) == 69 and all(b.statement.startswith('"') for a, b in changed)
    unquoted = [[" ".join(s.statement.replace('"', "").split()) for s in pair] for pair in changed]
    assert all(a == b for a, b in unquoted)
    assert val2.irregular.counts == Counter({"empty justification": 4})


@pytest.mark.data
def test_real_claimdecomp_liar_overlap(real_data_dir):
    liar = {statement_key(s.statement): s.label for s in pf.read_liar(real_data_dir, "train")}
    for split, at_least in (("dev", 22), ("test", 22)):
        claims = pf.read_claimdecomp(real_data_dir, split)
        shared = [c for c in claims if statement_key(c.claim) in liar]
        assert len(shared) >= at_least                                  # README: 22 with its stricter matching
        assert all(liar[statement_key(c.claim)] == c.label for c in shared)


@pytest.mark.data
def test_real_describe(real_data_dir):
    start = time.perf_counter()
    rows = pf.describe(real_data_dir)
    assert time.perf_counter() - start < 5
    table = {(r["dataset"], r["split"]): r for r in rows}
    assert table["claimdecomp", "dev"]["records"] == 200 and "39 claims also in LIAR train" in table["claimdecomp", "dev"]["detail"]
    assert table["liar", "train"]["records"] == 10269 and table["liar_plus", "val2"]["records"] == 1284
    assert table["claimdecomp-finetune", "train"]["records"] == 800
    assert {"websites_gpt_icl", "websites_mixtral_icl", "subquestions_icl_gpt", "subquestions_icl_mixtral",
            "subquestions_gpt_finetune"} <= {split for dataset, split in table if dataset == "claimdecomp-cache"}
    assert all(set(r) == {"dataset", "split", "records", "detail"} for r in rows)
