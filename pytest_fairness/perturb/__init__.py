"""Perturbations: pure functions from text (or anchors) to `Perturbation` records.

Nothing here imports pytest or hypothesis, and nothing loads spaCy or a data file at
import: the functions that need a parse take an ``nlp`` argument (or load the default
pipeline through `pytest_fairness.resources.nlp` on first call), and the word lists and templates
under ``pytest_fairness/data`` are read on first use.

- `names`: replace pronoun anchors with names (psa, section 2).
- `gender_swap` / `gender_swaps` / `swap_doc`: gender counterfactuals, opposite or neutral.
- `templates` / `load_templates` / `fill`: the papers' templates filled with groups of terms.
- `mutations` / `mutations_many` / `Mutator`: mt-nlp's perturbation set S (Algorithm 2).
- Perturbation kinds (`pytest_fairness.perturb.kinds`): `PerturbationKind`, the protocol
  of a named generator; `register_kind`, `get_kind`, `kind_names`; built in "gender"
  (`MutationsKind`), "gender_swap" (`GenderSwapKind`) and, through "mt-nlp", every
  attribute of the knowledge graph. `register_dictionary` (`DictionaryKind`) makes a
  user's replacement dictionary a kind in one call (`pytest_fairness.perturb.dictionary`).

The functions `names` and `templates` share their names with the modules that define
them: ``pytest_fairness.perturb.names`` is the function (its module is
``pytest_fairness.perturb.name_swap``), and ``pytest_fairness.perturb.templates`` the function
(the module stays reachable as ``sys.modules["pytest_fairness.perturb.templates"]``).

To add a family of perturbations, write a `PerturbationKind` and register it (in a
``conftest.py``, or from another package through the entry-point group
``pytest_fairness.perturbations``); a family shipped with the package goes in a module
beside these, registered by ``kinds._builtins``.
"""

from __future__ import annotations

from .active import active, active_doc, is_neutral
from .analogy import WordAnalogy, analogy, analogy_doc, analogy_words
from .coerce import FunctionKind
from .dictionary import DictionaryKind, GroupEntries, register_dictionary
from .gender import (
    TARGETS,
    GenderSwapKind,
    Target,
    gender_of_word,
    gender_swap,
    gender_swaps,
    gendered_words,
    pronoun_role,
    swap_doc,
)
from .kinds import PerturbationKind, get_kind, kind_names, register_kind
from .mutations import KINDS, MutationKind, MutationsKind, Mutator, mutations, mutations_many
from .name_swap import names, possessive, split_names
from .templates import Template, TemplateSet, fill, load_templates, template_sets, templates

__all__ = [
    "KINDS",
    "TARGETS",
    "DictionaryKind",
    "FunctionKind",
    "GenderSwapKind",
    "GroupEntries",
    "MutationKind",
    "MutationsKind",
    "Mutator",
    "PerturbationKind",
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
    "get_kind",
    "is_neutral",
    "kind_names",
    "load_templates",
    "mutations",
    "mutations_many",
    "names",
    "possessive",
    "pronoun_role",
    "register_dictionary",
    "register_kind",
    "split_names",
    "swap_doc",
    "template_sets",
    "templates",
]
