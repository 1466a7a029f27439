#!/usr/bin/env bash
# WordNet 3.0 offline for the lexical natural-logic baseline (proofbook.admiral.prover.wordnet: Debian packages wordnet-base and wordnet-sense-index).
# Idempotent and quick: apt-get runs only when /usr/share/wordnet is missing and we are root; then the files
# are copied into $NLTK_DATA/corpora/wordnet (default .cache/nltk_data) with a generated lexnames file.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PROOFBOOK_PYTHON:-.venv/bin/python}"
if [ ! -f /usr/share/wordnet/data.noun ] || [ ! -f /usr/share/man/man5/lexnames.5WN.gz ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends wordnet-base wordnet-sense-index >/dev/null \
      || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends wordnet-base wordnet-sense-index >/dev/null; }
  else
    echo "install_wordnet.sh: WordNet is missing; as root run:" >&2
    echo "  apt-get install --no-install-recommends wordnet-base wordnet-sense-index" >&2
    exit 1
  fi
fi
"$PY" -c "from proofbook.admiral.prover.wordnet import ensure_wordnet; print('WordNet ready in', ensure_wordnet())"
