"""Tables of claims in the wild's chapters: one claim's search results, windows, spans, summaries and
predictions, the results table and the error by gold label, as pandas frames for the notebooks to show."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from proofbook.core import intervals
from proofbook.data.politifact_text import LABELS
from proofbook.models.llm import endpoint_configured
from proofbook.wild.datasets import WildData
from proofbook.wild.decomposition import LLMQuestions, default_shots
from proofbook.wild.wild_experiments import Run
from proofbook.wild.pipeline import Trace
from proofbook.wild.search import Page, SearchOutcome, apply_filters, as_query, snippet_date
from proofbook.wild.summaries import LLMSummariser
from proofbook.wild.veracity_metrics import mae_by_label


def search_frame(data: WildData, claim):
    """Every cached result of a claim with what the filters did to it (kept, or the reason it was dropped)."""
    import pandas as pd


    when, seen, rows = as_query(claim).date, set(), []
    for r in data.search_cache[claim.example_id]:
        page = Page(r.url, r.title, r.snippet, snippet_date(r.snippet), r.question)
        outcome = SearchOutcome([])
        kept = apply_filters([page], when, outcome, seen)
        rows.append({"question": r.question, "url": r.url, "title": r.title,
                     "page date": page.date, "filter": "kept" if kept else next(iter(outcome.dropped))})
    return pd.DataFrame(rows)


def windows_frame(trace: Trace, top: int = 10):
    """The K1 kept windows: document, token span, best BM25 score, the question that gave it, the text."""
    import pandas as pd

    questions = list(dict.fromkeys(p.question for p in trace.search.pages if p.question)) or trace.questions
    return pd.DataFrame([{"document": w.doc, "tokens": f"{w.start}-{w.end}", "bm25": round(w.score, 3),
                          "question": questions[w.question] if w.question is not None else "",
                          "window": trace.retrieval.span_text(w)} for w in trace.retrieval.kept[:top]])


def spans_frame(trace: Trace):
    """Expanded and merged spans of the kept documents, in rank order."""
    import pandas as pd

    rows = []
    for rank, doc in enumerate(trace.retrieval.documents, 1):
        for span in trace.retrieval.evidence[doc]:
            rows.append({"rank": rank, "document": doc, "title": trace.search.pages[doc].title,
                         "tokens": f"{span.start}-{span.end} of {len(trace.retrieval.tokens[doc])}",
                         "best window bm25": round(span.score, 3)})
    return pd.DataFrame(rows)


def summaries_frame(trace: Trace):
    """The kept documents in rank order: title, fine-grained evidence and summary."""
    import pandas as pd

    return pd.DataFrame([{"rank": i + 1, "title": page.title, "evidence": text, "summary": summary}
                         for i, (page, text, summary) in enumerate(zip(trace.documents, trace.evidence_texts,
                                                                       trace.summaries))])


def predictions_frame(probabilities: dict[str, np.ndarray]):
    """Label probabilities per condition (rows) in the paper's label order (columns), with the prediction."""
    import pandas as pd

    frame = pd.DataFrame({system: p for system, p in probabilities.items()}, index=list(LABELS)).T
    frame["prediction"] = frame[list(LABELS)].idxmax(axis=1)
    return frame


def results_table(rows: Sequence[dict]):
    """Rows as a table: (dataset, split, system) x metric."""
    import pandas as pd

    frame = pd.DataFrame(rows)
    return frame.pivot_table(index=["dataset", "split", "system"], columns="metric", values="value", sort=False)


def llm_questions(data: WildData, claim) -> list[str] | None:
    """The paper's LLM decomposition of one claim when an endpoint is configured (else ``None``)."""

    if not endpoint_configured():
        return None
    return LLMQuestions(default_shots(data.finetune_train)).questions(claim)


def llm_summaries(trace: Trace) -> list[str] | None:
    """The paper's LLM summaries of a trace's documents when an endpoint is configured (else ``None``)."""

    if not endpoint_configured():
        return None
    return LLMSummariser().summarise_many(trace.claim.claim, trace.questions, trace.evidence_texts)


def mae_by_label_frame(run: Run, systems: Sequence[str], dataset: str = "claimdecomp", split: str = "test",
                       seed: int = 0):
    """``(table, rows)``: MAE of each system by gold label (rows: label and claim count), and result rows,
    each MAE with its 95% bootstrap interval over that label's claims."""
    import pandas as pd


    table, rows = {}, []
    for system in systems:
        p = run.predictions[(dataset, split, system)]
        gold, predicted = np.asarray(p["gold"]), np.asarray(p["predicted"])
        for label, (value, n) in mae_by_label(p["gold"], p["predicted"]).items():
            table.setdefault((LABELS[label], n), {})[system] = value
            errors = np.abs(predicted[gold == label] - label).astype(float).tolist()
            rows += intervals.mean_rows(dict(dataset=dataset, split=split, system=system),
                                        f"mae/{LABELS[label]}", errors, seed)
    index = pd.MultiIndex.from_tuples(list(table), names=["gold label", "claims"]) if table else None
    return pd.DataFrame(list(table.values()), index=index, columns=list(systems)), rows


def seeds_frame(rows: Sequence[dict], metric: str = "mae", dataset: str = "claimdecomp", split: str = "test"):
    """``metric`` under each training seed on one evaluation split: a row per system or paired difference with
    per-seed rows (:func:`~proofbook.wild.wild_experiments.seeded_metric_rows`), a column per seed, then the mean
    over the seeds and their spread.  A run with one seed has no per-seed rows: an empty frame."""
    import pandas as pd

    mine = {(r["system"], r["metric"]): r["value"] for r in rows if (r["dataset"], r["split"]) == (dataset, split)}
    prefix = f"{metric}:seed"
    seeds = sorted({int(m[len(prefix):]) for _, m in mine if m.startswith(prefix) and m[len(prefix):].isdigit()})
    systems = list(dict.fromkeys(s for s, m in mine if m == f"{prefix}{seeds[0]}")) if seeds else []
    table = {system: {**{f"seed {s}": mine[system, f"{prefix}{s}"] for s in seeds}, "mean": mine[system, metric],
                      "spread": mine[system, f"{metric}:seed_spread"]} for system in systems}
    return pd.DataFrame.from_dict(table, orient="index")
