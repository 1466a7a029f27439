"""What the Entailer chapters call: training the behaviours (cached), running the systems, the metrics.

Tafjord et al. 2022 (§4-5) evaluate on OBQA test with the systems named in ``entailer/02_experiments``:
``direct``, ``entailer-greedy-d1/d3``, ``entailer-sampled-d1/d3``, ``entailer+direct-d1/d3`` and
``direct-all``, metrics ``accuracy``, ``seconds_per_question`` and ``faithfulness_break``.  The search
systems draw candidate premise sets from ``Settings.premise_source`` (default ``mixed``: generated and
retrieved, :mod:`.proposals`, a departure); ``entailer-generated-sampled-d1`` and
``entailer-retrieved-sampled-d1`` are the sampled depth-1 search with one source only.  Also per search
system ``leaf_fallback_share`` (questions where an option had no candidate at all and its direct score stood
in) and, at depth 3, ``deep_tree_share`` (questions whose chosen tree has height 2 or more).  Premises on
EntailmentBank dev: ``premise_recall`` per source (share of gold premises matched at MiniLM cosine >= 0.8 by a
premise of the set the sampled search keeps for the step's conclusion).

Training (all on the training files found in ``data_dir``, :func:`training_files`, cached with
:class:`proofbook.core.cache.ArtifactCache`):

* **Tokenizer.**  A 4,000-piece uncased WordPiece vocabulary for the training texts
  (:func:`proofbook.models.loading.train_wordpiece`).  **Departure:** measured on this machine, MiniLM's 30,522-piece vocabulary makes the output
  layer of a small seq2seq model dominate its cost (0.7 steps/s at batch 32 for d_model 256 on a loaded
  machine), so the generators use this smaller vocabulary.
* **Premise generator** H -> P: a scratch BART (:class:`proofbook.models.seq2seq.Seq2Seq`) on
  EntailmentBank's one-step entailments (task 1 train, official format), by default from the hypothesis
  alone, as the paper's H -> P behaviour is used at search time.  With ``context_facts`` > 0 the input
  also carries a ``$context$`` of that many facts: the gold premises and BM25-retrieved WorldTree
  distractors in training, the top BM25 WorldTree facts for the hypothesis at search time
  (:func:`.behaviours.premise_pairs_with_context`; the paper's training contexts mix gold and BM25 facts
  the same way).  Measured during development: with a five-fact context (inputs of up to 192 tokens) a
  generator of this size, trained for the minutes this book can spend, ignored its input and wrote the
  same word salad for every hypothesis; from the hypothesis alone (about 25 tokens) it learns, in fewer
  minutes, premises about the hypothesis's own subject, though many are still false or garbled.  Larger
  generators measured during development did not change that: a scratch BART of d_model 256 with 3+3 layers
  (12 epochs, about 12 minutes) took ``entailer-sampled-d1`` on the first 100 OBQA dev questions to 0.21-0.23
  against ``direct`` 0.38-0.53 across truth-scorer variants; an ``EncoderDecoderModel`` warm-started from
  MiniLM (:meth:`proofbook.models.seq2seq.Seq2Seq.warm_start`, 49M parameters, 2 epochs at batch 16 and
  lr 1e-4: 709 s) still sampled garbled premises at temperature 1.0; premises taken as subsets of the top-5
  BM25 WorldTree facts reached 0.24-0.26.
* **Hypothesis writer**: the same kind of model on EntailmentBank's question/answer/hypothesis triples;
  compared with the rules on EntailmentBank dev (:func:`.hypotheses.compare_writers`); the notebooks use
  the better one by token F1 (``Components.writer``).
* **Truth scorer**: a MiniLM cross-encoder trained on :func:`.behaviours.truth_groups` (``truth_questions``
  OBQA train questions with all their options, ``truth_statements`` EntailmentBank statements with their
  perturbed/negated copies) with the multiple-choice loss of
  :meth:`proofbook.models.cross_encoder.CrossEncoder.fit_groups`; 10% of the groups are held out to report accuracy and
  group accuracy (no model selection on them).  **Departure:** the truth scorer reads the statement *with the
  ``truth_facts`` WorldTree facts BM25 retrieves for it* (:class:`.behaviours.TruthContext`).  The paper's
  s_d is the belief stored in T5-11B's weights; a 22M-parameter MiniLM trained for minutes stores almost
  none (measured: 0.55 held-out accuracy without facts, chance 0.5), so its "belief" here is what it
  concludes from the facts it reads.  The memory still overrides it.
* **Entailment scorer**: a MiniLM cross-encoder on :func:`.behaviours.entailment_examples`; 10% held out.

Every training set is cleaned of near-duplicates of the evaluation statements (all option hypotheses of
the OBQA and QASC evaluation splits, the conclusions of the EntailmentBank evaluation trees); the counts
removed are in ``Components.data_report``.

Runs of the systems are cached as JSON (trees included), so the error-analysis chapter reads the very
runs the experiments chapter measured; ``seconds_per_question`` is the time measured when the run was
built (it excludes writing the hypotheses, done once per question for all systems).  The depth-1 and
depth-3 systems of one kind come from one depth-3 search per question (the depth-1 answer is its first
level, timed up to the end of that level): the same trees and times as separate runs, at a third less cost.

**Departure: sampling temperature.**  The paper samples at temperature 2.0 (top-p 0.95) from T5-11B.
Our small premise generator is far less peaked: measured on 32 OBQA dev hypotheses x 6 samples, none of
its samples at temperature 2.0 was even well formed (no ``[PREMISE]``), against all of them at 1.0.
``Settings.temperature`` is therefore 1.0; ``SearchConfig.sampled`` keeps the paper's 2.0, and the method
chapter shows both.
"""
from __future__ import annotations

