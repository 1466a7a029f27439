"""The book as a reader sees it: every page opened in headless Chromium (proofbook.cli.bookcheck)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proofbook.cli import bookcheck, runner
from proofbook.core.paths import PROJECT_ROOT

needs_chromium = pytest.mark.skipif(bookcheck.find_chromium() is None,
                                    reason="no Chromium (run scripts/install_chromium.sh as root)")


@pytest.mark.unit
@needs_chromium
def test_a_page_with_faults_is_refused(tmp_path):
    (tmp_path / "ok.png").write_bytes((PROJECT_ROOT / "figures").rglob("*.png").__next__().read_bytes())
    page = tmp_path / "page.html"
    page.write_text('<html><body><img src="ok.png"><img src="missing.png"><p>{glue:text}`x`</p>'
                    '<table><tr><th>a</th></tr></table><table><tr><td>1</td></tr></table>'
                    '<script>undefined_function();</script><img src="https://example.org/y.png"></body></html>',
                    encoding="utf-8")
    problems = bookcheck.page_problems(page, bookcheck.find_chromium())
    assert any(p.startswith("console:") and "undefined_function" in p for p in problems), problems
    assert "image does not load: missing.png" in problems and "image from another host: https://example.org/y.png" in problems
    assert "a glue reference is shown instead of its value" in problems and "table 1 has no data cell" in problems
    assert any(p.startswith("request to another host: https://example.org/y.png") for p in problems)
    assert not any("ok.png" in p or "table 2" in p for p in problems)
    assert "table 1 has no data cell" not in bookcheck.page_problems(page, bookcheck.find_chromium(), True)


@pytest.mark.notebook
@needs_chromium
def test_the_smoke_book_builds_clean_and_reads_well_in_a_browser(smoke_run, tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    pages = [p.name for p in PROJECT_ROOT.glob("*.md") if p.name != "README.md"]     # the toc's plain pages
    for name in ("_config.yml", "_toc.yml", "references.bib", *pages):
        shutil.copy(PROJECT_ROOT / name, book / name)
    for source in runner.book_notebooks():
        target = book / source.relative_to(PROJECT_ROOT).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(smoke_run(runner.notebook_id(source))["executed"], target)
    build = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "--builder", "html",
                            "-W", "--keep-going"], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-2000:]
    assert bookcheck.check_book(book / "_build" / "html", allow_empty_tables=True) == []
