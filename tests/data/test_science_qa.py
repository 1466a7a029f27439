"""OpenBookQA and QASC readers (proofbook.data.science_qa)."""
import json
from pathlib import Path

import pytest

from proofbook.data.science_qa import (Option, Question, describe, parse_answer_keys, parse_choices, parse_obqa_file,
                                       parse_qasc_file, read_obqa, read_qasc)
from proofbook.data.textfile import DataError

HEADER = "ID\tQuestion Stem\tChoices\tComplete Question\tAnswer Key"


def obqa_row(qid: str, stem: str, choices: str, key: str) -> str:
    return "\t".join([qid, stem, choices, f"{stem} {choices}", key])


def write_tsv(path: Path, *rows: str, header: str = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def write_jsonl(path: Path, *objects) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


def qasc_obj(qid="q1", key="B", **changes):
    obj = {"id": qid,
           "question": {"stem": "What do plants need to grow?",
                        "choices": [{"text": t, "label": l} for l, t in zip("ABCDEFGH", "rock salt light ice sand glass wax tin".split())]},
           "answerKey": key, "fact1": "plants need light", "fact2": "growing needs energy",
           "combinedfact": "plants need light to grow", "formatted_question": "..."}
    obj.update(changes)
    return obj


def assert_error(err: DataError, path: Path, line: int | None, field: str | None) -> None:
    assert (err.path, err.line, err.field) == (path, line, field), str(err)


FOUR = "(A) a rock (B) the sun (C) a cloud (D) the moon"


# --- parse_choices ------------------------------------------------------------------------------

@pytest.mark.unit
def test_parse_choices_four_options():
    assert parse_choices(FOUR) == [Option("A", "a rock"), Option("B", "the sun"), Option("C", "a cloud"),
                                   Option("D", "the moon")]


@pytest.mark.unit
def test_parse_choices_any_number_and_repeated_labels():
    options = parse_choices("(A) one (B) two (C) three (D) four (D) five")
    assert [o.label for o in options] == ["A", "B", "C", "D", "D"]
    assert options[-1].text == "five"


@pytest.mark.unit
def test_parse_choices_keeps_parentheses_inside_text():
    options = parse_choices("(A) water (H2O) (B) salt(a) crystals (C) x (D) y")
    assert options[0].text == "water (H2O)" and options[1].text == "salt(a) crystals"


@pytest.mark.unit
@pytest.mark.parametrize("text", ["A) one (B) two", "one (A) two (B) three", "(A) one", "(A) (B) two"])
def test_parse_choices_rejects_malformed(text):
    with pytest.raises(ValueError):
        parse_choices(text)


# --- OpenBookQA ---------------------------------------------------------------------------------

@pytest.mark.unit
def test_obqa_valid_file(tmp_path):
    path = write_tsv(tmp_path / "dev.tsv", obqa_row("7-1", "What gives light?", FOUR, "B"),
                     obqa_row("42", "What is cold?", FOUR, "C"))
    questions = parse_obqa_file(path)
    assert [q.id for q in questions] == ["7-1", "42"]
    first = questions[0]
    assert isinstance(first, Question) and first.source == "openbookqa"
    assert (first.answer_key, first.answer_index, first.answer_text) == ("B", 1, "the sun")
    assert questions.skipped.total == 0 and questions.irregular.total == 0


@pytest.mark.unit
def test_obqa_five_options_kept_and_counted(tmp_path):
    path = write_tsv(tmp_path / "train.tsv", obqa_row("1-1", "Q one", FOUR, "A"),
                     obqa_row("1-2", "Q two", FOUR + " (D) a star", "B"))
    questions = parse_obqa_file(path)
    assert len(questions) == 2 and len(questions[1].options) == 5
    assert questions.irregular.counts["5 options"] == 1
    assert questions.irregular.counts["duplicate option label 'D'"] == 1
    assert "1-2 (line 3)" in questions.irregular.examples["5 options"]
    assert questions.skipped.total == 0
    assert "kept irregular" in str(questions.irregular)


@pytest.mark.unit
def test_obqa_answer_key_not_an_option(tmp_path):
    path = write_tsv(tmp_path / "dev.tsv", obqa_row("1", "Q", FOUR, "A"), obqa_row("2", "Q", FOUR, "E"))
    with pytest.raises(DataError) as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 3, "Answer Key")


