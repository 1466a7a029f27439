"""The claim registry and its one verdict function (proofbook.core.paper_claims), and the reproduction report."""
import dataclasses
import json
import shutil
import subprocess

import pytest

from proofbook.cli import check, runner
from proofbook.core import paper_claims
from proofbook.core.paper_claims import CONTRADICTED, HOLDS, INCONCLUSIVE, UNTESTED, Claim, Ref, decide
from proofbook.core.paths import PROJECT_ROOT

COMMITTED = PROJECT_ROOT / "results"


def committed_text(name: str) -> str:
    """A results file as the last commit holds it (the work tree's copy outside a git checkout)."""
    found = subprocess.run(["git", "-C", str(PROJECT_ROOT), "show", f"HEAD:results/{name}"], capture_output=True,
                           text=True)
    return found.stdout if found.returncode == 0 else (COMMITTED / name).read_text(encoding="utf-8")


@pytest.mark.unit
def test_the_registry_has_fixed_unique_ids_and_enough_claims():
    ids = [claim.id for claim in paper_claims.REGISTRY]
    assert len(ids) == len(set(ids)) >= 18
    assert {c.paper for c in paper_claims.REGISTRY} == {"admiral", "wild", "entailer"}
    departures = {d.id for d in paper_claims.DEPARTURES}
    assert len(departures) == len(paper_claims.DEPARTURES)
    assert not set(ids) & {r.id for r in paper_claims.RETIRED}          # a retired id is never reused
    for claim in paper_claims.REGISTRY:
        assert claim.source and claim.chapter and (claim.kind == "value") == (claim.b is None), claim.id
        assert (PROJECT_ROOT / "notebooks" / f"{claim.chapter}.py").is_file(), claim.chapter
        named = set(claim.departures) | set(claim.stand_in.departures if claim.stand_in else ())
        assert named <= departures, (claim.id, named - departures)
        assert all(change.rule.id == claim.id and len(change.until) == 40 for change in claim.history), claim.id
    assert all(row["value"] >= 1 for row in paper_claims.departure_rows())  # every departure bears on a claim


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
def test_a_claim_is_decided_for_the_paper_s_method_and_again_for_its_stand_in():
    claim = Claim("X", "admiral", "A beats B", "difference", Ref("p/nb", "d", "paper", "m"), ">", 0.0, "s", "c",
                  Ref("p/nb", "d", "b", "m"), stand_in=paper_claims.StandIn("stand-in", departures=("d1",)))
    found = paper_claims.verdicts({"p/nb": rows(("d", "dev", "paper", "m", 0.4, 10), ("d", "dev", "b", "m", 0.5, 10),
                                                ("d", "dev", "stand-in", "m", 0.7, 10))}, [claim])[0]
    assert (found.code, found.stand_in.code) == (CONTRADICTED, HOLDS)
    assert found.how_contradicted == "reversed" and found.stand_in.value == pytest.approx(0.2)
    assert "with the stand-in `stand-in`: holds" in paper_claims.verdict_text(found)
    not_run = paper_claims.verdicts({"p/nb": rows(("d", "dev", "b", "m", 0.5, 10), ("d", "dev", "stand-in", "m", 0.7, 10))},
                                    [dataclasses.replace(claim, not_run="cannot run here")])[0]
    assert (not_run.code, not_run.why, not_run.stand_in.code) == (UNTESTED, "cannot run here", HOLDS)
    table = paper_claims.claims_table([found])
    assert table.loc[0, "systems"] == "paper vs b" and table.loc[0, "stand-in"] == "stand-in vs b"
    assert table.loc[0, "departures"] == "d1" and table.loc[0, "verdict"] == "contradicted (reversed)"


