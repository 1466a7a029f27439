# The two commands a newcomer needs:  `make book`  and  `make test`  (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# A local folder laid out like ../shared/data; empty -> download from the official sources.
DATA_MIRROR ?= $(wildcard ../shared/data)
DATA_DIR ?= data
# Parameters for every chapter that defines them, e.g. RUN_ALL_PARAMS="-p seeds 3": the committed book's three
# training seeds for the retrieval chapter (a plain `make book` trains one).
RUN_ALL_PARAMS ?=
# Extra pip options for torch, e.g. TORCH_PIP_OPTS="--index-url <PyTorch CPU index>" on other machines.
TORCH_PIP_OPTS ?=

.PHONY: install wordnet chromium data notebooks book check-book test test-unit check clean help

help:
	@echo "make book   - install, fetch the data, run every notebook (papermill), build the HTML book in _build/html"
	@echo "make test   - install and run the tests"
	@echo "make check  - are the committed results from a clean commit and what the current code computes?"
	@echo "make check-book - open every page of the built book in headless Chromium (errors, images, glue, offline)"
	@echo "make data   - fill $(DATA_DIR)/ from DATA_MIRROR=$(DATA_MIRROR) or the official sources"
	@echo "make clean  - remove executed notebooks, stamps and the built book"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first (the CPU build), then the project with its pinned dependencies, then pyserini for Lucene BM25
# (proofbook.index.lucene) without its neural-encoder dependencies (several GB), then the kernel.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q torch==2.13.0 $(TORCH_PIP_OPTS)
	$(BIN)/python -m pip install -q -e .
	$(BIN)/python -m pip install -q --no-deps pyserini==1.6.0
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (proofbook)" >/dev/null
	touch $@

install: $(VENV)/.installed

# The test-only tools (pytest, hypothesis, nbval, import-linter: the `test` extra of pyproject.toml).
$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@

# WordNet 3.0 for the lexical natural-logic baseline: Debian packages (apt-get as root when missing),
# copied into .cache/nltk_data.  Without it the book's lexical baseline cannot run and its tests skip.
wordnet: install
	PROOFBOOK_PYTHON=$(BIN)/python scripts/install_wordnet.sh

# Headless Chromium (Debian package, apt-get as root when missing) for the browser check of the book.
chromium:
	scripts/install_chromium.sh

data: install
	$(BIN)/python -m proofbook data --dest $(DATA_DIR) $(if $(DATA_MIRROR),--mirror $(DATA_MIRROR))

notebooks: data wordnet
	PROOFBOOK_DATA=$(abspath $(DATA_DIR)) $(BIN)/python -m proofbook run-all $(RUN_ALL_PARAMS)

book: notebooks
	$(BIN)/jupyter-book build . --builder html -W --keep-going
	@echo "The book is in _build/html/index.html"

check-book: install chromium
	$(BIN)/python -m proofbook check-book

test: $(VENV)/.installed-test
	PROOFBOOK_PYTHON=$(BIN)/python scripts/install_wordnet.sh || echo "WordNet unavailable: its tests will be skipped"
	scripts/install_chromium.sh || echo "Chromium unavailable: the browser check of the smoke book will be skipped"
	@if unshare --net sh -c 'ip link set lo up' >/dev/null 2>&1; then \
	  echo "Running the tests in a fresh network namespace (unshare --net): loopback only, for child processes too"; \
	  echo "unshare --net sh -c 'ip link set lo up && exec $(BIN)/python -m pytest'"; \
	  unshare --net sh -c 'ip link set lo up && exec "$$0" -m pytest' $(BIN)/python; \
	else \
	  echo "Note: 'unshare --net' is not permitted here (it needs root and util-linux/iproute2), so the tests run in"; \
	  echo "this network namespace: proofbook.core.netguard blocks non-loopback access from the test process and from"; \
	  echo "Python children that import proofbook, but other child processes are not isolated."; \
	  echo "$(BIN)/python -m pytest"; \
	  $(BIN)/python -m pytest; \
	fi
	@echo "Checking that the library's layers point one way (.importlinter): $(BIN)/lint-imports"
	$(BIN)/lint-imports --no-cache
	@echo "Checking the committed results files (structure, glue names): $(BIN)/python -m proofbook check --structure"
	$(BIN)/python -m proofbook check --structure

# Committed results: well formed, from a clean commit, no absolute path, and not stale (proofbook.cli.check).
check: install
	$(BIN)/python -m proofbook check

test-unit: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m "unit"

clean:
	rm -rf _build
	find notebooks -name '*.ipynb' -delete
