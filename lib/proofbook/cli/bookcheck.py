"""``python -m proofbook check-book``: open every page of the built book in headless Chromium, as a reader would.

A page fails when, in the browser:

* its console shows an error: an uncaught exception, a resource that fails to load, a refused request
  (the theme's informational messages, and Chromium's own pages, do not count);
* an image it shows does not load (a local file that is missing, or an image from another host);
* it still holds a glue reference instead of its value (``{glue:...}``);
* it holds a table without any data cell (allowed, with ``allow_empty_tables``, in the smoke book, whose
  tiny runs can leave a table empty);
* it makes any request to another host: the book must work offline, MathJax included.

Chromium runs with its own background traffic (updates, time queries, spelling) switched off, and only the
page's own requests are counted (those the page's origin starts); where permitted it runs in a fresh
network namespace, so nothing leaves the machine either way.  Chromium comes from the Debian package
``chromium`` (``scripts/install_chromium.sh``, which ``make check-book`` runs).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-default-apps", "--no-first-run",
                  "--no-pings", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                  "--disable-spell-checking", "--disable-features=NetworkTimeServiceQuerying,Translate,"
                  "OptimizationHints,MediaRouter,AutofillServerCommunication,SpellCheck",
                  "--enable-logging=stderr", "--v=0")
_CONSOLE = re.compile(r":INFO:CONSOLE[:(]\d+\)?\] (.*)$")
_ERROR = re.compile(r"Uncaught|Failed to load|net::ERR_|\bError\b|Refused to")


class _Page(HTMLParser):
    """What the rendered DOM holds: images, tables with their data cells, text."""

    def __init__(self):
        super().__init__()
        self.images, self.tables, self.text = [], [], []
        self._cells = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        elif tag == "table":
            self._cells.append(0)
        elif tag == "td" and self._cells:
            self._cells[-1] += 1

    def handle_endtag(self, tag):
        if tag == "table" and self._cells:
            self.tables.append(self._cells.pop())

    def handle_data(self, data):
        self.text.append(data)


def find_chromium() -> str | None:
    """The path of a Chromium (or Google Chrome) executable on ``PATH``, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _isolated_prefix() -> list[str]:
    """``unshare --net`` when this process may create a network namespace (root), else nothing."""
    if shutil.which("unshare") and subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0:
        return ["unshare", "--net"]
    return []


def render(page: Path, chromium: str, timeout: int = 60) -> tuple[str, list[str], list[str]]:
    """``(dom, console messages, URLs the page itself requested)`` of one page opened in Chromium."""
    with tempfile.TemporaryDirectory() as folder:
        netlog = Path(folder) / "net.json"
        command = [*_isolated_prefix(), chromium, *CHROMIUM_FLAGS, f"--user-data-dir={folder}/profile",
                   f"--log-net-log={netlog}", "--dump-dom", page.resolve().as_uri()]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{page}: chromium exited with {done.returncode}: {done.stderr[-500:]}")
        console = [m.group(1) for line in done.stderr.splitlines() if (m := _CONSOLE.search(line))]
        return done.stdout, console, _page_requests(netlog)


def _page_requests(netlog: Path) -> list[str]:
    """URLs of the requests the page started (its network isolation key is the page's own origin)."""
    try:
        log = json.loads(netlog.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        text = netlog.read_text(encoding="utf-8", errors="replace") if netlog.is_file() else ""
        log = json.loads(text.rstrip().rstrip(",") + "]}") if text.strip() else {"events": [], "constants": {}}
    start_job = log.get("constants", {}).get("logEventTypes", {}).get("URL_REQUEST_START_JOB")
    urls = []
    for event in log.get("events", []):
        params = event.get("params") or {}
        if event.get("type") == start_job and "url" in params \
                and str(params.get("network_isolation_key", "")).startswith("file://"):
            urls.append(params["url"])
    return urls


def page_problems(page: Path, chromium: str, allow_empty_tables: bool = False) -> list[str]:
    """What a reader of ``page`` would meet that is wrong (empty when nothing is)."""
    dom, console, requests = render(page, chromium)
    parsed = _Page()
    parsed.feed(dom)
    problems = [f"console: {message}" for message in console
                if _ERROR.search(message) and "source: chrome://" not in message]
    problems += [f"request to another host: {url}" for url in requests if urlparse(url).scheme in ("http", "https")]
    for src in parsed.images:
        url = urlparse(src)
        if url.scheme in ("http", "https"):
            problems.append(f"image from another host: {src}")
        elif url.scheme in ("", "file") and not src.startswith("data:"):
            target = Path(unquote(url.path)) if url.scheme == "file" else page.parent / unquote(url.path)
            if not target.is_file():
                problems.append(f"image does not load: {src}")
    if re.search(r"\{glue(:[a-z]*)?\}", " ".join(parsed.text)):
        problems.append("a glue reference is shown instead of its value")
    if not allow_empty_tables:
        problems += [f"table {i + 1} has no data cell" for i, cells in enumerate(parsed.tables) if cells == 0]
    return problems


def check_book(html_dir: os.PathLike | str, allow_empty_tables: bool = False) -> list[str]:
    """Every problem of every page under ``html_dir`` (the built book), as ``"<page>: <problem>"``."""
    html_dir = Path(html_dir)
    pages = sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                   and p.name not in ("search.html", "genindex.html"))
    if not pages:
        raise FileNotFoundError(f"{html_dir}: no HTML pages (build the book first: make book)")
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("no Chromium found: install the Debian package 'chromium' (scripts/install_chromium.sh)")
    return [f"{page.relative_to(html_dir)}: {problem}" for page in pages
            for problem in page_problems(page, chromium, allow_empty_tables)]
