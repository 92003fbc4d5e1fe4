"""What users pass as perturbations, normalised to `Perturbation` records.

Relations accept perturbations in the forms people have them: a text and its perturbed
versions, `Case`s, `Perturbation`s, a perturber callable, or the name of a sensitive
attribute to generate them for. This module turns each into `Perturbation`s with exact
spans of the changed words (a word-level diff for plain texts), and checks them (a
perturbation identical to its original tests nothing and raises).
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError
from ..types import Case, Perturbation, PerturbationKind, Span
from .gender import gender_swaps

__all__ = [
    "CUSTOM_KIND",
    "Perturber",
    "PerturberOutput",
    "ResolvedPerturber",
    "coerce_cases",
    "gender_swapper",
    "mutations_module",
    "normalise_perturbations",
    "perturbation_from_texts",
    "resolve_perturber",
]

#: What a perturber callable may return for one text.
PerturberOutput = Perturbation | str | Sequence[Perturbation | str] | None
#: The kind given to perturbations built from two plain texts.
CUSTOM_KIND: PerturbationKind = "custom"

_TOKEN = re.compile(r"\w+(?:'\w+)?|[^\w\s]")


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def perturbation_from_texts(
    original: str, perturbed: str, attribute: str = "unspecified"
) -> Perturbation:
    """A `Perturbation` of two plain texts, the changed words found by a word-level diff.

    Each run of differing tokens becomes one pair of spans (an insertion has an empty
    span in the original). Raises `ConfigurationError` when the texts are identical.
    """
    if not isinstance(original, str) or not isinstance(perturbed, str):
        raise ConfigurationError(
            f"expected two texts, got {type(original).__name__} and {type(perturbed).__name__}"
        )
    if original == perturbed:
        raise ConfigurationError(
            f"the perturbed text is identical to its original {original!r:.80}: it tests "
            "nothing. Pass a text that differs in the sensitive attribute"
        )
    a, b = _tokens(original), _tokens(perturbed)
    matcher = difflib.SequenceMatcher(
        a=[t for t, _, _ in a], b=[t for t, _, _ in b], autojunk=False
    )
    o_spans: list[Span] = []
    p_spans: list[Span] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        o_spans.append(_span(original, a, i1, i2))
        p_spans.append(_span(perturbed, b, j1, j2))
    if not o_spans:  # same tokens, different spacing or case-insensitive noise
        o_spans, p_spans = [Span(0, len(original), original)], [Span(0, len(perturbed), perturbed)]
    return Perturbation(
        original=original,
        perturbed=perturbed,
        original_spans=tuple(o_spans),
        perturbed_spans=tuple(p_spans),
        kind=CUSTOM_KIND,
        attribute=attribute,
        from_words=tuple(s.text for s in o_spans),
        to_words=tuple(s.text for s in p_spans),
    )


def _span(text: str, tokens: list[tuple[str, int, int]], i1: int, i2: int) -> Span:
    if i1 < i2:
        start, end = tokens[i1][1], tokens[i2 - 1][2]
    else:
        start = end = tokens[i1][1] if i1 < len(tokens) else len(text)
    return Span(start, end, text[start:end])


def _check_perturbation(p: Perturbation, original: str | None = None) -> Perturbation:
    if original is not None and p.original != original:
        raise ConfigurationError(
            f"perturbation of {p.original!r:.60} given for the text {original!r:.60}; a "
            "perturbation must start from the text it is compared with"
        )
    if p.perturbed == p.original:
        raise ConfigurationError(
            f"a perturbation is identical to its original {p.original!r:.80}: it tests "
            "nothing. Drop it, or fix the perturber that made it"
        )
    return p


def _as_perturbation(original: str, item: object, attribute: str) -> Perturbation:
    if isinstance(item, Perturbation):
        return _check_perturbation(item, original)
    if isinstance(item, str):
        return perturbation_from_texts(original, item, attribute)
    raise ConfigurationError(
        f"a perturbation must be a str or a Perturbation, got {type(item).__name__} {item!r:.60}"
    )


def coerce_cases(original: object, perturbed: object = None) -> list[Case]:
    """What users pass to a relation, as `Case`s (one per distinct original text).

    `original` is a text with `perturbed` a text or a sequence of texts / `Perturbation`s;
    or, with `perturbed` None, a `Case`, a `Perturbation` or a sequence of either.
    Raises `ConfigurationError` on empty input, identical perturbations and mismatches.
    """
    if isinstance(original, str):
        if perturbed is None:
            raise ConfigurationError(
                "a text alone tests nothing: pass its perturbed version(s) as the second "
                "argument, or a Case / Perturbation(s) as the first"
            )
        items = [perturbed] if isinstance(perturbed, (str, Perturbation)) else perturbed
        if not isinstance(items, Iterable):
            raise ConfigurationError(
                f"perturbed must be a text or a sequence of texts, got {type(perturbed).__name__}"
            )
        found = [_as_perturbation(original, item, "unspecified") for item in items]
        if not found:
            raise ConfigurationError(f"no perturbed texts were given for {original!r:.80}")
        return [Case(original, tuple(found))]
    if perturbed is not None:
        raise ConfigurationError(
            "perturbed= goes with an original text; a Case or Perturbation already holds "
            "its perturbed texts"
        )
    items = [original] if isinstance(original, (Case, Perturbation)) else original
    if not isinstance(items, Iterable):
        raise ConfigurationError(
            f"expected a text, a Case, a Perturbation or a sequence of them, got "
            f"{type(original).__name__}"
        )
    groups: dict[str, list[Perturbation]] = {}
    for item in items:
        if isinstance(item, Case):
            if not item.perturbations:
                raise ConfigurationError(f"the Case of {item.original!r:.80} has no perturbations")
            for p in item.perturbations:
                groups.setdefault(item.original, []).append(_check_perturbation(p, item.original))
        elif isinstance(item, Perturbation):
            groups.setdefault(item.original, []).append(_check_perturbation(item))
        else:
            raise ConfigurationError(
                f"expected Cases or Perturbations, got {type(item).__name__} {item!r:.60}"
            )
    if not groups:
        raise ConfigurationError("no cases were given: the sequence of perturbations is empty")
    return [Case(text, tuple(ps)) for text, ps in groups.items()]


Perturber = Callable[[str], list[Perturbation]]


@dataclass(frozen=True)
class ResolvedPerturber:
    """A perturber normalised to `text -> list[Perturbation]`, with a batch form."""

    one: Perturber
    many: Callable[[list[str]], list[list[Perturbation]]]
    attribute: str | None
    describe: str


def normalise_perturbations(text: str, out: object, attribute: str) -> list[Perturbation]:
    if out is None:
        return []
    items = [out] if isinstance(out, (str, Perturbation)) else out
    if not isinstance(items, Iterable):
        raise ConfigurationError(
            f"a perturber must return Perturbation(s), text(s) or None, got {type(out).__name__}"
        )
    found: dict[str, Perturbation] = {}
    for item in items:
        p = _as_perturbation(text, item, attribute)
        found.setdefault(p.perturbed, p)
    return list(found.values())


def resolve_perturber(
    perturber: Callable[[str], Any] | None = None, attribute: str | None = None
) -> ResolvedPerturber:
    """The perturbations of a text, from a callable or generated for an attribute.

    `perturber(text)` may return a `Perturbation`, a text, a sequence of either, or None.
    Without a callable, `attribute` picks the generator: `perturb.mutations_many` (mt-nlp
    Algorithm 2: analogy and active mutations of person nouns, plus the gender swap for
    "gender") when the package has it, else `perturb.gender_swap` for "gender".
    Duplicates are dropped; a perturbation identical to its text raises.
    """
    if perturber is not None:
        if not callable(perturber):
            raise ConfigurationError(
                f"perturber must be a callable text -> perturbations, got {perturber!r:.60}"
            )
        fn = perturber
        label = attribute or "unspecified"

        def one(text: str) -> list[Perturbation]:
            return normalise_perturbations(text, fn(text), label)

        name = getattr(fn, "__qualname__", type(fn).__name__)
        return ResolvedPerturber(
            one, lambda ts: [one(t) for t in ts], attribute, f"perturber {name}"
        )
    if attribute is None:
        raise ConfigurationError(
            "no perturbations to use: pass perturber=<callable text -> perturbations>, "
            'perturbations=[...], or attribute= (e.g. attribute="gender")'
        )
    module = mutations_module()
    if module is not None:
        many_fn = module.mutations_many

        def mutate_many(texts: list[str]) -> list[list[Perturbation]]:
            found = many_fn(texts, attribute)
            return [
                normalise_perturbations(t, ps, attribute)
                for t, ps in zip(texts, found, strict=True)
            ]

        return ResolvedPerturber(
            lambda t: mutate_many([t])[0],
            mutate_many,
            attribute,
            f"{attribute} mutations (perturb.mutations)",
        )
    if attribute == "gender":
        return gender_swapper(None)
    raise ConfigurationError(
        f"no perturbation generator for attribute={attribute!r} in this version "
        '(built in: "gender"); pass perturber=<callable text -> perturbations> instead'
    )


def mutations_module() -> Any:
    """`pytest_fairness.perturb.mutations` (mt-nlp Algorithm 2) when this version has it,
    else None; imported on first use (it loads the graph and word vectors lazily)."""
    try:
        return importlib.import_module("pytest_fairness.perturb.mutations")
    except ImportError:
        return None


def gender_swapper(swap: Callable[[str], Any] | None = None) -> ResolvedPerturber:
    """`swap` as a perturber, or the default gender swap (never `perturb.mutations`: CF
    compares a text with its definitional gender counterfactual)."""
    if swap is not None:
        return resolve_perturber(swap, "gender")

    def swap_many(texts: list[str]) -> list[list[Perturbation]]:
        swaps = gender_swaps(texts)
        return [normalise_perturbations(t, s, "gender") for t, s in zip(texts, swaps, strict=True)]

    return ResolvedPerturber(
        lambda t: swap_many([t])[0], swap_many, "gender", "the gender swap (perturb.gender_swap)"
    )
