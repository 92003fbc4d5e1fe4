"""Name perturbation at pronoun anchors (psa, section 2).

Perturbation sensitivity analysis takes sentences X that each have an *anchor*, a
referring expression (here a third-person singular pronoun), and replaces the anchor with
every name n in a list N, giving |X| x |N| perturbed sentences (psa, section 2; the
anchors and the use of pronouns in section 2.2). This module does the replacement; the
anchors come from `pytest_fairness.corpus` (spaCy) as `Anchor` records.

Grammar is kept by the anchor's role:

=====================  ===============  ======================
role                   example          replacement
=====================  ===============  ======================
subject                *He* left.       *Alice* left.
object                 I saw *him*.     I saw *Alice*.
possessive_determiner  *his* book       *Alice's* book
possessive_pronoun     It is *hers*.    It is *Alice's*.
name (a PERSON)        *Bob* left.      *Alice* left.
reflexive              He hurt himself  skipped (no perturbation)
person_noun            the doctor       skipped (no perturbation)
=====================  ===============  ======================

Choices, documented:

- Reflexive anchors are skipped: "He hurt himself" -> "He hurt Alice" changes who was hurt,
  and "Alice hurt Alice" changes the meaning as well. They produce no perturbation.
- Person-noun anchors ("the doctor") are skipped: "the doctor" -> "the Alice" is not
  English, and dropping the determiner is a change the anchor does not describe.
- Possessives add "'s" to every name, names ending in s included ("James's book"), the
  form most style guides prefer for singular names; pass ``possessive="'"`` for
  "James' book". The apostrophe is always the ASCII one.
- Casing: names are used as given (capitalised lists). A sentence-initial anchor gets an
  upper-case first letter. An all-capitals anchor ("HE SAID") gets the name in capitals
  ("ALICE SAID", "ALICE'S"), so a shouted sentence stays shouted and the only change a
  model sees is the name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from ..errors import ConfigurationError
from ..runtime.printable import printable, unsafe
from ..types import Anchor, Casing, Perturbation
from ._edit import Edit, apply_casing, apply_edits

__all__ = ["NameSplicer", "Names", "check_names", "names", "possessive", "split_names"]

#: What ``names=`` accepts (`split_names`): names, a mapping name -> group, (name, group)
#: pairs; a data frame with "name" and "group" columns works too.
Names = Sequence[str] | Mapping[str, Any] | Sequence[tuple[str, Any]]

_POSSESSIVE_ROLES = frozenset({"possessive_determiner", "possessive_pronoun"})
_REPLACED_ROLES = frozenset({"subject", "object", "name"}) | _POSSESSIVE_ROLES


def possessive(name: str, style: Literal["'s", "'"] = "'s") -> str:
    """The possessive of `name`: "Alice's", and "James's" (or "James'" with ``style="'"``).

    ``style="'"`` adds only an apostrophe to names ending in s; other names always get "'s".
    """
    if style not in ("'s", "'"):
        raise ConfigurationError(f"possessive style must be \"'s\" or \"'\", not {style!r}")
    if style == "'" and name[-1:].lower() == "s":
        return name + "'"
    return name + "'s"


def names(
    anchored: Iterable[Anchor],
    names: Sequence[str],
    *,
    groups: Mapping[str, str | None] | None = None,
    possessive_style: Literal["'s", "'"] = "'s",
    genders: Mapping[str, str] | None = None,
) -> list[Perturbation]:
    """Replace each anchor with each name (psa, section 2): the |X| x |N| perturbed set.

    `anchored` holds one `Anchor` per sentence (or several: each is perturbed on its own).
    Returns, anchor by anchor and name by name, one `Perturbation` with kind "name",
    attribute "name", `from_group` the anchor's gender ("female"/"male", None for a name
    anchor of unknown gender), `to_group` the bare name (psa's per-name ScoreSens groups by
    it) or ``groups[name]`` when `groups` is given (e.g. ``pytest_fairness.names.genders(N)``
    to group by the names' gender), `from_words` the anchor word and `to_words` its
    replacement ("Alice" or "Alice's"). Spans are exact in both texts.

    Reflexive and person-noun anchors produce nothing (see the module docstring), so the
    result has |X'| x |N| items for the X' anchors that can take a name.

    An anchor of another language (``Corpus(texts, lang="fr").anchored()``, its
    `Anchor.lang`) takes the name with that language's agreement: "Il est allé." ->
    "Marie est allée." (`Language.splice_names`). The name's gender comes from
    ``genders[name]``, else from `groups` or the language's name lists
    (`perturb.languages.name_genders`, which raises for a name with none).

    `anchored` must hold `Anchor`s (a plain text has no anchor yet: find them with
    ``Corpus(texts).anchored()``), and `names` distinct non-empty strings, at least one;
    anything else raises `ConfigurationError` saying which item and the fix.
    """
    check_names(names)
    name_list = list(names)
    if groups is not None and not isinstance(groups, Mapping):
        raise ConfigurationError(
            f"groups must be a mapping name -> group, got {type(groups).__name__} "
            f"{groups!r:.60}"
        )
    if groups is not None:
        missing = [n for n in name_list if n not in groups]
        if missing:
            raise ConfigurationError(
                f"groups has no entry for {missing[:5]}; give a group for every name "
                "or leave groups out to group by the name itself"
            )
    out: list[Perturbation] = []
    for anchor in _anchors(anchored):
        span = anchor.span
        if anchor.text[span.start : span.end] != span.text:
            raise ConfigurationError(
                f"anchor span {span.start}:{span.end} ({span.text!r}) does not match its "
                f"sentence {anchor.text!r}"
            )
        if anchor.role not in _REPLACED_ROLES:
            continue
        if anchor.lang != "en":
            out += [apply_edits(anchor.text, edits, kind="name", attribute="name",
                                from_group=anchor.gender,
                                to_group=groups[name] if groups is not None else name)
                    for name, edits in zip(name_list, _foreign(anchor, name_list, genders,
                                                               groups), strict=True)]
            continue
        for name in name_list:
            replacement = _replacement(name, anchor, possessive_style)
            out.append(
                apply_edits(
                    anchor.text,
                    [Edit(span.start, span.end, replacement)],
                    kind="name",
                    attribute="name",
                    from_group=anchor.gender,
                    to_group=groups[name] if groups is not None else name.strip(),
                )
            )
    return out


def _foreign(anchor: Anchor, names: Sequence[str], genders: Mapping[str, str] | None,
             groups: Mapping[str, object] | None = None) -> list[list[Edit]]:
    """The edits of each name in place of an anchor of a language other than English
    (`Language.splice_names`), each name with its gender (`name_genders`)."""
    from .languages import get_language, name_genders

    language = get_language(anchor.lang)
    if genders is None or any(n not in genders for n in names):
        genders = name_genders(names, language, {**(groups or {}), **(genders or {})})
    return language.splice_names(anchor, [(n, genders[n]) for n in names])


def _form(anchor: Anchor) -> tuple[bool, Casing]:
    """What decides an anchor's replacement of a name: possessive or not, and its casing
    ("upper", "title" or "lower")."""
    casing: Casing = (
        "upper" if anchor.casing == "upper"
        else "title" if anchor.sentence_initial or anchor.casing == "title" else "lower"
    )
    return anchor.role in _POSSESSIVE_ROLES, casing


def _replacement(name: str, anchor: Anchor, style: Literal["'s", "'"]) -> str:
    """What `name` becomes in place of `anchor`: possessive, cased like it."""
    is_possessive, casing = _form(anchor)
    replacement = name.strip()
    if is_possessive:
        replacement = possessive(replacement, style)
    if casing != "lower":
        replacement = apply_casing(replacement, casing)
    return replacement


class NameSplicer:
    """The texts `names` makes from one anchor, and nothing else: PSA's hot path.

    `names(anchors, N)` builds a `Perturbation` (three frozen dataclasses) for each
    sentence x name, 16.6x the CPU of the string splice PSA scores; a PSA run keeps records
    only for its worst few sentences. `splicer(anchor)` gives the perturbed texts, in name
    order, equal to ``[p.perturbed for p in names([anchor], N, possessive_style=...)]``
    (empty for an anchor that takes no name): each anchor is checked as `names` checks
    it, and each name's replacement is made once per form (possessive or not, and casing)
    rather than once per sentence. Build the records of the sentences kept with `names`.
    `names` must be checked already (`check_names` / `split_names`). An anchor of another
    language than English is spliced with that language's agreement, each name of the
    gender `genders` gives it (default: the language's name lists; `names`).
    """

    def __init__(self, names: Sequence[str], possessive_style: Literal["'s", "'"] = "'s",
                 genders: Mapping[str, str] | None = None) -> None:
        if possessive_style not in ("'s", "'"):
            possessive("x", possessive_style)  # raises, saying the choices
        self._names = list(names)
        self._genders = genders
        self._style = possessive_style
        self._forms: dict[tuple[bool, Casing], list[str]] = {}

    def __call__(self, anchor: Anchor) -> list[str]:
        span = anchor.span
        text = anchor.text
        if text[span.start : span.end] != span.text:
            raise ConfigurationError(
                f"anchor span {span.start}:{span.end} ({span.text!r}) does not match its "
                f"sentence {text!r}"
            )
        if anchor.role not in _REPLACED_ROLES:
            return []
        if anchor.lang != "en":
            if self._genders is None:
                from .languages import name_genders

                self._genders = name_genders(self._names, anchor.lang)
            return [apply_edits(text, edits, kind="name", attribute="name").perturbed
                    for edits in _foreign(anchor, self._names, self._genders)]
        form = _form(anchor)
        replacements = self._forms.get(form)
        if replacements is None:
            replacements = self._forms[form] = [
                _replacement(name, anchor, self._style) for name in self._names
            ]
        head, tail = text[: span.start], text[span.end :]
        return [f"{head}{r}{tail}" for r in replacements]  # one string built, no temporary


def _anchors(anchored: object) -> Iterable[Anchor]:
    """The items of `anchored`, each checked to be an `Anchor`, as they come."""
    if isinstance(anchored, Anchor):
        raise ConfigurationError(
            "names() takes a list of anchors, not one Anchor: pass [anchor]"
        )
    if isinstance(anchored, (str, bytes, bytearray)) or not isinstance(anchored, Iterable):
        raise ConfigurationError(
            "names() takes a list of Anchors (from Corpus(texts).anchored()), got "
            f"{type(anchored).__name__} {anchored!r:.60}"
        )
    for position, item in enumerate(anchored):
        if not isinstance(item, Anchor):
            fix = (
                "; a text has no anchor yet: find them with Corpus(texts).anchored()"
                if isinstance(item, str) else ""
            )
            raise ConfigurationError(
                f"names() takes Anchors (from Corpus(texts).anchored()); item {position} of "
                f"anchored is {type(item).__name__} {item!r:.60}{fix}"
            )
        yield item


def check_names(names: object) -> list[str]:
    """`names` as a list of distinct, non-empty, stripped names; anything else raises
    `ConfigurationError` naming the problem: not a list (one string, bytes, a number),
    an item that is not a non-empty string, a name holding a character a terminal acts
    on or cannot show (a newline, NUL, ESC, a lone surrogate, a bidirectional override:
    `pytest_fairness.runtime.printable.unsafe`), no name at all, or a name given twice."""
    if isinstance(names, (str, bytes, bytearray)) or not isinstance(names, Iterable):
        wrap = f"; wrap one name in a list: [{names!r:.40}]" if isinstance(names, str) else ""
        raise ConfigurationError(
            f"names must be a list of names, e.g. ['Alice', 'Bob'], got "
            f"{type(names).__name__} {names!r:.60}{wrap}"
        )
    out = [n.strip() if isinstance(n, str) else n for n in names]
    bad = [n for n in out if not isinstance(n, str) or not n]
    if bad:
        raise ConfigurationError(f"names must be non-empty strings, got {bad[0]!r:.60}")
    for name in out:
        if name.isascii() and name.isprintable():  # no ASCII printable character is unsafe
            continue
        hidden = next((c for c in name if unsafe(c)), None)
        if hidden is not None:
            raise ConfigurationError(
                f"the name '{printable(name):.60}' holds the character {hidden!r} (U+"
                f"{ord(hidden):04X}: a control, invisible or unencodable character), which "
                "no name holds and which would reach the report and the terminal: remove it "
                "from the name"
            )
    if not out:
        raise ConfigurationError(
            "names is empty: PSA replaces each anchor with each name; pass at least one name "
            "(e.g. pytest_fairness.names.popular('en', n=20))"
        )
    dupes = sorted(n for n, count in Counter(out).items() if count > 1)
    if dupes:
        raise ConfigurationError(
            f"names must be unique (each name is one group of ScoreSens); repeated: {dupes}"
        )
    return [n for n in out if isinstance(n, str)]


def _group_label(group: object, name: str) -> str | None:
    if group is None:
        return None
    if isinstance(group, tuple):
        parts = [str(g) for g in group if g is not None]
        return ", ".join(parts) if len(parts) == len(group) and parts else None
    if isinstance(group, str):
        return group.strip() or None
    raise ConfigurationError(
        f"the group of name {name!r} must be a string (or a tuple of strings for "
        f"intersectional groups, or None), not {type(group).__name__} {group!r:.40}"
    )


def split_names(names: object) -> tuple[list[str], dict[str, str | None] | None]:
    """The names, and their groups when `names` gives them, from any accepted form.

    `names` is a list of names (groups None: the caller's defaults apply), a mapping
    name -> group, a sequence of (name, group) pairs, or a data-frame-like object with
    "name" and "group" columns (pandas, polars, a dict of lists). A group is a string, a
    tuple of strings (joined with ", ": ("female", "Black") -> "female, Black", for
    intersectional groups such as `pytest_fairness.resources.names.groups(by=("gender",
    "race"))` builds), or None (the name's group is unknown: "other" in charts). Names
    are checked by `check_names`; anything else raises `ConfigurationError`.
    """
    pairs: list[tuple[object, object]] | None = None
    columns = getattr(names, "columns", None)
    if isinstance(names, Mapping) and "name" in names and "group" in names and all(
        isinstance(names[k], Sequence) and not isinstance(names[k], str)
        for k in ("name", "group")
    ):
        pairs = list(zip(names["name"], names["group"], strict=True))
    elif columns is not None and not isinstance(names, Mapping):
        cols = [str(c) for c in columns]
        if "name" not in cols or "group" not in cols:
            raise ConfigurationError(
                f"a table of names needs columns 'name' and 'group'; it has {cols[:6]}"
            )
        table: Any = names
        pairs = list(zip(list(table["name"]), list(table["group"]), strict=True))
    elif isinstance(names, Mapping):
        pairs = list(names.items())
    elif isinstance(names, Iterable) and not isinstance(names, (str, bytes, bytearray)):
        items = list(names)
        if items and all(isinstance(i, tuple) and len(i) == 2 for i in items):
            pairs = [(i[0], i[1]) for i in items]
        else:
            return check_names(items), None
    if pairs is None:
        return check_names(names), None
    name_list = check_names([n for n, _ in pairs])
    groups = {name: _group_label(g, name) for name, (_, g) in zip(name_list, pairs, strict=True)}
    return name_list, groups
