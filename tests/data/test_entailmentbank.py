"""EntailmentBank trees, their one-step entailments and the WorldTree corpus (proofbook.data.entailmentbank)."""
import json
from pathlib import Path

import pytest

from proofbook.data.entailment_text import ProofStep, check_proof, parse_context, parse_proof, parse_slots, proof_depth
from proofbook.data.entailmentbank import (Entailment, describe, one_step_entailments, parse_entailmentbank_file,
                                           parse_entailmentbank_train_file, parse_worldtree_file, read_entailmentbank,
                                           read_entailmentbank_train, read_worldtree, worldtree_corpus)
from proofbook.data.textfile import DataError

CONTEXT = "sent1: ice is cold sent2: cold things feel cold sent3: snow is a kind of ice"
PROOF = "sent1 & sent3 -> int1: snow is cold; int1 & sent2 -> hypothesis; "
HYPOTHESIS = "snow feels cold"


def tree_obj(tree_id="t1", **changes):
    obj = {"id": tree_id, "context": CONTEXT, "question": "How does snow feel?", "answer": "cold",
           "hypothesis": HYPOTHESIS, "proof": PROOF, "full_text_proof": "...", "depth_of_proof": 2,
           "length_of_proof": 2, "meta": {"hypothesis_id": "int2"}}
    obj.update(changes)
    return obj


def angles_obj(tree_id="t1", input_=None, output=None):
    given = input_ if input_ is not None else (
        f"$proof$ ; $question$ = How does snow feel? ; $answer$ = cold ; $hypothesis$ = {HYPOTHESIS} ; $context$ = {CONTEXT}")
    return {"input": given, "output": output if output is not None else f"$proof$ = {PROOF}",
            "angle": [["question", "answer", "hypothesis", "context"], ["proof"]], "id": tree_id}


def write_jsonl(path: Path, *objects) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


def assert_error(err: DataError, path: Path, line: int | None, field: str | None) -> None:
    assert (err.path, err.line, err.field) == (path, line, field), str(err)


# --- the text fields ----------------------------------------------------------------------------

@pytest.mark.unit
def test_parse_context():
    assert parse_context(CONTEXT) == {"sent1": "ice is cold", "sent2": "cold things feel cold",
                                      "sent3": "snow is a kind of ice"}
    assert parse_context("sent1: a presence (sent2) b sent2: c") == {"sent1": "a presence (sent2) b", "sent2": "c"}


@pytest.mark.unit
@pytest.mark.parametrize("text", ["ice is cold", "sent1: a sent1: b", "sent1: sent2: b", "x sent1: a"])
def test_parse_context_rejects(text):
    with pytest.raises(ValueError):
        parse_context(text)


@pytest.mark.unit
def test_parse_proof():
    steps = parse_proof(PROOF, HYPOTHESIS)
    assert steps == (ProofStep(("sent1", "sent3"), "int1", "snow is cold"),
                     ProofStep(("int1", "sent2"), "hypothesis", HYPOTHESIS))
    assert parse_proof("") == ()
    assert proof_depth(steps) == 2


@pytest.mark.unit
def test_parse_proof_keeps_semicolons_inside_a_conclusion():
    steps = parse_proof("sent1 & sent2 -> int1: a kind of event; action; int1 -> hypothesis;", "h")
    assert [s.conclusion_text for s in steps] == ["a kind of event; action", "h"]


@pytest.mark.unit
@pytest.mark.parametrize("proof", ["sent1 sent2 -> int1: x;", "sent1 & sent2 -> int1;", "sent1 -> foo: x;",
                                   "and then -> hypothesis;"])
def test_parse_proof_rejects(proof):
    with pytest.raises(ValueError):
        parse_proof(proof)


@pytest.mark.unit
@pytest.mark.parametrize("proof, message", [
    ("sent1 & sent9 -> hypothesis;", "sent9"),
    ("int2 & sent1 -> int1: x; int1 -> hypothesis;", "int2"),
    ("sent1 -> int1: x; sent2 -> int1: y; int1 -> hypothesis;", "second time"),
    ("sent1 & sent2 -> int1: x;", "last step"),
])
def test_check_proof(proof, message):
    with pytest.raises(ValueError, match=message):
        check_proof(parse_proof(proof, "h"), parse_context(CONTEXT))


@pytest.mark.unit
def test_parse_slots():
    assert parse_slots("$proof$ ; $question$ = Q ? ; $context$ = sent1: a ; b") == {
        "proof": "", "question": "Q ?", "context": "sent1: a ; b"}
    assert parse_slots("$proof$ = sent1 -> hypothesis; ") == {"proof": "sent1 -> hypothesis;"}
    for bad in ("question = Q", "$proof$ sent1", "$a$ = 1 ; $a$ = 2"):
        with pytest.raises(ValueError):
            parse_slots(bad)