@pytest.mark.unit
def test_an_equivalence_margin_and_a_floor_from_the_data():
    same = Claim("Y", "entailer", "no change", "difference", Ref("p/nb", "d", "a", "m"), "between", (-0.04, 0.04),
                 "s", "c", Ref("p/nb", "d", "b", "m"))
    assert same.equivalence
    for low, high, code in ((-0.03, 0.03, HOLDS), (-0.06, 0.02, INCONCLUSIVE), (0.05, 0.09, CONTRADICTED)):
        paired = rows(("d", "dev", "a-vs-b", "m", (low + high) / 2, 50), ("d", "dev", "a-vs-b", "m:ci95_low", low, 50),
                      ("d", "dev", "a-vs-b", "m:ci95_high", high, 50))
        found = paper_claims.verdicts({"p/nb": paired}, [same])[0]
        assert found.code == code
        written = {r["metric"]: r["value"] for r in paper_claims.verdict_rows([found])}
        assert written["margin"] == 0.04 and written["verdict"] == code
    floor = Claim("Z", "admiral", "above the majority", "value", Ref("p/nb", "d", "a", "acc"), ">", 0.5, "s", "c",
                  floor=Ref("p/nb", "d", "majority-class", "acc"))
    data = rows(("d", "test", "a", "acc", 0.58, 100), ("d", "test", "a", "acc:ci95_low", 0.52, 100),
                ("d", "test", "a", "acc:ci95_high", 0.64, 100), ("d", "test", "majority-class", "acc", 0.6, 100))
    found = paper_claims.verdicts({"p/nb": data}, [floor])[0]
    assert (found.code, found.threshold) == (INCONCLUSIVE, 0.6)        # above .5, but not above the data's floor
    written = {r["metric"]: r["value"] for r in paper_claims.verdict_rows([found])}
    assert written["floor"] == 0.6 and written["detectable"] > 0
    assert paper_claims.verdicts({"p/nb": data[:3]}, [floor])[0].code == UNTESTED     # no floor row: untested


@pytest.mark.unit
def test_holm_keeps_only_verdicts_strong_enough_for_the_whole_family():
    def made(claim_id, value, half):
        claim = Claim(claim_id, "admiral", "", "value", Ref("p/nb", "d", claim_id, "m"), ">", 0.0, "s", "c")
        return paper_claims.Verdict(claim, decide(">", 0.0, value, value - half, value + half), "dev", value,
                                    value - half, value + half, 10, threshold=0.0)

    strong, weak, crossing = made("strong", 0.5, 0.1), made("weak", 0.104, 0.1), made("crossing", 0.05, 0.1)
    weak_too = made("weak too", 0.104, 0.1)
    assert (strong.code, weak.code, weak_too.code, crossing.code) == (HOLDS, HOLDS, HOLDS, INCONCLUSIVE)
    assert 0.05 / 3 < paper_claims.p_value(weak) < 0.05 / 2 < paper_claims.p_value(crossing)
    assert paper_claims.holm([strong, weak, weak_too, crossing]) == {
        "strong": True, "weak": False, "weak too": False, "crossing": False}      # the second test needs p <= .05/3
    assert paper_claims.holm([strong, weak]) == {"strong": True, "weak": True}
    assert paper_claims.smallest_detectable(crossing) == pytest.approx(2.8 * 0.1 / 1.96, rel=1e-3)


