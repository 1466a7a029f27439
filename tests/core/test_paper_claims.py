"""The claim registry and its one verdict function (proofbook.core.paper_claims), and the reproduction report."""
import json
import shutil

import pytest

from proofbook.cli import check, runner
from proofbook.core import paper_claims
from proofbook.core.paper_claims import CONTRADICTED, HOLDS, INCONCLUSIVE, UNTESTED, Claim, Ref, decide
from proofbook.core.paths import PROJECT_ROOT

COMMITTED = PROJECT_ROOT / "results"


@pytest.mark.unit
def test_the_registry_has_fixed_unique_ids_and_enough_claims():
    ids = [claim.id for claim in paper_claims.REGISTRY]
    assert len(ids) == len(set(ids)) >= 18
    assert {c.paper for c in paper_claims.REGISTRY} == {"admiral", "wild", "entailer"}
    for claim in paper_claims.REGISTRY:
        assert claim.source and claim.chapter and (claim.kind == "value") == (claim.b is None), claim.id
        assert (PROJECT_ROOT / "notebooks" / f"{claim.chapter}.py").is_file(), claim.chapter


@pytest.mark.unit
@pytest.mark.parametrize("side, threshold, value, low, high, code", [
    (">", 0, 0.05, 0.01, 0.09, HOLDS),
    (">", 0, 0.05, -0.01, 0.09, INCONCLUSIVE),
    (">", 0, -0.05, -0.09, -0.01, CONTRADICTED),
    (">", 0, 0.0, 0.0, 0.0, CONTRADICTED),          # equal everywhere: A does not beat B
    (">", 0, 0.02, None, None, HOLDS),              # no interval: the value decides
    ("<", 1.3, 1.1, None, None, HOLDS),
    ("<", 1.3, 1.5, 1.2, 1.8, INCONCLUSIVE),
    ("between", (0.1, 0.25), 0.17, 0.12, 0.22, HOLDS),
    ("between", (0.1, 0.25), 0.72, 0.65, 0.8, CONTRADICTED),
    ("between", (0.1, 0.25), 0.24, 0.2, 0.3, INCONCLUSIVE),
])
def test_decide(side, threshold, value, low, high, code):
    assert decide(side, threshold, value, low, high) == code


def rows(*items):
    return [dict(zip(("dataset", "split", "system", "metric", "value", "n"), item)) for item in items]


@pytest.mark.unit
def test_a_paired_row_and_its_interval_win_over_the_two_systems():
    claim = Claim("X", "admiral", "A beats B", "difference", Ref("p/nb", "d", "a", "m"), ">", 0.0, "s", "c",
                  Ref("p/nb", "d", "b", "m"))
    plain = {"p/nb": rows(("d", "dev", "a", "m", 0.6, 10), ("d", "dev", "b", "m", 0.5, 10))}
    found = paper_claims.verdicts(plain, [claim])[0]
    assert (found.code, found.split, found.low) == (HOLDS, "dev", None) and found.value == pytest.approx(0.1)
    paired = {"p/nb": plain["p/nb"] + rows(("d", "dev", "a-vs-b", "m", 0.1, 10), ("d", "dev", "a-vs-b", "m:ci95_low", -0.05, 10),
                                           ("d", "dev", "a-vs-b", "m:ci95_high", 0.2, 10))}
    found = paper_claims.verdicts(paired, [claim])[0]
    assert (found.code, found.low, found.high) == (INCONCLUSIVE, -0.05, 0.2)
    with_test = {"p/nb": paired["p/nb"] + rows(("d", "test", "a", "m", 0.4, 9), ("d", "test", "b", "m", 0.5, 9))}
    assert paper_claims.verdicts(with_test, [claim])[0].split == "test"       # the held-out split where present


@pytest.mark.unit
def test_a_timing_claim_reads_its_interval_and_can_be_inconclusive():
    flat = paper_claims.claim("C2c-latency-flat")
    growth = ("hover-scaling", "dev", "admiral", "latency_growth_per_doubling")
    for low, high, code in ((1.1, 1.6, INCONCLUSIVE), (1.05, 1.25, HOLDS), (1.35, 1.9, CONTRADICTED)):
        found = paper_claims.verdicts({flat.a.notebook: rows((*growth, 1.3, 10), (*growth[:3], growth[3] + ":ci95_low", low, 10),
                                                       (*growth[:3], growth[3] + ":ci95_high", high, 10))}, [flat])[0]
        assert (found.code, found.low, found.high) == (code, low, high)