# --- task files -----------------------------------------------------------------------------------

@pytest.mark.unit
def test_tree_file_and_one_step_entailments(tmp_path):
    path = write_jsonl(tmp_path / "dataset__task_1__dev.jsonl", tree_obj())
    trees = parse_entailmentbank_file(path, task=1)
    tree = trees[0]
    assert (tree.id, tree.answer, tree.depth_of_proof, tree.length_of_proof, tree.task) == ("t1", "cold", 2, 2, 1)
    assert tree.context["sent2"] == "cold things feel cold" and tree.meta == {"hypothesis_id": "int2"}
    assert tree.intermediates == {"int1": "snow is cold"}
    assert one_step_entailments(tree) == [
        Entailment(("ice is cold", "snow is a kind of ice"), "snow is cold"),
        Entailment(("snow is cold", "cold things feel cold"), HYPOTHESIS)]
    assert one_step_entailments(tree)[0].tree_id == "t1"
    assert trees.skipped.total == 0 and trees.irregular.total == 0


@pytest.mark.unit
def test_task3_tree_without_proof(tmp_path):
    obj = tree_obj(proof="")
    for key in ("depth_of_proof", "length_of_proof", "full_text_proof"):
        del obj[key]
    tree = parse_entailmentbank_file(write_jsonl(tmp_path / "dataset__task_3__dev.jsonl", obj))[0]
    assert tree.steps == () and tree.depth_of_proof is None and one_step_entailments(tree) == []


@pytest.mark.unit
@pytest.mark.parametrize("change, field", [
    ({"proof": "sent1 & sent7 -> hypothesis;"}, "proof"),
    ({"proof": "sent1 & sent3 => hypothesis;"}, "proof"),
    ({"length_of_proof": 3}, "length_of_proof"),
    ({"depth_of_proof": "2"}, "depth_of_proof"),
    ({"hypothesis": "  "}, "hypothesis"),
    ({"context": "ice is cold"}, "context"),
    ({"question": ""}, "question"),
    ({"meta": []}, "meta"),
])
def test_tree_file_errors(tmp_path, change, field):
    path = write_jsonl(tmp_path / "dataset__task_1__dev.jsonl", tree_obj("t0"), tree_obj("t1", **change))
    with pytest.raises(DataError) as err:
        parse_entailmentbank_file(path)
    assert_error(err.value, path, 2, field)


@pytest.mark.unit
def test_tree_file_missing_field_and_bad_bytes(tmp_path):
    obj = tree_obj()
    del obj["answer"]
    path = write_jsonl(tmp_path / "a.jsonl", obj)
    with pytest.raises(DataError) as err:
        parse_entailmentbank_file(path)
    assert_error(err.value, path, 1, "answer")
    path = tmp_path / "b.jsonl"
    path.write_bytes(json.dumps(tree_obj()).encode() + b"\n" + b'{"id": "\xe9"}\n')
    with pytest.raises(DataError, match="UTF-8") as err:
        parse_entailmentbank_file(path)
    assert err.value.line == 2


@pytest.mark.unit
def test_tree_file_keeps_and_counts_a_repeated_id(tmp_path):
    # the official v2 test files (tasks 1-3) repeat Mercury_SC_405304 on two consecutive lines, two trees
    other = tree_obj("t1", answer="chilly", hypothesis="snow feels chilly")
    path = write_jsonl(tmp_path / "entailmentbank" / "dataset__task_1__test.jsonl",
                       tree_obj("t0"), tree_obj("t1"), other)
    trees = read_entailmentbank(tmp_path, "test", 1)
    assert [(t.id, t.hypothesis) for t in trees] == [("t0", HYPOTHESIS), ("t1", HYPOTHESIS), ("t1", "snow feels chilly")]
    assert [len(one_step_entailments(t)) for t in trees] == [2, 2, 2]
    assert trees.irregular.counts == {"duplicate id": 1} and trees.skipped.total == 0
    assert trees.irregular.examples["duplicate id"] == ["t1 (lines 2, 3)"]
    assert path.name in str(trees.irregular)
    [row] = describe(tmp_path)
    assert row["records"] == 3 and "duplicate id x1 (kept)" in row["detail"]


