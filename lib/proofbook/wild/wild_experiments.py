"""What the claims-in-the-wild notebooks call: data, training sets, models, the pipeline, runs, rows.

Chen et al. (2023); the systems, datasets and metrics are those of ``wild/02_experiments``.  The notebooks
only call this module and display what it returns.

* :func:`proofbook.wild.datasets.load_data` -- every file the chapter reads from ``data_dir`` (ClaimDecomp dev/test, the
  fine-tuning chats, the search cache and cached questions, LIAR, LIAR-PLUS ``val2``).
* :func:`training_sets` -- the two veracity training sets with the near-duplicates of their evaluation
  claims removed (counted): ``claim-only`` = LIAR train (evaluated on ClaimDecomp test and dev, LIAR
  valid/test); ``evidence`` = LIAR-PLUS ``val2`` with its justifications + ClaimDecomp dev with its
  justifications (evaluated on ClaimDecomp test only, so its dev rows are not reported).  By default the
  evidence classifier starts from the trained claim-only classifier (``evidence_from_claim_only``): 1.3k
  claims with evidence are too few to learn the six labels from scratch, and this way the two systems
  differ only by the evidence fine-tuning.  ``claim-only-matched`` takes the same path on the *same*
  examples with the evidence removed (claim-only model, then fine-tuned on LIAR-PLUS ``val2`` + ClaimDecomp
  dev without their justifications), so that it and the evidence conditions differ only in the input
  text, not in what they were trained on.
* :func:`train_models` -- both classifiers and the question generator, each through the ArtifactCache, in one
  :class:`~proofbook.wild.trained_models.Models`.
* :class:`proofbook.wild.pipeline.Pipeline` -- one claim through the five stages (decomposition, search, fine-grained
  retrieval, summaries, veracity), with the time of each stage.
* :func:`run_experiments` -- every system of ``wild/02_experiments`` on the evaluation claims, predictions
  cached; :func:`metric_rows` turns a run into result rows.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache, file_fingerprint
from proofbook.core.codecs import json_codec
from proofbook.core.examples import by_id
from proofbook.core.settings import ComponentSettings
from proofbook.data import politifact as pf
from proofbook.data.politifact_text import LABELS
from proofbook.index.dense import SentenceEmbedder
from proofbook.wild.datasets import WildData
from proofbook.wild.decomposition import (AnnotatedQuestions, GeneratorSettings, TrainedQuestionGenerator,
                                          question_recall)
from proofbook.wild.pipeline import Pipeline, Trace, replay_pipeline
from proofbook.wild.summaries import ExtractiveSummariser
from proofbook.wild.trained_models import Models
from proofbook.wild.veracity import (VeracityClassifier, VeracityExample, VeracitySettings, claimdecomp_examples,
                                     constant_predictions, liar_examples, remove_near_duplicates, strip_verdict)
from proofbook.wild.veracity_metrics import macro_f1, veracity_metrics

PAPER = "wild"
CLAIM_SYSTEMS = ("claim-only", "claim-only-matched", "justification", "web-snippets", "web-summaries",
                 "always-half-true")
EVIDENCE_SYSTEMS = ("justification", "web-snippets", "web-summaries")


# --- settings ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class WildSettings(ComponentSettings):
    """Sizes of one run (every field keys the cached run).  The full-size defaults fit the chapter's time budget."""

    #: raised when what a run computes changes (2: the test-time justification has its verdict sentences
    #: removed, as the training justifications always had)
    CODE_VERSION = {"version": 2}

    # lr 1e-4: on 1,200 LIAR claims (1 epoch, loaded machine) it gave selection MAE 1.31 vs 1.41 at 5e-5
    claim_only: VeracitySettings = VeracitySettings(max_length=64, epochs=1, batch_size=16, lr=1e-4)
    evidence: VeracitySettings = VeracitySettings(max_length=160, epochs=2, batch_size=16, lr=1e-4)
    generator: GeneratorSettings = GeneratorSettings()
    summary_threshold: float = 0.4
    evidence_from_claim_only: bool = True   # the evidence classifier continues from the claim-only one
    seed: int = 0

    @classmethod
    def full(cls, seed: int = 0) -> "WildSettings":
        """The full-size defaults, with ``seed`` given to both classifiers and the question generator."""
        return cls().with_seed(seed)

    def with_seed(self, seed: int) -> "WildSettings":
        """These settings with ``seed`` given to both classifiers, the question generator and the run."""
        return replace(self, claim_only=replace(self.claim_only, seed=seed), evidence=replace(self.evidence, seed=seed),
                       generator=replace(self.generator, seed=seed), seed=seed)

    @classmethod
    def smoke(cls, seed: int = 0) -> "WildSettings":
        """Tiny models: every step runs, the numbers mean nothing."""
        tiny = dict(epochs=1, batch_size=8, limit=32, evaluations_per_epoch=2, seed=seed)
        return cls(claim_only=VeracitySettings(max_length=32, **tiny), evidence=VeracitySettings(max_length=48, **tiny),
                   generator=GeneratorSettings.smoke(seed), seed=seed)


