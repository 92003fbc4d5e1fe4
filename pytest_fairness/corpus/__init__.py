"""The input layer: texts in, anchored sentences out, ready to be perturbed.

Data moves through three modules, in this order:

- `sources`: a `Corpus` reads texts from a list, a `.txt` / `.csv` / `.jsonl` file, an
  iterable or a callable, streamed (files are re-read lazily on each pass, so a corpus of
  millions of lines is fine); `Corpus.sample` draws a seeded reservoir sample.
- `anchors`: in each text, the word that refers to a person (psa, sections 2 and 2.2):
  the first English third-person singular pronoun (`PRONOUNS`), or the first person name
  or person noun (`is_person_noun`, `person_noun_gender`); spaCy is loaded through
  `pytest_fairness.resources.nlp` on first use, and only where a parse is needed.
- `selection`: which anchors are kept, at most 50 words a text, a limit, as many female
  as male pronouns (psa, section 2.2): `Corpus.anchored` gives an `AnchorList`,
  `Corpus.iter_anchored` the same anchors as an `AnchorStream` in bounded memory; both
  carry an `AnchorReport` counting what was read, skipped and kept.

The `Anchor` records go on to `pytest_fairness.perturb`. Only `sources` reads a run
setting (the default seed, `--fairness-seed`); the rest take everything as arguments.
"""

from __future__ import annotations

from .anchors import (
    ANCHOR_KINDS,
    GENDERS,
    PRONOUNS,
    Gender,
    is_person_noun,
    person_noun_gender,
)
from .selection import AnchorList, AnchorReport, AnchorStream
from .sources import FILE_SUFFIXES, Corpus, CorpusSource

__all__ = [
    "ANCHOR_KINDS",
    "FILE_SUFFIXES",
    "GENDERS",
    "PRONOUNS",
    "AnchorList",
    "AnchorReport",
    "AnchorStream",
    "Corpus",
    "CorpusSource",
    "Gender",
    "is_person_noun",
    "person_noun_gender",
]
