"""Settings that make their own cache keys: every field of every component's settings enters its key."""
import copy
import dataclasses
import importlib
import pkgutil

import pytest

import proofbook
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.core.settings import ComponentSettings, component_settings_classes

pytestmark = pytest.mark.unit


def _all_settings_classes() -> list[type[ComponentSettings]]:
    for module in pkgutil.walk_packages(proofbook.__path__, "proofbook."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    return component_settings_classes()


def _instance(cls):
    """The class's defaults, or (for classes without defaults) a value of each field's type."""
    try:
        return cls()
    except TypeError:
        samples = {int: 1, float: 0.5, str: "mixed"}
        values = {}
        for f in dataclasses.fields(cls):
            kind = eval(f.type, vars(importlib.import_module(cls.__module__))) if isinstance(f.type, str) else f.type
            base = next((t for t in samples if t is kind or t in getattr(kind, "__args__", ())), None)
            values[f.name] = samples[base] if base else None
        return cls(**values)


def _other(value):
    """A value of the same kind that differs from ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-other"
    if value is None:
        return 7
    if dataclasses.is_dataclass(value):
        first = dataclasses.fields(value)[0].name
        changed = copy.copy(value)
        object.__setattr__(changed, first, _other(getattr(value, first)))
        return changed
    raise AssertionError(f"no other value for {value!r}")


CLASSES = _all_settings_classes()


def test_the_library_declares_its_component_settings():
    names = {cls.__name__ for cls in CLASSES}
    assert {"TrainingSettings", "ClassifierSettings", "OperatorSettings", "ProofgenSettings", "ContextModelSettings",
            "GeneratorSettings", "VeracitySettings", "WildSettings", "GeneratorTraining", "TruthScorerTraining",
            "EntailmentScorerTraining", "SearchSettings"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_changing_any_field_changes_the_key(cls):
    base = _instance(cls)
    key = fingerprint(base.cache_config(train="d"))
    assert fingerprint(_instance(cls).cache_config(train="d")) == key
    for f in dataclasses.fields(cls):
        changed = copy.copy(base)
        object.__setattr__(changed, f.name, _other(getattr(base, f.name)))   # past validation: the key is tested
        assert fingerprint(changed.cache_config(train="d")) != key, f"{cls.__name__}.{f.name} is not in the key"
    assert fingerprint(base.cache_config(train="e")) != key


def test_the_code_version_enters_the_key_and_cannot_be_shadowed():
    @dataclasses.dataclass(frozen=True)
    class Old(ComponentSettings):
        size: int = 1

    @dataclasses.dataclass(frozen=True)
    class New(Old):
        CODE_VERSION = {"head": 2}

    assert Old().cache_config() == {"settings": {"size": 1}}
    assert New().cache_config(train="t") == {"settings": {"size": 1}, "head": 2, "train": "t"}
    for name in ("settings", "head"):
        with pytest.raises(ValueError, match="give the data another name"):
            New().cache_config(**{name: "x"})


def test_entailer_components_are_keyed_by_their_own_settings(tmp_path):
    from proofbook.entailer.settings import Settings

    base = Settings.smoke()
    cache = ArtifactCache(tmp_path)

    def key(settings, part):
        return cache.key_for(part, getattr(settings, part).cache_config())

    parts = ("premise_generator", "writer", "truth_scorer", "entailment_scorer")
    assert key(dataclasses.replace(base, k=9, temperature=2.0, premise_source="retrieved"), "writer") == key(base, "writer")
    changes = {"premise_generator": {"context_facts": 5, "gen_examples": 9},
               "writer": {"writer_epochs": 3, "writer_examples": 9, "gen_d_model": 48},
               "truth_scorer": {"truth_facts": 3, "truth_questions": 9, "ce_epochs": 2},
               "entailment_scorer": {"entail_examples": 9, "ce_batch": 4}}
    for part, fields in changes.items():
        for name, value in fields.items():
            changed = dataclasses.replace(base, **{name: value})
            assert key(changed, part) != key(base, part), (part, name)
            for other in parts:
                if getattr(changed, other) == getattr(base, other):
                    assert key(changed, other) == key(base, other)
    assert key(dataclasses.replace(base, context_facts=5), "writer") == key(base, "writer")   # the writer reads no context
    search = base.search_settings("mixed")
    assert base.search_settings("generated").pool is None and search.pool == base.pool
    assert dataclasses.replace(base, pool_dense=1).search_settings("mixed").cache_config() != search.cache_config()