@pytest.mark.unit
def test_obqa_answer_key_ambiguous(tmp_path):
    path = write_tsv(tmp_path / "dev.tsv", obqa_row("1", "Q", FOUR + " (D) a star", "D"))
    with pytest.raises(DataError, match="ambiguous") as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 2, "Answer Key")


@pytest.mark.unit
@pytest.mark.parametrize("row, field", [
    (obqa_row("1", "  ", FOUR, "A"), "Question Stem"),
    (obqa_row("", "Q", FOUR, "A"), "ID"),
    (obqa_row("1", "Q", "a rock, the sun", "A"), "Choices"),
    (obqa_row("1", "Q", "(A) a rock (B)  (C) x", "A"), "Choices"),
    ("1\tQ\t" + FOUR, "Complete Question"),
])
def test_obqa_bad_cells(tmp_path, row, field):
    path = write_tsv(tmp_path / "dev.tsv", obqa_row("0", "fine", FOUR, "A"), row)
    with pytest.raises(DataError) as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 3, field)


@pytest.mark.unit
def test_obqa_duplicate_id(tmp_path):
    path = write_tsv(tmp_path / "dev.tsv", obqa_row("1", "Q", FOUR, "A"), obqa_row("1", "Q2", FOUR, "B"))
    with pytest.raises(DataError, match="line 2") as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 3, "ID")


@pytest.mark.unit
def test_obqa_header_without_choices(tmp_path):
    path = write_tsv(tmp_path / "dev.tsv", "1\tQ\tA", header="ID\tQuestion Stem\tAnswer Key")
    with pytest.raises(DataError) as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 1, "Choices")


@pytest.mark.unit
def test_obqa_non_utf8(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_bytes((HEADER + "\n" + obqa_row("1", "Q", FOUR, "A") + "\n").encode() + b"2\tQ\xff\t" + FOUR.encode() + b"\tx\tA\n")
    with pytest.raises(DataError, match="UTF-8") as err:
        parse_obqa_file(path)
    assert err.value.line == 3 and err.value.path == path


@pytest.mark.unit
def test_obqa_keys_from_leaderboard_file(tmp_path):
    folder = tmp_path / "openbookqa"
    write_tsv(folder / "test.tsv", obqa_row("1", "Q one", FOUR, ""), obqa_row("2", "Q two", FOUR, "C"))
    write_jsonl(folder / "test_question-answers_aristo-leaderboard.jsonl",
                {"id": "1", "answerKey": "D"}, {"id": "2", "answerKey": "C"})
    questions = read_obqa(tmp_path, "test")
    assert [q.answer_key for q in questions] == ["D", "C"]
    assert parse_answer_keys(folder / "test_question-answers_aristo-leaderboard.jsonl") == {"1": "D", "2": "C"}


@pytest.mark.unit
def test_obqa_keys_without_key_column(tmp_path):
    path = write_tsv(tmp_path / "test.tsv", "1\tQ\t" + FOUR + "\tQ " + FOUR, header="ID\tQuestion Stem\tChoices\tComplete Question")
    answers = write_jsonl(tmp_path / "keys.jsonl", {"id": "1", "answerKey": "A"})
    assert parse_obqa_file(path, answers)[0].answer_text == "a rock"


@pytest.mark.unit
def test_obqa_leaderboard_disagrees(tmp_path):
    path = write_tsv(tmp_path / "test.tsv", obqa_row("1", "Q", FOUR, "A"), obqa_row("2", "Q", FOUR, "B"))
    answers = write_jsonl(tmp_path / "keys.jsonl", {"id": "1", "answerKey": "A"}, {"id": "2", "answerKey": "C"})
    with pytest.raises(DataError, match="disagrees") as err:
        parse_obqa_file(path, answers)
    assert_error(err.value, answers, 2, "answerKey")


@pytest.mark.unit
def test_obqa_missing_key_without_answers(tmp_path):
    path = write_tsv(tmp_path / "test.tsv", obqa_row("1", "Q", FOUR, ""))
    with pytest.raises(DataError, match="empty") as err:
        parse_obqa_file(path)
    assert_error(err.value, path, 2, "Answer Key")


@pytest.mark.unit
def test_read_obqa_split_names(tmp_path):
    with pytest.raises(ValueError, match="unknown split"):
        read_obqa(tmp_path, "validation")
    (tmp_path / "openbookqa").mkdir()
    with pytest.raises(FileNotFoundError, match="test.tsv"):
        read_obqa(tmp_path, "test")


# --- QASC ---------------------------------------------------------------------------------------

@pytest.mark.unit
def test_qasc_valid_file(tmp_path):
    path = write_jsonl(tmp_path / "dev.jsonl", qasc_obj("q1", "C"), qasc_obj("q2", "H"))
    questions = parse_qasc_file(path)
    first = questions[0]
    assert (first.id, len(first.options), first.answer_text, first.source) == ("q1", 8, "light", "qasc")
    assert first.facts == ("plants need light", "growing needs energy")
    assert first.combined_fact == "plants need light to grow"
    assert questions.irregular.total == 0


@pytest.mark.unit
def test_qasc_without_facts_and_with_fewer_options(tmp_path):
    obj = qasc_obj("q1", "A")
    for name in ("fact1", "fact2", "combinedfact"):
        del obj[name]
    obj["question"]["choices"] = obj["question"]["choices"][:4]
    questions = parse_qasc_file(write_jsonl(tmp_path / "test.jsonl", obj))
    assert questions[0].facts == () and questions[0].combined_fact == ""
    assert questions.irregular.counts["4 options"] == 1


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"answerKey": "Z"}, "answerKey"),
    ({"answerKey": ""}, "answerKey"),
    ({"fact2": " "}, "fact2"),
    ({"question": {"choices": []}}, "question.stem"),
    ({"question": {"stem": "Why?", "choices": [{"label": "A", "text": "x"}, {"label": "B", "text": ""}]}},
     "question.choices[1].text"),
    ({"question": {"stem": "Why?", "choices": "A B"}}, "question.choices"),
])
def test_qasc_bad_fields(tmp_path, change, field):
    path = write_jsonl(tmp_path / "dev.jsonl", qasc_obj("q0"), qasc_obj("q1", **change))
    with pytest.raises(DataError) as err:
        parse_qasc_file(path)
    assert_error(err.value, path, 2, field)


