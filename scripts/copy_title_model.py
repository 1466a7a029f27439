"""Measure the title models with and without a copy head over the full prefix tree, and where the loop loses pages.

AdMIRaL's hop models (``proofbook.admiral.retrieval.autoregressive``) are small BARTs trained here from
scratch; without a copy head they learn a prior over titles and do not copy a title from their input over the
prefix tree of all corpus titles.  The book's models have one (``TrainingSettings.hop_copy``: a
pointer-generator distribution, :class:`proofbook.models.pointer.CopyBart`, See et al. 2017).  This script
trains the components both ways (the book's settings otherwise) and measures them on the training claims that
model selection holds apart (never the evaluation claims), beyond what the retrieval chapter shows:

* title accuracy at hop 0 (claim -> title) and hop 1 (claim + sentences -> next title): the best beam
  (top-1) and any of the first five beams (top-5) is a gold title not yet in the input, decoding over
  the corpus's full title tree;
* recall@5 of the two-iteration loop over the full tree (the paper's setting) on HoVer, beside the
  book's initial retrieval, its no-copy full-tree system, its mention-narrowed system and mentions-only;
* for hop 1, whether each example's gold title is written in its input (copyable);
* where the loop loses the pages (``trace_rows``): per claim of each full-tree system, whether a gold page
  is still missing after iteration 1, whether the hop's input holds a gold sentence, whether a missing
  title is written in that input or in the narrowed stand-in's candidate set, how many of the decoder's
  distinct titles are pages already retrieved (dropped after decoding), and the rank of the first
  missing gold title among them;
* a variant that drops the retrieved pages from the prefix tree before decoding (``copy-masked``), so that
  no beam is spent on a title the loop would drop.

Each value comes with its 95% bootstrap interval and each copy/no-copy pair with its paired interval.

    PROOFBOOK_DATA=data python scripts/copy_title_model.py --output /tmp/copy_title_model.json
    python scripts/copy_title_model.py --smoke          # a few claims: every step runs, numbers mean nothing
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from proofbook.admiral.retrieval import retrieval_experiments as rx
from proofbook.admiral.retrieval.hop_examples import written_in
from proofbook.admiral.retrieval.metrics import per_claim_metrics
from proofbook.admiral.retrieval.multihop import Admiral, MentionsOnly
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache
from proofbook.core.paths import resolve_data_dir

DATASETS = ("hover", "feverous_s")


class Masked:
    """A hop model whose prefix tree, per query, leaves out the pages the loop has already retrieved.

    ``seen`` maps a claim to those pages (the initial top documents); decoding is over every other corpus
    title, a few queries at a time (a per-query tree of the whole corpus is large)."""

    def __init__(self, model, titles, seen: dict[str, set]):
        self.model, self.titles, self.seen = model, list(titles), seen

    def generate_batch(self, queries, beam: int = 25, candidates=None, **kwargs):
        out = []
        for start in range(0, len(queries), 4):
            chunk = queries[start:start + 4]
            lists = [[t for t in self.titles if t not in self.seen[claim]] for claim, _ in chunk]
            out += self.model.generate_batch(chunk, beam=beam, candidates=lists, **kwargs)
        return out


def trace_rows(task, name: str, run, hop_model, linker: Admiral, claims, settings) -> list[dict]:
    """Where a full-tree system loses the missing pages, per claim (see the module docstring)."""
    base = {"dataset": task.dataset, "split": "train-held-apart", "system": name}
    cfg = linker.config
    flags: dict[str, list[float]] = {}
    hopped = [(t, c) for t, c in zip(run, claims) if t.hops]
    raw = hop_model.generate_batch([(t.claim, t.hops[0].input_sentences) for t, _ in hopped], beam=cfg.beam)
    for (trace, claim), beams in zip(hopped, raw):
        hop = trace.hops[0]
        seen = set(trace.initial_ranking()[:cfg.rerank_documents])
        missing = [g for g in claim.gold_titles if g not in seen]
        titles = [b.title for b in beams]
        record = {"missing_after_initial": bool(missing),
                  "input_has_gold_sentence": any(s.title in claim.gold_titles for s in hop.input_sentences),
                  "input_has_gold_sentence_of_seen_page": any(s.title in claim.gold_titles and s.title in seen
                                                              for s in hop.input_sentences),
                  "raw_titles_already_retrieved": sum(t in seen for t in titles) / max(1, len(titles)),
                  "kept_written_in_input": (sum(written_in(t, trace.claim, hop.input_sentences) for t in hop.new_documents)
                                            / max(1, len(hop.new_documents)))}
        if missing:
            ranks = [i for i, t in enumerate(titles) if t in missing]
            record.update({
                "missing_written_in_input": any(written_in(g, trace.claim, hop.input_sentences) for g in missing),
                "missing_in_narrowed_candidates": bool(set(missing) & set(linker.linked_titles(trace.claim,
                                                                                               hop.input_sentences))),
                "missing_in_raw_beams": bool(ranks),
                "missing_in_raw_top5": bool(ranks) and ranks[0] < 5,
                "missing_kept": bool(set(missing) & set(hop.new_documents))})
        for key, value in record.items():
            flags.setdefault(key, []).append(float(value))
    return [row for key, values in flags.items()
            for row in intervals.mean_rows(base, key, values, settings.seed)]


def loop_rows(task, components, copy: dict, settings, smoke: bool) -> list[dict]:
    """Recall@5 (and the rest of the book's retrieval metrics) of the loop on held-apart HoVer training claims;
    ``components`` without the copy head, ``copy`` the hop models with it."""
    claims = rx.held_apart(task, settings)
    texts, ids = [c.claim for c in claims], [c.id for c in claims]
    linked = rx.book_config(smoke)
    full = dataclasses.replace(linked, hop_titles="corpus")
    book = rx.build_admiral(task, components, linked)
    traces = book.retrieve_many(texts)
    fulltrie = rx.build_admiral(task, components, full).retrieve_many(texts, initial=traces)
    mentions = Admiral(task.corpus, book.index, components.reranker,
                       {0: rx.for_corpus(components.hop_models[0], task),
                        1: MentionsOnly(components.reranker, task.corpus)}, linked).retrieve_many(texts, initial=traces)
    copy_models_here = {hop: rx.for_corpus(model, task) for hop, model in copy.items()}
    copy_traces = Admiral(task.corpus, book.index, components.reranker, copy_models_here,
                          full).retrieve_many(texts)
    copy_hop_only = Admiral(task.corpus, book.index, components.reranker, copy_models_here,
                            full).retrieve_many(texts, initial=traces)
    seen = {t.claim: set(t.initial_ranking()[:full.rerank_documents]) for t in traces}
    masked = Admiral(task.corpus, book.index, components.reranker,
                     {0: copy_models_here[0], 1: Masked(copy_models_here[1], task.corpus.titles, seen)},
                     full).retrieve_many(texts, initial=traces)
    runs = {"admiral-mentions": traces, "admiral": fulltrie, "mentions-only": mentions,
            "copy-fulltrie": copy_traces, "copy-hop-fulltrie": copy_hop_only, "copy-masked": masked}
    rankings = {"initial": [t.initial_ranking() for t in traces],
                "copy-initial": [t.initial_ranking() for t in copy_traces]}
    for name, run in runs.items():
        rankings[name] = [t.ranking() for t in run]
        rankings[f"{name}-top1"] = [t.ranking(top1=True) for t in run]
    values = {name: per_claim_metrics(dict(zip(ids, ranked)), claims, by_hops=False)
              for name, ranked in rankings.items()}
    base = {"dataset": task.dataset, "split": "train-held-apart"}
    rows = [row for name, per in values.items() for metric in ("recall@5", "recall@10", "em")
            for row in intervals.mean_rows({**base, "system": name}, metric, per[metric], settings.seed)]
    for name, run in runs.items():       # what the hops added: new pages per claim, and whether one is gold
        new = [[title for hop in t.hops for title in hop.new_documents] for t in run]
        rows += intervals.mean_rows({**base, "system": name}, "new_documents", [len(n) for n in new], settings.seed)
        rows += intervals.mean_rows({**base, "system": name}, "new_gold",
                                    [float(bool(set(n) & set(c.gold_titles))) for n, c in zip(new, claims)],
                                    settings.seed)
        rows += intervals.mean_rows({**base, "system": name}, "best_beam_gold",
                                    [float(any(h.new_documents[:1] and h.new_documents[0] in c.gold_titles
                                               for h in t.hops)) for t, c in zip(run, claims)], settings.seed)
    for a, b in (("copy-fulltrie", "initial"), ("copy-fulltrie", "admiral"),
                 ("copy-fulltrie", "mentions-only"), ("copy-fulltrie", "copy-initial"),
                 ("copy-fulltrie-top1", "initial"), ("copy-fulltrie-top1", "copy-initial"),
                 ("copy-hop-fulltrie", "initial"), ("copy-hop-fulltrie-top1", "initial"),
                 ("copy-masked", "initial"), ("copy-masked-top1", "initial"), ("copy-masked", "copy-hop-fulltrie"),
                 ("admiral", "initial"), ("admiral-mentions", "initial"), ("mentions-only", "initial")):
        for metric in ("recall@5", "recall@10"):
            rows += intervals.difference_rows(base, a, b, metric, values[a][metric], values[b][metric], settings.seed)
    book_hop = rx.for_corpus(components.hop_models[1], task)
    for name, run, model in (("admiral", fulltrie, book_hop), ("copy-hop-fulltrie", copy_hop_only,
                                                                        copy_models_here[1])):
        rows += trace_rows(task, name, run, model, book, claims, settings)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the data directory (default: $PROOFBOOK_DATA, else data/)")
    parser.add_argument("--beam", type=int, default=25, help="beam of the title-accuracy decoding")
    parser.add_argument("--output", default=None, help="write the result rows here as JSON")
    parser.add_argument("--smoke", action="store_true", help="a few claims and tiny models")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    settings = rx.TrainingSettings.smoke() if args.smoke else rx.TrainingSettings()
    data_path = resolve_data_dir(args.data_dir)
    tasks = [load_task(name, data_path) for name in DATASETS]
    if args.smoke:
        tasks = [smoke_task(task) for task in tasks]
    cache = ArtifactCache()
    with_copy = rx.train_components(tasks, dataclasses.replace(settings, hop_copy=True), cache)
    components = rx.train_components(tasks, dataclasses.replace(settings, hop_copy=False), cache)
    copy = {hop: with_copy.hop_models[hop] for hop in (0, 1)}
    rows = []
    for task in tasks:
        for hop in (0, 1):
            rows += rx.title_accuracy_rows(task, {"no-copy": components.hop_models[hop], "copy": copy[hop]}, hop,
                                           settings, args.beam)
    rows += loop_rows(tasks[0], components, copy, settings, args.smoke)
    summary = {"settings": dataclasses.asdict(settings), "beam": args.beam,
               "seconds": round(time.perf_counter() - started, 1), "rows": rows}
    if args.output:
        Path(args.output).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    for row in rows:
        if not intervals.is_interval(row["metric"]):
            print(f"{row['dataset']:>11} {row['system']:>36} {row['metric']:>26} {row['value']:.3f}  n={row['n']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
