"""The library's layers point one way: the import contract holds, and the architecture page reads it right."""
import pytest
from importlinter.cli import lint_imports

from proofbook.core.paths import PROJECT_ROOT
from proofbook.render import architecture

pytestmark = pytest.mark.unit

SHARED = ("core", "data", "models", "index", "render")
PAPERS = ("admiral", "wild", "entailer")


def test_the_import_contract_holds():
    assert lint_imports(str(PROJECT_ROOT / ".importlinter"), no_cache=True, no_logo=True) == 0


def test_no_shared_module_imports_a_paper_package_and_no_paper_imports_another():
    edges = architecture.package_imports()
    assert edges, "no imports read"
    assert [e for e in edges if e.importer in SHARED and e.imported in PAPERS + ("cli",)] == []
    assert [e for e in edges if e.importer in PAPERS and e.imported in PAPERS] == []
    assert architecture.upward_imports(edges, architecture.contract_layers()) == []


def test_the_contract_layers_are_read_top_first_with_the_papers_side_by_side():
    layers = architecture.contract_layers()
    assert layers[0] == ["cli"] and layers[-1] == ["core"] and sorted(PAPERS) == sorted(layers[1])
    assert architecture.package_of("proofbook.admiral.prover.natlog") == "admiral"
    assert architecture.package_of("proofbook.__main__") == "cli"


def test_an_upward_or_sideways_import_is_found():
    layers = [["cli"], ["admiral", "wild"], ["core"]]
    edges = [architecture.Edge("core", "admiral", 1), architecture.Edge("wild", "admiral", 2),
             architecture.Edge("admiral", "core", 3)]
    assert architecture.upward_imports(edges, layers) == edges[:2]


def test_every_module_is_listed_with_its_docstring():
    rows = architecture.modules()
    names = {row["module"] for row in rows}
    assert {"proofbook.core.cache", "proofbook.admiral.prover.sufficiency", "proofbook.wild.veracity"} <= names
    assert all(row["summary"] for row in rows if row["module"] != "proofbook"), \
        [row["module"] for row in rows if not row["summary"]]


def test_a_missing_contract_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no import contract"):
        architecture.contract_layers(tmp_path / "none")
