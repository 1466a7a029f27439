"""The set-up every chapter starts with (proofbook.render.chapter)."""
import json
from dataclasses import dataclass

import pytest

from proofbook.render.chapter import sized_settings, start

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class Plain:
    seed: int = 0
    size: int = 100

    @classmethod
    def smoke(cls, seed: int = 0) -> "Plain":
        return cls(seed=seed, size=2)


@dataclass(frozen=True)
class WithFull(Plain):
    @classmethod
    def full(cls, seed: int = 0) -> "WithFull":
        return cls(seed=seed, size=1000)


def test_settings_are_sized_for_smoke_or_full_runs():
    assert sized_settings(Plain, 3, smoke=True) == Plain(3, 2)
    assert sized_settings(Plain, 3, smoke=False) == Plain(3, 100)
    assert sized_settings(WithFull, 1, smoke=False) == WithFull(1, 1000)


def test_start_records_the_parameters_and_the_chosen_settings(tmp_path):
    chapter = start("test/chapter", data_dir=tmp_path, split="dev", limit=5, seed=1, smoke=True,
                    results_dir=tmp_path / "results", settings=Plain, record_settings="training", extra="x")
    assert chapter.data_path == tmp_path and chapter.settings == Plain(1, 2)
    chapter.results.add("d", "dev", "s", "m", 1.0, 1)
    path = chapter.results.save()
    params = json.loads(path.read_text())["params"]
    assert params["data_dir"] == "."       # the data directory itself, relative to itself: never an absolute path
    assert {k: params[k] for k in ("split", "limit", "seed", "smoke", "extra")} == \
        {"split": "dev", "limit": 5, "seed": 1, "smoke": True, "extra": "x"}
    assert params["training"] == {"seed": 1, "size": 2}


def test_recording_settings_without_a_settings_class_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no settings class"):
        start("test/chapter", data_dir=tmp_path, split=None, limit=None, seed=0, smoke=True,
              results_dir=tmp_path, record_settings="settings")
