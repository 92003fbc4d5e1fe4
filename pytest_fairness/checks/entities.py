"""Relations of named-entity taggers: entity invariance and recall parity (issue 29).

- `assert_entity_invariant`: a perturbation that changes a name changes nothing else the
  tagger finds. The entities of the original, carried onto the perturbed text through the
  perturbation's changed spans (`perturb.spans.map_span`: exact, also for entities that
  contain or overlap the change), must be the entities of the perturbed text: those
  outside the change the same, the changed name with the same label and extent.
- `assert_entity_recall_parity`: names of each group put in the same sentence frames
  (Mishra, Kumar and Kiritchenko 2020, "Assessing Demographic Bias in Named Entity
  Recognition") are found as `label` (PERSON) equally often: the recall per
  group (exact match), with Wilson intervals, and the gap (max - min) and ratio
  (min / max) of the recalls judged on their simultaneous score bounds, as the group
  relations judge theirs (`metrics.group_bounds`).

Both take the model through `models.taggers.as_tagger` (a spaCy `Language`, a
transformers token classifier, a callable returning spans, a `Tagger`). Failures show the
sentence pairs with the entities marked on both sides (``[Maria]PERSON``), in the message,
and as a `Table` in the text, JSON and HTML reports. Written on `checks.pipeline`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigurationError
from ..metrics.entities import EntityRecall, entity_differences, entity_recall, found_as
from ..models.taggers import Tagger, as_tagger
from ..perturb.coerce import coerce_cases
from ..perturb.spans import Span, exact_changes, map_spans, mark_spans
from ..resources.entity_templates import NameSentence, entity_frames, fill_frames
from ..results import BarChart, Measurement, Section, Table, Violation
from ..runtime.printable import printable
from ..types import Perturbation
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import RECORDED_VIOLATIONS, check_bound, check_confidence, judged_nothing, measured

__all__ = [
    "EntityPair",
    "EntityRecallMeasure",
    "assert_entity_invariant",
    "assert_entity_recall_parity",
    "entity_pairs",
    "entity_recall_of",
]

#: The title of the table of pairs whose entities differ.
PAIRS_TITLE = "Entities that differ between original and perturbed text"
#: The title of the table of template pairs, a name found and a name missed.
RECALL_PAIRS_TITLE = "Same frame, a name found and a name missed"
#: How many rows the tables of pairs keep.
TABLE_ROWS = 50


def _tuples(spans: Sequence[Span | None]) -> list[tuple[int, int, str] | None]:
    return [None if s is None else (s.start, s.end, s.label) for s in spans]


# --------------------------------------------------------------------------- invariance


@dataclass(frozen=True)
class EntityPair:
    """One perturbation with the entities of both texts: `original` (of the original),
    `mapped` (those carried onto the perturbed text; None: deleted), `perturbed` (of the
    perturbed text), and what the perturbed text `lost` and `gained`."""

    perturbation: Perturbation
    original: tuple[Span, ...]
    mapped: tuple[Span | None, ...]
    perturbed: tuple[Span, ...]
    lost: tuple[Span, ...]
    gained: tuple[Span, ...]

    @property
    def differs(self) -> bool:
        return bool(self.lost or self.gained)

    def marked(self) -> tuple[str, str]:
        """Both texts with their entities marked."""
        p = self.perturbation
        return mark_spans(p.original, self.original), mark_spans(p.perturbed, self.perturbed)

    def problem(self) -> str:
        """What changed, in words: "lost [Rome]GPE; gained [Lakisha]ORG"."""
        text = self.perturbation.perturbed
        parts = []
        if self.lost:
            parts.append("lost " + ", ".join(s.marked(text) for s in self.lost))
        if self.gained:
            parts.append("gained " + ", ".join(s.marked(text) for s in self.gained))
        return printable("; ".join(parts))


@dataclass(frozen=True)
class _InvarianceInputs:
    tagger: Tagger
    perturbations: tuple[Perturbation, ...]


def _pairs(inputs: _InvarianceInputs) -> tuple[EntityPair, ...]:
    ps = inputs.perturbations
    tagged = inputs.tagger.tag_many([p.original for p in ps] + [p.perturbed for p in ps])
    out = []
    for i, p in enumerate(ps):
        original, perturbed = tagged[i], tagged[len(ps) + i]
        mapped = map_spans(original, p)
        lost, gained = entity_differences(_tuples(mapped), _tuples(perturbed))  # type: ignore[arg-type]
        out.append(EntityPair(p, original, mapped, perturbed,
                              tuple(Span(*s) for s in lost), tuple(Span(*s) for s in gained)))
    return tuple(out)


def entity_pairs(model: object, original: object, perturbed: object = None
                 ) -> tuple[EntityPair, ...]:
    """The entities of each (original, perturbed) pair and their differences, without a
    verdict; arguments as `assert_entity_invariant`."""
    return _pairs(_resolve_pairs(model, original, perturbed, "entity_pairs"))


class EntityInvarianceRelation(Relation[_InvarianceInputs, tuple[EntityPair, ...]]):
    """Entity invariance: the mapped entities of the original are the perturbed text's."""

    name = "entity_invariance"

    def measure(self, inputs: _InvarianceInputs) -> tuple[EntityPair, ...]:
        pairs = _pairs(inputs)
        if not any(pair.original or pair.perturbed for pair in pairs):
            raise judged_nothing(
                self.name, f"{inputs.tagger.name} found no entity in either text of any of "
                f"the {len(pairs)} pair(s)",
                "pass sentences with entities the tagger finds (check its labels and "
                "language), or a tagger that finds some")
        return pairs

    def present(self, inputs: _InvarianceInputs, measured_: tuple[EntityPair, ...], *,
                show: int) -> Presented:
        bad = [p for p in measured_ if p.differs]
        bad.sort(key=lambda p: -(len(p.lost) + len(p.gained)))
        rows = [(*p.marked(), p.problem()) for p in bad[:TABLE_ROWS]]
        notes = []
        for i, p in enumerate(bad[:show], 1):
            before, after = p.marked()
            notes += [f"{i}. - {before}", f"   + {after}"]
        return Presented(
            measurements=[
                Measurement("pairs whose entities differ", float(len(bad)), 0.0, "<="),
                Measurement("entities compared", float(sum(len(p.original) + len(p.perturbed)
                                                           for p in measured_))),
            ],
            statement=("the entities of the original, mapped onto the perturbed text, must "
                       "be the perturbed text's entities (outside the change the same, the "
                       "changed name with the same label)"),
            measure_name="entities changed",
            discrimination=float(len(bad)),
            violations=[Violation.from_perturbation(
                p.perturbation, measure=float(len(p.lost) + len(p.gained)),
                detail=p.problem()) for p in bad[:RECORDED_VIOLATIONS]],
            n_inputs=len(measured_),
            n_violations=len(bad),
            sections=[Table(PAIRS_TITLE, ("original (entities marked)",
                                          "perturbed (entities marked)", "difference"),
                            rows, detail=True,
                            caption=f"{len(bad)} of {len(measured_)} pair(s)")] if bad else [],
            notes=(["entities of each pair ([characters]LABEL):", *notes] if notes else []),
            hint="the tagger's entities depend on the changed name; the marked pairs show "
            "which entity was lost or gained",
            passed=not bad,
        )