@pytest.mark.unit
def test_qasc_malformed_json(tmp_path):
    path = write_jsonl(tmp_path / "dev.jsonl", qasc_obj("q0"), '{"id": "q1", "question": ')
    with pytest.raises(DataError, match="malformed JSON") as err:
        parse_qasc_file(path)
    assert err.value.line == 2


@pytest.mark.unit
def test_describe_lists_present_splits(tmp_path):
    write_tsv(tmp_path / "openbookqa" / "dev.tsv", obqa_row("1", "Q", FOUR, "A"))
    write_jsonl(tmp_path / "qasc" / "dev.jsonl", qasc_obj())
    rows = describe(tmp_path)
    assert [(r["dataset"], r["split"], r["records"]) for r in rows] == [("obqa", "dev", 1), ("qasc", "dev", 1)]
    assert all(set(r) == {"dataset", "split", "records", "detail"} for r in rows)


# --- the real data ------------------------------------------------------------------------------

@pytest.mark.data
def test_real_obqa(real_data_dir):
    train, dev = read_obqa(real_data_dir, "train"), read_obqa(real_data_dir, "dev")
    assert (len(train), len(dev)) == (4957, 500)
    assert train.irregular.counts == {"5 options": 1, "duplicate option label 'D'": 1}
    odd = next(q for q in train if q.id == "12-1145")
    assert len(odd.options) == 5 and odd.answer_key == "B"
    assert dev.irregular.total == 0 and all(len(q.options) == 4 for q in dev)
    assert train.skipped.total == dev.skipped.total == 0


@pytest.mark.data
def test_real_qasc(real_data_dir):
    questions = read_qasc(real_data_dir, "dev")
    assert len(questions) == 926
    assert all(len(q.options) == 8 and len(q.facts) == 2 and q.combined_fact for q in questions)
    assert questions.irregular.total == 0


@pytest.mark.data
def test_real_describe(real_data_dir):
    rows = {(r["dataset"], r["split"]): r["records"] for r in describe(real_data_dir)}
    assert rows[("obqa", "train")] == 4957 and rows[("obqa", "dev")] == 500 and rows[("qasc", "dev")] == 926
