"""Unit tests of the shared plumbing: data errors, corpus, results, fetch."""
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest

from proofbook.core.corpus import Corpus, split_sentences
from proofbook.data import base
from proofbook.data.textfile import DataError
from proofbook.data import fetch
from proofbook.data.jsonparse import iter_jsonl
from proofbook.core import results
from proofbook.core import paths

pytestmark = pytest.mark.unit


# ---- base: clear errors on bad input -------------------------------------------------------------
def test_jsonl_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2,\n')
    with pytest.raises(DataError) as err:
        list(iter_jsonl(path))
    assert err.value.line == 3 and str(path) in str(err.value) and "malformed JSON" in str(err.value)


def test_non_utf8_byte_names_line(tmp_path):
    path = tmp_path / "latin.tsv"
    path.write_bytes(b"a\tb\nc\t\xe9t\xe9\n")
    with pytest.raises(DataError, match=r"latin.tsv:2: not valid UTF-8 \(byte 0xe9 at column 3\)"):
        list(base.iter_tsv(path))


def test_tsv_short_row_and_header(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text(" id \t text \n1\thello\n2\n")
    rows = base.iter_tsv(path, header=True)
    assert next(rows) == (2, {"id": "1", "text": "hello"})
    with pytest.raises(DataError, match=r"t.tsv:3: field 'text': missing"):
        next(rows)


def test_tsv_keeps_quotes(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_text('1\tHe said "no\n2\tthen "yes"\n')
    assert [r for _, r in base.iter_tsv(path)] == [["1", 'He said "no'], ["2", 'then "yes"']]


def test_require_checks_presence_type_and_emptiness(tmp_path):
    record = {"claim": "  ", "n": "3"}
    with pytest.raises(DataError, match="field 'claim': empty"):
        base.require(record, "claim", tmp_path / "f", 7)
    with pytest.raises(DataError, match="field 'label': missing"):
        base.require(record, "label", tmp_path / "f", 7)
    with pytest.raises(DataError, match="field 'n': expected int"):
        base.require(record, "n", tmp_path / "f", 7, kind=int)
    with pytest.raises(DataError, match=r"field 'label': unknown label 'maybe'"):
        base.require_label("maybe", ["yes", "no"], tmp_path / "f", 7, "label")


def test_dataset_file_missing_is_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="make data"):
        base.dataset_file(tmp_path, "liar", "test.tsv")
    (tmp_path / "liar").mkdir()
    (tmp_path / "liar" / "train.tsv").write_text("")
    with pytest.raises(FileNotFoundError, match="train.tsv"):
        base.dataset_file(tmp_path, "liar", "test.tsv")


def test_resolve_data_dir_order(tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_DATA", str(tmp_path))
    assert paths.resolve_data_dir(None) == tmp_path
    assert paths.resolve_data_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("PROOFBOOK_DATA")
    assert paths.resolve_data_dir(None) == paths.PROJECT_ROOT / "data"


def test_evaluation_part_is_the_sha1_rule():
    import hashlib

    keys = [str(i) for i in range(2000)]
    share = sum(base.in_evaluation_part(k) for k in keys) / len(keys)
    assert 0.35 < share < 0.45
    assert all(base.in_evaluation_part(k) == (int(hashlib.sha1(k.encode()).hexdigest(), 16) % 5 >= 3) for k in keys)


def test_skip_report_counts():
    report = base.SkipReport("x.tsv")
    for line in (3, 9, 12, 20):
        report.add("no options", f"line {line}")
    assert report.total == 4 and "4 x no options (e.g. line 3, line 9, line 12)" in str(report)


# ---- corpus -----------------------------------------------------------------------------------
def test_split_sentences_keeps_abbreviations_and_initials():
    text = 'Dr. Smith met J. R. R. Tolkien in the U.S. Army. He was 3. "Yes," he said! Then he left.'
    assert split_sentences(text) == ["Dr. Smith met J. R. R. Tolkien in the U.S. Army.", "He was 3.",
                                     '"Yes," he said!', "Then he left."]
    assert split_sentences("   ") == []


def test_corpus_keeps_first_text_and_counts_conflicts():
    corpus = Corpus("c")
    corpus.add("A", ["one.", "two."])
    corpus.add("A", ["one.", "two."])
    corpus.add("A", ["other."])
    corpus.add("B", ["three.", " "])
    assert corpus["A"].sentences == ["one.", "two."] and corpus.conflicts == {"A": 1}
    assert [s.id for s in corpus.sentences()] == [("A", 0), ("A", 1), ("B", 0)]
    merged = corpus.merged(Corpus("d", {"C": corpus["B"].__class__("C", ["x."])}))
    assert merged.titles == ["A", "B", "C"] and merged.n_sentences() == 4


# ---- results ----------------------------------------------------------------------------------
def test_results_rows_are_written_as_they_come(tmp_path):
    res = results.Results("admiral/02_experiments", {"seed": 0, "data_dir": Path("/x")}, tmp_path)
    res.add("hover", "dev", "bm25", "recall@5", 0.5, 10)
    on_disk = results.load_results(tmp_path / "admiral" / "02_experiments.json")
    assert on_disk["rows"] == [{"dataset": "hover", "split": "dev", "system": "bm25", "metric": "recall@5",
                                "value": 0.5, "n": 10}]
    assert on_disk["params"]["data_dir"] == "."        # paths are relative to the data directory
    assert set(on_disk["input_digest"]) == {"source", "library", "params", "data"}
    assert "core/results.py" in on_disk["input_digest"]["library"] and on_disk["environment"]["python"]
    res.add("hover", "dev", "bm25", "recall@5", 0.75, 10)  # same keys: replaced, not duplicated
    assert len(results.load_results(res.path)["rows"]) == 1 and res.value("hover", "dev", "bm25", "recall@5") == 0.75
    assert res.table().loc[("hover", "dev", "bm25"), "recall@5"] == 0.75


@pytest.mark.parametrize("bad", [dict(value=float("nan")), dict(value="0.5"), dict(n=-1), dict(system="")])
def test_results_reject_bad_rows(tmp_path, bad):
    row = dict(dataset="hover", split="dev", system="bm25", metric="recall@5", value=0.5, n=3) | bad
    with pytest.raises(ValueError):
        results.Results("admiral/x", {}, tmp_path).add(**row)


def test_load_results_names_bad_row(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"notebook": "a/b", "git_commit": "x", "params": {}, "rows": [{"dataset": "d"}]}))
    with pytest.raises(ValueError, match="row 0: missing field"):
        results.load_results(path)