# --- data ----------------------------------------------------------------------------------------


# --- training sets and models --------------------------------------------------------------------

@dataclass
class TrainingSet:
    """One veracity training set: its examples, the near-duplicates removed, where it comes from and the
    evaluation claims it was cleaned against."""
    name: str
    examples: list[VeracityExample]
    removed: int
    sources: str
    cleaned_against: str


def training_sets(data: WildData) -> dict[str, TrainingSet]:
    """The claim-only and evidence training sets, near-duplicates of their evaluation claims removed."""
    every_evaluation = [c.claim for c in data.claimdecomp.get("test", []) + data.claimdecomp.get("dev", [])]
    every_evaluation += [s.statement for name in ("valid", "test") for s in data.liar.get(name, [])]
    claim_only, removed_a = remove_near_duplicates(liar_examples(data.liar["train"]), every_evaluation)
    evidence_raw = liar_examples(data.liar_plus_val2, "justification")
    evidence_raw += claimdecomp_examples(data.claimdecomp.get("dev", []), "justification")
    evidence_raw = [e for e in evidence_raw if e.evidence.strip()]
    evidence, removed_b = remove_near_duplicates(evidence_raw, [c.claim for c in data.claimdecomp["test"]])
    return {
        "claim-only": TrainingSet("claim-only", claim_only, removed_a, "LIAR train (no evidence)",
                                  "ClaimDecomp test + dev, LIAR valid (+ test when present)"),
        "claim-only-matched": TrainingSet("claim-only-matched", [replace(e, evidence="") for e in evidence], removed_b,
                                          "the evidence set's examples without their evidence; by default "
                                          "continuing from the claim-only model", "ClaimDecomp test"),
        "evidence": TrainingSet("evidence", evidence, removed_b,
                                "LIAR-PLUS val2 + ClaimDecomp dev, each with its justification (verdict sentences removed) as "
                                "evidence; by default continuing from the claim-only model",
                                "ClaimDecomp test"),
    }


def train_models(data: WildData, settings: WildSettings, cache: ArtifactCache | None = None,
                 generator: bool = True, progress: bool = True) -> Models:
    """Both classifiers (and the question generator), each built once per settings and data."""
    cache = cache or ArtifactCache()
    sets = training_sets(data)
    seconds = {}
    start = time.perf_counter()
    claim_only = VeracityClassifier.cached("wild-veracity-claim-only", sets["claim-only"].examples,
                                           settings.claim_only, cache, progress)
    seconds["claim-only classifier"] = time.perf_counter() - start
    start = time.perf_counter()
    evidence_settings = settings.evidence
    if settings.evidence_from_claim_only:
        evidence_settings = replace(evidence_settings, checkpoint=str(claim_only.folder))
    evidence = VeracityClassifier.cached("wild-veracity-evidence", sets["evidence"].examples, evidence_settings,
                                         cache, progress)
    seconds["evidence classifier"] = time.perf_counter() - start
    start = time.perf_counter()
    matched = VeracityClassifier.cached("wild-veracity-claim-only-matched", sets["claim-only-matched"].examples,
                                        evidence_settings, cache, progress)
    seconds["claim-only classifier on the evidence examples"] = time.perf_counter() - start
    trained = None
    if generator:
        start = time.perf_counter()
        trained = TrainedQuestionGenerator.cached(data.finetune_train, settings.generator, cache,
                                                  data=data.root / pf.CLAIMDECOMP_FOLDER / "finetune_train.jsonl",
                                                  progress=progress)
        seconds["question generator"] = time.perf_counter() - start
    return Models(claim_only, evidence, trained, seconds, matched)