import random
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Sequence

from proofbook.core.paths import resolve_data_dir
from proofbook.models.cross_encoder import HEAD_INIT_VERSION
from proofbook.models.loading import WORDPIECE_VERSION
from proofbook.entailer import behaviours as bh
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer import proposals
from proofbook.entailer.search import (QuestionAnswer, SearchConfig, answer_directly, answer_from_dict,
                                       answer_question_depths, answer_to_dict)

PAPER = "entailer"
MATCH_COSINE = 0.8
#: the paper's OBQA test accuracies (T5-11B) -- shown beside ours, never written as rows
PAPER_OBQA = {"direct": 0.752, "entailer-greedy-d1": 0.728, "entailer-greedy-d3": 0.690,
              "entailer-sampled-d1": 0.768, "entailer-sampled-d3": 0.748, "entailer+direct-d1": 0.746,
              "entailer+direct-d3": 0.752}
PAPER_FAITHFULNESS_BREAK = 0.168
PAPER_SECONDS = {"entailer-sampled-d1": 80.0, "entailer-sampled-d3": 360.0}
SEARCH_SYSTEMS = ("entailer-greedy-d1", "entailer-greedy-d3", "entailer-sampled-d1", "entailer-sampled-d3")
SYSTEMS = ("direct",) + SEARCH_SYSTEMS + ("entailer+direct-d1", "entailer+direct-d3")
#: the premise-source ablations: the sampled depth-1 search with one source only (the systems above use
#: ``Settings.premise_source``)
SOURCE_SYSTEMS = ("entailer-generated-sampled-d1", "entailer-retrieved-sampled-d1")
#: settings that change the search only (not the trained models' cache keys)
SEARCH_SETTINGS = ("k", "temperature", "top_p", "max_new_tokens", "premise_source", "pool_bm25", "pool_dense",
                   "pool_pairs_from")
#: bumped when the construction of a scorer's training data changes (enters its cache key)
DATA_VERSION = {"truth scorer": 4, "entailment scorer": 1}


@dataclass(frozen=True)
class Settings:
    """Sizes of the models and training runs; :meth:`smoke` shrinks everything for tests."""

    seed: int = 0
    vocab_size: int = 4000
    gen_d_model: int = 128
    gen_layers: int = 2
    gen_heads: int = 4
    gen_epochs: int = 10
    gen_batch: int = 32
    gen_lr: float = 1e-3
    gen_examples: int | None = None
    context_facts: int = 0
    writer_epochs: int = 8
    writer_examples: int | None = None
    truth_questions: int = 2500
    truth_statements: int = 800
    truth_facts: int = 2
    truth_max_length: int = 112
    truth_lr: float = 1e-4
    truth_batch: int = 8
    entail_examples: int = 2400
    entail_max_length: int = 64
    entail_lr: float = 5e-5
    ce_epochs: int = 1
    ce_batch: int = 16
    k: int = 6
    temperature: float = 1.0
    top_p: float = 0.95
    max_new_tokens: int = 48
    premise_source: str = "mixed"      # generated | retrieved | mixed (:mod:`.proposals`)
    pool_bm25: int = 4
    pool_dense: int = 4
    pool_pairs_from: int = 5

    def __post_init__(self):
        if self.premise_source not in proposals.SOURCES:
            raise ValueError(f"unknown premise_source {self.premise_source!r}; expected one of {proposals.SOURCES}")

    @property
    def pool(self) -> proposals.PoolSettings:
        return proposals.PoolSettings(self.pool_bm25, self.pool_dense, self.pool_pairs_from)

    def source(self, system: str) -> str:
        """The premise source of a search system: named in it (``entailer-retrieved-sampled-d1``) or the default."""
        return next((s for s in proposals.SOURCES if system.startswith(f"entailer-{s}-")), self.premise_source)

    @classmethod
    def smoke(cls, seed: int = 0) -> "Settings":
        return cls(seed=seed, vocab_size=600, gen_d_model=32, gen_layers=1, gen_heads=2, gen_epochs=1, context_facts=3,
                   gen_examples=64, writer_epochs=1, writer_examples=64, truth_questions=16, truth_statements=8,
                   entail_examples=48, truth_facts=1,
                   ce_batch=16, k=2, max_new_tokens=16, pool_dense=0)

    def search(self, system: str) -> SearchConfig:
        depth = int(system.rsplit("-d", 1)[1])
        if "greedy" in system:
            return SearchConfig.greedy(depth, self.seed)
        return replace(SearchConfig.sampled(depth, self.k, self.seed), temperature=self.temperature, top_p=self.top_p)


# --- data ---------------------------------------------------------------------------------------------

def _present(path: Path) -> list[Path]:
    return [path] if path.is_file() else []


def evaluation_files(data_dir) -> list[Path]:
    """The evaluation files present (their statements are removed from every training set)."""
    from proofbook.data import entailmentbank as eb

    root = resolve_data_dir(data_dir)
    files = []
    for split in ("dev", "test"):
        files += _present(root / "openbookqa" / f"{split}.tsv")
        files += _present(root / "entailmentbank" / eb.dataset_name(1, split))
    files += _present(root / "qasc" / "dev.jsonl")
    return files


def training_files(data_dir) -> list[Path]:
    from proofbook.data import entailmentbank as eb

    root = resolve_data_dir(data_dir)
    files = [root / "entailmentbank" / eb.angles_name(1, "train"), root / "openbookqa" / "train.tsv"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"Entailer training needs {', '.join(missing)}")
    for split in ("dev", "test"):
        files += _present(root / "scitail" / f"{split}.jsonl")
    files += _present(root / "sick" / "SICK.txt")
    return files


