"""Examples a reader picks (proofbook.core.examples), the showcase rules, and the filterable table."""
from dataclasses import dataclass

import pytest

from proofbook.core import examples
from proofbook.render.tables import FilterableTable


@dataclass
class Item:
    id: str
    score: float


ITEMS = [Item(f"x{i}", float(i % 4 == 3)) for i in range(20)]


@pytest.mark.unit
def test_sample_is_seeded_in_data_order_and_takes_all_when_few():
    first, again, other = (examples.sample(ITEMS, 5, seed) for seed in (0, 0, 1))
    assert first == again and first != other and len(first) == 5
    assert [ITEMS.index(x) for x in first] == sorted(ITEMS.index(x) for x in first)
    assert examples.sample(ITEMS[:3], 5) == ITEMS[:3]
    with pytest.raises(ValueError, match="n_examples must be at least 1"):
        examples.sample(ITEMS, 0)


@pytest.mark.unit
def test_by_id_finds_an_example_and_names_what_exists_otherwise():
    assert examples.by_id(ITEMS, "x7") is ITEMS[7]
    assert examples.by_id(ITEMS, " x7 ") is ITEMS[7]
    with pytest.raises(ValueError, match=r"example_id 'nope': no claim of HoVer has this id \(20 claims, e.g. 'x0'"):
        examples.by_id(ITEMS, "nope", what="claim", where="HoVer")
    with pytest.raises(ValueError, match="empty id"):
        examples.by_id(ITEMS, "  ")


@pytest.mark.unit
def test_showcase_takes_the_first_example_meeting_the_rule_and_scans_lazily():
    seen = []

    def scored():
        for item in ITEMS:
            seen.append(item)
            yield item

    chosen = examples.showcase(scored(), lambda item: item.score, "its score is 1")
    assert chosen.example is ITEMS[3] and chosen.met_rule and chosen.scanned == 4 and len(seen) == 4
    assert "first example in the sampled order for which its score is 1 (4 scanned)" in chosen.text


@pytest.mark.unit
def test_showcase_without_a_hit_shows_the_nearest_and_says_so():
    items = [Item("a", 0.2), Item("b", 0.7), Item("c", 0.1)]
    chosen = examples.showcase(items, lambda item: item.score, "its score is 1")
    assert chosen.example is items[1] and not chosen.met_rule and "nearest" in chosen.text
    with pytest.raises(ValueError, match="no example to show"):
        examples.showcase([], lambda item: 1.0, "anything")


@pytest.mark.unit
def test_showcase_with_an_example_id_says_whether_it_meets_the_rule():
    chosen = examples.showcase(ITEMS, lambda item: item.score, "its score is 1", example_id="x2")
    assert chosen.example is ITEMS[2] and not chosen.met_rule and "does not meet" in chosen.text


@pytest.mark.unit
def test_the_natural_logic_showcase_finds_an_independence_step():
    from types import SimpleNamespace

    from proofbook.admiral.prover.proof_showcase import independence_steps, showcase_proof

    step = lambda op: SimpleNamespace(operator=op)  # noqa: E731
    proofs = [SimpleNamespace(claim_id=1, steps=[step("="), step("<")]),
              SimpleNamespace(claim_id=2, steps=[step("="), step("#")])]
    assert [independence_steps(p) for p in proofs] == [0, 1]
    assert showcase_proof(proofs).example is proofs[1]
    assert showcase_proof(proofs, example_id="1").example is proofs[0]


@pytest.mark.unit
def test_filterable_table_escapes_text_keeps_html_columns_and_carries_its_script():
    table = FilterableTable([{"claim": "<b>x</b>", "n": 3, "tree": "<ul><li>p</li></ul>"}], html_columns=["tree"],
                            caption="wrong answers")
    page = table._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<details><summary>show</summary><ul><li>p</li></ul>" in page
    assert 'data-sort="3"' in page and "<script>" in page and "http" not in page
    with pytest.raises(ValueError, match="html_columns"):
        FilterableTable([{"a": 1}], html_columns=["b"])


@pytest.mark.data
def test_sources_table_lists_every_catalog_folder_with_its_licence(real_data_dir):
    from proofbook.data import catalog
    from proofbook.data.fetch import load_sources

    rows = catalog.sources_table(real_data_dir, "results")
    assert [r["dataset folder"] for r in rows] == list(load_sources())
    assert all(r["licence"] and r["files"] >= r["present"] for r in rows)
    hover = next(r for r in rows if r["dataset folder"] == "hover_multihop")
    assert hover["present"] == hover["files"] and hover["bytes present"] > 0


@pytest.mark.unit
def test_sources_table_names_a_broken_results_file(tmp_path):
    from proofbook.data import catalog

    (tmp_path / "admiral").mkdir()
    (tmp_path / "admiral" / "02_experiments.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="02_experiments.json"):
        catalog.sources_table(tmp_path / "data", tmp_path)
    (tmp_path / "admiral" / "02_experiments.json").write_text('{"notebook": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match="02_experiments.json.*missing key"):
        catalog.sources_table(tmp_path / "data", tmp_path)


@pytest.mark.data
def test_one_example_each_is_a_real_record_of_each_paper_and_follows_the_seed(real_data_dir):
    from proofbook.data import catalog, hover, science_qa

    first, again, other = (catalog.one_example_each(real_data_dir, seed) for seed in (0, 0, 1))
    assert first == again and first != other
    assert list(first) == ["AdMIRaL", "Claims in the wild", "Entailer"]
    claims = {c.uid: c for c in hover.read_hover_claims(real_data_dir, "dev")}
    uid = first["AdMIRaL"][0].split()[2]
    assert first["AdMIRaL"][0].endswith(claims[uid].claim)
    assert len(first["AdMIRaL"]) == 3 + len(claims[uid].supporting_facts)
    questions = {q.id: q for q in science_qa.read_obqa(real_data_dir, "dev")}
    question = questions[first["Entailer"][0].split()[2].rstrip(":")]
    assert first["Entailer"][-1] == f"answer: ({question.answer_key})"


@pytest.mark.unit
def test_one_example_each_leaves_out_a_paper_whose_files_are_absent(tmp_path):
    from proofbook.data import catalog

    assert catalog.one_example_each(tmp_path) == {}
