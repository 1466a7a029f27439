"""Codecs of the artifact cache: how a value is written into an entry's folder and read back.

:class:`proofbook.core.cache.ArtifactCache` stores each entry in a folder of its own; a :class:`Codec` says
which files hold the value: :func:`json_codec` (predictions, metric rows), :func:`pickle_codec` (an index, a
run's traces; only for the cache's own files) and :func:`object_codec` (a model with ``save(folder)`` and
``load(folder)``, such as :class:`proofbook.models.cross_encoder.CrossEncoder`).

A pickled value names its classes by module.  When the library was cut into a shared layer and one package
per paper, some modules were renamed and some classes moved: :data:`MOVED_MODULES` and
:data:`MOVED_CLASSES` let :func:`pickle_codec` load values pickled before.
"""
from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any, Callable, NamedTuple


class Codec(NamedTuple):
    """How to write an artifact into a folder, and read it back."""

    save: Callable[[Any, Path], None]
    load: Callable[[Path], Any]


def json_codec(name: str = "value.json") -> Codec:
    """Save/load a JSON-able value (predictions, metric rows) as one file."""
    def save(value: Any, folder: Path) -> None:
        (folder / name).write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")

    def load(folder: Path) -> Any:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    return Codec(save, load)


#: modules renamed when the library was cut into a shared layer and one package per paper: a value pickled
#: before (an AdMIRaL run, the natural-logic training proofs) names its classes by the old module
MOVED_MODULES = {
    "proofbook.corpus": "proofbook.core.corpus",
    "proofbook.retrieval.admiral": "proofbook.admiral.retrieval.multihop",
    "proofbook.retrieval.autoregressive": "proofbook.admiral.retrieval.autoregressive",
    "proofbook.retrieval.experiments": "proofbook.admiral.retrieval.retrieval_experiments",
    "proofbook.retrieval.pretraining": "proofbook.admiral.retrieval.pretraining",
    "proofbook.retrieval.tasks": "proofbook.admiral.retrieval.tasks",
    "proofbook.prover.natlog": "proofbook.admiral.prover.natlog",
    "proofbook.prover.proofgen": "proofbook.admiral.prover.proofgen",
    # modules renamed after what they hold
    "proofbook.admiral.retrieval.experiments": "proofbook.admiral.retrieval.retrieval_experiments",
    "proofbook.admiral.prover.experiments": "proofbook.admiral.prover.sufficiency_experiments",
    "proofbook.admiral.prover.aligned": "proofbook.admiral.prover.aligned_proofs",
    "proofbook.wild.experiments": "proofbook.wild.wild_experiments",
    "proofbook.entailer.experiments": "proofbook.entailer.entailer_experiments",
    "proofbook.entailer.behaviour_models": "proofbook.entailer.behaviours",
    "proofbook.index.token_trie": "proofbook.index.prefix_tree",
}


#: classes moved out of a module that still exists: ``(module, class) -> the module it lives in now``
MOVED_CLASSES = {
    ("proofbook.admiral.prover.proofgen", "TrainingProof"): "proofbook.admiral.prover.training_proofs",
    ("proofbook.admiral.prover.proofgen", "EvidenceSet"): "proofbook.admiral.prover.training_proofs",
    **{("proofbook.index.prefix_tree", name): "proofbook.index.constraints"
       for name in ("TitleTrie", "Segment", "SequenceConstraint", "_State")},
    **{("proofbook.entailer.behaviours", name): "proofbook.entailer.training_data"
       for name in ("Cleaned", "LabelledPairs", "StatementGroups")},
    # types moved down out of two modules that imported each other
    ("proofbook.admiral.prover.proofgen", "ProofgenSettings"): "proofbook.admiral.prover.proofgen_settings",
    **{("proofbook.admiral.prover.sufficiency_experiments", name): "proofbook.admiral.prover.trained_prover"
       for name in ("SufficiencySettings", "Prover")},
    **{("proofbook.entailer.components", name): "proofbook.entailer.settings"
       for name in ("Settings", "GeneratorTraining", "TruthScorerTraining", "EntailmentScorerTraining",
                    "SearchSettings")},
    ("proofbook.wild.wild_experiments", "Models"): "proofbook.wild.trained_models",
}


class _Unpickler(pickle.Unpickler):
    """``pickle.Unpickler`` that finds a class where it lives now (:data:`MOVED_MODULES`, :data:`MOVED_CLASSES`)."""

    def find_class(self, module: str, name: str) -> Any:
        module = MOVED_MODULES.get(module, module)
        return super().find_class(MOVED_CLASSES.get((module, name), module), name)


def pickle_codec(name: str = "value.pkl") -> Codec:
    """Save/load any picklable object (e.g. a BM25 index) as one file; only for this cache's own files."""
    def save(value: Any, folder: Path) -> None:
        with open(folder / name, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)

    def load(folder: Path) -> Any:
        with open(folder / name, "rb") as handle:
            return _Unpickler(handle).load()
    return Codec(save, load)


def object_codec(cls: type) -> Codec:
    """Save/load an object with ``obj.save(folder)`` and ``cls.load(folder)`` (e.g. CrossEncoder)."""
    return Codec(lambda value, folder: value.save(folder), cls.load)
