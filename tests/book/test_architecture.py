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


# --- the import graph of the library's modules: no circles ------------------------------------------

def _dotted(path, root) -> str:
    """``root/a/b.py`` -> ``<root's name>.a.b``; a package's ``__init__.py`` is the package itself."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root) -> dict[str, set[str]]:
    """Module -> the modules of ``root``'s package it imports.  Every import counts: at the top, under
    ``if TYPE_CHECKING:`` and inside functions alike; relative imports are resolved, ``from pkg import module``
    points at the module, and ``from module import name`` at the module that holds the name."""
    import ast

    files = {_dotted(path, root): path for path in sorted(root.rglob("*.py"))}
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + [base] if base else parts)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:      # a name inside a module: that module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    imported.add(target)
        graph[name] = imported
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per group of modules that import one another, directly or through others (a strongly connected
    component of two or more modules): its modules in import order, the first repeated at the end."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module: str) -> None:                       # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    cycles = []
    for group in groups:                                  # the shortest way from its first module back to it
        start = min(group)
        paths, seen = [[start]], {start}
        while paths:
            path = paths.pop(0)
            found = next((path + [start] for m in sorted(graph[path[-1]]) if m == start), None)
            if found:
                cycles.append(found)
                break
            for m in sorted(graph[path[-1]] & group - seen):
                seen.add(m)
                paths.append(path + [m])
    return sorted(cycles)


def test_the_import_graph_sees_every_kind_of_import_and_finds_circles(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "sub/__init__.py": "",
        "a.py": "from .sub import b\n",
        "sub/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import Thing\n",
        "c.py": "import os\n\ndef late():\n    from pkg.sub.d import helper\n",
        "sub/d.py": "from .. import e\n",
        "e.py": "import pkg.c\nimport numpy\n",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    graph = import_graph(root)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a"}     # relative; TYPE_CHECKING
    assert graph["pkg.c"] == {"pkg.sub.d"} and graph["pkg.sub.d"] == {"pkg.e"}     # in a function; ``from .. import``
    assert graph["pkg.e"] == {"pkg.c"} and graph["pkg"] == set()                   # not numpy, not os
    assert import_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.a"], ["pkg.c", "pkg.sub.d", "pkg.e", "pkg.c"]]


def test_no_two_modules_import_each_other():
    from proofbook.core.provenance import LIBRARY

    graph = import_graph(LIBRARY)
    assert len(graph) > 100 and "proofbook.core.cache" in graph["proofbook.admiral.prover.operators"]
    pairs = sorted((a, b) for a in graph for b in graph[a] if a < b and a in graph[b])
    assert pairs == [], "modules that import each other (move the shared names down into a module both import): " \
        + "; ".join(f"{a} <-> {b}" for a, b in pairs)


def test_no_circle_of_imports_of_any_length():
    from proofbook.core.provenance import LIBRARY

    cycles = import_cycles(import_graph(LIBRARY))
    assert cycles == [], "import circles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_a_class_moved_down_still_loads_from_a_pickle_that_names_its_old_module():
    import io

    from proofbook.core import codecs

    for (module, name), now in codecs.MOVED_CLASSES.items():
        found = codecs._Unpickler(io.BytesIO()).find_class(module, name)
        assert (found.__module__, found.__name__) == (now, name), (module, name)


# --- package maps and module openings --------------------------------------------------------------

def _packages() -> list:
    from proofbook.core.provenance import LIBRARY

    return sorted(path.parent for path in LIBRARY.rglob("__init__.py"))


@pytest.mark.parametrize("folder", _packages(), ids=lambda folder: folder.name)
def test_every_package_docstring_maps_each_of_its_modules(folder):
    """A package's ``__init__`` docstring names every module and subpackage in it (``:mod:`` with its dotted
    name), so that a new module without a line in the map fails here."""
    import ast
    import re

    from proofbook.core.provenance import LIBRARY, module_name

    package = module_name(folder / "__init__.py")
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    children = [path.stem for path in folder.glob("*.py") if path.stem != "__init__"]
    children += [path.name for path in folder.iterdir() if (path / "__init__.py").is_file()]
    missing = [child for child in sorted(children)
               if not re.search(rf":mod:`~?{re.escape(f'{package}.{child}')}`", doc)]
    assert missing == [], f"{(folder / '__init__.py').relative_to(LIBRARY.parent)} does not name: {missing}"


def test_every_module_docstring_opens_with_one_short_paragraph():
    """The first paragraph of a module's docstring is what a reader takes in at once (and what the architecture
    page lists): at most 3 lines and 60 words; the detail goes in later paragraphs."""
    import ast

    from proofbook.core.provenance import LIBRARY

    long = []
    for path in sorted(LIBRARY.rglob("*.py")):
        first = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip().split("\n\n")[0]
        if len(first.splitlines()) > 3 or len(first.split()) > 60:
            long.append(f"{path.relative_to(LIBRARY).as_posix()}: {len(first.splitlines())} lines, "
                        f"{len(first.split())} words")
    assert long == []