ENTITY_INVARIANCE = EntityInvarianceRelation()


def _resolve_pairs(model: object, original: object, perturbed: object, caller: str
                   ) -> _InvarianceInputs:
    tagger = as_tagger(model, caller=caller)
    cases = coerce_cases(original, perturbed)
    flat = tuple(exact_changes(p) for case in cases for p in case.perturbations)
    if not flat:
        raise ConfigurationError(
            f"{caller} needs at least one (original, perturbed) pair; pass two texts, a "
            "Perturbation, or a list of them")
    return _InvarianceInputs(tagger, flat)


def assert_entity_invariant(
    model: object, original: object, perturbed: object = None, *, show: int = DEFAULT_SHOWN
) -> None:
    """The entities `model` finds are the same for the original and the perturbed text,
    after mapping: those outside the change are equal, and the changed name keeps its
    label and extent.

    `model` is anything `as_tagger` takes (a spaCy `Language` with an entity recogniser,
    a transformers token classifier, a callable returning ``(start, end, label)`` spans).
    `original` and `perturbed` are two texts (the changed words found by a word diff), or
    `original` a `Perturbation`, a `Case` or a list of them. The original's entities are
    carried onto the perturbed text exactly (`perturb.spans.map_span`). Fails listing the
    pairs whose entities differ, entities marked on both sides (``[Maria]PERSON``); when
    the tagger finds no entity in any text, the relation judged nothing."""
    __tracebackhide__ = True
    ENTITY_INVARIANCE.check(
        lambda: _resolve_pairs(model, original, perturbed, "assert_entity_invariant"),
        show=show, stacklevel=4)


