"""Tests of proofbook.data.natlog: ProoFVer proof strings, QA-NatVer few-shot and silver proof files."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from proofbook.data.textfile import DataError
from proofbook.data import natlog
from proofbook.data.natlog import FewshotTarget, SilverProof, SilverStep, parse_fewshot_targets, parse_silver_proofs
from proofbook.data.natlog_processed import parse_fewshot_processed, parse_fewshot_setting, split_evidence
from proofbook.data.proofver import OPERATORS, ProofStep, format_proof, operator_counts, parse_proof_string

PROCESSED_NAME = ("processed_train-fewshot_num_samples_{n}_seed_0_use_retr_{r}_retr_evidence_{k}_dp_True_alignment_mode_"
                  "awesomealign_max_chunks_6_alignment_model_bert_finetuned_default_gold_no_nei_few_shot_False_4000_"
                  "matching_method_mwmf_loose_matching_False.jsonl")


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def check_error(err: pytest.ExceptionInfo, path: Path | str, line: int | None, field: str | None) -> None:
    assert err.value.path == Path(path)
    assert err.value.line == line
    assert err.value.field == field
    assert str(path) in str(err.value)


# --- parse_proof_string ----------------------------------------------------------------------

@pytest.mark.unit
def test_operators_are_the_six_of_proofver():
    assert list(OPERATORS) == ["=", "<", ">", "!", "|", "#"]
    assert OPERATORS["#"] == "independence" and OPERATORS["|"] == "alternation"


@pytest.mark.unit
def test_parse_proof_string_reads_triples_and_drops_start_marker():
    text = "^ { Ada } [ Ada Lovelace ] = { wrote code } [ wrote the first program ] <"
    steps = parse_proof_string(text)
    assert steps == [ProofStep("Ada", "Ada Lovelace", "="), ProofStep("wrote code", "wrote the first program", "<")]
    assert steps[1].operator_name == "forward entailment"
    assert format_proof(steps) == text[2:]
    assert parse_proof_string(format_proof(steps)) == steps


@pytest.mark.unit
def test_parse_proof_string_tolerates_irregular_spacing():
    # spans glued to their brackets, double spaces between triples, trailing space
    steps = parse_proof_string("{ the moon}  [ the Moon ] =  { is made of cheese } [ is rocky]|  ")
    assert steps == [ProofStep("the moon", "the Moon", "="), ProofStep("is made of cheese", "is rocky", "|")]


@pytest.mark.unit
def test_parse_proof_string_keeps_commas_and_brackets_inside_spans():
    steps = parse_proof_string("{ Tom, Jr. } [ Tom ( singer ) ] = { sang } [ sang [ live ] ] >")
    assert steps == [ProofStep("Tom, Jr.", "Tom ( singer )", "="), ProofStep("sang", "sang [ live ]", ">")]


@pytest.mark.unit
@pytest.mark.parametrize("text, message", [
    ("", "empty proof"),
    ("^ ", "empty proof"),
    ("{ a } [ b ] ?", "unknown operator '?'"),
    ("{ a } [ b ] = { c } [ d ] =>", "unknown operator '=>'"),
    ("{ a } [ b ]", "cannot parse"),
    ("{ a } = [ b ]", "cannot parse"),
    ("{ a } [ b ] = trailing words", "cannot parse"),
    ("{ } [ b ] =", "empty claim span"),
    ("{ a } [ ] =", "empty evidence span"),
])
def test_parse_proof_string_rejects_bad_proofs(tmp_path, text, message):
    with pytest.raises(DataError) as err:
        parse_proof_string(text, tmp_path / "x.target", 7)
    check_error(err, tmp_path / "x.target", 7, "proof")
    assert message in str(err.value)


@pytest.mark.unit
def test_parse_proof_string_without_location_still_raises_data_error():
    with pytest.raises(DataError) as err:
        parse_proof_string("{ a } [ b ] ~")
    assert err.value.field == "proof" and err.value.line is None


# --- few-shot targets ----------------------------------------------------------------------------

@pytest.mark.unit
def test_parse_fewshot_targets_numbers_variants(tmp_path):
    path = write(tmp_path / "t.target",
                 "11\t^ { Ada } [ Ada ] = { was born } [ was born ] =\n"
                 "11\t^ { Ada was born } [ Ada was born ] =\n"
                 "\n"
                 "42\t^ { Bob } [ Bob ] = { is a cat } [ is a dog ] |\n")
    targets = parse_fewshot_targets(path)
    assert [(t.claim_id, t.variant, t.line) for t in targets] == [(11, 0, 1), (11, 1, 2), (42, 0, 4)]
    assert isinstance(targets[0], FewshotTarget)
    assert targets[2].operators == ("=", "|")
    assert targets.skipped.total == 0


@pytest.mark.unit
@pytest.mark.parametrize("line, field, message", [
    ("12 { a } [ b ] =", "proof", "found 1 tab-separated"),
    ("x12\t{ a } [ b ] =", "id", "integer"),
    ("\t{ a } [ b ] =", "id", "empty"),
    ("12\t{ a } [ b ] @", "proof", "unknown operator"),
    ("12\t{ a } [ b ] =\textra", "line", "found 3"),
])
def test_parse_fewshot_targets_errors_name_line_and_field(tmp_path, line, field, message):
    path = write(tmp_path / "bad.target", "5\t^ { ok } [ ok ] =\n\n" + line + "\n")
    with pytest.raises(DataError) as err:
        parse_fewshot_targets(path)
    check_error(err, path, 3, field)
    assert message in str(err.value)


@pytest.mark.unit
def test_parse_fewshot_targets_rejects_non_utf8(tmp_path):
    path = write(tmp_path / "bad.target", b"5\t^ { ok } [ ok ] =\n6\t^ { caf\xe9 } [ x ] =\n")
    with pytest.raises(DataError) as err:
        parse_fewshot_targets(path)
    check_error(err, path, 2, None)
    assert "UTF-8" in str(err.value)


@pytest.mark.unit
def test_read_fewshot_targets_missing_file_is_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="train_with_ids_fewshot.target"):
        natlog.read_fewshot_targets(tmp_path)


# --- processed few-shot files --------------------------------------------------------------------

def processed_row(**changes) -> dict:
    row = {"id": 5 * 10**11 + 1, "claim": "Bob is a cat.", "verdict": "REFUTES",
           "evidence": "[ Bob ( pet ) ] Bob is a dog . </s> [ Dogs ] Dogs bark .",
           "proof": [["Bob", "Bob", "="], ["is a cat", "is a dog", "|"]],
           "claim_parsed": ["Bob", "is a cat", "Bob is a cat"], "claim_parsed_hierarchy": [[0, 1], [2]],
           "alignment": [["Bob", "Bob"], ["is a cat", "is a dog"]]}
    row.update(changes)
    return {k: v for k, v in row.items() if v is not ...}


@pytest.mark.unit
def test_parse_fewshot_setting_from_file_name(tmp_path):
    setting = parse_fewshot_setting(tmp_path / PROCESSED_NAME.format(n=64, r="False", k=2))
    assert (setting.num_samples, setting.seed, setting.use_retr, setting.retr_evidence) == (64, 0, "False", 2)
    assert setting.options["alignment_mode"] == "awesomealign"
    assert setting.options["alignment_model"] == "bert_finetuned_default_gold_no_nei"
    assert setting.options["matching_method"] == "mwmf" and setting.options["loose_matching"] == "False"
    with pytest.raises(DataError) as err:
        parse_fewshot_setting(tmp_path / "processed_train-fewshot_whatever.jsonl")
    check_error(err, tmp_path / "processed_train-fewshot_whatever.jsonl", None, "file name")


@pytest.mark.unit
def test_fewshot_processed_files_lists_and_reads(tmp_path):
    folder = tmp_path / natlog.FOLDER
    write(folder / PROCESSED_NAME.format(n=8, r="Only", k=5), json.dumps(processed_row()) + "\n")
    write(folder / PROCESSED_NAME.format(n=4, r="False", k=2), json.dumps(processed_row(id=7 * 10**11)) + "\n")
    settings = natlog.fewshot_processed_files(tmp_path)
    assert [(s.num_samples, s.use_retr, s.retr_evidence) for s in settings] == [(4, "False", 2), (8, "Only", 5)]
    rows = natlog.read_fewshot_processed(tmp_path, num_samples=8, use_retr="Only")
    (row,) = rows
    assert (row.claim_id, row.variant, row.verdict, row.line) == (5, 1, "REFUTES", 1)
    assert row.steps == (ProofStep("Bob", "Bob", "="), ProofStep("is a cat", "is a dog", "|"))
    assert row.evidence_sentences == [("Bob ( pet )", "Bob is a dog ."), ("Dogs", "Dogs bark .")]
    assert row.claim_parsed_hierarchy == ((0, 1), (2,))
    with pytest.raises(FileNotFoundError, match="present"):
        natlog.read_fewshot_processed(tmp_path, num_samples=16)


@pytest.mark.unit
@pytest.mark.parametrize("changes, field", [
    ({"verdict": "TRUE"}, "verdict"),
    ({"claim": "  "}, "claim"),
    ({"claim": ...}, "claim"),
    ({"id": "5"}, "id"),
    ({"proof": [["Bob", "Bob", "~"]]}, "proof"),
    ({"proof": [["Bob", "Bob"]]}, "proof"),
    ({"proof": []}, "proof"),
    ({"claim_parsed_hierarchy": [["0"]]}, "claim_parsed_hierarchy"),
    ({"alignment": [["Bob"]]}, "alignment"),
    ({"id": 5 * 10**11 + 1}, "id"),      # the first row's id again
    ({"id": True}, "id"),
])
def test_parse_fewshot_processed_errors(tmp_path, changes, field):
    second = processed_row(**{"id": 5 * 10**11 + 2, **changes})
    path = write(tmp_path / "p.jsonl", json.dumps(processed_row()) + "\n" + json.dumps(second) + "\n")
    with pytest.raises(DataError) as err:
        parse_fewshot_processed(path)
    check_error(err, path, 2, field)


@pytest.mark.unit
def test_parse_fewshot_processed_malformed_json(tmp_path):
    path = write(tmp_path / "p.jsonl", json.dumps(processed_row()) + "\n{\"id\": 3,\n")
    with pytest.raises(DataError) as err:
        parse_fewshot_processed(path)
    check_error(err, path, 2, None)


@pytest.mark.unit
def test_split_evidence_without_title():
    assert split_evidence("plain sentence") == [("", "plain sentence")]
    assert split_evidence("[ A ] one </s>  </s> [ B ] two") == [("A", "one"), ("B", "two")]


# --- silver proofs ---------------------------------------------------------------------------------

SILVER_OK = ("7\tAda\tYes\tYes\t=\tAda\t=\n"
             "7\twas a poet\tNo\tYes\t=\twas a mathematician\t#\n"
             "\n"
             "9\tBob barks\tYes\tYes\t=\tBob barks loudly\t>\n"
             "\n\n")


@pytest.mark.unit
def test_parse_silver_proofs_groups_blocks(tmp_path):
    proofs = parse_silver_proofs(write(tmp_path / "s.csv", SILVER_OK))
    assert [(p.claim_id, p.line, p.operators) for p in proofs] == [(7, 1, ("=", "#")), (9, 4, (">",))]
    step = proofs[0].steps[1]
    assert isinstance(proofs[0], SilverProof) and isinstance(step, SilverStep) and isinstance(step, ProofStep)
    assert (step.claim_span, step.evidence_span, step.qa_answer, step.gold_operator) == ("was a poet", "was a mathematician", "No", "=")
    assert proofs.skipped.total == 0


@pytest.mark.unit
def test_parse_silver_proofs_last_block_without_blank_line(tmp_path):
    proofs = parse_silver_proofs(write(tmp_path / "s.csv", "3\ta\tYes\tYes\t=\tb\t<"))
    assert [(p.claim_id, p.operators) for p in proofs] == [(3, ("<",))]


@pytest.mark.unit
@pytest.mark.parametrize("line, field", [
    ("10\tBob barks\tYes\tYes\t=\tBob barks loudly", "operator"),           # 6 columns
    ("10\tBob barks\tYes\tYes", "gold operator"),                           # 4 columns
    ("10\tBob barks\tYes\tYes\t=\tBob barks loudly\t>\tx", "line"),         # 8 columns
    ("10\tBob barks\tMaybe\tYes\t=\tBob barks loudly\t>", "QA answer"),
    ("10\tBob barks\tYes\tYes\t=\tBob barks loudly\tNEI", "operator"),
    ("10\tBob barks\tYes\tYes\t?\tBob barks loudly\t>", "gold operator"),
    ("10\t \tYes\tYes\t=\tBob barks loudly\t>", "claim span"),
    ("10\tBob barks\tYes\tYes\t=\t\t>", "evidence span"),
    ("ten\tBob barks\tYes\tYes\t=\tBob barks loudly\t>", "id"),
    ("7\tBob barks\tYes\tYes\t=\tBob barks loudly\t>", "id"),              # claim 7 had a proof already
])
def test_parse_silver_proofs_errors(tmp_path, line, field):
    path = write(tmp_path / "s.csv", SILVER_OK.rstrip("\n") + "\n\n" + line + "\n")
    with pytest.raises(DataError) as err:
        parse_silver_proofs(path)
    check_error(err, path, 6, field)


@pytest.mark.unit
def test_parse_silver_proofs_two_ids_in_one_block(tmp_path):
    path = write(tmp_path / "s.csv", "1\ta\tYes\tYes\t=\ta\t=\n2\tb\tYes\tYes\t=\tb\t=\n")
    with pytest.raises(DataError) as err:
        parse_silver_proofs(path)
    check_error(err, path, 2, "id")
    assert "blank line" in str(err.value)


@pytest.mark.unit
def test_describe_skips_absent_files(tmp_path):
    assert natlog.describe(tmp_path) == []
    write(tmp_path / natlog.FOLDER / natlog.SILVER_FILE, SILVER_OK)
    (row,) = natlog.describe(tmp_path)
    assert row["dataset"] == "qanatver-silver-proofs" and row["records"] == 2


# --- real data -----------------------------------------------------------------------------------

@pytest.mark.data
def test_real_fewshot_targets(real_data_dir):
    targets = natlog.read_fewshot_targets(real_data_dir)
    assert len(targets) == 172                                   # SOURCE.md: 241 lines incl. blank ones
    assert len({t.claim_id for t in targets}) == 68
    assert all(t.steps for t in targets)


@pytest.mark.data
def test_real_fewshot_processed(real_data_dir):
    settings = natlog.fewshot_processed_files(real_data_dir)
    assert [(s.num_samples, s.use_retr, s.retr_evidence) for s in settings] == [(32, "Only", 5), (64, "False", 2), (64, "Only", 5)]
    sizes = [(len(rows := parse_fewshot_processed(s.path)), len({r.claim_id for r in rows})) for s in settings]
    assert sizes == [(84, 32), (162, 64), (164, 64)]
    gold = natlog.read_fewshot_processed(real_data_dir, num_samples=64, use_retr="False")
    assert operator_counts(r.steps for r in gold) == Counter({"=": 188, "<": 57, "#": 44, "|": 28, "!": 26, ">": 13})
    assert {r.verdict for r in gold} == {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}
    # every processed row is a variant of a claim in the .target file, with the same proof
    targets = {(t.claim_id, t.variant): t.steps for t in natlog.read_fewshot_targets(real_data_dir)}
    assert all(targets[(r.claim_id, r.variant)] == r.steps for r in gold)


@pytest.mark.data
def test_real_silver_proofs(real_data_dir):
    proofs = natlog.read_silver_proofs(real_data_dir)
    assert len(proofs) == 19_998
    assert len({p.claim_id for p in proofs}) == 19_998
    assert operator_counts(p.steps for p in proofs) == Counter(
        {"=": 30_021, "|": 6_401, "!": 2_492, "#": 1_508, "<": 1_047, ">": 86})
    steps = [s for p in proofs for s in p.steps]
    assert {s.gold_operator for s in steps} == {"="}               # the fifth column is always '='
    assert all((s.qa_answer == "No") == (s.operator == "#") for s in steps)
    assert proofs.skipped.total == 0


@pytest.mark.data
def test_real_describe(real_data_dir):
    rows = natlog.describe(real_data_dir)
    assert [r["records"] for r in rows] == [172, 84, 162, 164, 19_998]
    assert all(set(r) == {"dataset", "split", "records", "detail"} for r in rows)
