#!/usr/bin/env bash
# Headless Chromium for the book's browser check (python -m proofbook check-book; proofbook.cli.bookcheck).
# Idempotent and quick: apt-get runs only when no Chromium is found and we are root.
set -euo pipefail
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends chromium >/dev/null \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null; }
else
  echo "install_chromium.sh: Chromium is missing; as root run:  apt-get install --no-install-recommends chromium" >&2
  exit 1
fi