# --------------------------------------------------------------------------- recall parity


@dataclass(frozen=True)
class _RecallInputs:
    tagger: Tagger
    sentences: tuple[NameSentence, ...]
    label: str
    max_gap: float | None
    min_ratio: float | None
    confidence: float | None


@dataclass(frozen=True)
class EntityRecallMeasure:
    """Per filled sentence whether its name was found, its spans, and the recalls."""

    sentences: tuple[NameSentence, ...]
    spans: tuple[tuple[Span, ...], ...]
    found: tuple[bool, ...]
    recall: EntityRecall
    label: str


def _measure_recall(inputs: _RecallInputs) -> EntityRecallMeasure:
    spans = inputs.tagger.tag_many([s.text for s in inputs.sentences])
    found = tuple(found_as((s.start, s.end), _tuples(sp), inputs.label)  # type: ignore[arg-type]
                  for s, sp in zip(inputs.sentences, spans, strict=True))
    recall = entity_recall(found, [s.group for s in inputs.sentences],
                           confidence=inputs.confidence or 0.95)
    return EntityRecallMeasure(inputs.sentences, tuple(spans), found, recall, inputs.label)


def _default_label(tagger: Tagger, label: str | None) -> str:
    if label is not None:
        if not isinstance(label, str) or not label.strip():
            raise ConfigurationError(f"label must be an entity label such as 'PERSON', got "
                                     f"{printable(repr(label))[:40]}")
        if tagger.labels is not None and label not in tagger.labels:
            raise ConfigurationError(
                f"label {printable(repr(label))[:40]} is not one of {tagger.name}'s labels "
                f"{list(tagger.labels)}; pass one of them (French and German spaCy pipelines "
                "call persons 'PER'), or rename with as_tagger(model, label_map={...})")
        return label
    labels = tagger.labels or ()
    return "PER" if "PER" in labels and "PERSON" not in labels else "PERSON"


def _resolve_recall(model: object, templates: object, names: object, label: str | None,
                    max_gap: object, min_ratio: object, confidence: object, lang: object,
                    caller: str) -> _RecallInputs:
    gap = None if max_gap is None else check_bound(max_gap, "max_gap", upper=1.0)
    ratio = None if min_ratio is None else check_bound(min_ratio, "min_ratio", upper=1.0)
    if caller.startswith("assert") and gap is None and ratio is None:
        raise ConfigurationError(
            f"{caller} judges the gap or the ratio of the recalls: pass max_gap= (e.g. "
            "0.05) or min_ratio= (e.g. 0.9), or both")
    conf = check_confidence(confidence)
    tagger = as_tagger(model, caller=caller)
    frames = entity_frames(lang) if templates is None else templates  # type: ignore[arg-type]
    sentences = tuple(fill_frames(frames, names))  # type: ignore[arg-type]
    return _RecallInputs(tagger, sentences, _default_label(tagger, label), gap, ratio, conf)