@pytest.mark.unit
def test_verdict_glue_names_each_verdict_by_its_id_with_underscores():
    flat = paper_claims.claim("C2c-latency-flat")
    found = paper_claims.Verdict(flat, HOLDS, "dev", 1.1, 1.0, 1.2, 10)
    untested = paper_claims.Verdict(paper_claims.claim("C2a-memory-vs-dense"), UNTESTED, why="no row")
    assert paper_claims.verdict_glue([found, untested]) == {
        "C2c_latency_flat": paper_claims.verdict_text(found), "C2a_memory_vs_dense": "untested (no row)"}


@pytest.mark.unit
def test_every_claim_is_decided_on_the_committed_results_and_a_missing_row_makes_it_untested():
    committed = paper_claims.load_rows(COMMITTED)
    found = {v.claim.id: v for v in paper_claims.verdicts(committed)}
    assert sum(v.code == UNTESTED for v in found.values()) <= 3
    target = next(c for c in paper_claims.REGISTRY if c.id == "C1c-joint-vs-notjoint")
    paired = f"{target.a.system}-vs-{target.b.system}"          # a paired row alone also decides the claim
    cut = {nb: [r for r in rs if not (nb == target.b.notebook and r["system"] in (target.b.system, paired)
                                      and r["metric"].split(":")[0] == target.b.metric)] for nb, rs in committed.items()}
    after = {v.claim.id: v for v in paper_claims.verdicts(cut)}
    changed = [cid for cid in found if after[cid].code != found[cid].code]
    assert changed == ["C1c-joint-vs-notjoint"] and after["C1c-joint-vs-notjoint"].code == UNTESTED
    assert set(paper_claims.unknown_rows(cut)) - set(paper_claims.unknown_rows(committed)) == {
        "claim C1c-joint-vs-notjoint: no results file holds admiral/02_experiments: hover/admiral-notjoint/recall@5"}


@pytest.mark.unit
def test_check_reports_a_claim_whose_row_no_notebook_writes(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(COMMITTED, results)
    before = set(paper_claims.unknown_rows(paper_claims.load_rows(results)))
    path = results / "admiral" / "06_sufficiency.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rows"] = [r for r in data["rows"] if r["system"] != "suff-lexical"]
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = set(paper_claims.unknown_rows(paper_claims.load_rows(results))) - before
    assert problems == {"claim C3d-suff-vs-lexical: no results file holds admiral/06_sufficiency: hover/suff-lexical/suff_f1"}


@pytest.mark.notebook
def test_every_row_a_claim_reads_is_written_by_its_notebook(smoke_run):
    """The registry names only rows the chapters write (checked on their smoke runs; the split may differ)."""
    rows = {}
    for notebook in sorted({ref.notebook for c in paper_claims.REGISTRY for ref in (c.a, c.b) if ref is not None}):
        for data in smoke_run(notebook)["results"].values():
            rows[data["notebook"]] = data["rows"]
    assert paper_claims.unknown_rows(rows) == []


@pytest.mark.notebook
def test_the_report_decides_every_claim_from_a_results_folder(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(COMMITTED, results)
    runner.run_notebook(runner.NOTEBOOKS / "99_reproduction_report.py",
                        {"results_dir": str(results), "figures_dir": str(tmp_path / "figures")},
                        output=tmp_path / "report.ipynb", progress=False)
    report = json.loads((results / "report" / "99_reproduction_report.json").read_text(encoding="utf-8"))
    verdicts = {r["system"]: r["value"] for r in report["rows"] if r["dataset"] == "claims"}
    assert set(verdicts) == {c.id for c in paper_claims.REGISTRY}
    assert sum(v == UNTESTED for v in verdicts.values()) <= 3
    # the report reads every results file but its own and the reference pages' (paper_claims.load_rows), all of them
    # outside the data directory and the project: named "<elsewhere>/<folder hash>/<name>", known by content hash
    from proofbook.core.provenance import sha256_file

    read = [path for path in sorted(results.rglob("*.json"))
            if not json.loads(path.read_text(encoding="utf-8"))["notebook"].startswith(("report/", "reference/"))]
    data = report["input_digest"]["data"]
    assert len(read) >= 10 and len(data) == len(read)
    assert all(name.startswith("<elsewhere>/") and name.count("/") == 2 for name in data), sorted(data)
    assert sorted(name.rsplit("/", 1)[1] for name in data) == sorted(path.name for path in read)
    assert sorted(data.values()) == sorted(sha256_file(path) for path in read)
    assert (tmp_path / "figures" / "report" / "claims.svg").is_file()
    dirty = "dirty work tree"
    assert [p for p in check.structure_problems(results / "report" / "99_reproduction_report.json") if dirty not in p] == []
