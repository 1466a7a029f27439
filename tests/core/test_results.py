"""Tests for the results-file writer: atomic writes and the temporary files a killed write leaves."""
import json

import pytest

from proofbook.core.results import stray_temporaries, temporary_prefix, write_json_atomic

pytestmark = pytest.mark.unit


def test_an_atomic_write_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "chapter.json"
    write_json_atomic(target, {"rows": []})
    assert json.loads(target.read_text()) == {"rows": []}
    assert stray_temporaries(target) == []


def test_stray_temporaries_are_found_beside_their_file_and_under_a_folder(tmp_path):
    target = tmp_path / "sub" / "chapter.json"
    write_json_atomic(target, {})
    mine = target.parent / f"{temporary_prefix(target)}abc123.tmp"
    other = target.parent / f"{temporary_prefix(target.with_name('other.json'))}def456.tmp"
    mine.write_text("{")
    other.write_text("{")
    assert stray_temporaries(target) == [mine]
    assert stray_temporaries(tmp_path) == sorted([mine, other])
