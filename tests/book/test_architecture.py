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


def test_every_public_name_of_the_library_has_a_docstring():
    import ast

    from proofbook.core.provenance import LIBRARY

    def is_stub(node) -> bool:          # a Protocol's ``def method(...): ...``: its class says what it does
        body = node.body
        return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and body[0].value.value is Ellipsis

    missing = []
    for path in sorted(LIBRARY.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(LIBRARY).as_posix()
        if not ast.get_docstring(tree):
            missing.append(f"{where}: the module")
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                if not ast.get_docstring(node):
                    missing.append(f"{where}: {node.name}")
                for sub in node.body if isinstance(node, ast.ClassDef) else ():
                    if isinstance(sub, ast.FunctionDef) and not sub.name.startswith("_") and not is_stub(sub) \
                            and not ast.get_docstring(sub) \
                            and not any(isinstance(d, ast.Name) and d.id == "property" for d in sub.decorator_list):
                        missing.append(f"{where}: {node.name}.{sub.name}")
    assert missing == []