# --- the pipeline --------------------------------------------------------------------------------


# --- runs ----------------------------------------------------------------------------------------

@dataclass
class Run:
    """Predictions of every system: ``predictions[(dataset, split, system)] = {"ids", "gold", "predicted"}``."""

    predictions: dict[tuple[str, str, str], dict]
    evidence: dict[str, dict[str, str]]          # condition -> claim id -> evidence text (ClaimDecomp test)
    question_recall: dict[str, tuple[float, int]]
    search_dropped: dict[str, int]
    seconds: dict[str, float]

    def to_json(self) -> dict:
        """A JSON-able copy (the prediction keys as lists), for the artifact cache."""
        return {"predictions": [{"key": list(k), **v} for k, v in self.predictions.items()],
                "evidence": self.evidence, "question_recall": {k: list(v) for k, v in self.question_recall.items()},
                "search_dropped": self.search_dropped, "seconds": self.seconds}

    @classmethod
    def from_json(cls, obj: dict) -> "Run":
        """The run that :meth:`to_json` wrote."""
        predictions = {tuple(p["key"]): {k: v for k, v in p.items() if k != "key"} for p in obj["predictions"]}
        return cls(predictions, obj["evidence"], {k: tuple(v) for k, v in obj["question_recall"].items()},
                   obj["search_dropped"], obj["seconds"])


def web_evidence(claims: Sequence, pipeline: Pipeline, progress: bool = True) -> tuple[dict, dict, dict]:
    """``(snippets, summaries, dropped)``: the two web-evidence texts per claim id, and filter counts."""

    snippets, summaries, dropped = {}, {}, {}
    for claim in tqdm(claims, desc="web evidence", disable=not progress, leave=False):
        trace = pipeline.run(claim, predict=False)
        snippets[str(claim.example_id)] = trace.web_snippets
        summaries[str(claim.example_id)] = trace.web_summaries
        for reason, count in trace.search.dropped.items():
            dropped[reason] = dropped.get(reason, 0) + count
    return snippets, summaries, dropped


def _claim_examples(dataset: str, records: Sequence) -> list[VeracityExample]:
    return claimdecomp_examples(records) if dataset == "claimdecomp" else liar_examples(records)


