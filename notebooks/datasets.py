# %% [markdown]
# # Datasets and their licences
#
# **Papers and data:** {cite:p}`jiang2020hover,aly2021feverous,schuster2019symmetric,aly2023qanatver,chen2022claimdecomp,wang2017liar,alhindi2018liarplus,mihaylov2018obqa,khot2020qasc,dalvi2021entailmentbank`.
#
# Every dataset the book reads, as its catalog (`proofbook/data/sources.json`, which `make data` fetches
# from) records it: the repository and commit each file comes from, the licence as the release states it, how
# many of its files are in this data directory, and which chapters' results files say they read it (from
# their input digests).  Nothing from the datasets is part of this repository; `make data` copies them
# from a local mirror or downloads them from these sources.  The licences are those of the releases: read
# them before you reuse the data.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import pandas as pd
from myst_nb import glue

from proofbook.data import catalog
from proofbook.render.chapter import start

chapter = start("reference/datasets", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir)
data_path, results = chapter.data_path, chapter.results
rows = catalog.sources_table(data_path, results_dir)
for row in rows:
    results.add(row["dataset folder"], "all", "data-directory", "bytes", row["bytes present"], row["present"])
results.save()
glue("n_datasets", len(rows), display=False)
glue("n_present", sum(row["present"] == row["files"] for row in rows), display=False)
pd.set_option("display.max_colwidth", 400)
pd.DataFrame(rows).set_index("dataset folder")

# %% [markdown]
# *Table: the {glue:text}`n_datasets` dataset folders of the catalog; {glue:text}`n_present` of them are
# complete in this data directory.  "read by" lists the chapters whose committed results name a file of the
# folder.*
#
# Some test splits are held back for independent evaluation: a data directory that holds them has more
# files than the catalog lists, and every chapter takes `data_dir` and `split` so that it runs on them
# unchanged.