@pytest.mark.unit
def test_read_entailmentbank_names(tmp_path):
    write_jsonl(tmp_path / "entailmentbank" / "dataset__task_2__test.jsonl", tree_obj())
    assert len(read_entailmentbank(tmp_path, "test", task=2)) == 1
    with pytest.raises(ValueError, match="task"):
        read_entailmentbank(tmp_path, "dev", task=4)
    with pytest.raises(ValueError, match="split"):
        read_entailmentbank(tmp_path, "valid")
    with pytest.raises(FileNotFoundError, match="dataset__task_1__dev.jsonl"):
        read_entailmentbank(tmp_path, "dev", task=1)


# --- text-to-text train files --------------------------------------------------------------------------

@pytest.mark.unit
def test_train_file(tmp_path):
    path = write_jsonl(tmp_path / "entailmentbank" / "data__processed_data__angles__task_1__train.jsonl",
                       angles_obj("t1"), angles_obj("t1"))
    trees = read_entailmentbank_train(tmp_path, task=1)
    tree = trees[0]
    assert (tree.question, tree.answer, tree.hypothesis) == ("How does snow feel?", "cold", HYPOTHESIS)
    assert (tree.depth_of_proof, tree.length_of_proof, tree.task) == (2, 2, 1)
    assert tree.meta == {"angle": [["question", "answer", "hypothesis", "context"], ["proof"]]}
    assert one_step_entailments(tree)[1] == Entailment(("snow is cold", "cold things feel cold"), HYPOTHESIS)
    assert trees.irregular.counts["duplicate id"] == 1 and len(trees) == 2
    assert path.name in str(trees.irregular)


@pytest.mark.unit
@pytest.mark.parametrize("given, output, field", [
    (f"$proof$ ; $hypothesis$ = {HYPOTHESIS}", None, "input $context$"),
    (f"$proof$ ; $hypothesis$ =  ; $context$ = {CONTEXT}", None, "input $hypothesis$"),
    (f"$proof$ ; $question$ =  ; $hypothesis$ = h ; $context$ = {CONTEXT}", None, "input $question$"),
    ("proof ; hypothesis = h", None, "input"),
    ("$proof$ ; $hypothesis$ = h ; $context$ = no ids here", None, "input $context$"),
    (None, "$proof$", "output $proof$"),
    (None, "$valid$ = true", "output $proof$"),
    (None, "$proof$ = sent1 & sent5 -> hypothesis;", "output $proof$"),
])
def test_train_file_errors(tmp_path, given, output, field):
    path = write_jsonl(tmp_path / "train.jsonl", angles_obj("t0"), angles_obj("t1", given, output))
    with pytest.raises(DataError) as err:
        parse_entailmentbank_train_file(path)
    assert_error(err.value, path, 2, field)


@pytest.mark.unit
def test_train_file_without_question_slot(tmp_path):
    given = f"$proof$ ; $hypothesis$ = {HYPOTHESIS} ; $context$ = {CONTEXT}"
    tree = parse_entailmentbank_train_file(write_jsonl(tmp_path / "t.jsonl", angles_obj("t1", given)))[0]
    assert tree.question == "" and len(one_step_entailments(tree)) == 2


# --- WorldTree -----------------------------------------------------------------------------------------

@pytest.mark.unit
def test_worldtree(tmp_path):
    path = tmp_path / "entailmentbank" / "supporting_data__worldtree_corpus_sentences_extended.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"ET_addon:0": "DUMMY", "ET_addon:1": "a star produces light",
                                "0a1b-2c3d-4e5f-6a7b": "ice is cold"}), encoding="utf-8")
    facts = read_worldtree(tmp_path)
    assert facts == {"ET_addon:1": "a star produces light", "0a1b-2c3d-4e5f-6a7b": "ice is cold"}
    assert facts.skipped.counts == {"placeholder 'DUMMY'": 1}
    corpus = worldtree_corpus(facts)
    assert len(corpus) == 2 and corpus["0a1b-2c3d-4e5f-6a7b"].sentences == ["ice is cold"]


@pytest.mark.unit
@pytest.mark.parametrize("content, line, field", [
    ('{\n"f1": "ice is cold",\n"f2": 7\n}', 3, "f2"),
    ('{\n"f1": "ice is cold",\n"f2": " "\n}', 3, "f2"),
    ('["ice is cold"]', 1, None),
    ('{\n"f1": "ice is cold",\n"f2" "x"\n}', 3, None),
])
def test_worldtree_errors(tmp_path, content, line, field):
    path = tmp_path / "wt.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as err:
        parse_worldtree_file(path)
    assert_error(err.value, path, line, field)