def compute_run(data: WildData, models: Models, settings: WildSettings, progress: bool = True) -> Run:
    """Every system on ``data.evaluation`` (see the module docstring)."""
    predictions, seconds = {}, {}

    def record(dataset, split, system, examples, predicted):
        predictions[(dataset, split, system)] = {"ids": [e.claim_id for e in examples],
                                                 "gold": [e.label_index for e in examples],
                                                 "predicted": [int(p) for p in predicted]}

    for (dataset, split), records in data.evaluation.items():
        examples = _claim_examples(dataset, records)
        start = time.perf_counter()
        record(dataset, split, "claim-only", examples, models.claim_only.predict(examples, progress=progress))
        seconds[f"{dataset}/{split}/claim-only"] = time.perf_counter() - start
        record(dataset, split, "always-half-true", examples, constant_predictions(examples))

    evidence: dict[str, dict[str, str]] = {}
    dropped: dict[str, int] = {}
    if ("claimdecomp", "test") in data.evaluation:
        claims = data.evaluation[("claimdecomp", "test")]
        start = time.perf_counter()
        pipeline = replay_pipeline(data, summariser=ExtractiveSummariser(threshold=settings.summary_threshold))
        snippets, summaries, dropped = web_evidence(claims, pipeline, progress)
        seconds["web evidence (search, fine-grained retrieval, summaries)"] = time.perf_counter() - start
        if models.claim_only_matched is not None:
            plain = claimdecomp_examples(claims)
            record("claimdecomp", "test", "claim-only-matched", plain,
                   models.claim_only_matched.predict(plain, progress=progress))
        justification = {str(c.example_id): test_justification(c) for c in claims}
        evidence = {"justification": justification, "web-snippets": snippets, "web-summaries": summaries}
        for system in EVIDENCE_SYSTEMS:
            examples = _evidence_examples(claims, evidence[system])
            start = time.perf_counter()
            record("claimdecomp", "test", system, examples, models.evidence.predict(examples, progress=progress))
            seconds[f"claimdecomp/test/{system}"] = time.perf_counter() - start

    recall = {}
    test_claims = data.evaluation.get(("claimdecomp", "test"))
    if test_claims:

        embedder = SentenceEmbedder("minilm", max_length=64)
        annotated = [AnnotatedQuestions().questions(c) for c in test_claims]
        systems = {"questions-cached": [data.cached_questions.get(c.example_id, []) for c in test_claims],
                   # a reference point for the metric, not a decomposition: the claim itself as one question
                   "claim-as-question": [[f"Is it true that {c.claim}"] for c in test_claims]}
        if models.generator is not None:
            start = time.perf_counter()
            systems["questions-trained"] = models.generator.questions_many(test_claims)
            seconds["question generation"] = time.perf_counter() - start
        recall = {name: (question_recall(annotated, generated, embedder), sum(map(len, annotated)))
                  for name, generated in systems.items()}
        evidence["questions-trained"] = {str(c.example_id): "\n".join(q) for c, q in
                                         zip(test_claims, systems.get("questions-trained", []))}
    return Run(predictions, evidence, recall, dropped, seconds)


def test_justification(claim) -> str:
    """The justification an evaluation claim's ``justification`` condition reads: PolitiFact's text with the
    sentences that state or define the rating removed, exactly as in training (``strip_verdict``)."""
    return strip_verdict(" ".join(" ".join(p.split()) for p in claim.justification))



def run_experiments(data: WildData, models: Models, settings: WildSettings, cache: ArtifactCache | None = None,
                    progress: bool = True) -> Run:
    """:func:`compute_run`, cached as JSON (key: settings, evaluation claims, data files)."""
    cache = cache or ArtifactCache()
    config = settings.cache_config(
        generator=models.generator is not None, systems=CLAIM_SYSTEMS, matched=models.claim_only_matched is not None,
        evaluation={f"{d}/{s}": [str(getattr(r, "example_id", getattr(r, "id", ""))) for r in records]
                    for (d, s), records in data.evaluation.items()},
        data=file_fingerprint(data.files()))
    saved = cache.get_or_build("wild-run", config, lambda: compute_run(data, models, settings, progress).to_json(),
                               *json_codec("run.json"))
    return Run.from_json(saved)


#: the paired comparisons ``A-vs-B`` on the same claims: each evidence condition against the claim alone
#: trained on the same examples (``claim-only-matched``) and against the book's first claim-only model,
#: the gold justification (the upper bound) against retrieved evidence, summaries against snippets
COMPARISONS = (("web-summaries", "claim-only-matched"), ("web-snippets", "claim-only-matched"),
               ("justification", "claim-only-matched"), ("web-summaries", "claim-only"), ("web-snippets", "claim-only"),
               ("justification", "claim-only"), ("justification", "web-summaries"), ("justification", "web-snippets"),
               ("web-summaries", "web-snippets"))


