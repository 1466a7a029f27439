"""WordNet offline, for the lexical natural-logic baseline (AdMIRaL §4.4, Table 6: "lexical-resource NatLog").

The paper's lexical baseline assigns natural-logic operators from WordNet relations (synonyms,
hypernyms, antonyms).  ``nltk.download("wordnet")`` needs the internet; here WordNet 3.0 comes from the
Debian packages ``wordnet-base`` and ``wordnet-sense-index``:
:func:`ensure_wordnet` copies (not links) the files of ``/usr/share/wordnet`` into
``<nltk_data>/corpora/wordnet/``, writes the ``lexnames`` file that the Debian packages lack (45 lines,
generated from the manual page ``/usr/share/man/man5/lexnames.5WN.gz``) and loads nltk's reader.

``<nltk_data>`` is the first folder of ``$NLTK_DATA`` when set, else ``<project>/.cache/nltk_data``.
A folder that already holds a complete copy is used as it is (so ``nltk.download`` copies work too).
``scripts/install_wordnet.sh`` does the apt-get step (as root, only when the files are missing).
"""
from __future__ import annotations

import functools
import gzip
import os
import re
import shutil
from pathlib import Path

from proofbook.core.paths import PROJECT_ROOT

DEBIAN_WORDNET = Path("/usr/share/wordnet")
DEBIAN_LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
APT_COMMAND = "apt-get install --no-install-recommends wordnet-base wordnet-sense-index"
#: the files nltk's WordNet reader opens (plus lexnames)
REQUIRED = tuple(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv"))
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
_LEXNAME_LINE = re.compile(r"^(\d\d)\t(noun|verb|adj|adv)\.(\w+)\s*\t")


class WordNetMissing(RuntimeError):
    """WordNet is neither in the nltk data folder nor installable from the Debian files."""


def nltk_data_dir() -> Path:
    """The first folder of ``$NLTK_DATA``, else ``<project>/.cache/nltk_data``."""
    value = os.environ.get("NLTK_DATA", "").split(os.pathsep)[0]
    return Path(value).expanduser() if value else PROJECT_ROOT / ".cache" / "nltk_data"


def lexnames_from_man(man_page: Path = DEBIAN_LEXNAMES_MAN) -> str:
    """The ``lexnames`` file (``NN<TAB>pos.name<TAB>category``, 45 lines) from the lexnames(5WN) man page."""
    text = gzip.open(man_page, "rt", encoding="utf-8", errors="replace").read() if man_page.suffix == ".gz" \
        else man_page.read_text(encoding="utf-8", errors="replace")
    lines = []
    for raw in text.splitlines():
        match = _LEXNAME_LINE.match(raw.strip("\n") + "\t")
        if match:
            number, pos, name = match.groups()
            lines.append(f"{number}\t{pos}.{name}\t{_CATEGORY[pos]}")
    if len(lines) != 45 or [int(line[:2]) for line in lines] != list(range(45)):
        raise WordNetMissing(f"{man_page}: expected the 45 lexicographer files 00-44, found {len(lines)} lines")
    return "\n".join(lines) + "\n"


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in REQUIRED + ("lexnames",))


def ensure_wordnet(nltk_data: os.PathLike | str | None = None, source: os.PathLike | str = DEBIAN_WORDNET,
                   man_page: os.PathLike | str = DEBIAN_LEXNAMES_MAN) -> Path:
    """Make ``<nltk_data>/corpora/wordnet`` hold WordNet 3.0 and return that folder (idempotent, quick).

    Raises :class:`WordNetMissing` with the apt-get command when the Debian files are absent.
    """
    target = Path(nltk_data).expanduser() if nltk_data else nltk_data_dir()
    folder = target / "corpora" / "wordnet"
    if _complete(folder):
        return folder
    source, man_page = Path(source), Path(man_page)
    missing = [name for name in REQUIRED if not (source / name).is_file()]
    if missing or not man_page.is_file():
        what = ", ".join(str(source / m) for m in missing[:3]) or str(man_page)
        raise WordNetMissing(
            f"WordNet is not installed: {folder} is incomplete and {what} is missing.  Install the Debian "
            f"packages (as root): `{APT_COMMAND}` -- or run `scripts/install_wordnet.sh`; where internet "
            f"exists, `python -c \"import nltk; nltk.download('wordnet', '{target}')\"` works too.")
    scratch = folder.with_name(".wordnet-partial")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copyfile(path, scratch / path.name)   # copy, never link (nltk reads the files by name)
    (scratch / "lexnames").write_text(lexnames_from_man(man_page), encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(scratch, folder)
    return folder


@functools.lru_cache(maxsize=4)
def _reader(folder: str):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    root = str(Path(folder).parent.parent)   # nltk 3.10 only opens files under a folder of nltk.data.path
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    return WordNetCorpusReader(folder, None)


def wordnet(nltk_data: os.PathLike | str | None = None):
    """nltk's WordNet reader over the folder :func:`ensure_wordnet` prepares (loaded once, ~3 s)."""
    return _reader(str(ensure_wordnet(nltk_data)))
