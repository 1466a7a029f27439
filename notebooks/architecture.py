# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (proofbook)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # How the library is cut
#
# Everything a chapter computes is a call into one Python package, `proofbook` (under `lib/`).  This page
# shows how that package is cut, read from its code when the page is built: the figure and the tables below
# come from the `import` statements of every module (read with grimp, the graph that import-linter checks)
# and from the layers of the import contract (`.importlinter` at the repository root), so they cannot drift
# from the code.
#
# **The layers.**  A package may import the packages of the layers below it, never those above, and the
# three paper packages, which share a layer, never import one another.  `make test` fails if an import
# breaks this rule.  From the bottom:
#
# * `core` -- what every paper stands on and nothing paper-specific: the project's paths and the record of
#   the data files read, the corpus (titled documents split into sentences), the artifact cache, the one
#   training loop, result rows and their provenance, intervals, and the papers' claims with their verdict
#   function;
# * `data` -- one reader per dataset family, official formats in, typed records out, bad input a clear error;
# * `models` -- loading local checkpoints, the cross-encoder, the seq2seq wrapper, the chat client;
# * `index` -- BM25, dense sentence embeddings and their index, and the prefix trees behind every constrained
#   decoder;
# * `render` -- the plotting style and figures, filterable tables, the report's figure, this page's figure;
# * `admiral`, `wild`, `entailer` -- one package per paper, each split into the paper's algorithm modules
#   and an `experiments` module that the chapters call;
# * `cli` -- the command line (`python -m proofbook run | run-all | check | check-book | explain | data`),
#   the only layer that may import every paper package.
#
# **How the data flows.**  A chapter reads a dataset with a `data` reader, builds a `core` corpus and an
# `index` over it, trains or loads `models` (cached by `core.cache`), runs its paper's method from the paper
# package, writes result rows (`core.results`, with the digest of every input) and draws them with `render`.
# The reproduction report decides every paper claim from those rows with `core.paper_claims`.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from proofbook.render.chapter import start
from proofbook.render import architecture
from proofbook.render.figures import save_figure

chapter = start("reference/architecture", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir)
results = chapter.results
layers = architecture.contract_layers()
edges = architecture.package_imports()
module_rows = architecture.modules()
upward = architecture.upward_imports(edges, layers)
packages = pd.DataFrame(module_rows).groupby("package", sort=False).agg(modules=("module", "size"),
                                                                        lines=("lines", "sum"),
                                                                        largest=("lines", "max"))
for package, row in packages.iterrows():
    results.add(package, "HEAD", "library", "modules", int(row.modules), int(row.modules))
    results.add(package, "HEAD", "library", "lines", int(row.lines), int(row.modules))
results.add("proofbook", "HEAD", "library", "upward_imports", len(upward), len(edges))
results.save()
glue("n_modules", len(module_rows), display=False)
glue("n_edges", len(edges), display=False)
glue("n_upward", len(upward), display=False)
glue("n_layers", len(layers), display=False)

# %%
fig = architecture.layers_figure(edges, layers, module_rows)
save_figure(fig, figures_dir, "reference", "architecture_layers")
plt.show()

# %% [markdown]
# *Figure: the {glue:text}`n_layers` layers of the import contract (left) and the imports between packages
# (right: how many pairs of modules import across each pair of packages; rows import columns, both in layer
# order).  Every count lies to the right of the outlined blocks of the layers: {glue:text}`n_upward` of the
# {glue:text}`n_edges` importing pairs of packages points upwards or sideways.*
#
# ## Every module
#
# One row per module of the {glue:text}`n_modules`: its package, its size and the first paragraph of its
# docstring, which names the part of the paper it implements.

# %%
pd.set_option("display.max_colwidth", 300)
frame = pd.DataFrame(module_rows)[["package", "module", "lines", "summary"]]
frame.set_index("module")
