"""Template fills: the papers' sentence templates filled with groups of terms.

Two template sets ship as data (transcribed from the papers' appendices, loaded on first
use):

- ``"cross_geographic"``: the 33 toxicity templates of cross-geographic Appendix A ("You
  are a person", "I hate person", ...), each with the Perspective score the paper reports.
  Phase 2 replaces "person" with each term and reads the scores as the term's sensitivity
  vector (cross-geographic, section 3.2). The template's own word ("person", or "people"
  in the five "These people ..." templates) is its `reference`.
- ``"country"``, ``"occupation"``, ``"name"``: Tables 5, 6 and 7 of counterfactual-sentiment
  Appendix A (10 templates each) with the paper's 10 countries, 29 occupations and 17 male
  and 17 female names (section 5.2). Country and occupation values are each their own
  group; the name templates' "he/she" and "his/her" follow the name's group.

Template syntax: ``{term}`` (any ``{identifier}``) is the slot, filled with the term;
``{he/she}`` is a gendered choice, filled with the first word for a group named "male"
and the second for "female". An indefinite article right before the slot agrees with the
term ("You are a {term}" -> "You are an Indian"), and a slot that starts the sentence gets
a capital ("{term} sucks" -> "Person sucks").

Representation: `templates()` returns one `Perturbation` per (template, group, term), kind
"template". Its `original` is the template filled with the *reference* term and its
`perturbed` the template filled with the term, so `p.original` identifies the template
(and is scored once), and each group's scores are those of the `perturbed` texts whose
`to_group` is that group. The reference is the template's own word when it has one
("person"), else the `reference` you pass, else the first term of the first group; a fill
with the reference term itself is included (original == perturbed) so every group has its
fills. Spans mark the slot (and an article or gendered word that changed) in both texts;
`from_group` is the reference's group (or the reference word), `to_group` the group.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ..errors import ConfigurationError
from ..types import Perturbation
from ..validation import check_text
from ._edit import Edit, apply_casing, apply_edits, casing_of, indefinite_article

__all__ = ["Template", "TemplateSet", "fill", "load_templates", "template_sets", "templates"]

_PART = re.compile(r"\{([^{}]*)\}")
_SETS: dict[str, tuple[str, str | None]] = {
    "cross_geographic": ("templates_cross_geographic.json", None),
    "country": ("templates_counterfactual_sentiment.json", "country"),
    "occupation": ("templates_counterfactual_sentiment.json", "occupation"),
    "name": ("templates_counterfactual_sentiment.json", "name"),
}
_FEMALE = frozenset({"female", "f", "woman", "women"})
_MALE = frozenset({"male", "m", "man", "men"})


@dataclass(frozen=True)
class Template:
    """A sentence template: ``{term}`` is the slot, ``{he/she}`` a gendered choice."""

    text: str
    reference: str | None = None
    """The template's own word for the slot ("person"), the fill perturbations compare to."""
    score: float | None = None
    """A score the source reports for the reference fill (cross-geographic: Perspective)."""
    source: str = ""

    def __post_init__(self) -> None:
        check_text(self.text, "a template")
        if self.reference is not None:
            check_text(self.reference, "reference")
        slots = [p for p in _PART.findall(self.text) if "/" not in p]
        if not slots:
            raise ConfigurationError(f"template {self.text!r} has no {{term}} slot")
        if len(set(slots)) > 1:
            raise ConfigurationError(
                f"template {self.text!r} has several different slots {sorted(set(slots))}"
            )
        for part in _PART.findall(self.text):
            if "/" in part and len(part.split("/")) != 2:
                raise ConfigurationError(
                    f"template {self.text!r}: a gendered choice is {{male/female}}, got {{{part}}}"
                )

    @property
    def gendered(self) -> bool:
        """True when the template has a {he/she}-style choice that needs a gender."""
        return any("/" in p for p in _PART.findall(self.text))


