"""The library's layers, read from its code: which package imports which, drawn as one figure.

The layers are the ones the import contract names (``.importlinter`` at the repository root, checked by
``make test``): a package may import the packages of the layers below it, never those above, and the
three paper packages, which share a layer, never import one another.  :func:`package_imports` reads every
``import`` statement of the library with grimp (the import graph that import-linter itself checks), so
the figure of :func:`layers_figure` and the tables of the architecture page cannot drift from the code.
"""
from __future__ import annotations

import ast
import configparser
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import grimp
import numpy as np

from proofbook.core.paths import PROJECT_ROOT, record_read
from proofbook.core.provenance import LIBRARY, module_name

ROOT = "proofbook"
CONTRACT = PROJECT_ROOT / ".importlinter"


def contract_layers(path: Path = CONTRACT) -> list[list[str]]:
    """The layers of the contract, top first, each a list of package names without the ``proofbook.`` prefix."""
    parser = configparser.ConfigParser()
    if not parser.read(path, encoding="utf-8"):
        raise FileNotFoundError(f"{path}: no import contract")
    sections = [s for s in parser.sections() if parser.get(s, "type", fallback="") == "layers"]
    if len(sections) != 1:
        raise ValueError(f"{path}: expected one layers contract, found {len(sections)}")
    lines = [line.strip() for line in parser.get(sections[0], "layers").splitlines() if line.strip()]
    return [[name.strip().removeprefix(f"{ROOT}.") for name in line.split("|")] for line in lines]


def package_of(module: str) -> str:
    """``proofbook.admiral.prover.natlog`` -> ``admiral``; ``proofbook.__main__`` -> ``cli`` (the command line)."""
    parts = module.split(".")
    if len(parts) == 1:
        return ROOT
    return "cli" if parts[1] == "__main__" else parts[1]


@dataclass(frozen=True)
class Edge:
    """``importer`` imports ``imported`` through ``count`` module-to-module imports."""
    importer: str
    imported: str
    count: int


def package_imports() -> list[Edge]:
    """Every import between two packages of the library, counted by pairs of modules (the root ``__init__``,
    which only installs the network guard, is left out)."""
    graph = grimp.build_graph(ROOT, cache_dir=None)
    counts: Counter = Counter()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            source, target = package_of(module), package_of(imported)
            if ROOT not in (source, target) and source != target:
                counts[source, target] += 1
    return [Edge(a, b, n) for (a, b), n in sorted(counts.items())]


def upward_imports(edges: list[Edge], layers: list[list[str]]) -> list[Edge]:
    """The edges that break the contract: into a higher layer, or between two packages of one layer."""
    rank = {name: i for i, layer in enumerate(layers) for name in layer}
    return [e for e in edges if e.importer in rank and e.imported in rank and rank[e.imported] <= rank[e.importer]]


def modules() -> list[dict]:
    """One row per module of the library: its package, its dotted name, its lines and its docstring's first
    paragraph.  Each file is recorded as read, so a page built from these rows is stale once any module changes."""
    rows = []
    for path in sorted(LIBRARY.rglob("*.py")):
        record_read(path)
        name = module_name(path)
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        rows.append({"package": package_of(name), "module": name, "lines": len(text.splitlines()),
                     "summary": doc.strip().split("\n\n")[0].replace("\n", " ")})
    return rows


def import_matrix(edges: list[Edge], layers: list[list[str]]):
    """Imports as a table: one row per importing package, one column per imported package, both in layer order
    (top layer first), so that a contract that holds leaves every count to the right of the diagonal blocks
    (the layers); a count inside a block or left of it is an import sideways or upwards."""
    import pandas as pd

    order = [name for layer in layers for name in layer]
    frame = pd.DataFrame(0, index=pd.Index(order, name="importer"), columns=pd.Index(order, name="imported"))
    for edge in edges:
        if edge.importer in frame.index and edge.imported in frame.columns:
            frame.loc[edge.importer, edge.imported] = edge.count
    return frame


def layers_figure(edges: list[Edge], layers: list[list[str]], module_rows: list[dict]):
    """Left: the layers as rows of boxes (top: the command line), each box with its modules and lines.  Right:
    :func:`import_matrix` as a heat map, the layers' blocks outlined."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, Rectangle

    size, lines = Counter(), Counter()
    for row in module_rows:
        size[row["package"]] += 1
        lines[row["package"]] += row["lines"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6), gridspec_kw={"width_ratios": [1.0, 1.15]})
    for i, layer in enumerate(layers):
        y = len(layers) - 1 - i
        for j, name in enumerate(layer):
            x = (j + 0.5) / len(layer) * 3.0
            left.add_patch(FancyBboxPatch((x - 0.46, y - 0.32), 0.92, 0.64, boxstyle="round,pad=0.02",
                                          facecolor="#e8eef7", edgecolor="#4a6fa5", linewidth=1.0))
            left.text(x, y + 0.1, name, ha="center", va="center", fontsize=10, weight="bold")
            left.text(x, y - 0.14, f"{size[name]} modules, {lines[name]} lines", ha="center", va="center", fontsize=7)
        if i < len(layers) - 1:
            left.annotate("", xy=(-0.05, y - 0.62), xytext=(-0.05, y - 0.38),
                          arrowprops=dict(arrowstyle="-|>", color="#888888"))
    left.text(-0.12, len(layers) / 2 - 0.5, "imports only downwards", rotation=90, ha="right", va="center",
              fontsize=8, color="#555555")
    left.set_xlim(-0.3, 3.05)
    left.set_ylim(-0.5, len(layers) - 0.5)
    left.axis("off")
    left.set_title("layers (from the import contract)")

    frame = import_matrix(edges, layers)
    values = frame.to_numpy()
    right.imshow(np.where(values > 0, np.log1p(values), np.nan), cmap="Blues", vmin=0, aspect="auto")
    for (r, c), n in np.ndenumerate(values):
        if n:
            right.text(c, r, str(n), ha="center", va="center", fontsize=8)
    start = 0
    for layer in layers:
        right.add_patch(Rectangle((start - 0.5, start - 0.5), len(layer), len(layer), fill=False,
                                  edgecolor="#4a6fa5", linewidth=1.0))
        start += len(layer)
    right.set_xticks(range(len(frame.columns)), frame.columns, rotation=45, ha="right")
    right.set_yticks(range(len(frame.index)), frame.index)
    right.set_xlabel("imported package")
    right.set_ylabel("importing package")
    right.grid(False)
    right.set_title("imports between packages (module pairs)")
    fig.tight_layout()
    return fig