def metric_rows(run: Run, seed: int = 0) -> list[dict]:
    """Result rows (:mod:`proofbook.core.results`) for every system and metric of a run, each veracity metric with
    its 95% bootstrap interval over the claims, and the paired differences of :data:`COMPARISONS` in accuracy
    and MAE."""

    rows = []
    for (dataset, split, system), p in run.predictions.items():
        gold, predicted = np.asarray(p["gold"]), np.asarray(p["predicted"])
        base = dict(dataset=dataset, split=split, system=system)
        values = veracity_metrics(gold, predicted)
        for metric, per_claim in _per_claim(gold, predicted).items():
            rows += intervals.mean_rows(base, metric, per_claim, seed)
        low, high = intervals.interval(lambda idx: macro_f1(gold[idx], predicted[idx]), len(gold), seed)
        rows += intervals.interval_rows({**base, "metric": "macro_f1", "value": values["macro_f1"], "n": len(gold)},
                                        low, high)
    for (dataset, split, system_a), p in run.predictions.items():
        for a, b in COMPARISONS:
            other = run.predictions.get((dataset, split, b))
            if system_a != a or other is None:
                continue
            if list(p["ids"]) != list(other["ids"]):
                raise ValueError(f"{dataset} {split}: {a} and {b} were not run on the same claims in the same order")
            mine, theirs = (_per_claim(np.asarray(q["gold"]), np.asarray(q["predicted"])) for q in (p, other))
            for metric in ("accuracy", "mae"):
                rows += intervals.difference_rows(dict(dataset=dataset, split=split), a, b, metric, mine[metric],
                                                  theirs[metric], seed)
    for system, (value, n) in run.question_recall.items():
        rows.append(dict(dataset="claimdecomp", split="test", system=system, metric="question_recall", value=value, n=n))
    return rows


#: the metrics whose value under each training seed is written beside the mean (``mae:seed1``, ``mae:seeds``,
#: ``mae:seed_spread``): MAE, the metric of the paper's claims, and macro-F1
SEEDED_METRICS = ("mae", "macro_f1")


def training_seeds(seed: int, seeds: int) -> list[int]:
    """The training seeds of a run with ``seeds`` seeds from ``seed``: ``seed, seed + 1, ...``."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1 (the chapter's own seed), got {seeds}")
    return list(range(seed, seed + seeds))


def seed_runs(data: WildData, settings: WildSettings, seeds: Sequence[int], cache: ArtifactCache | None = None,
              progress: bool = True) -> dict[int, Run]:
    """``seed -> run`` for further training seeds: both classifiers (and ``claim-only-matched``) trained, or loaded
    from the cache, with ``settings`` but that seed, and every system run on the same evaluation claims.  The
    question generator is trained for the chapter's own seed only: no veracity system reads it."""
    found = {}
    for seed in seeds:
        seeded = settings.with_seed(seed)
        models = train_models(data, seeded, cache, generator=False, progress=progress)
        found[seed] = run_experiments(data, models, seeded, cache, progress)
    return found