@dataclass(frozen=True)
class TemplateSet:
    """Templates of one source with their default groups of terms."""

    name: str
    attribute: str
    source: str
    templates: tuple[Template, ...]
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    note: str = ""

    def __len__(self) -> int:
        return len(self.templates)


def template_sets() -> tuple[str, ...]:
    """Names of the shipped template sets, for `load_templates`."""
    return tuple(_SETS)


def _read_json(name: str) -> Any:
    return json.loads(
        resources.files("pytest_fairness").joinpath("data", name).read_text(encoding="utf-8")
    )


@functools.cache
def load_templates(name: str) -> TemplateSet:
    """A shipped template set: "cross_geographic", "country", "occupation" or "name"."""
    if name not in _SETS:
        raise ConfigurationError(
            f"no template set {name!r}; shipped sets: {', '.join(_SETS)}"
        )
    filename, key = _SETS[name]
    data = _read_json(filename)
    if key is None:
        source = data["source"]
        items = [
            Template(t["text"], reference=t.get("reference"), score=t.get("score"),
                     source=source)
            for t in data["templates"]
        ]
        return TemplateSet(name=name, attribute=data["attribute"], source=source,
                           templates=tuple(items), groups={}, note=data.get("note", ""))
    entry = data["sets"][key]
    source = f"{data['source']}, {entry['table']}"
    if "groups" in entry:
        groups = {g: tuple(terms) for g, terms in entry["groups"].items()}
    else:
        groups = {term: (term,) for term in entry["terms"]}
    return TemplateSet(
        name=name,
        attribute=entry["attribute"],
        source=source,
        templates=tuple(Template(text, source=source) for text in entry["templates"]),
        groups=groups,
        note=data.get("note", ""),
    )


@dataclass(frozen=True)
class _Piece:
    kind: str  # "text", "slot", "choice", "article"
    text: str


def _gender_index(group: str | None, template: Template) -> int:
    low = (group or "").lower()
    if low in _MALE:
        return 0
    if low in _FEMALE:
        return 1
    raise ConfigurationError(
        f"template {template.text!r} has a he/she choice, which needs a group named "
        f"'male' or 'female'; got group {group!r}"
    )


def _pieces(template: Template, term: str, group: str | None) -> list[_Piece]:
    pieces: list[_Piece] = []
    cursor = 0
    text = template.text
    for match in _PART.finditer(text):
        literal = text[cursor : match.start()]
        inner = match.group(1)
        if "/" in inner:
            pieces.append(_Piece("text", literal))
            choice = inner.split("/")[_gender_index(group, template)]
            pieces.append(_Piece("choice", choice))
        else:
            article = re.search(r"(?:(?<=\s)|^)(an?|An?|AN?)\s$", literal)
            if article is not None:
                before = literal[: article.start(1)]
                wanted = apply_casing(indefinite_article(term), casing_of(article.group(1)))
                pieces.append(_Piece("text", before))
                pieces.append(_Piece("article", wanted))
                pieces.append(_Piece("text", literal[article.end(1) :]))
            else:
                pieces.append(_Piece("text", literal))
            value = term
            if not "".join(p.text for p in pieces).strip() or re.search(
                r"[.!?]\s*$", "".join(p.text for p in pieces)
            ):
                value = apply_casing(term, "title")
            pieces.append(_Piece("slot", value))
        cursor = match.end()
    pieces.append(_Piece("text", text[cursor:]))
    return pieces


def fill(template: Template | str, term: str, group: str | None = None) -> str:
    """`template` with its slot filled by `term` (a/an and sentence-initial capital fixed).

    `group` ("male"/"female") picks the words of {he/she}-style choices. A `term` that
    is not a str, or a `group` that is neither a str nor None, raises
    `ConfigurationError`.
    """
    tpl = template if isinstance(template, Template) else Template(template)
    check_text(term, "term")
    if group is not None:
        check_text(group, "group")
    return "".join(p.text for p in _pieces(tpl, term, group))


