"""Token-level models: taggers that mark labelled spans (entities) of a text.

- `base`: `Tagger`, the one adapter type (labelled spans per text, validated);
- `bio`: BIO tags aggregated to spans (strict or lenient reading of ill-formed runs);
- `adapters`: a spaCy pipeline's entity recogniser, a transformers token classifier, a
  callable;
- `families`: `as_tagger` and the `TaggerFamily` registry (entry-point group
  ``pytest_fairness.taggers``).
"""

from __future__ import annotations

from .adapters import callable_tagger, spacy_tagger, token_classifier_tagger
from .base import Tagger, TaggerStats
from .bio import bio_spans
from .families import (
    TAGGER_FAMILIES,
    TaggerFamily,
    TaggerOptions,
    as_tagger,
    register_tagger_family,
    tagger_families,
)

__all__ = [
    "TAGGER_FAMILIES",
    "Tagger",
    "TaggerFamily",
    "TaggerOptions",
    "TaggerStats",
    "as_tagger",
    "bio_spans",
    "callable_tagger",
    "register_tagger_family",
    "spacy_tagger",
    "tagger_families",
    "token_classifier_tagger",
]
