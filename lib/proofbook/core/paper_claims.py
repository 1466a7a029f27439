"""The papers' claims that the book tests, each with one rule, and the one function that decides them.

Every claim of the three papers that a chapter can test is a :class:`Claim` in :data:`REGISTRY`: which
result rows it reads, how it combines them (one value, a difference ``A - B``, a ratio ``A / B``), the
threshold the paper's claim sets, and where that threshold comes from.  :func:`verdict` decides a
claim from result rows, the same way for every claim:

* a claim "A beats B" has threshold 0 (the paper's direction with margin 0) unless the paper states a
  number (memory at least 5x smaller, latency growing at most 1.3x per doubling of the knowledge base,
  a faithfulness break of 10-25%);
* with a 95% bootstrap interval (rows ``:ci95_low`` / ``:ci95_high``, :mod:`proofbook.core.intervals`), the
  claim **holds** when the whole interval is on the claim's side of the threshold, is **contradicted**
  when the whole interval is on the other side (or touches the threshold from there: "A beats B"
  with A = B everywhere does not hold), and is **inconclusive** when the interval crosses it;
* without an interval (a ratio of two timings, a difference whose systems have no paired row yet) the
  point value decides between holds and contradicted;
* a claim whose rows this run did not write is **untested**.

Claim ids never change once published; later work that renames a system updates the claim's rows,
not its id.  Sanity checks that hold by construction (stopping earlier than running to the limit,
an oracle that is right by definition) are not claims and are not here.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from proofbook.core.paths import record_read
from proofbook.core.intervals import HIGH, LOW
from proofbook.core.results import load_results

#: verdict codes, as written in the report's rows (metric ``verdict``)
HOLDS, INCONCLUSIVE, CONTRADICTED, UNTESTED = 1, 0, -1, -2
VERDICT_NAMES = {HOLDS: "holds", INCONCLUSIVE: "inconclusive", CONTRADICTED: "contradicted", UNTESTED: "untested"}
#: the split a claim reads: the held-out test split where present, else dev
SPLITS = ("test", "dev")


@dataclass(frozen=True)
class Ref:
    """One result row, by notebook, dataset, system and metric (the split is chosen by :data:`SPLITS`)."""

    notebook: str
    dataset: str
    system: str
    metric: str


@dataclass(frozen=True)
class Claim:
    """A paper's claim: ``kind`` is ``value`` (``a``), ``difference`` (``a - b``; read from the paired row
    ``A-vs-B`` when a chapter writes it) or ``ratio`` (``a / b``); ``side`` is ``>``, ``<`` or ``between``
    (``threshold`` is then a ``(low, high)`` pair)."""

    id: str
    paper: str
    statement: str
    kind: str
    a: Ref
    side: str
    threshold: float | tuple[float, float]
    source: str
    chapter: str
    b: Ref | None = None
    paper_value: float | None = None
    splits: tuple[str, ...] = SPLITS


@dataclass
class Verdict:
    """What :func:`verdict` found: the value, its interval (``None`` without one), the split, the code."""

    claim: Claim
    code: int
    split: str | None = None
    value: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    why: str = ""

    @property
    def name(self) -> str:
        return VERDICT_NAMES[self.code]


RowKey = tuple[str, str, str, str, str]       # notebook, dataset, split, system, metric


def index_rows(rows_by_notebook: dict[str, Iterable[dict]]) -> dict[RowKey, dict]:
    """``(notebook, dataset, split, system, metric) -> row`` for every row of every results file."""
    return {(notebook, r["dataset"], r["split"], r["system"], r["metric"]): r
            for notebook, rows in rows_by_notebook.items() for r in rows}


def _get(rows: dict[RowKey, dict], ref: Ref, split: str, metric: str | None = None, system: str | None = None):
    return rows.get((ref.notebook, ref.dataset, split, system or ref.system, metric or ref.metric))


def _measure(claim: Claim, rows: dict[RowKey, dict], split: str):
    """``(value, low, high, n)`` of the claim on ``split``, or None when a row is missing."""
    a = _get(rows, claim.a, split)
    if claim.kind == "value":
        if a is None:
            return None
        low, high = _get(rows, claim.a, split, claim.a.metric + LOW), _get(rows, claim.a, split, claim.a.metric + HIGH)
        return a["value"], low and low["value"], high and high["value"], a["n"]
    b = _get(rows, claim.b, split)
    if claim.kind == "difference":
        paired = f"{claim.a.system}-vs-{claim.b.system}"
        row = _get(rows, claim.a, split, system=paired)
        if row is not None:
            low = _get(rows, claim.a, split, claim.a.metric + LOW, paired)
            high = _get(rows, claim.a, split, claim.a.metric + HIGH, paired)
            return row["value"], low and low["value"], high and high["value"], row["n"]
        if a is None or b is None:
            return None
        return a["value"] - b["value"], None, None, min(a["n"], b["n"])
    if a is None or b is None:
        return None
    if b["value"] == 0:
        return None
    return a["value"] / b["value"], None, None, min(a["n"], b["n"])


def decide(side: str, threshold, value: float, low: float | None, high: float | None) -> int:
    """The verdict code for a value (and its interval, if any) against the claim's threshold."""
    low, high = (value, value) if low is None or high is None else (low, high)
    if side == ">":
        return HOLDS if low > threshold else CONTRADICTED if high <= threshold else INCONCLUSIVE
    if side == "<":
        return HOLDS if high < threshold else CONTRADICTED if low >= threshold else INCONCLUSIVE
    if side == "between":
        lo, hi = threshold
        if lo <= low and high <= hi:
            return HOLDS
        return CONTRADICTED if high < lo or low > hi else INCONCLUSIVE
    raise ValueError(f"unknown side {side!r}")