def test_load_results_names_the_file_and_line_of_bad_json(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"notebook": "a/b",\n "rows": [1, }\n')
    with pytest.raises(ValueError, match=r"r\.json: line 2, column \d+: not valid JSON"):
        results.load_results(path)
    path.write_text("[]")
    with pytest.raises(ValueError, match="r.json: expected a JSON object"):
        results.load_results(path)


# ---- fetch ------------------------------------------------------------------------------------
def test_git_blob_id_matches_git():
    # `printf 'hello\n' | git hash-object --stdin`
    assert fetch.git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert fetch.matches_blob(b"hello\n", "CE013625030B") and not fetch.matches_blob(b"hello", "ce0136250")


def test_sources_manifest_is_complete():
    sources = fetch.load_sources()
    assert {"hover_multihop", "liar", "openbookqa", "entailmentbank", "natlog_proofs_qanatver"} <= set(sources)
    for folder, entry in sources.items():
        assert entry["licence"], folder
        for spec in entry["files"]:
            assert len(spec["commit"]) == 40 and len(spec["blob"]) >= 12 and spec["name"], (folder, spec)


def _fake_sources(tmp_path, content: bytes):
    return {"toy": {"licence": "CC0 (test)", "files": [
        {"repo": "o/r", "commit": "0" * 40, "path": "d/f.txt", "blob": fetch.git_blob_id(content)[:12],
         "bytes": len(content), "name": "f.txt"}]}}


def test_fetch_from_mirror_copies_and_reports(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(fetch, "load_sources", lambda: _fake_sources(tmp_path, b"official\n"))
    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    (mirror / "f.txt").write_bytes(b"subset\n")
    (mirror / "SOURCE.md").write_text("# toy\n")
    fetch.fetch_all(dest=tmp_path / "data", mirror=tmp_path / "mirror")
    assert (tmp_path / "data" / "toy" / "f.txt").read_bytes() == b"subset\n"
    err = capsys.readouterr().err
    assert "licence: CC0 (test)" in err and "documented subset" in err


def test_fetch_downloads_and_verifies_over_loopback(tmp_path, monkeypatch):
    served = {"/o/r/" + "0" * 40 + "/d/f.txt": b"official\n"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = served.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("PROOFBOOK_DATA_URL", f"http://127.0.0.1:{server.server_port}/{{repo}}/{{commit}}/{{path}}")
        monkeypatch.setattr(fetch, "load_sources", lambda: _fake_sources(tmp_path, b"official\n"))
        fetch.fetch_all(dest=tmp_path / "data")
        assert (tmp_path / "data" / "toy" / "f.txt").read_bytes() == b"official\n"
        # a tampered file is refused and nothing is written
        served[next(iter(served))] = b"tampered\n"
        shutil.rmtree(tmp_path / "data")
        with pytest.raises(fetch.FetchError, match="does not match the official git blob"):
            fetch.fetch_all(dest=tmp_path / "data")
        assert not (tmp_path / "data" / "toy" / "f.txt").exists()
    finally:
        server.shutdown()


def test_unique_ids_names_both_lines(tmp_path):
    ids = base.UniqueIds(tmp_path / "f.jsonl", "uid")
    ids.check("a", 1)
    ids.check("b", 2)
    with pytest.raises(DataError, match=r"f.jsonl:5: field 'uid': duplicate uid 'a' \(first on line 1\)"):
        ids.check("a", 5)


def test_corpus_from_sentences_pools_pages():
    corpus = Corpus.from_sentences([("A", "x."), ("B", "y."), ("A", "z."), ("A", "x.")], name="pool")
    assert corpus.titles == ["A", "B"] and corpus["A"].sentences == ["x.", "z."] and corpus.name == "pool"