@pytest.mark.unit
def test_an_earlier_rule_is_decided_on_the_same_rows_as_today_s():
    today = Claim("X", "admiral", "", "value", Ref("p/nb", "d", "a", "m"), "<", 1.3, "s", "c")
    old = dataclasses.replace(today, threshold=1.1)
    claim = dataclasses.replace(today, history=(paper_claims.RuleChange("2026-01-01", "0" * 40, "too strict", old),))
    data = {"p/nb": rows(("d", "dev", "a", "m", 1.2, 10))}
    (_, change, was), = paper_claims.old_verdicts(data, [claim])
    assert (was.code, paper_claims.verdicts(data, [claim])[0].code) == (CONTRADICTED, HOLDS)
    table = paper_claims.rule_changes_table(data, [claim])
    assert table.loc[0, ["old rule", "old rule's verdict", "today's verdict"]].tolist() == ["value < 1.1", "contradicted",
                                                                                           "holds"]


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
    assert [cid for cid, v in found.items() if v.code == UNTESTED and not v.claim.not_run] == []
    assert all(v.stand_in.code != UNTESTED for v in found.values() if v.stand_in is not None)
    target = paper_claims.claim("C3d-suff-vs-lexical")
    paired = {f"{system}-vs-{target.b.system}" for system in (target.a.system, target.stand_in.a)}
    cut = {nb: [r for r in rs if not (nb == target.b.notebook and r["system"] in {target.b.system} | paired
                                      and r["metric"].split(":")[0] == target.b.metric)] for nb, rs in committed.items()}
    after = {v.claim.id: v for v in paper_claims.verdicts(cut)}
    changed = [cid for cid in found if after[cid].code != found[cid].code]
    assert changed == ["C3d-suff-vs-lexical"] and after["C3d-suff-vs-lexical"].code == UNTESTED
    assert after["C3d-suff-vs-lexical"].stand_in.code == UNTESTED
    assert set(paper_claims.unknown_rows(cut)) - set(paper_claims.unknown_rows(committed)) == {
        "claim C3d-suff-vs-lexical: no results file holds admiral/06_sufficiency: hover/suff-lexical/suff_f1"}


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
    verdicts = {r["system"]: r["value"] for r in report["rows"] if r["dataset"] == "claims" and r["metric"] == "verdict"}
    assert set(verdicts) == {c.id for c in paper_claims.REGISTRY}
    assert [cid for cid, v in verdicts.items() if v == UNTESTED and not paper_claims.claim(cid).not_run] == []
    stand_ins = {r["system"] for r in report["rows"] if r["metric"] == "verdict:stand-in"}
    assert stand_ins == {c.id for c in paper_claims.REGISTRY if c.stand_in is not None}
    affected = {r["system"]: r["value"] for r in report["rows"] if r["dataset"] == "departures"}
    assert set(affected) == {d.id for d in paper_claims.DEPARTURES}
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


@pytest.mark.unit
def test_the_report_says_how_many_training_seeds_each_verdict_rests_on():
    from proofbook.render.report import seed_rows, seeds_behind

    claim = paper_claims.claim("C1a-hover-2hop-gain")
    paired = f"{claim.a.system}-vs-{claim.b.system}"
    row = {"dataset": claim.a.dataset, "split": "dev", "system": paired, "n": 120}
    rows = {claim.a.notebook: [{**row, "metric": claim.a.metric, "value": -0.18},
                               {**row, "metric": claim.a.metric + ":seeds", "value": 3},
                               {**row, "metric": claim.a.metric + ":seed_spread", "value": 0.04}]}
    other = paper_claims.claim("C2a-memory-vs-dense")
    found = [paper_claims.Verdict(claim, CONTRADICTED, "dev", -0.18, -0.25, -0.1, 120),
             paper_claims.Verdict(other, HOLDS, "dev", 12.0, None, None, 1),
             paper_claims.Verdict(paper_claims.claim("C2b-index-build-time"), UNTESTED, why="no row")]
    assert seeds_behind(found, rows) == {claim.id: (3, 0.04), other.id: (1, None), "C2b-index-build-time": (1, None)}
    written = {(r["system"], r["metric"]): r["value"] for r in seed_rows(found, rows)}
    assert written == {(claim.id, "seeds"): 3, (claim.id, "seed_spread"): 0.04, (other.id, "seeds"): 1}


@pytest.mark.unit
@pytest.mark.parametrize("notebook, at_least", [("admiral/02_experiments", 5), ("wild/02_experiments", 1)])
def test_the_committed_claims_of_seeded_chapters_rest_on_three_training_seeds(notebook, at_least):
    """The book's committed AdMIRaL retrieval and claims-in-the-wild results were run with ``seeds 3``: every
    claim decided on them averages three trainings, and the report's rows say so.  Read as committed (``git show
    HEAD:...``): a reader's own ``make book`` trains one seed (the chapters' default) and rewrites the files in the
    work tree."""
    data = json.loads(committed_text(f"{notebook}.json"))
    assert data["params"]["seeds"] >= 3
    report = json.loads(committed_text("report/99_reproduction_report.json"))
    seeds = {r["system"]: r["value"] for r in report["rows"] if r["metric"] == "seeds"}
    decided = [c.id for c in paper_claims.REGISTRY if c.a.notebook == notebook and c.id in seeds]
    assert len(decided) >= at_least
    assert all(seeds[cid] >= 3 for cid in decided)