def verdict(claim: Claim, rows: dict[RowKey, dict]) -> Verdict:
    """Decide one claim from indexed result rows (:func:`index_rows`); see the module docstring."""
    for split in claim.splits:
        measured = _measure(claim, rows, split)
        if measured is not None:
            value, low, high, n = measured
            return Verdict(claim, decide(claim.side, claim.threshold, value, low, high), split, value, low, high, n)
    return Verdict(claim, UNTESTED, why="no row for " + ", ".join(_refs_text(claim)))


def _refs_text(claim: Claim) -> list[str]:
    refs = [claim.a] + ([claim.b] if claim.b else [])
    return [f"{r.notebook}: {r.dataset}/{r.system}/{r.metric}" for r in refs]


def verdicts(rows_by_notebook: dict[str, Iterable[dict]], registry: Sequence[Claim] | None = None) -> list[Verdict]:
    """Every claim of ``registry`` (default :data:`REGISTRY`) decided from the rows of the results files."""
    rows = index_rows(rows_by_notebook)
    return [verdict(claim, rows) for claim in (REGISTRY if registry is None else registry)]


def claim(claim_id: str) -> Claim:
    """The claim of :data:`REGISTRY` with this id."""
    for candidate in REGISTRY:
        if candidate.id == claim_id:
            return candidate
    raise KeyError(f"no claim {claim_id!r} in the registry")


def chapter_verdict(claim_id: str, results) -> Verdict:
    """A claim decided from a chapter's own :class:`~proofbook.core.results.Results` (the rows written so far):
    what a chapter glues when its text says whether the paper's claim holds."""
    rows = {results.notebook: [vars(row) for row in results.rows]}
    return verdict(claim(claim_id), index_rows(rows))


def chapter_verdicts(results, registry: Sequence[Claim] | None = None) -> list[Verdict]:
    """Every claim whose rows this chapter writes, decided from its :class:`~proofbook.core.results.Results`:
    the rows of a chapter's "paper vs this run" table (:func:`claims_table`)."""
    rows = index_rows({results.notebook: [vars(row) for row in results.rows]})
    return [verdict(c, rows) for c in (REGISTRY if registry is None else registry) if c.a.notebook == results.notebook]


def verdict_text(found: Verdict, digits: int = 3) -> str:
    """``"contradicted (A - B = +0.137, 95% interval +0.051 to +0.221, test)"``: what a chapter's text glues."""
    if found.code == UNTESTED:
        return f"untested ({found.why})"
    what = {"value": "value", "difference": "A - B", "ratio": "A / B"}[found.claim.kind]
    interval = f", 95% interval {found.low:+.{digits}f} to {found.high:+.{digits}f}" if found.low is not None else ""
    return f"{found.name} ({what} = {found.value:+.{digits}f}{interval}, {found.split})"


