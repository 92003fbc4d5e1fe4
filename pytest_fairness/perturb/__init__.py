"""Perturbations: pure functions from text (or anchors) to `Perturbation` records.

Nothing here imports pytest or hypothesis, and nothing loads spaCy or a data file at
import: the functions that need a parse take an ``nlp`` argument (or load the default
pipeline through `pytest_fairness.resources.nlp` on first call), and the word lists and templates
under ``pytest_fairness/data`` are read on first use.

- `names`: replace pronoun anchors with names (psa, section 2).
- `gender_swap` / `gender_swaps` / `swap_doc`: gender counterfactuals, opposite or neutral.
- `templates` / `load_templates` / `fill`: the papers' templates filled with groups of terms.

The functions `names` and `templates` share their names with the modules that define
them: ``pytest_fairness.perturb.names`` is the function (its module is
``pytest_fairness.perturb.name_swap``), and ``pytest_fairness.perturb.templates`` the function
(the module stays reachable as ``sys.modules["pytest_fairness.perturb.templates"]``).

To add a family of perturbations (analogy, active mutation, ...), add a module beside
these and import its public functions below, adding them to ``__all__``.
"""

from __future__ import annotations

from .active import active, active_doc, is_neutral
from .analogy import WordAnalogy, analogy, analogy_doc, analogy_words
from .gender import (
    Target,
    gender_of_word,
    gender_swap,
    gender_swaps,
    gendered_words,
    pronoun_role,
    swap_doc,
)
from .mutations import KINDS, MutationKind, Mutator, mutations, mutations_many
from .name_swap import names, possessive
from .templates import Template, TemplateSet, fill, load_templates, template_sets, templates

__all__ = [
    "KINDS",
    "MutationKind",
    "Mutator",
    "Target",
    "Template",
    "TemplateSet",
    "WordAnalogy",
    "active",
    "active_doc",
    "analogy",
    "analogy_doc",
    "analogy_words",
    "fill",
    "gender_of_word",
    "gender_swap",
    "gender_swaps",
    "gendered_words",
    "is_neutral",
    "load_templates",
    "mutations",
    "mutations_many",
    "names",
    "possessive",
    "pronoun_role",
    "swap_doc",
    "template_sets",
    "templates",
]