def evaluation_splits(data_dir, dataset: str, split: str | None = None) -> list[str]:
    """The labelled evaluation splits of ``dataset`` present in the data directory, or just ``split``."""
    root = resolve_data_dir(data_dir)
    folder, suffix, candidates = {"obqa": ("openbookqa", "tsv", ("dev", "test")), "qasc": ("qasc", "jsonl", ("dev",)),
                                  "entailmentbank": ("entailmentbank", None, ("dev", "test"))}[dataset]
    if split is not None:
        if split not in candidates:
            raise ValueError(f"{dataset}: no evaluation split {split!r} (expected one of {list(candidates)})")
        candidates = (split,)
    if dataset == "entailmentbank":
        from proofbook.data.entailmentbank import dataset_name
        return [s for s in candidates if (root / folder / dataset_name(1, s)).is_file()]
    present = [s for s in candidates if (root / folder / f"{s}.{suffix}").is_file()]
    if dataset == "obqa" and "test" in present:  # the test file counts only with its answer keys
        from proofbook.data.science_qa import read_obqa
        try:
            read_obqa(root, "test")
        except Exception:  # noqa: BLE001 - no keys: not a labelled split
            present.remove("test")
    return present


def evaluation_plan(data_dir, split: str | None = None) -> dict[str, list[str]]:
    """``{"obqa": [...], "qasc": [...]}``: the labelled splits to evaluate (``split`` only, where a dataset has it)."""
    plan = {}
    for dataset in ("obqa", "qasc"):
        try:
            plan[dataset] = evaluation_splits(data_dir, dataset, split)
        except ValueError:
            plan[dataset] = []
    if not any(plan.values()):
        raise ValueError(f"no OBQA or QASC evaluation split {split or ''} in {resolve_data_dir(data_dir)}")
    return {dataset: splits for dataset, splits in plan.items() if splits}


def read_questions(data_dir, dataset: str, split: str):
    from proofbook.data.science_qa import read_obqa, read_qasc

    return (read_obqa if dataset == "obqa" else read_qasc)(data_dir, split)


def evaluation_statements(data_dir) -> list[str]:
    """What the evaluations ask about: every option hypothesis (rules) and question stem of OBQA/QASC, and the
    hypothesis and intermediate conclusions of every EntailmentBank evaluation tree (the statements whose
    premises are generated).  Context facts are *not* included: they are WorldTree corpus facts shared by
    train and dev trees, not evaluation examples."""
    from proofbook.data.entailmentbank import read_entailmentbank

    statements = []
    for dataset in ("obqa", "qasc"):
        for split in evaluation_splits(data_dir, dataset):
            for q in read_questions(data_dir, dataset, split):
                statements += [hyp.rule_hypothesis(q.stem, o.text) for o in q.options if o.text.strip()]
                statements.append(q.stem)
    for split in evaluation_splits(data_dir, "entailmentbank"):
        for tree in read_entailmentbank(data_dir, split, 1):
            statements += [tree.hypothesis, *tree.intermediates.values()]
    return statements


@dataclass
class TrainingData:
    premise_pairs: list
    writer_pairs: list
    truth: bh.StatementGroups
    entailment: bh.LabelledPairs
    report: list[dict] = field(default_factory=list)


def fact_retriever(data_dir) -> bh.FactRetriever:
    """BM25 over the WorldTree fact corpus of ``data_dir`` (with EntailmentBank's additions)."""
    from proofbook.data.entailmentbank import read_worldtree

    return bh.FactRetriever(list(read_worldtree(data_dir).values()))


def training_data(data_dir, settings: Settings) -> TrainingData:
    """All training sets, cleaned of near-duplicates of the evaluation statements (counts in ``report``)."""
    from proofbook.data.entailmentbank import one_step_entailments, read_entailmentbank_train
    from proofbook.data.nli import read_scitail, read_sick
    from proofbook.data.science_qa import read_obqa

    root = resolve_data_dir(data_dir)
    banned = evaluation_statements(root)
    trees = list(read_entailmentbank_train(root, 1))
    steps = [e for tree in trees for e in one_step_entailments(tree)]
    steps_kept = bh.drop_near_duplicates(steps, lambda e: (e.conclusion,), banned)
    trees_kept = bh.drop_near_duplicates(trees, lambda t: (t.hypothesis, t.question), banned)
    obqa = list(read_obqa(root, "train"))
    obqa_kept = bh.drop_near_duplicates(obqa, lambda q: (q.stem,), banned)
    question_hypotheses = [(hyp.rule_hypothesis(q.stem, q.answer_text),
                            [hyp.rule_hypothesis(q.stem, o.text) for o in q.options
                             if o.label != q.answer_key and o.text.strip()]) for q in obqa_kept.examples]
    nli = []
    for split in ("dev", "test"):
        if (root / "scitail" / f"{split}.jsonl").is_file():
            nli += list(read_scitail(root, split))
    if (root / "sick" / "SICK.txt").is_file():
        nli += list(read_sick(root, "train"))
    nli_kept = bh.drop_near_duplicates(nli, lambda p: (p.premise, p.hypothesis), banned)
    truth = bh.truth_groups(trees_kept.examples, question_hypotheses, settings.seed, settings.truth_questions,
                            settings.truth_statements)
    entail = bh.entailment_examples(steps_kept.examples, nli_kept.examples, settings.seed, settings.entail_examples)
    retriever = fact_retriever(root) if settings.context_facts else None
    premise_pairs = (bh.premise_pairs_with_context(steps_kept.examples, retriever, settings.context_facts, settings.seed)
                     if retriever is not None else bh.premise_pairs(steps_kept.examples))
    writer_pairs = hyp.writer_pairs(trees_kept.examples)
    rng = random.Random(settings.seed)
    if settings.gen_examples:
        premise_pairs = rng.sample(premise_pairs, min(settings.gen_examples, len(premise_pairs)))
    if settings.writer_examples:
        writer_pairs = rng.sample(writer_pairs, min(settings.writer_examples, len(writer_pairs)))
    report = [
        {"training set": "one-step entailments (premise generator, entailment positives)",
         "source": "EntailmentBank task 1 train", "kept": len(steps_kept.examples), "near-duplicates removed": steps_kept.removed},
        {"training set": "question/answer/hypothesis (writer, truth positives)", "source": "EntailmentBank task 1 train",
         "kept": len(trees_kept.examples), "near-duplicates removed": trees_kept.removed},
        {"training set": "OBQA train questions (truth positives/negatives)", "source": "openbookqa/train.tsv",
         "kept": len(obqa_kept.examples), "near-duplicates removed": obqa_kept.removed},
        {"training set": "NLI pairs (entailment)", "source": "SciTail dev/test, SICK train",
         "kept": len(nli_kept.examples), "near-duplicates removed": nli_kept.removed},
    ]
    return TrainingData(premise_pairs, writer_pairs, truth, entail, report)