def entity_recall_of(
    model: object, *, names: Mapping[str, Sequence[str]], templates: Sequence[str] | None = None,
    label: str | None = None, confidence: float = 0.95, lang: str = "en",
) -> EntityRecallMeasure:
    """The recall per group of `assert_entity_recall_parity`, without a verdict."""
    return _measure_recall(_resolve_recall(model, templates, names, label, None, None,
                                           confidence, lang, "entity_recall_of"))


def _recall_pairs(m: EntityRecallMeasure, best: str, worst: str
                  ) -> list[tuple[NameSentence, tuple[Span, ...], NameSentence, tuple[Span, ...]]]:
    """Per frame, a name of the best group found and a name of the worst group missed."""
    found: dict[str, tuple[NameSentence, tuple[Span, ...]]] = {}
    missed: dict[str, list[tuple[NameSentence, tuple[Span, ...]]]] = {}
    for s, spans, hit in zip(m.sentences, m.spans, m.found, strict=True):
        if s.group == best and hit:
            found.setdefault(s.frame, (s, spans))
        elif s.group == worst and not hit:
            missed.setdefault(s.frame, []).append((s, spans))
    return [(*found[f], *x) for f in found for x in missed.get(f, [])]


class EntityRecallRelation(Relation[_RecallInputs, EntityRecallMeasure]):
    """Recall parity of an entity label over groups of names in sentence frames."""

    name = "entity_recall_parity"

    def measure(self, inputs: _RecallInputs) -> EntityRecallMeasure:
        return _measure_recall(inputs)

    def present(self, inputs: _RecallInputs, m: EntityRecallMeasure, *, show: int
                ) -> Presented:
        r = m.recall
        conf = inputs.confidence
        order = sorted(r.groups, key=lambda g: (r.groups[g].recall, g))
        measurements: list[Measurement] = [
            Measurement(f"recall of {m.label}: {g}", r.groups[g].recall,
                        ci=(r.groups[g].low, r.groups[g].high)) for g in order]
        if inputs.max_gap is not None:
            measurements += measured(
                "recall gap (max - min)", r.gap.estimate, inputs.max_gap,
                None if conf is None else (r.gap.low, r.gap.high), method=r.gap.method)
        if inputs.min_ratio is not None:
            measurements += measured(
                "recall ratio (min / max)", r.ratio.estimate, inputs.min_ratio,
                None if conf is None else (r.ratio.low, r.ratio.high), op=">=",
                method=r.ratio.method)
        chart = BarChart(
            f"Recall of {m.label} per group of names",
            {g: r.groups[g].recall for g in order},
            intervals={g: (r.groups[g].low, r.groups[g].high) for g in order},
            value_label=f"share of names found as {m.label}",
            caption=(f"names found (exact span) / names, over "
                     f"{len({s.frame for s in m.sentences})} frames, with "
                     f"{r.confidence:.0%} Wilson intervals"))
        missed: dict[tuple[str, str], list[int]] = {}
        for s, hit in zip(m.sentences, m.found, strict=True):
            c = missed.setdefault((s.group, s.name), [0, 0])
            c[0] += not hit
            c[1] += 1
        worst_names = sorted(((k, v) for k, v in missed.items() if v[0]),
                             key=lambda kv: (-kv[1][0] / kv[1][1], kv[0]))[:TABLE_ROWS]
        names_table = Table(
            "Names missed most", ("name", "group", "missed", "sentences"),
            [(printable(name), printable(group), v[0], v[1])
             for (group, name), v in worst_names],
            caption=f"names not found as {m.label} in some frames, most often missed first")
        pairs = _recall_pairs(m, r.best, r.worst)
        pair_rows = [(mark_spans(a.text, sa), mark_spans(b.text, sb),
                      f"{printable(a.group)} vs {printable(b.group)}")
                     for a, sa, b, sb in pairs[:TABLE_ROWS]]
        violations = [Violation(
            original=a.text, perturbed=b.text, original_spans=((a.start, a.end),),
            perturbed_spans=((b.start, b.end),), original_label=m.label,
            perturbed_label="missed", measure=1.0, kind="template", attribute="name",
            detail=f"{a.name} ({a.group}) found, {b.name} ({b.group}) missed")
            for a, _, b, _ in pairs[:RECORDED_VIOLATIONS]]
        notes = []
        for i, (a, sa, b, sb) in enumerate(pairs[:show], 1):
            notes += [f"{i}. - {mark_spans(a.text, sa)}", f"   + {mark_spans(b.text, sb)}"]
        judged = ("the point estimates" if conf is None else
                  f"the simultaneous {conf:.0%} score bounds (gap: lower end; ratio: upper end)")
        bounds = " and ".join(x for x in (
            None if inputs.max_gap is None else f"gap at most {inputs.max_gap:g}",
            None if inputs.min_ratio is None else f"ratio at least {inputs.min_ratio:g}") if x)
        sections: list[Section] = [chart, names_table] if worst_names else [chart]
        if pair_rows:
            sections.append(Table(RECALL_PAIRS_TITLE,
                                  ("found (entities marked)", "missed (entities marked)",
                                   "groups"), pair_rows, detail=True))
        return Presented(
            measurements=measurements,
            statement=(f"names of every group must be found as {m.label} about equally often "
                       f"in the same sentence frames ({bounds}, judged on {judged}; Mishra, "
                       "Kumar and Kiritchenko 2020)"),
            measure_name="missed",
            discrimination=r.gap.estimate,
            violations=violations,
            n_inputs=len(m.sentences),
            n_violations=len(pairs),
            sections=sections,
            notes=([f"worst group {r.worst!r}: {r.groups[r.worst].found} of "
                    f"{r.groups[r.worst].n} found; best {r.best!r}: {r.groups[r.best].found} "
                    f"of {r.groups[r.best].n}"]
                   + (["same frame, a name found (-) and one missed (+):", *notes]
                      if notes else [])),
            extra={"label": m.label, "recall": {g: r.groups[g].recall for g in order},
                   "gap": r.gap.to_dict(), "ratio": r.ratio.to_dict()},
            hint="the tagger finds names of some groups less often; the table 'Names missed "
            "most' lists them",
            inputs_title=f"{min(show, len(pairs))} frame(s) with a name found and one missed",
        )


