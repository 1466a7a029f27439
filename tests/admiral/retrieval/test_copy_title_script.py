"""scripts/copy_title_model.py on the smoke tasks: every measurement runs and writes well-formed rows."""
import importlib.util
import json

import pytest

from proofbook.core.intervals import HIGH, LOW
from proofbook.core.paths import PROJECT_ROOT

pytestmark = pytest.mark.data


def load_script():
    spec = importlib.util.spec_from_file_location("copy_title_model", PROJECT_ROOT / "scripts" / "copy_title_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_copy_script_measures_both_models_on_the_smoke_tasks(real_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))
    output = tmp_path / "rows.json"
    assert load_script().main(["--smoke", "--data-dir", str(real_data_dir), "--output", str(output)]) == 0
    rows = json.loads(output.read_text())["rows"]
    found = {(r["dataset"], r["system"], r["metric"]): r for r in rows}
    for dataset in ("hover", "feverous_s"):
        for system in ("copy", "no-copy", "copy-vs-no-copy"):
            assert (dataset, system, "hop0_top1") in found
    for (dataset, system, metric), row in found.items():
        if metric.endswith(LOW) or metric.endswith(HIGH):
            continue
        low, high = found[dataset, system, metric + LOW]["value"], found[dataset, system, metric + HIGH]["value"]
        assert low - 1e-9 <= row["value"] <= high + 1e-9 and row["n"] >= 1
    systems = {system for (dataset, system, _) in found if dataset == "hover"}
    assert {"initial", "copy-fulltrie", "admiral", "mentions-only", "copy-fulltrie-vs-initial",
            "copy-masked", "copy-masked-vs-initial"} <= systems
    for system in ("admiral", "copy-hop-fulltrie"):     # where the loop loses the missing pages
        for metric in ("missing_after_initial", "input_has_gold_sentence", "raw_titles_already_retrieved"):
            assert 0 <= found["hover", system, metric]["value"] <= 1