def verdict_glue(found: Iterable[Verdict]) -> dict[str, str]:
    """``{glue name: verdict text}`` for a chapter's verdicts: the claim id with ``_`` for ``-``
    (``C2a_memory_vs_dense``), and :func:`verdict_text`."""
    return {v.claim.id.replace("-", "_"): verdict_text(v) for v in found}


def verdict_rows(found: Sequence[Verdict]) -> list[dict]:
    """The verdicts as result rows: dataset ``claims``, system = claim id, metric ``verdict``."""
    return [{"dataset": "claims", "split": v.split or "none", "system": v.claim.id, "metric": "verdict",
             "value": v.code, "n": v.n} for v in found]


def unknown_rows(rows_by_notebook: dict[str, Iterable[dict]], registry: Sequence[Claim] | None = None) -> list[str]:
    """Claims that name a row which the notebook's results file does not hold on any split (a typo in a
    rule, or a renamed system): one line per row.  A notebook without a results file here is not judged."""
    present = {(k[0], k[1], k[3], k[4]) for k in index_rows(rows_by_notebook)}
    problems = []
    for claim in REGISTRY if registry is None else registry:
        for ref in [claim.a] + ([claim.b] if claim.b else []):
            if ref.notebook in rows_by_notebook and (ref.notebook, ref.dataset, ref.system, ref.metric) not in present:
                problems.append(f"claim {claim.id}: no results file holds {ref.notebook}: "
                                f"{ref.dataset}/{ref.system}/{ref.metric}")
    return problems


def load_rows(results_dir: os.PathLike | str, skip: Sequence[str] = ("report/", "reference/")) -> dict[str, list[dict]]:
    """``notebook -> rows`` of every results file under ``results_dir`` (except the report's own and the
    reference pages', which read the report), each
    checked by :func:`proofbook.core.results.load_results` and noted as read (the report's digest hashes them)."""
    found = {}
    for path in sorted(Path(results_dir).rglob("*.json")):
        data = load_results(path)
        if not any(data["notebook"].startswith(prefix) for prefix in skip):
            record_read(path)
            found[data["notebook"]] = data["rows"]
    return found


def claims_table(found: Sequence[Verdict], digits: int = 3):
    """One row per claim: id, paper, claim, the paper's number, this run (value [low, high]), split,
    the rule, the verdict, the rule's source and the chapter."""
    import pandas as pd

    def number(value, low=None, high=None):
        if value is None:
            return ""
        text = f"{value:+.{digits}f}" if abs(value) < 10 else f"{value:,.1f}"
        return text + (f" [{low:+.{digits}f}, {high:+.{digits}f}]" if low is not None and high is not None else "")

    def rule(claim):
        what = {"value": "value", "difference": "A - B", "ratio": "A / B"}[claim.kind]
        bound = f"in [{claim.threshold[0]:g}, {claim.threshold[1]:g}]" if claim.side == "between" \
            else f"{claim.side} {claim.threshold:g}"
        return f"{what} {bound}"

    return pd.DataFrame([{"claim": v.claim.id, "paper": v.claim.paper, "statement": v.claim.statement,
                          "paper's number": number(v.claim.paper_value), "this run": number(v.value, v.low, v.high),
                          "split": v.split or "", "rule": rule(v.claim), "verdict": v.name,
                          "source of the rule": v.claim.source, "chapter": v.claim.chapter} for v in found])


# --- the registry -----------------------------------------------------------------------------------

def _diff(id, paper, statement, notebook, dataset, a, b, metric, source, chapter, paper_value=None, side=">",
          threshold=0.0) -> Claim:
    return Claim(id, paper, statement, "difference", Ref(notebook, dataset, a, metric), side, threshold, source,
                 chapter, Ref(notebook, dataset, b, metric), paper_value)


_RET, _EFF, _SUF = "admiral/02_experiments", "admiral/03_efficiency", "admiral/06_sufficiency"
_WILD, _ENT, _ENT_ERR = "wild/02_experiments", "entailer/02_experiments", "entailer/03_error_analysis"
_DIRECTION = "the paper's direction, margin 0"