def _fill_perturbation(
    template: Template,
    reference: tuple[str, str | None],
    term: str,
    group: str,
    attribute: str,
    from_group: str,
) -> Perturbation:
    ref_pieces = _pieces(template, reference[0], reference[1])
    new_pieces = _pieces(template, term, group)
    original = "".join(p.text for p in ref_pieces)
    edits: list[Edit] = []
    position = 0
    for old, new in zip(ref_pieces, new_pieces, strict=True):
        if old.kind != "text" and (old.kind == "slot" or old.text != new.text):
            edits.append(Edit(position, position + len(old.text), new.text))
        position += len(old.text)
    return apply_edits(
        original, edits, kind="template", attribute=attribute,
        from_group=from_group, to_group=group,
    )


def templates(
    templates: TemplateSet | str | Sequence[Template | str],
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    *,
    reference: str | None = None,
    attribute: str | None = None,
) -> list[Perturbation]:
    """Every fill of every template with every term of every group, as `Perturbation`s.

    `templates` is a `TemplateSet`, the name of a shipped set (`template_sets()`), or
    templates / template strings. `groups` maps a group name to its terms, or is a list of
    terms that are each their own group; None uses the set's own groups (the paper's
    attribute values). See the module docstring for the representation; order is template
    by template, then group by group, then term by term.
    """
    template_set: TemplateSet | None = None
    if isinstance(templates, str):
        template_set = load_templates(templates)
        items: tuple[Template, ...] = template_set.templates
    elif isinstance(templates, TemplateSet):
        template_set = templates
        items = template_set.templates
    else:
        items = tuple(t if isinstance(t, Template) else Template(t) for t in templates)
    if not items:
        raise ConfigurationError("no templates given")
    if groups is None:
        if template_set is None or not template_set.groups:
            raise ConfigurationError(
                "give groups of terms: {'group': ['term', ...]} or a list of terms"
            )
        group_map: dict[str, tuple[str, ...]] = dict(template_set.groups)
    elif isinstance(groups, Mapping):
        group_map = {}
        for g, terms in groups.items():
            if isinstance(terms, (str, bytes)) or not isinstance(terms, Iterable):
                raise ConfigurationError(
                    f"groups[{g!r}] must be a list of terms, got {type(terms).__name__} "
                    f"{terms!r:.60}" + (f"; wrap it: [{terms!r:.40}]"
                                        if isinstance(terms, str) else "")
                )
            group_map[str(g)] = tuple(terms)
    else:
        if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):
            what = "a string" if isinstance(groups, str) else type(groups).__name__
            raise ConfigurationError(
                f"groups must be a list of terms or a mapping group -> terms, not {what} "
                f"{groups!r:.60}"
            )
        listed = list(groups)
        for i, term in enumerate(listed):
            check_text(term, f"groups[{i}]")
        group_map = {term: (term,) for term in listed}
    for g, terms in group_map.items():
        for term in terms:
            check_text(term, f"a term of group {g!r}")
    if reference is not None:
        check_text(reference, "reference")
    if attribute is not None:
        check_text(attribute, "attribute")
    if not group_map or not any(group_map.values()):
        raise ConfigurationError("groups has no terms")
    attr = attribute or (template_set.attribute if template_set else "term")
    first_group = next(g for g, terms in group_map.items() if terms)
    default_reference = (group_map[first_group][0], first_group)

    def group_of(term: str) -> str | None:
        return next((g for g, terms in group_map.items() if term in terms), None)

    out: list[Perturbation] = []
    for template in items:
        if reference is not None:
            ref: tuple[str, str | None] = (reference, group_of(reference))
        elif template.reference is not None:
            ref = (template.reference, group_of(template.reference))
        else:
            ref = default_reference
        ref_label = ref[1] if ref[1] is not None else ref[0]
        for group, terms in group_map.items():
            for term in terms:
                out.append(_fill_perturbation(template, ref, term, group, attr, ref_label))
    return out