def seeded_metric_rows(runs: dict[int, Run], seed: int = 0) -> list[dict]:
    """:func:`metric_rows` for runs of the same claims whose classifiers were trained with different seeds
    (``training seed -> run``; the first is the chapter's own).

    With one run it is :func:`metric_rows`.  With several, every veracity metric of every system and paired
    difference is the mean over the seeds, and its interval a two-level bootstrap over seeds and claims
    (:func:`proofbook.core.intervals.seeded_paired_difference`; macro-F1, which is not a mean over claims, by the
    same draws), so it covers the spread between trainings as well as the choice of claims.  For
    :data:`SEEDED_METRICS` each also gets its value under every seed, the number of seeds and their spread (the
    largest minus the smallest).  Question recall is the first seed's (the generator is trained once).
    """
    seeds = list(runs)
    first = runs[seeds[0]]
    if len(seeds) == 1:
        return metric_rows(first, seed)
    keys = [key for key in first.predictions if all(key in run.predictions for run in runs.values())]
    for other, run in runs.items():
        for key in keys:
            if run.predictions[key]["ids"] != first.predictions[key]["ids"]:
                raise ValueError(f"training seed {other}: its {'/'.join(key)} predictions are of other claims than "
                                 f"seed {seeds[0]}'s")
    arrays = {key: [(np.asarray(run.predictions[key]["gold"]), np.asarray(run.predictions[key]["predicted"]))
                    for run in runs.values()] for key in keys}
    per_claim = {key: [_per_claim(gold, predicted) for gold, predicted in found] for key, found in arrays.items()}
    rows = []
    for key in keys:
        dataset, split, system = key
        base = dict(dataset=dataset, split=split, system=system, n=len(arrays[key][0][0]))
        for metric in ("accuracy", "mae", "soft_accuracy"):
            values = [v[metric] for v in per_claim[key]]
            rows += _seeded_rows(base, metric, intervals.seeded_paired_difference(values, np.zeros_like(values), seed),
                                 seeds, [float(np.mean(v)) for v in values])
        rows += _seeded_rows(base, "macro_f1", _seeded_macro_f1(arrays[key], seed), seeds,
                             [macro_f1(gold, predicted) for gold, predicted in arrays[key]])
    for a, b in COMPARISONS:
        for key_a in keys:
            dataset, split, system = key_a
            if system != a or (dataset, split, b) not in keys:
                continue
            base = dict(dataset=dataset, split=split, system=f"{a}-vs-{b}", n=len(arrays[key_a][0][0]))
            for metric in ("accuracy", "mae"):
                mine, theirs = ([v[metric] for v in per_claim[dataset, split, name]] for name in (a, b))
                rows += _seeded_rows(base, metric, intervals.seeded_paired_difference(mine, theirs, seed), seeds,
                                     [float(np.mean(x) - np.mean(y)) for x, y in zip(mine, theirs)])
    for system, (value, n) in first.question_recall.items():
        rows.append(dict(dataset="claimdecomp", split="test", system=system, metric="question_recall", value=value, n=n))
    return rows


def _seeded_rows(base: dict, metric: str, estimate: tuple[float, float, float], seeds: Sequence[int],
                 by_seed: Sequence[float]) -> list[dict]:
    """The value and interval rows of one seeded ``estimate`` ``(value, low, high)``, then, for
    :data:`SEEDED_METRICS`, the value under each seed, the number of seeds and their spread."""
    value, low, high = estimate
    found = intervals.interval_rows({**base, "metric": metric, "value": value}, low, high)
    if metric in SEEDED_METRICS:
        found += [{**base, "metric": f"{metric}:seed{s}", "value": v} for s, v in zip(seeds, by_seed)]
        found += [{**base, "metric": f"{metric}:seeds", "value": len(seeds)},
                  {**base, "metric": f"{metric}:seed_spread", "value": intervals.seed_spread(by_seed)}]
    return found


def _seeded_macro_f1(found: Sequence[tuple[np.ndarray, np.ndarray]], seed: int) -> tuple[float, float, float]:
    """Macro-F1 averaged over training seeds, with the draws of :func:`intervals.seeded_paired_difference`
    (seeds with replacement, then the same claims with replacement for all of them)."""
    n_seeds, n = len(found), len(found[0][0])
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_seeds, size=(intervals.N_RESAMPLES, n_seeds))
    examples = rng.integers(0, n, size=(intervals.N_RESAMPLES, n))
    estimates = [np.mean([macro_f1(found[s][0][idx], found[s][1][idx]) for s in picked])
                 for picked, idx in zip(drawn, examples)]
    tail = (1 - intervals.LEVEL) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(np.mean([macro_f1(gold, predicted) for gold, predicted in found])), float(low), float(high)


def _evidence_examples(claims, evidence: dict[str, str]) -> list:
    """The ClaimDecomp examples of ``claims`` with one system's evidence text (keyed by the claim's id as text)."""
    return claimdecomp_examples(claims, {c.example_id: evidence[str(c.example_id)] for c in claims})