@pytest.mark.unit
def test_describe_lists_present_files(tmp_path):
    folder = tmp_path / "entailmentbank"
    write_jsonl(folder / "dataset__task_1__dev.jsonl", tree_obj())
    write_jsonl(folder / "data__processed_data__angles__task_1__train.jsonl", angles_obj())
    rows = describe(tmp_path)
    assert [(r["dataset"], r["split"], r["records"]) for r in rows] == [
        ("entailmentbank task 1", "dev", 1), ("entailmentbank task 1 (text-to-text)", "train", 1)]
    assert rows[0]["detail"].startswith("2 one-step entailments")


# --- the real data ------------------------------------------------------------------------------------

@pytest.mark.data
def test_real_dev_trees(real_data_dir):
    tasks = {task: read_entailmentbank(real_data_dir, "dev", task) for task in (1, 2, 3)}
    assert {task: len(trees) for task, trees in tasks.items()} == {1: 187, 2: 187, 3: 187}
    assert sum(len(one_step_entailments(t)) for t in tasks[1]) == 597
    assert all(len(t.context) == 25 for t in tasks[2]) and all(not t.steps for t in tasks[3])
    assert all(t.length_of_proof == len(t.steps) for t in tasks[1])
    # the step proof's own depth differs from the official depth_of_proof for a few trees
    assert sum(t.depth_of_proof != proof_depth(t.steps) for t in tasks[1]) == 5
    for tree in tasks[1]:
        official = {k: v for k, v in tree.meta["intermediate_conclusions"].items() if k != tree.meta["hypothesis_id"]}
        assert tree.intermediates == official, tree.id


def real_lines_with_a_repeated_id(real_data_dir: Path, task: int) -> tuple[list[str], int]:
    """The real dev file's lines of ``task`` with line i+1's id replaced by line i's (two consecutive lines,
    two different trees: what the official test release does with ``Mercury_SC_405304``); returns (lines, i)."""
    source = real_data_dir / "entailmentbank" / f"dataset__task_{task}__dev.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = source.read_text(encoding="utf-8").splitlines()
    first = 10
    objs = [json.loads(line) for line in lines[first:first + 2]]
    assert objs[0]["id"] != objs[1]["id"] and objs[0]["hypothesis"] != objs[1]["hypothesis"]
    objs[1]["id"] = objs[0]["id"]
    lines[first + 1] = json.dumps(objs[1])
    return lines, first


@pytest.mark.data
@pytest.mark.parametrize("task", [1, 2, 3])
def test_real_tree_file_with_a_repeated_id_reads(real_data_dir, tmp_path, task):
    lines, first = real_lines_with_a_repeated_id(real_data_dir, task)
    path = tmp_path / "entailmentbank" / f"dataset__task_{task}__test.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    trees = read_entailmentbank(tmp_path, "test", task)
    dev = read_entailmentbank(real_data_dir, "dev", task)
    assert len(trees) == len(dev) == 187
    repeated = dev[first].id
    assert [t.hypothesis for t in trees if t.id == repeated] == [dev[first].hypothesis, dev[first + 1].hypothesis]
    assert trees.irregular.counts == {"duplicate id": 1}
    assert trees.irregular.examples["duplicate id"] == [f"{repeated} (lines {first + 1}, {first + 2})"]
    if task == 1:
        assert sum(len(one_step_entailments(t)) for t in trees) == 597  # nothing dropped


def _unordered(entailments):
    return sorted((tuple(sorted(e.premises)), e.conclusion) for e in entailments)


@pytest.mark.data
def test_real_train_one_step_entailments(real_data_dir):
    task1, task2 = read_entailmentbank_train(real_data_dir, 1), read_entailmentbank_train(real_data_dir, 2)
    assert len(task1) == len(task2) == 1313
    assert task1.irregular.counts == {"duplicate id": 5}
    entailments = [e for tree in task1 for e in one_step_entailments(tree)]
    assert len(entailments) == 4175  # papers.md: 4,175 one-step entailments from 1,313 questions
    # task 2 adds distractors and renumbers the sentences, but the entailments are the same
    assert all(_unordered(one_step_entailments(a)) == _unordered(one_step_entailments(b)) for a, b in zip(task1, task2))


@pytest.mark.data
def test_real_worldtree_and_describe(real_data_dir):
    facts = read_worldtree(real_data_dir)
    assert len(facts) == 11940 and facts.skipped.total == 1
    rows = {(r["dataset"], r["split"]): r for r in describe(real_data_dir)}
    assert rows[("entailmentbank task 1 (text-to-text)", "train")]["detail"].startswith("4,175 one-step")
    assert rows[("worldtree", "corpus")]["records"] == 11940
    assert ("entailmentbank task 3", "dev") in rows
