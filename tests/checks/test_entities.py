"""The entity relations (issue 29): entity invariance and recall parity, on rule taggers
(known answers), spaCy's English and French pipelines (real), and in the reports."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import strategies as fst
from pytest_fairness.checks.entities import entity_pairs
from pytest_fairness.perturb._edit import Edit, apply_edits
from pytest_fairness.perturb.spans import Span
from pytest_fairness.resources import nlp as spacy_resources
from pytest_fairness.resources.entity_templates import entity_frames, fill_frames
from pytest_fairness.types import Perturbation

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

KNOWN = {"Emily", "Walsh", "Lakisha", "Rome", "Maria"}


def known_names(text: str) -> list[tuple[int, int, str]]:
    """A rule tagger: the words of KNOWN are PERSON, except Rome (GPE)."""
    return [(m.start(), m.end(), "GPE" if m.group() == "Rome" else "PERSON")
            for m in re.finditer(r"\w+", text) if m.group() in KNOWN]


# --------------------------------------------------------------------------- invariance


def test_entities_outside_the_change_shift_and_the_name_keeps_its_label() -> None:
    pairs = entity_pairs(known_names, "Yesterday Emily visited Rome.",
                         "Yesterday Lakisha visited Rome.")
    [pair] = pairs
    assert pair.mapped == (Span(10, 17, "PERSON"), Span(26, 30, "GPE"))
    assert not pair.differs
    pf.assert_entity_invariant(known_names, "Yesterday Emily visited Rome.",
                               "Yesterday Lakisha visited Rome.")


def test_a_changed_name_that_loses_its_label_fails_with_both_sides_marked() -> None:
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as info:
            pf.assert_entity_invariant(known_names, "Yesterday Emily Walsh visited Rome.",
                                       "Yesterday Jermaine Walsh visited Rome.")
        [recorded] = state.results
    message = str(info.value)
    assert message.startswith("entity_invariance failed")
    assert "- Yesterday [Emily]PERSON [Walsh]PERSON visited [Rome]GPE." in message
    assert "+ Yesterday Jermaine [Walsh]PERSON visited [Rome]GPE." in message
    assert "lost [Jermaine]PERSON" in message  # the mapped span of Emily, unfound
    assert recorded["n_violations"] == 1
    [table] = recorded["sections"]
    assert table["type"] == "table"
    assert table["rows"][0][:2] == [
        "Yesterday [Emily]PERSON [Walsh]PERSON visited [Rome]GPE.",
        "Yesterday Jermaine [Walsh]PERSON visited [Rome]GPE."]


def test_an_entity_outside_the_change_that_moves_fails() -> None:
    def fickle(text: str) -> list[tuple[int, int, str]]:
        found = known_names(text)
        return [s for s in found if s[2] != "GPE"] if "Lakisha" in text else found

    with pytest.raises(pf.FairnessViolation, match=re.escape("lost [Rome]GPE")):
        pf.assert_entity_invariant(fickle, "Emily visited Rome.", "Lakisha visited Rome.")


def test_a_perturbation_and_a_list_of_them_are_accepted() -> None:
    text = "Maria visited Rome with Emily."
    p = apply_edits(text, [Edit(0, 5, "Lakisha")], kind="name", attribute="name")
    pf.assert_entity_invariant(known_names, p)
    pf.assert_entity_invariant(known_names, [p, p])
    q = apply_edits(text, [Edit(0, 5, "Jo")], kind="name", attribute="name")
    with pytest.raises(pf.FairnessViolation, match=re.escape("[Jo]PERSON")):
        pf.assert_entity_invariant(known_names, [p, q])


def test_no_entity_anywhere_judges_nothing() -> None:
    with pytest.raises(pf.NothingJudgedError, match="found no entity"):
        pf.assert_entity_invariant(lambda t: [], "Emily left.", "Lakisha left.")


@pytest.mark.parametrize(
    ("original", "perturbed", "error", "fragment"),
    [
        ("Emily left.", "Emily left.", pf.ConfigurationError, "identical"),
        ("Emily left.", 3, pf.ConfigurationError, "a text or a sequence of texts"),
        ([], None, pf.ConfigurationError, "no cases were given"),
    ],
)
def test_bad_pairs_are_named(original: object, perturbed: object, error: type[Exception],
                             fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        pf.assert_entity_invariant(known_names, original, perturbed)


def test_a_tagger_returning_text_is_a_named_error() -> None:
    with pytest.raises(pf.TaggerOutputError, match="got text"):
        pf.assert_entity_invariant(lambda t: t.upper(), "Emily left.", "Lakisha left.")


# --------------------------------------------------------------------------- recall parity

FRAMES = ["{name} left early.", "We met {name} today.", "I wrote to {name}."]


def test_recall_parity_of_a_fair_and_a_biased_rule_tagger() -> None:
    names = {"a": ["Emily", "Maria"], "b": ["Lakisha", "Walsh"]}
    pf.assert_entity_recall_parity(known_names, templates=FRAMES, names=names, max_gap=0.0,
                                   min_ratio=1.0, confidence=None)
    names = {"a": ["Emily", "Maria"], "b": ["Lakisha", "Jermaine"]}
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as info:
            pf.assert_entity_recall_parity(known_names, templates=FRAMES, names=names,
                                           max_gap=0.2, confidence=None)
        [recorded] = state.results
    message = str(info.value)
    assert "recall of PERSON: b" in message
    assert "- [Emily]PERSON left early." in message
    assert "+ Jermaine left early." in message
    recall = recorded["extra"]["recall"]
    assert recall == {"b": 0.5, "a": 1.0}
    titles = [s["title"] for s in recorded["sections"]]
    assert titles == ["Recall of PERSON per group of names", "Names missed most",
                      "Same frame, a name found and a name missed"]
    missed = recorded["sections"][1]["rows"]
    assert missed == [["Jermaine", "b", 3, 3]]


def test_the_interval_protects_a_small_sample() -> None:
    # 3 of 3 against 2 of 3: the point gap 1/3 exceeds 0.2, its simultaneous bound does not
    names = {"a": ["Emily"], "b": ["Maria"]}
    frames = [*FRAMES[:2], "{name}'s Rome trip."]

    def tagger(text: str) -> list[tuple[int, int, str]]:
        return [s for s in known_names(text) if not (text.startswith("Maria's"))]

    pf.assert_entity_recall_parity(tagger, templates=frames, names=names, max_gap=0.2)
    with pytest.raises(pf.FairnessViolation):
        pf.assert_entity_recall_parity(tagger, templates=frames, names=names, max_gap=0.2,
                                       confidence=None)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({}, "pass max_gap="),
        ({"max_gap": math.nan}, "max_gap"),
        ({"max_gap": math.inf}, "max_gap"),
        ({"max_gap": -0.1}, "max_gap"),
        ({"min_ratio": 1.5}, "min_ratio"),
        ({"max_gap": 0.1, "confidence": 1.0}, "confidence"),
        ({"max_gap": 0.1, "names": {"a": ["Emily"]}}, "at least two groups"),
        ({"max_gap": 0.1, "names": ["Emily", "Maria"]}, "map each group"),
        ({"max_gap": 0.1, "names": {"a": "Emily", "b": ["Maria"]}}, "wrap a single name"),
        ({"max_gap": 0.1, "names": {"a": [""], "b": ["Maria"]}}, "non-empty names"),
        ({"max_gap": 0.1, "names": {"a": [" Emily"], "b": ["Maria"]}}, "non-empty names"),
        ({"max_gap": 0.1, "templates": ["no slot here"]}, "exactly one"),
        ({"max_gap": 0.1, "templates": ["{name} and {name}"]}, "exactly one"),
        ({"max_gap": 0.1, "templates": "{name} left."}, "wrap a single template"),
        ({"max_gap": 0.1, "templates": []}, "empty"),
        ({"max_gap": 0.1, "lang": "xx"}, "no entity frames"),
        ({"max_gap": 0.1, "label": "PER\x1b"}, "not one of"),
        ({"max_gap": 0.1, "label": ""}, "entity label"),
    ],
)
def test_bad_recall_arguments_are_named(kwargs: dict[str, Any], fragment: str) -> None:
    arguments: dict[str, Any] = {"names": {"a": ["Emily"], "b": ["Maria"]}}
    arguments.update(kwargs)
    tagger = pf.as_tagger(known_names, labels=["PERSON", "GPE"])
    with pytest.raises(pf.ConfigurationError, match=re.escape(fragment)) as info:
        pf.assert_entity_recall_parity(tagger, **arguments)
    assert "\x1b" not in str(info.value)


def test_the_frames_are_ours_and_fill_every_name() -> None:
    frames = entity_frames("en")
    assert len(frames) >= 30
    assert len(set(frames)) == len(frames)
    assert all(f.count("{name}") == 1 for f in frames)
    assert entity_frames("fr_FR") == entity_frames("fr")
    filled = fill_frames(frames[:2], {"g": ["Zoë", "Ana María"], "h": ["Bo"]})
    assert len(filled) == 6
    assert all(s.text[s.start:s.end] == s.name for s in filled)
    assert [s.group for s in filled] == ["g"] * 4 + ["h"] * 2


# --------------------------------------------------------------------------- real pipelines


@pytest.fixture(scope="module")
def english() -> Any:
    pytest.importorskip("spacy")
    return spacy_resources.load()


def test_spacy_recalls_equal_a_direct_count_of_doc_ents(english: Any) -> None:
    names = {"f": ["Mary", "Lakisha", "Cheuk"], "m": ["James", "Dagoberto", "Alf"]}
    measured = pf.entity_recall_of(english, names=names)
    sentences = fill_frames(entity_frames("en"), names)
    count: dict[str, list[int]] = {"f": [0, 0], "m": [0, 0]}
    for s, doc in zip(sentences, english.pipe([s.text for s in sentences]), strict=True):
        count[s.group][0] += any(e.start_char == s.start and e.end_char == s.end
                                 and e.label_ == "PERSON" for e in doc.ents)
        count[s.group][1] += 1
    for group, (found, n) in count.items():
        assert (measured.recall.groups[group].found, measured.recall.groups[group].n) == (
            found, n)


def test_french_pipeline_finds_persons_as_per() -> None:
    spacy = pytest.importorskip("spacy")
    try:
        nlp = spacy.load("fr_core_news_sm")
    except OSError:
        pytest.skip("fr_core_news_sm is not installed")
    tagger = pf.as_tagger(nlp)
    assert "PER" in (tagger.labels or ())
    names = {"féminin": ["Marie", "Camille"], "masculin": ["Pierre", "Julien"]}
    measured = pf.entity_recall_of(nlp, names=names, lang="fr")
    assert measured.label == "PER"  # French pipelines call persons PER
    assert len(measured.sentences) == 4 * len(entity_frames("fr"))
    assert all(0.0 <= g.recall <= 1.0 for g in measured.recall.groups.values())
    assert sum(g.found for g in measured.recall.groups.values()) > 0
    renamed = pf.entity_recall_of(pf.as_tagger(nlp, label_map={"PER": "PERSON"}),
                                  names=names, lang="fr")
    assert renamed.label == "PERSON"
    assert renamed.found == measured.found
    pf.assert_entity_invariant(nlp, "Hier, Marie a visité Paris.", "Hier, Julien a visité Paris.")


# --------------------------------------------------------------------------- the strategy

SWAP_NAMES = {"a": ["Emily", "Maria"], "b": ["Lakisha", "Walsh"]}


@settings(max_examples=40, deadline=None)
@given(p=fst.entity_name_swaps(SWAP_NAMES, templates=FRAMES))
def test_name_swaps_of_a_fair_rule_tagger_keep_the_entities(p: Perturbation) -> None:
    assert p.from_group != p.to_group
    assert p.from_words[0] in SWAP_NAMES[str(p.from_group)]
    assert p.to_words[0] in SWAP_NAMES[str(p.to_group)]
    pf.assert_entity_invariant(known_names, p)


def test_the_strategy_finds_the_name_a_tagger_misses() -> None:
    from hypothesis import find

    names = {"a": ["Emily"], "b": ["Lakisha", "Jermaine"]}
    found = find(fst.entity_name_swaps(names, templates=FRAMES),
                 lambda p: entity_pairs(known_names, p)[0].differs)
    assert found.to_words == ("Jermaine",) or found.from_words == ("Jermaine",)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"names": {"a": ["Emily"]}}, "two groups or more"),
        ({"names": {"a": ["Emily"], "b": "Maria"}}, "wrap a single name"),
        ({"names": SWAP_NAMES, "templates": ["no slot"]}, "exactly one"),
        ({"names": SWAP_NAMES, "lang": "xx"}, "no entity frames"),
        ({"names": SWAP_NAMES, "lang": 3}, "language code"),
    ],
)
def test_bad_strategy_arguments_are_named_when_built(kwargs: dict[str, Any],
                                                     fragment: str) -> None:
    with pytest.raises(pf.ConfigurationError, match=fragment):
        fst.entity_name_swaps(**kwargs)


@settings(max_examples=60, deadline=None)
@given(original=st.text(max_size=40), name=st.text(min_size=1, max_size=8))
def test_arbitrary_unicode_through_the_invariance_relation(original: str, name: str) -> None:
    """Any text, any replacement: the relation passes, fails, judges nothing or names the
    input problem, and never leaks a control character."""
    text = f"{original} Emily {original}"
    perturbed = text.replace("Emily", name, 1)
    message = ""
    try:
        pf.assert_entity_invariant(known_names, text, perturbed)
    except (pf.FairnessViolation, pf.NothingJudgedError) as exc:
        message = str(exc)
    except pf.ConfigurationError as exc:  # only a pair that changes nothing is refused
        message = str(exc)
        assert text == perturbed, message
    assert "\x1b" not in message