def claimdecomp_probabilities(data: WildData, models: Models, run: Run,
                              systems: Sequence[str] = ("claim-only", "web-summaries")) -> dict[str, tuple[np.ndarray, list[int]]]:
    """``system -> (label probabilities, gold label indices)`` on the ClaimDecomp test claims, each system read by
    its classifier with the evidence the run gave it (``claim-only``: none); the argmax of each row is the run's
    prediction for that claim (the run keeps only the labels, so calibration needs the probabilities again)."""
    claims = data.evaluation[("claimdecomp", "test")]
    found = {}
    for system in systems:
        if system == "claim-only":
            model, examples = models.claim_only, _claim_examples("claimdecomp", claims)
        elif system in EVIDENCE_SYSTEMS:
            model = models.evidence
            examples = _evidence_examples(claims, run.evidence[system])
        else:
            raise ValueError(f"no probabilities for system {system!r}; expected claim-only or one of {EVIDENCE_SYSTEMS}")
        found[system] = (model.predict_proba(examples, progress=False), [e.label_index for e in examples])
    return found


def _per_claim(gold: np.ndarray, predicted: np.ndarray) -> dict[str, np.ndarray]:
    """The per-claim values whose means are accuracy, MAE and soft accuracy (for the bootstrap)."""
    errors = np.abs(predicted - gold).astype(float)
    return {"accuracy": (errors == 0).astype(float), "mae": errors, "soft_accuracy": (errors <= 1).astype(float)}


def flipped_claims(run: Run, data: WildData, system: str = "web-summaries") -> list[dict]:
    """ClaimDecomp test claims whose prediction with ``system`` differs from ``claim-only``, with the evidence."""
    key_a, key_b = ("claimdecomp", "test", "claim-only"), ("claimdecomp", "test", system)
    if key_a not in run.predictions or key_b not in run.predictions:
        return []
    a, b = run.predictions[key_a], run.predictions[key_b]
    claims = {f"claimdecomp:{c.example_id}": c for c in data.claimdecomp["test"]}
    rows = []
    for claim_id, gold, before, after in zip(a["ids"], a["gold"], a["predicted"], b["predicted"]):
        if before != after:
            claim = claims[claim_id]
            rows.append({"claim id": str(claim.example_id), "claim": claim.claim, "gold": LABELS[gold], "claim-only": LABELS[before],
                         system: LABELS[after], "closer": abs(after - gold) < abs(before - gold),
                         "evidence": run.evidence.get(system, {}).get(claim_id.split(":", 1)[1], "")})
    return rows


def claim_predictions(run: Run, data: WildData, example_id: str) -> list[dict]:
    """One ClaimDecomp test claim (by ``example_id``) in every condition of the run: the prediction and the
    evidence text that condition read.  An id that is not a test claim of the run is a ValueError."""

    claim = by_id(data.claimdecomp["test"], example_id, key=lambda c: c.example_id, what="claim",
                  where="ClaimDecomp test")
    wanted, rows = f"claimdecomp:{claim.example_id}", []
    for (dataset, split, system), p in run.predictions.items():
        if (dataset, split) == ("claimdecomp", "test") and wanted in p["ids"]:
            i = list(p["ids"]).index(wanted)
            rows.append({"condition": system, "gold": LABELS[p["gold"][i]], "predicted": LABELS[p["predicted"][i]],
                         "evidence": run.evidence.get(system, {}).get(str(claim.example_id), "")})
    if not rows:
        raise ValueError(f"example_id {example_id!r}: this run has no prediction for that claim (limit?)")
    return rows


def predict_conditions(models: Models, claim, trace: Trace) -> dict[str, np.ndarray]:
    """Label probabilities for one ClaimDecomp claim under claim-only and the three evidence conditions."""
    texts = {"justification": test_justification(claim), "web-snippets": trace.web_snippets, "web-summaries": trace.web_summaries}
    out = {"claim-only": models.claim_only.predict_proba(claimdecomp_examples([claim]), progress=False)[0]}
    for system, text in texts.items():
        out[system] = models.evidence.predict_proba(claimdecomp_examples([claim], {claim.example_id: text}),
                                                    progress=False)[0]
    return out


# --- tables for the notebooks -------------------------------------------------------------------