REGISTRY: tuple[Claim, ...] = (
    _diff("C1a-hover-2hop-gain", "admiral", "the autoregressive hop raises 2-hop recall over the initial "
          "retrieval on HoVer", _RET, "hover", "admiral", "initial", "recall@5",
          f"Aly & Vlachos 2022, Table 2: +9.1 points on HoVer; {_DIRECTION}", "admiral/02_experiments", 0.091),
    _diff("C1b-feverous-2hop-gain", "admiral", "... and on FEVEROUS-S (here with distractor pages)", _RET,
          "feverous_s+distractors", "admiral", "initial", "recall@5",
          f"Aly & Vlachos 2022, Table 2: +16.9 points on FEVEROUS-S; {_DIRECTION}", "admiral/02_experiments", 0.169),
    _diff("C1c-joint-vs-notjoint", "admiral", "decoding titles jointly with sentence pointers beats "
          "decoding them alone", _RET, "hover", "admiral", "admiral-notjoint", "recall@5",
          f"Aly & Vlachos 2022, Table 3 (Not-joint ablation); {_DIRECTION}", "admiral/02_experiments"),
    _diff("C1d-top5-vs-top1", "admiral", "keeping the top beams of the hop beats keeping only the best one",
          _RET, "hover", "admiral", "admiral-top1", "recall@5",
          f"Aly & Vlachos 2022, Table 3 (Top-1 ablation); {_DIRECTION}", "admiral/02_experiments"),
    _diff("C1e-fulltrie-gain", "admiral", "the gain with the paper's own decoding over the prefix tree of "
          "all titles", _RET, "hover", "admiral-fulltrie", "initial", "recall@5",
          f"Aly & Vlachos 2022, Table 2 (+9.1 on HoVer) in the paper's own setting; {_DIRECTION}",
          "admiral/02_experiments", 0.091),
    _diff("C1f-model-vs-mentions", "admiral", "the title model adds recall over the candidate titles it "
          "chooses from, ranked without it", _RET, "hover", "admiral", "mentions-only", "recall@5",
          "Aly & Vlachos 2022, §3: the new documents are the generator's (the paper's hop has no string-matching "
          f"step, so its whole gain is the model's); {_DIRECTION}", "admiral/02_experiments"),
    Claim("C2a-memory-vs-dense", "admiral", "the index needs 5-10x less memory than a dense index", "ratio",
          Ref(_EFF, "hover-x1", "dense-mdr", "index_bytes"), ">", 5.0,
          "Aly & Vlachos 2022, §5.3: about 10x less than MDR, 5x less than Baleen; threshold 5x",
          "admiral/03_efficiency", Ref(_EFF, "hover-x1", "admiral", "index_bytes"), 10.0),
    Claim("C2b-index-build-time", "admiral", "building the index is much faster than encoding a dense one",
          "ratio", Ref(_EFF, "hover-x1", "dense-mdr", "index_build_s"), ">", 1.0,
          "Aly & Vlachos 2022, §5.3: 2 min 32 s against 290 min for Baleen; threshold 1x (faster at all)",
          "admiral/03_efficiency", Ref(_EFF, "hover-x1", "admiral", "index_build_s"), 290 / 2.53),
    Claim("C2c-latency-flat", "admiral", "latency per claim stays flat when the knowledge base doubles",
          "value", Ref(_EFF, "hover-scaling", "admiral", "latency_growth_per_doubling"), "<", 1.3,
          "Aly & Vlachos 2022, §5.3: 2.87 s to 2.88 s for twice HoVer's KB; measured as mean latency on hover-x2 "
          "over mean latency on hover-x1, the same claims, with a paired bootstrap interval over the claims; "
          "threshold: at most 1.3x per doubling",
          "admiral/03_efficiency", paper_value=2.88 / 2.87),
    Claim("C2d-latency-at-scale", "admiral", "latency per claim stays flat from 10^4 pages to a knowledge base "
          "25x larger", "value", Ref(_EFF, "hover-scaling", "admiral", "latency_growth_from_x4"), "<", 1.3,
          "Aly & Vlachos 2022, §5.3 (latency barely grows with the KB, O(n_dyn + |D|)); measured from hover-x4 "
          "(9,016 pages) to the largest simulated size (250,000 pages by default), with a paired bootstrap interval "
          "over the claims; threshold 1.3x",
          "admiral/03_efficiency", paper_value=2.88 / 2.87),
    _diff("C3a-suff-vs-always", "admiral", "the natural-logic sufficiency rule decides better than "
          "calling every selection complete", _SUF, "hover", "suff-natlog", "suff-always", "suff_f1",
          f"Aly & Vlachos 2022, Table 6; {_DIRECTION}", "admiral/06_sufficiency"),
    _diff("C3b-suff-vs-never", "admiral", "... than calling every selection incomplete", _SUF, "hover",
          "suff-natlog", "suff-never", "suff_f1", f"Aly & Vlachos 2022, Table 6; {_DIRECTION}",
          "admiral/06_sufficiency"),
    _diff("C3c-suff-vs-classifier", "admiral", "... than a sufficiency classifier", _SUF, "hover", "suff-natlog",
          "suff-classifier", "suff_f1", f"Aly & Vlachos 2022, Table 6 (BART classifier); {_DIRECTION}",
          "admiral/06_sufficiency"),
    _diff("C3d-suff-vs-lexical", "admiral", "... than a natural-logic proof from lexical resources", _SUF, "hover",
          "suff-natlog", "suff-lexical", "suff_f1", f"Aly & Vlachos 2022, Table 6 (NatLog); {_DIRECTION}",
          "admiral/06_sufficiency"),
    _diff("C3e-suff-vs-fixed2", "admiral", "stopping by the rule retrieves as well as a fixed two iterations",
          _SUF, "hover", "suff-natlog", "fixed-2", "recall@5", f"Aly & Vlachos 2022, Table 6; {_DIRECTION}",
          "admiral/06_sufficiency"),
    Claim("C3f-fever-symmetric-verdicts", "admiral", "natural-logic proofs give verdicts on FEVER-Symmetric "
          "above the majority class", "value", Ref(_SUF, "fever_symmetric", "natlog-aligned", "verdict_acc"),
          ">", 0.5, "ProoFVer's robustness claim (Krishna et al. 2022), which AdMIRaL's prover inherits; "
          "threshold: the balanced classes' majority rate .5", "admiral/06_sufficiency"),
    _diff("W1-evidence-vs-claim-only", "wild", "retrieved evidence (claim-focused summaries) lowers the error "
          "against the claim alone (trained on the same examples)", _WILD, "claimdecomp", "web-summaries",
          "claim-only-matched", "mae",
          f"Chen et al. 2023, veracity results; {_DIRECTION} (lower MAE)", "wild/02_experiments", side="<"),
    _diff("W2-justification-upper-bound", "wild", "the gold justification is an upper bound above retrieved "
          "evidence", _WILD, "claimdecomp", "justification", "web-summaries", "mae",
          f"Chen et al. 2023, veracity results (gold-justification condition); {_DIRECTION} (lower MAE)", "wild/02_experiments", side="<"),
    _diff("W3-summaries-vs-snippets", "wild", "claim-focused summaries beat raw search snippets", _WILD,
          "claimdecomp", "web-summaries", "web-snippets", "mae",
          f"Chen et al. 2023, veracity results; {_DIRECTION} (lower MAE)", "wild/02_experiments", side="<"),
    _diff("E1-proof-vs-direct", "entailer", "answering by proof costs no accuracy against answering directly",
          _ENT, "obqa", "entailer-sampled-d1", "direct", "accuracy",
          "Tafjord et al. 2022, OBQA test: 76.8 vs 75.2; threshold: within 2 points", "entailer/02_experiments",
          0.768 - 0.752, ">", -0.02),
    _diff("E2-sampled-vs-greedy", "entailer", "sampling candidate premises beats greedy decoding", _ENT, "obqa",
          "entailer-sampled-d1", "entailer-greedy-d1", "accuracy",
          f"Tafjord et al. 2022, OBQA test: 76.8 vs 72.8; {_DIRECTION}", "entailer/02_experiments", 0.768 - 0.728),
    _diff("E3-depth1-vs-depth3", "entailer", "deeper trees (depth 3) lose a little accuracy against depth 1",
          _ENT, "obqa", "entailer-sampled-d1", "entailer-sampled-d3", "accuracy",
          f"Tafjord et al. 2022, OBQA test: 76.8 vs 74.8; {_DIRECTION}", "entailer/02_experiments", 0.768 - 0.748),
    Claim("E4-faithfulness-break", "entailer", "Entailer+Direct answers against its own proof on a minority "
          "of questions", "value", Ref(_ENT, "obqa", "entailer+direct-d1", "faithfulness_break"), "between",
          (0.10, 0.25), "Tafjord et al. 2022 (Entailer+Direct): 16.8% of OBQA questions; threshold 10-25%",
          "entailer/02_experiments", paper_value=0.168),
    Claim("E5-belief-error-share", "entailer", "about a third of the wrong answers come from false beliefs",
          "value", Ref(_ENT_ERR, "obqa", "entailer-sampled-d1", "error_share/belief"), "between", (0.23, 0.43),
          "Tafjord et al. 2022, error analysis: 33% belief; threshold: the paper's share +- 10 points",
          "entailer/03_error_analysis", paper_value=0.33),
    Claim("E6-reasoning-error-share", "entailer", "about half of the wrong answers come from faulty reasoning",
          "value", Ref(_ENT_ERR, "obqa", "entailer-sampled-d1", "error_share/reasoning"), "between", (0.37, 0.57),
          "Tafjord et al. 2022, error analysis: 47% reasoning; threshold: the paper's share +- 10 points",
          "entailer/03_error_analysis", paper_value=0.47),
)


