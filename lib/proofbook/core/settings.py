"""Settings that make their own cache keys.

Every component the book trains or builds once and then reuses (a reranker, a title generator, the
natural-logic operator model, the veracity classifier, Entailer's scorers, a cached run of a pipeline)
is described by one frozen dataclass that derives from :class:`ComponentSettings`.  The function that
builds the component takes that dataclass and nothing wider, so whatever it reads is one of its fields;
and the component's entry in the artifact cache (:mod:`proofbook.core.cache`) is keyed by
:meth:`ComponentSettings.cache_config`, which holds *every* field.  No field can be left out of a key by
accident, the way a key assembled from hand-picked fields (say, those whose names start with ``truth_``)
silently leaves out a new field with another name.

Next to the fields, the config holds the component's **code version** (``CODE_VERSION``, declared once
on the class: for instance ``{"head": HEAD_INIT_VERSION}`` for a model whose classification head is
initialised by :mod:`proofbook.models.cross_encoder`), bumped when the code that builds the component
changes what it builds, and the **fingerprints of its data** (passed as keywords: the training examples,
the corpus).  The chapters' parameter cells stay flat (one value per papermill parameter); a chapter's
settings hand each component its own dataclass (``settings.truth_scorer``), which is what that
component's builder reads.

``tests/core/test_settings.py`` changes each field of every :class:`ComponentSettings` in the library, one at
a time, and checks that the key changes.
"""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Mapping


@dataclasses.dataclass(frozen=True)
class ComponentSettings:
    """Base of a component's settings: its cache config holds all of its fields and its code version."""

    #: versions of the code that builds the component (part of every key); bump one when that code changes
    #: what it builds, so that entries built by the old code are not reused
    CODE_VERSION: ClassVar[Mapping[str, Any]] = {}

    def cache_config(self, **data: Any) -> dict:
        """The artifact-cache config of the component built with these settings from ``data``.

        ``{"settings": <every field>, **CODE_VERSION, **data}``; ``data`` holds fingerprints of what the
        component is built from (examples, corpus, the keys of the models it builds on).
        """
        reserved = {"settings", *self.CODE_VERSION}
        clash = sorted(reserved & set(data))
        if clash:
            raise ValueError(f"{type(self).__name__}.cache_config: {clash} name the settings or the code "
                             f"version; give the data another name")
        return {"settings": dataclasses.asdict(self), **self.CODE_VERSION, **data}


def component_settings_classes() -> list[type[ComponentSettings]]:
    """Every subclass of :class:`ComponentSettings` defined so far (import the modules first), by name."""
    found, stack = {}, [ComponentSettings]
    while stack:
        for sub in stack.pop().__subclasses__():
            found[f"{sub.__module__}.{sub.__qualname__}"] = sub
            stack.append(sub)
    return [found[name] for name in sorted(found)]