# --- models ------------------------------------------------------------------------------------------

def _seq2seq(pairs, settings: Settings, epochs: int):
    from proofbook.core.training import TrainConfig, set_seed
    from proofbook.models.loading import small_seq2seq, special_token_ids, train_wordpiece
    from proofbook.models.seq2seq import Seq2Seq

    tokenizer = train_wordpiece([text for pair in pairs for text in pair], settings.vocab_size)
    set_seed(settings.seed)
    model = small_seq2seq(len(tokenizer), d_model=settings.gen_d_model, layers=settings.gen_layers,
                          heads=settings.gen_heads, max_positions=192 if settings.context_facts else 128,
                          **special_token_ids(tokenizer))
    seq2seq = Seq2Seq(model, tokenizer, max_input_length=192 if settings.context_facts else 96, max_target_length=64,
                      backend="scratch")
    result = seq2seq.fit(pairs, TrainConfig(epochs=epochs, batch_size=settings.gen_batch, lr=settings.gen_lr,
                                            seed=settings.seed, progress=True))
    return seq2seq, result


def _cross_encoder(data: bh.LabelledPairs, max_length: int, lr: float, settings: Settings):
    from proofbook.models.cross_encoder import CrossEncoder, accuracy
    from proofbook.core.training import TrainConfig

    n_dev = max(1, len(data) // 10)
    model = CrossEncoder("minilm", labels=bh.LABELS, max_length=max_length, seed=settings.seed)
    result = model.fit(data.pairs[n_dev:], data.labels[n_dev:],
                       config=TrainConfig(epochs=settings.ce_epochs, batch_size=settings.ce_batch, lr=lr,
                                          seed=settings.seed, progress=True))
    held_out = accuracy(model.label_ids(data.labels[:n_dev]), model.label_ids(model.predict(data.pairs[:n_dev])))
    return model, result, held_out, n_dev


def _truth_scorer(groups: bh.StatementGroups, context: bh.TruthContext, settings: Settings):
    """The truth scorer, trained on statement groups (multiple-choice loss); 10% of the groups held out.

    Held-out figures: ``accuracy`` (each statement on its own, P(true) > 0.5 or not) and ``group
    accuracy`` (the true statement of a group ranked first, as a question's correct option must be).
    """
    import numpy as np

    from proofbook.models.cross_encoder import CrossEncoder
    from proofbook.core.training import TrainConfig

    n_dev = max(1, len(groups) // 10)
    held, kept = groups.split(n_dev)
    model = CrossEncoder("minilm", labels=bh.LABELS, max_length=settings.truth_max_length,
                         seed=settings.seed)
    model.fit_groups([[(context.pair(text), flag) for text, flag in group] for group in kept.groups],
                     TrainConfig(epochs=settings.ce_epochs, batch_size=settings.truth_batch, lr=settings.truth_lr,
                                 seed=settings.seed, progress=True))
    flat = [(text, flag) for group in held.groups for text, flag in group]
    p_true = model.predict_proba([context.pair(text) for text, _ in flat], progress=False)[:, 1]
    ranked_first, at = 0, 0
    for group in held.groups:
        scores = p_true[at:at + len(group)]
        ranked_first += group[int(np.argmax(scores))][1]
        at += len(group)
    model.held_out = {"accuracy": float(np.mean((p_true > 0.5) == np.array([f for _, f in flat]))), "n": len(flat),
                      "group accuracy": ranked_first / len(held), "groups": len(held)}
    return model


@dataclass
class Components:
    """The trained behaviours, the writers, and what training did."""

    model: bh.TrainedEntailer
    writers: dict
    writer_scores: list
    train_seconds: dict
    held_out_accuracy: dict
    data_report: list
    data_sizes: dict
    keys: dict
    pool: proposals.FactPool | None = None
    _behaviours: dict = field(default_factory=dict, repr=False)

    def behaviours(self, source: str) -> proposals.ProposingEntailer:
        """The behaviour model whose H -> P draws from ``source`` (one per source, so its memo lasts the run)."""
        if source not in self._behaviours:
            self._behaviours[source] = proposals.ProposingEntailer(self.model, self.pool, source)
        return self._behaviours[source]

    @property
    def facts(self) -> frozenset[str]:
        """The fact corpus's sentences (true by construction), for the error categories and the memory demo."""
        return frozenset(self.pool.retriever.facts) if self.pool is not None else frozenset()

    @property
    def writer(self):
        """The writer with the higher token F1 on EntailmentBank dev (rules when there is no dev file)."""
        if not self.writer_scores:
            return self.writers["rules"]
        best = max(self.writer_scores, key=lambda s: s.token_f1)
        return self.writers[best.writer]


def build_components(data_dir=None, settings: Settings = Settings(), cache=None) -> Components:
    """Train (or load from the cache) the premise generator, the writer and the two scorers."""
    from proofbook.data.entailmentbank import read_entailmentbank
    from proofbook.core.cache import ArtifactCache, object_codec
    from proofbook.models.cross_encoder import CrossEncoder
    from proofbook.models.seq2seq import Seq2Seq

    cache = cache or ArtifactCache()
    root = resolve_data_dir(data_dir)
    files = training_files(root) + evaluation_files(root)
    data = training_data(root, settings)
    seconds, held_out, keys = {}, {}, {}
    every = asdict(settings)

    def fields(*prefixes: str) -> dict:
        """The settings one component reads (its cache key): the seed and the fields with these prefixes."""
        return {k: v for k, v in every.items() if k == "seed" or k.startswith(prefixes)}

    def timed(name, kind, config, build, codec):
        start = time.perf_counter()
        misses = cache.stats["misses"]
        value = cache.get_or_build(kind, config, build, *codec, data=files)
        seconds[name] = round(time.perf_counter() - start, 1) if cache.stats["misses"] > misses else 0.0
        keys[name] = cache.key_for(kind, config, files)
        return value

    generator = timed("premise generator", "entailer-premise-generator",
                      {**fields("gen_", "vocab_", "context_"), "what": "premises", "wordpiece": WORDPIECE_VERSION},
                      lambda: _seq2seq(data.premise_pairs, settings, settings.gen_epochs)[0], object_codec(Seq2Seq))
    writer_model = timed("hypothesis writer", "entailer-hypothesis-writer",
                         {**fields("gen_", "vocab_", "writer_"), "what": "writer", "wordpiece": WORDPIECE_VERSION},
                         lambda: _seq2seq(data.writer_pairs, settings, settings.writer_epochs)[0], object_codec(Seq2Seq))
    retriever = fact_retriever(root)
    truth_context = bh.TruthContext(retriever if settings.truth_facts else None, settings.truth_facts)
    scorers = {}

    def train_entailment():
        model, _, accuracy_, n_dev = _cross_encoder(data.entailment, settings.entail_max_length, settings.entail_lr,
                                                    settings)
        model.held_out = {"accuracy": accuracy_, "n": n_dev}
        return model

    for name, kind, build, prefix in (
            ("truth scorer", "entailer-truth-scorer", lambda: _truth_scorer(data.truth, truth_context, settings),
             "truth_"),
            ("entailment scorer", "entailer-entailment-scorer", train_entailment, "entail_")):

        def save(model, folder):
            import json
            model.save(folder)
            (folder / "held_out.json").write_text(json.dumps(model.held_out))

        def load(folder):
            import json
            model = CrossEncoder.load(folder)
            model.held_out = json.loads((Path(folder) / "held_out.json").read_text())
            return model

        config = {**fields(prefix, "ce_"), "what": name, "data": DATA_VERSION[name], "head": HEAD_INIT_VERSION}
        scorers[name] = timed(name, kind, config, build, (save, load))
        held_out[name] = scorers[name].held_out
    model = bh.TrainedEntailer(generator, scorers["truth scorer"], scorers["entailment scorer"],
                               max_new_tokens=settings.max_new_tokens,
                               retriever=retriever if settings.context_facts else None,
                               n_context=settings.context_facts, truth_context=truth_context)
    writers = {"rules": hyp.RuleWriter(), "learned": hyp.LearnedWriter(writer_model)}
    scores = []
    dev_trees = [t for s in evaluation_splits(root, "entailmentbank")[:1] for t in read_entailmentbank(root, s, 1)]
    if dev_trees:
        scores = hyp.compare_writers(list(writers.values()), dev_trees)
    sizes = {"premise generator": len(data.premise_pairs), "hypothesis writer": len(data.writer_pairs),
             "truth scorer": sum(len(g) for g in data.truth.groups), "entailment scorer": len(data.entailment)}
    report = data.report + [{"training set": f"{name} {unit}", "source": "; ".join(f"{k} {v}" for k, v in d.counts().items()),
                             "kept": sizes[name], "near-duplicates removed": None}
                            for name, unit, d in (("truth scorer", "statements", data.truth),
                                                  ("entailment scorer", "pairs", data.entailment))]
    components = Components(model, writers, scores, seconds, held_out, report, sizes, keys)
    components.pool = proposals.build_pool(retriever, settings.pool, cache)
    return components


# --- running the systems ---------------------------------------------------------------------------

@dataclass
class SystemRun:
    """The answers of one system on the same questions, with gold labels."""

    system: str
    answers: list
    gold: list

    def predictions(self) -> list[str]:
        if self.system == "direct":
            return [a.direct.label for a in self.answers]
        if self.system.startswith("entailer+direct"):
            return [a.combined.label for a in self.answers]
        return [a.entailer.label for a in self.answers]

    @property
    def accuracy(self) -> float:
        return sum(p == g for p, g in zip(self.predictions(), self.gold)) / max(1, len(self.gold))

    @property
    def seconds_per_question(self) -> float:
        return sum(a.seconds for a in self.answers) / max(1, len(self.answers))

    @property
    def leaf_fallback_share(self) -> float:
        """Share of questions with an option that had no candidate premise set (scored by its direct score)."""
        return sum(any(o.fallback for o in a.options) for a in self.answers) / max(1, len(self.answers))

    @property
    def deep_tree_share(self) -> float:
        """Share of questions whose chosen option's tree has height 2 or more (a premise proved in turn)."""
        return sum(a.entailer.tree.height >= 2 for a in self.answers) / max(1, len(self.answers))

    @property
    def faithfulness_break(self) -> float:
        return sum(a.faithfulness_break for a in self.answers) / max(1, len(self.answers))


def write_hypotheses(questions, writer) -> list[list[str]]:
    """One hypothesis per option of every question (batched)."""
    stems = [q.stem for q in questions for _ in q.options]
    options = [o.text for q in questions for o in q.options]
    flat = writer.write(stems, options) if stems else []
    out, start = [], 0
    for q in questions:
        out.append(flat[start:start + len(q.options)])
        start += len(q.options)
    return out


def _run_system(system: str, questions, hypotheses, components: Components, settings: Settings,
                memory=None, progress: bool = True) -> list[QuestionAnswer]:
    """One system on every question (for a search system: one search per question at its depth)."""
    return _run_family(system, [system], questions, hypotheses, components, settings, memory, progress)[system]


def _run_family(label: str, systems: Sequence[str], questions, hypotheses, components: Components,
                settings: Settings, memory=None, progress: bool = True) -> dict[str, list[QuestionAnswer]]:
    """``direct``, or search systems of one kind at several depths from one search per question."""
    from tqdm.auto import tqdm

    out: dict[str, list[QuestionAnswer]] = {system: [] for system in systems}
    depths = {system: int(system.rsplit("-d", 1)[1]) for system in systems if system != "direct"}
    config = replace(settings.search(systems[-1]), max_depth=max(depths.values())) if depths else None
    model = components.behaviours(settings.source(systems[-1])) if depths else components.model
    for q, hs in tqdm(list(zip(questions, hypotheses)), desc=label, unit="q", file=sys.stderr,
                      disable=not progress, leave=False):
        options = [(o.label, o.text) for o in q.options]
        if not depths:
            out["direct"].append(answer_directly(q.id, options, hs, components.model, memory))
            continue
        answers = answer_question_depths(q.id, options, hs, model, config, sorted(set(depths.values())), memory)
        for system, depth in depths.items():
            out[system].append(answers[depth])
    return out


FAMILIES = {"direct": ("direct",), "entailer-greedy": ("entailer-greedy-d1", "entailer-greedy-d3"),
            "entailer-sampled": ("entailer-sampled-d1", "entailer-sampled-d3"),
            **{system.rsplit("-d", 1)[0]: (system,) for system in SOURCE_SYSTEMS}}


def run_systems(questions, components: Components, settings: Settings, dataset: str, split: str, cache=None,
                families: Sequence[str] = tuple(FAMILIES), progress: bool = True) -> dict[str, SystemRun]:
    """Every system on the same questions, cached as JSON; Entailer+Direct from the sampled and direct runs.

    Greedy (and sampled) search at depths 1 and 3 come from one depth-3 search per question (see
    :func:`proofbook.entailer.search.prove_depths`): the depth-1 answer and its time are those of
    the first level of that search.
    """
    from proofbook.core.cache import ArtifactCache

    cache = cache or ArtifactCache()
    hypotheses = write_hypotheses(questions, components.writer)
    gold = [q.answer_key for q in questions]
    runs = {}
    for family in families:
        systems = FAMILIES[family]
        source = settings.source(systems[-1])
        search = {"k": settings.k, "temperature": settings.temperature, "top_p": settings.top_p,
                  "max_new_tokens": settings.max_new_tokens, "seed": settings.seed, "source": source,
                  "pool": asdict(settings.pool) if source != "generated" else None} if family != "direct" else {}
        config = {"family": family, "dataset": dataset, "split": split, "questions": [q.id for q in questions],
                  "hypotheses": hypotheses, "models": components.keys, "search": search}
        stored = cache.cache_json("entailer-run", config, lambda systems=systems, family=family: {
            system: [answer_to_dict(a) for a in answers] for system, answers in _run_family(
                family, systems, questions, hypotheses, components, settings, progress=progress).items()})
        for system in systems:
            runs[system] = SystemRun(system, [answer_from_dict(a) for a in stored[system]], gold)
    direct = runs.get("direct")
    for depth in (1, 3):
        sampled = runs.get(f"entailer-sampled-d{depth}")
        if sampled is None or direct is None:
            continue
        combined = [replace(proof, seconds=proof.seconds + plain.seconds)
                    for proof, plain in zip(sampled.answers, direct.answers)]
        runs[f"entailer+direct-d{depth}"] = SystemRun(f"entailer+direct-d{depth}", combined, gold)
    return runs


#: the paired comparisons ``A-vs-B`` of the chapter (on the same questions): proof against direct
#: answering ("no accuracy penalty"), sampling against greedy search, depth 1 against depth 3, and the
#: combination against direct
COMPARISONS = (("entailer-sampled-d1", "direct"), ("entailer-sampled-d1", "entailer-greedy-d1"),
               ("entailer-sampled-d1", "entailer-sampled-d3"), ("entailer-greedy-d1", "entailer-greedy-d3"),
               ("entailer+direct-d1", "direct"), ("entailer-sampled-d1", "entailer-generated-sampled-d1"),
               ("entailer-sampled-d1", "entailer-retrieved-sampled-d1"))


def run_rows(runs: dict[str, SystemRun], dataset: str, split: str, seed: int = 0) -> list[dict]:
    """Accuracy (with its 95% bootstrap interval), seconds per question, the faithfulness break (with its
    interval) and the paired accuracy differences of :data:`COMPARISONS`."""
    from proofbook.core import intervals

    base = dict(dataset=dataset, split=split)
    correct = {system: [float(p == g) for p, g in zip(run.predictions(), run.gold)] for system, run in runs.items()}
    rows = []
    for system, run in runs.items():
        n = len(run.answers)
        rows += intervals.mean_rows({**base, "system": system}, "accuracy", correct[system], seed)
        rows.append(dict(**base, system=system, metric="seconds_per_question", value=run.seconds_per_question, n=n))
        if system != "direct" and not system.startswith("entailer+direct"):
            rows.append(dict(**base, system=system, metric="leaf_fallback_share", value=run.leaf_fallback_share, n=n))
            if system.endswith("-d3"):
                rows.append(dict(**base, system=system, metric="deep_tree_share", value=run.deep_tree_share, n=n))
        if system.startswith("entailer+direct"):
            breaks = [float(a.faithfulness_break) for a in run.answers]
            rows += intervals.mean_rows({**base, "system": system}, "faithfulness_break", breaks, seed)
            if "direct" in runs:
                same = [float(p == d) for p, d in zip(run.predictions(), runs["direct"].predictions())]
                rows += intervals.mean_rows({**base, "system": system}, "same_answer_as_direct", same, seed)
    for a, b in COMPARISONS:
        if a in correct and b in correct:
            rows += intervals.difference_rows(base, a, b, "accuracy", correct[a], correct[b], seed)
    return rows


def chance_row(questions, dataset: str, split: str) -> dict:
    """The accuracy of guessing uniformly among each question's options (OBQA: 1/4; QASC: 1/8)."""
    if not questions:
        raise ValueError(f"{dataset} {split}: no questions")
    value = sum(1 / len(q.options) for q in questions) / len(questions)
    return dict(dataset=dataset, split=split, system="chance", metric="accuracy", value=value, n=len(questions))


def combined_text(same_share: float, break_share: float) -> str:
    """What Entailer+Direct did, from its share of answers equal to ``direct``'s and of faithfulness breaks."""
    if same_share == 1.0:
        return ("it gave `direct`'s answer on every question: the combination collapsed into `direct` (the "
                "direct score outweighs the proof score wherever they disagree), so every disagreement between "
                f"proof and answer is a faithfulness break ({break_share:.0%} of the questions)")
    return (f"it gave `direct`'s answer on {same_share:.0%} of the questions and broke faithfulness on "
            f"{break_share:.0%}")


def direct_all(questions, components: Components, batch_size: int = 256, progress: bool = True) -> tuple[float, float]:
    """``direct-all``: accuracy and seconds per question of ``direct`` on every question (batched scoring)."""
    start = time.perf_counter()
    hypotheses = write_hypotheses(questions, components.writer)
    flat = [h for hs in hypotheses for h in hs]
    pairs = [components.model.truth_context.pair(h) for h in flat]
    probabilities = components.model.truth_scorer.predict_proba(pairs, batch_size=batch_size, progress=progress)[:, 1]
    correct, at = 0, 0
    for q, hs in zip(questions, hypotheses):
        scores = probabilities[at:at + len(hs)]
        at += len(hs)
        correct += q.options[int(scores.argmax())].label == q.answer_key
    seconds = time.perf_counter() - start
    return correct / max(1, len(questions)), seconds / max(1, len(questions))


def sampling_check(components: Components, hypotheses: Sequence[str], k: int, seed: int = 0,
                   settings: Sequence[tuple[float, float]] = ((2.0, 0.95), (1.0, 0.95))) -> list[dict]:
    """How many of k nucleus samples per hypothesis are well-formed premise sets, per (temperature, top-p)."""
    rows = []
    for temperature, top_p in settings:
        before = components.model.malformed
        sets = components.model.generate_premises(list(hypotheses), k, True, temperature, top_p, seed)
        good = sum(len(s) for s in sets)
        rows.append({"temperature": temperature, "top-p": top_p, "samples": good + components.model.malformed - before,
                     "well-formed": good, "example": " | ".join(next((s[0] for s in sets if s), []))})
    return rows


# --- premise recall on EntailmentBank -------------------------------------------------------------------

def premise_recall(components: Components, trees, source: str, config: SearchConfig, embedder=None,
                   batch_size: int = 32, progress: bool = True) -> tuple[float, int, list]:
    """Share of gold premises (over all one-step entailments) matched at MiniLM cosine >= 0.8 by a premise of
    the set the search keeps for the step's conclusion: the top level of ``config``'s search, with premises
    from ``source`` (:mod:`.proposals`).  Returns (recall, number of gold premises, examples)."""
    from tqdm.auto import tqdm

    from proofbook.data.entailmentbank import one_step_entailments
    from proofbook.entailer.search import prove
    from proofbook.index.dense import SentenceEmbedder

    embedder = embedder or SentenceEmbedder("minilm")
    model = components.behaviours(source)
    one_level = replace(config, max_depth=1)
    steps = [e for t in trees for e in one_step_entailments(t)]
    generated = []
    for first in tqdm(range(0, len(steps), batch_size), desc=f"premise recall ({source})", unit="batch",
                      file=sys.stderr, disable=not progress, leave=False):
        kept = prove([e.conclusion for e in steps[first:first + batch_size]], model, one_level)
        generated += [[p.statement for p in tree.premises] for tree in kept]
    matched, total, examples = 0, 0, []
    gold_texts = [p for e in steps for p in e.premises]
    gen_texts = [p for g in generated for p in g]
    gold_vectors = embedder.encode(gold_texts, progress=False) if gold_texts else None
    gen_vectors = embedder.encode(gen_texts, progress=False) if gen_texts else None
    gi = pi = 0
    for e, g in zip(steps, generated):
        gold = gold_vectors[gi:gi + len(e.premises)]
        gi += len(e.premises)
        gen = gen_vectors[pi:pi + len(g)] if g else None
        pi += len(g)
        hits = (gold @ gen.T).max(axis=1) >= MATCH_COSINE if g else [False] * len(e.premises)
        matched += int(sum(hits))
        total += len(e.premises)
        if len(examples) < 8:
            examples.append({"conclusion": e.conclusion, "gold premises": " | ".join(e.premises),
                             "kept premises": " | ".join(g), "matched": f"{int(sum(hits))}/{len(e.premises)}"})
    return matched / max(1, total), total, examples


# --- error analysis ----------------------------------------------------------------------------------

ERROR_CATEGORIES = ("belief", "reasoning: near-tautology", "reasoning", "dataset")


def error_category(answer: QuestionAnswer, gold_label: str, predicted: str | None = None,
                   facts: frozenset[str] | set[str] = frozenset()) -> str:
    """An automatic proxy for the paper's error categories of a wrong answer (rules, in this order):

    * ``dataset`` -- the predicted and the gold option say nearly the same thing (token F1 >= 0.8) or
      their hypotheses are identical: the question does not separate them;
    * ``reasoning: near-tautology`` -- a premise of the predicted option's proof restates its hypothesis
      (token F1 >= 0.7 with it);
    * ``reasoning`` -- the weakest link of that proof is the inference (s_e below every premise score), or
      every premise is a sentence of the fact corpus ``facts`` (true by construction: WorldTree is a
      curated set of true science facts, so true premises "proving" a wrong answer is an inference error);
    * ``belief`` -- otherwise: the weakest link is a premise the model believes (a false belief), or no
      proof was found.

    The paper's categories were assigned by people reading the trees; these rules only approximate them.
    """
    chosen = next(o for o in answer.options if o.label == (predicted or answer.entailer.label))
    gold = next(o for o in answer.options if o.label == gold_label)
    if hyp.token_f1(chosen.option, gold.option) >= 0.8 or chosen.hypothesis == gold.hypothesis:
        return "dataset"
    tree = chosen.tree
    if any(hyp.token_f1(p.statement, tree.statement) >= 0.7 for p in tree.premises):
        return "reasoning: near-tautology"
    if tree.premises and tree.entailment is not None and tree.entailment < min(p.score for p in tree.premises):
        return "reasoning"
    if tree.premises and all(" ".join(p.statement.split()) in facts for p in tree.premises):
        return "reasoning"
    return "belief"


def errors(run: SystemRun, questions, facts: frozenset[str] | set[str] = frozenset()) -> list[dict]:
    """Every wrong answer of ``run`` with its automatic error category (``facts``: the fact corpus)."""
    out = []
    for q, answer, predicted in zip(questions, run.answers, run.predictions()):
        if predicted != q.answer_key:
            out.append({"question": q, "answer": answer, "predicted": predicted,
                        "category": error_category(answer, q.answer_key, predicted, facts)})
    return out


# --- the belief memory demonstration ---------------------------------------------------------------------

def strongest_premise(answer: QuestionAnswer, label: str | None = None, facts: frozenset[str] | set[str] = frozenset()):
    """The premise node of an option's proof with the highest direct score (what a user would correct),
    leaving out sentences of the fact corpus ``facts`` (true by construction); ``None`` if there is none."""
    option = next(o for o in answer.options if o.label == (label or answer.entailer.label))
    leaves = [n for n in option.tree.walk() if n is not option.tree and " ".join(n.statement.split()) not in facts]
    return max(leaves, key=lambda n: n.direct) if leaves else None


def memory_demo(run: SystemRun, questions, components: Components, settings: Settings, memory, teach: int = 3,
                progress: bool = True) -> dict:
    """Teach ``teach`` corrections, then re-run the same system on every question with the memory.

    A simulated user reads the trees of the wrong answers in order and marks the most believed premise of
    each wrong proof as false, never a sentence of the fact corpus (true by construction; a wrong proof
    resting only on such sentences has nothing to correct and is skipped), until ``teach`` corrections are
    made.  Every question is then answered again, its statements looked up in the memory (exact or
    MiniLM-similar).  Returns the corrections, the number of wrong answers read, and per-question changes.
    """
    facts = components.facts
    wrong = [(q, a) for q, a, p in zip(questions, run.answers, run.predictions()) if p != q.answer_key]
    taught, read = [], 0
    for q, answer in wrong:
        if len(taught) >= teach:
            break
        read += 1
        node = strongest_premise(answer, facts=facts)
        if node is not None:
            memory.teach(node.statement, False, note=f"taught on question {q.id}")
            taught.append({"question": q.id, "belief marked false": node.statement, "model's score": node.direct})
    hypotheses = write_hypotheses(questions, components.writer)
    again = _run_system(run.system, questions, hypotheses, components, settings, memory=memory, progress=progress)
    after = SystemRun(run.system, again, run.gold)
    changes = []
    for q, before_answer, after_answer, b, a in zip(questions, run.answers, again, run.predictions(), after.predictions()):
        touched = sum(o.tree.memory_uses() for o in after_answer.options)
        changes.append({"question": q.id, "gold": q.answer_key, "before": b, "after": a,
                        "memory beliefs used": touched})
    return {"taught": taught, "read": read, "after": after, "changes": changes}