@dataclass(frozen=True)
class Departure:
    """A change from the papers that this machine forces, and the chapter that explains it."""

    paper: str
    what: str
    why: str
    chapter: str


DEPARTURES: tuple[Departure, ...] = (
    Departure("admiral", "closed corpora pooled from the claims' gold pages, not full Wikipedia",
              "no copy of the Wikipedia text can be had offline", "admiral/02_experiments"),
    Departure("admiral", "title and hop models trained from scratch or from MiniLM, not GENRE/BART",
              "no pretrained seq2seq model installs offline", "admiral/01_method"),
    Departure("admiral", "each hop decodes over the titles its input sentences mention (`admiral`); the "
              "paper's full prefix tree is `admiral-fulltrie`", "the titles models trained here learn only "
              "a prior over titles", "admiral/02_experiments"),
    Departure("admiral", "knowledge bases of thousands of pages grown to x4, not millions",
              "time and memory of a 2-core machine", "admiral/03_efficiency"),
    Departure("admiral", "proof generator trained here (small BART with a copy pointer), not BART-large",
              "no pretrained seq2seq model installs offline", "admiral/05_natural_logic"),
    Departure("admiral", "sufficiency proofs built by aligning claim chunks to evidence spans and predicting each "
              "pair's operator in context (QA-NatVer's design for small models), not generated; the generator "
              "is the `suff-natlog-generated` system", "the generator trained here calls complete and "
              "incomplete selections sufficient at nearly the same rate", "admiral/06_sufficiency"),
    Departure("wild", "cached search results and questions of the released data instead of live Bing "
              "search and text-davinci-003", "no network; the model is retired", "wild/01_method"),
    Departure("wild", "MiniLM veracity classifier instead of DeBERTa-large", "CPU time and offline weights",
              "wild/02_experiments"),
    Departure("entailer", "MiniLM truth and entailment scorers and a premise generator trained here, not T5-11B",
              "no pretrained seq2seq model installs offline, and no GPU", "entailer/01_method"),
    Departure("entailer", "OBQA dev (and QASC) instead of OBQA test and QuaRTz", "the test split is held back "
              "for independent evaluation; QuaRTz is not in the data", "entailer/02_experiments"),
    Departure("entailer", "candidate premise sets from the trained generator and from WorldTree facts retrieved "
              "for the hypothesis (the mixed source), not written by the model alone",
              "the generator trained here writes mostly false or garbled premises; retrieval proposes true "
              "sentences that the same scorers judge", "entailer/02_experiments"),
)