ENTITY_RECALL = EntityRecallRelation()


def assert_entity_recall_parity(
    model: object,
    *,
    names: Mapping[str, Sequence[str]],
    templates: Sequence[str] | None = None,
    label: str | None = None,
    max_gap: float | None = None,
    min_ratio: float | None = None,
    confidence: float | None = 0.95,
    lang: str = "en",
    show: int = DEFAULT_SHOWN,
) -> None:
    """Names of every group are found as `label` about equally often (Mishra, Kumar and
    Kiritchenko 2020): every frame of `templates` (one ``{name}`` slot each;
    default the package's own frames of `lang`, `resources.entity_templates`) is filled
    with every name of every group of `names` (``{group: [names]}``), and a name counts as
    found when the tagger returns a span of `label` exactly over it.

    Judged: the gap of the recalls (max - min) at most `max_gap` and/or their ratio
    (min / max) at least `min_ratio`; with `confidence` (default 0.95) on the simultaneous
    score bounds the group relations use (`metrics.group_bounds`: the gap's lower end, the
    ratio's upper end), so noise alone fails a fair tagger with probability at most
    (1 - confidence) / 2; None judges the point estimates. `label` defaults to "PERSON"
    ("PER" for a tagger whose labels have PER and not PERSON, as spaCy's French
    pipeline). `model` is anything `as_tagger` takes. The report shows the recall per
    group with Wilson intervals, the names missed most, and frames with a name found and
    one missed, entities marked."""
    __tracebackhide__ = True
    ENTITY_RECALL.check(
        lambda: _resolve_recall(model, templates, names, label, max_gap, min_ratio,
                                confidence, lang, "assert_entity_recall_parity"),
        show=show, stacklevel=4)
