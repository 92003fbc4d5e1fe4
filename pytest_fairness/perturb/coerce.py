"""What users pass as perturbations, normalised to `Perturbation` records.

Relations accept perturbations in the forms people have them: a text and its perturbed
versions, `Case`s, `Perturbation`s, a perturber callable, or the name of a sensitive
attribute (or perturbation kind) to generate them for. This module turns each into
`Perturbation`s with exact spans of the changed words (a word-level diff for plain
texts), and checks them (a perturbation identical to its original tests nothing and
raises). `resolve_perturber` turns a callable or a name into a `ResolvedPerturber`
through the kind registry (`pytest_fairness.perturb.kinds`); `FunctionKind` is a
callable as a kind.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError, ExtensionError, FairnessError, FairnessViolation
from ..registry import Signature
from ..runtime.printable import printable
from ..types import BuiltinKind, Case, Perturbation, Span
from ..validation import check_texts
from .kinds import (
    DEFAULT_BATCH_SIZE,
    KIND_REGISTRY,
    PerturbationKind,
    find_kind,
    registered_kinds_note,
)

__all__ = [
    "CUSTOM_KIND",
    "FunctionKind",
    "Perturber",
    "PerturberOutput",
    "ResolvedPerturber",
    "coerce_cases",
    "gender_swapper",
    "kind_perturber",
    "normalise_perturbations",
    "perturbation_from_texts",
    "resolve_perturber",
]

# A ConfigurationError about what a user passed is traced to the user's call, not here.

#: What a perturber callable may return for one text.
PerturberOutput = Perturbation | str | Sequence[Perturbation | str] | None
#: The kind given to perturbations built from two plain texts.
CUSTOM_KIND: BuiltinKind = "custom"

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
    """What a perturber returned for `text` (a `Perturbation`, a text, a sequence of
    either, or None) as `Perturbation`s of `text`, deduplicated by perturbed text; texts
    get their spans from `perturbation_from_texts`. A perturbation of another text or one
    identical to `text` raises `ConfigurationError`."""
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


class FunctionKind(PerturbationKind):
    """A function as a perturbation kind: ``function(text)`` returns the perturbations of
    one text, or with ``batch=True`` ``function(texts)`` returns one result per text.

    A result may be a `Perturbation`, a perturbed text, a sequence of either, or None
    (see `normalise_perturbations`: plain texts get their changed words by a word-level
    diff, `Perturbation.kind` "custom"). `attribute` defaults to `name`.
    """

    def __init__(
        self,
        name: str,
        function: Callable[[Any], Any],
        *,
        attribute: str | None = None,
        batch: bool = False,
        given_as: str | None = None,
    ) -> None:
        super().__init__(name, attribute)
        shown = given_as or "a perturbation function"
        if not callable(function):
            raise ConfigurationError(
                f"{shown} must be a callable text -> perturbations, got "
                f"{type(function).__name__} {printable(repr(function)):.60}"
            )
        problem = Signature(1, shown="").accepts(function)
        if problem is not None:
            one = "a list of texts" if batch else "one text"
            raise ConfigurationError(
                f"{shown} {_function_name(function)} cannot be called with {one} "
                f"({problem}); it must take {one} and return its perturbations"
            )
        self.function = function
        self.batch = batch
        self.given_as = given_as
        """How the user handed the function over ("swap=", "perturber="), for messages;
        None for a function registered as a kind (named by its registration)."""

    @property
    def description(self) -> str:
        role = "perturber" if self.given_as is None else f"the {self.given_as} function"
        return f"{role} {_function_name(self.function)}"

    def _apply(self, argument: Any) -> Any:
        """The user's function on `argument`; what it raises (other than the package's
        own errors) leaves as `ExtensionError` naming it: as the argument it was given
        (``swap=``), else as the registered kind (with where it was registered)."""
        try:
            return self.function(argument)
        except (FairnessError, FairnessViolation):
            raise
        except Exception as exc:
            if self.given_as is None:
                raise KIND_REGISTRY.failure(self, "__call__", exc) from exc
            first = argument if isinstance(argument, str) else (argument or [""])[0]
            raise ExtensionError(
                f"the {self.given_as} function {_function_name(self.function)} raised "
                f"{type(exc).__name__}: {printable(str(exc))}, on {short(first)}. The error "
                f"is in that function, not in pytest-fairness: fix the function given as "
                f"{self.given_as} (its own exception is chained as the cause)",
                what="perturbation function", name=_function_name(self.function),
                origin=self.given_as) from exc

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        if self.batch:
            return self.perturb_many([text])[0]
        return normalise_perturbations(text, self._apply(text), self.attribute)

    def perturb_many(
        self, texts: Iterable[str], *, nlp: Any = None, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[list[Perturbation]]:
        if not self.batch:
            return super().perturb_many(texts, nlp=nlp, batch_size=batch_size)
        items = check_texts(texts)
        found = self._apply(items)
        if isinstance(found, (str, Perturbation)) or not isinstance(found, Sequence):
            raise ConfigurationError(
                f"{self.description} (batch=True) must return one result per text, got "
                f"{type(found).__name__}"
            )
        if len(found) != len(items):
            raise ConfigurationError(
                f"{self.description} (batch=True) returned {len(found)} results for "
                f"{len(items)} texts; return one per text, in order"
            )
        return [
            normalise_perturbations(text, out, self.attribute)
            for text, out in zip(items, found, strict=True)
        ]


def _function_name(function: object) -> str:
    name = getattr(function, "__qualname__", None)
    return printable(name if isinstance(name, str) else type(function).__name__)


def short(text: str, limit: int = 60) -> str:
    """`text` quoted for a message, cut to `limit` characters, made printable."""
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    return printable(repr(shown))


def kind_perturber(kind: PerturbationKind, attribute: str | None = None) -> ResolvedPerturber:
    """`kind` as a `ResolvedPerturber` (its batch form `perturb_many`); its perturbations
    are checked and deduplicated (`normalise_perturbations`). `attribute` is what the
    caller asked for (default: the kind's)."""
    label = kind.attribute if attribute is None else attribute

    def many(texts: list[str]) -> list[list[Perturbation]]:
        found = kind.perturb_many(texts)
        return [
            normalise_perturbations(t, ps, label) for t, ps in zip(texts, found, strict=True)
        ]

    return ResolvedPerturber(lambda t: many([t])[0], many, attribute, kind.description)


def resolve_perturber(
    perturber: Callable[[str], Any] | None = None,
    attribute: str | None = None,
    *,
    given_as: str = "perturber=",
) -> ResolvedPerturber:
    """The perturbations of a text, from a callable or generated for an attribute.

    `perturber(text)` may return a `Perturbation`, a text, a sequence of either, or None
    (a `PerturbationKind` is used with its batch form). Without a callable, `attribute`
    names the kind (`pytest_fairness.perturb.kinds.find_kind`): a registered one ("gender":
    mt-nlp Algorithm 2 mutations plus the gender swap; "gender_swap"; a user's dictionary
    or kind), else the mt-nlp mutations of an attribute of the knowledge graph. Duplicates
    are dropped; a perturbation identical to its text raises. A callable that raises
    fails as `ExtensionError` naming it as `given_as` (the argument it came in as, e.g.
    "swap="), its exception chained.
    """
    if perturber is not None:
        if not callable(perturber):
            raise ConfigurationError(
                f"{given_as.rstrip('=')} must be a callable text -> perturbations, got "
                f"{type(perturber).__name__} {printable(repr(perturber)):.60}"
            )
        if isinstance(perturber, PerturbationKind):
            return kind_perturber(perturber, attribute)
        label = attribute or "unspecified"
        name = getattr(perturber, "__qualname__", None)
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            name = type(perturber).__name__
        return kind_perturber(
            FunctionKind(name, perturber, attribute=label, given_as=given_as), attribute)
    if attribute is None:
        raise ConfigurationError(
            "no perturbations to use: pass perturber=<callable text -> perturbations>, "
            'perturbations=[...], or attribute= (e.g. attribute="gender")'
        )
    if not isinstance(attribute, str) or not attribute.strip():
        raise ConfigurationError(f"attribute must be a non-empty string, got {attribute!r}")
    kind = find_kind(attribute)
    if kind is None:
        raise ConfigurationError(
            f"no perturbation generator for attribute={attribute!r}: no perturbation kind "
            f"has that name and the knowledge graph knows no such attribute. "
            f"{registered_kinds_note()}; or pass perturber=<callable text -> perturbations>"
        )
    return kind_perturber(kind, attribute)


def gender_swapper(swap: Callable[[str], Any] | str | None = None) -> ResolvedPerturber:
    """`swap` as a perturber, or the definitional gender swap (`GenderSwapKind`; never the
    mt-nlp mutations: CF compares a text with its definitional gender counterfactual).
    `swap` may name a registered perturbation kind (``swap="gender_swap"``, a user's
    dictionary); a name that is none is a `ConfigurationError` listing them."""
    if isinstance(swap, str):
        from .kinds import find_kind, registered_kinds_note

        kind = find_kind(swap) if swap.strip() else None
        if kind is None:
            raise ConfigurationError(
                f"swap={printable(repr(swap)):.80} names no perturbation kind. "
                f"{registered_kinds_note()}; or pass swap=<callable text -> perturbations>")
        return kind_perturber(kind, kind.attribute)
    if swap is not None:
        return resolve_perturber(swap, "gender", given_as="swap=")
    from .gender import GenderSwapKind

    return kind_perturber(GenderSwapKind(), "gender")
