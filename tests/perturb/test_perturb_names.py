"""Name perturbation at pronoun anchors (psa, section 2): grammar, casing, spans, counts."""

from __future__ import annotations

import pytest
from _perturbation_checks import assert_exact_spans

from pytest_fairness import ConfigurationError, perturb
from pytest_fairness.types import Anchor, AnchorRole, Casing, Span


def anchor(
    text: str,
    word: str,
    role: AnchorRole,
    gender: str | None = "female",
    *,
    occurrence: int = 0,
    casing: Casing | None = None,
) -> Anchor:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(word, start + 1)
    if casing is None:
        casing = "upper" if word.isupper() and len(word) > 1 else (
            "title" if word[0].isupper() else "lower")
    return Anchor(text, Span(start, start + len(word), word), role, gender, casing, start == 0)


@pytest.mark.parametrize(
    ("text", "word", "role", "occurrence", "expected"),
    [
        ("She left early.", "She", "subject", 0, "Alice left early."),
        ("I saw him yesterday.", "him", "object", 0, "I saw Alice yesterday."),
        ("I gave her the book.", "her", "object", 0, "I gave Alice the book."),
        ("I like her book.", "her", "possessive_determiner", 0, "I like Alice's book."),
        ("His book is red.", "His", "possessive_determiner", 0, "Alice's book is red."),
        ("The red book is hers.", "hers", "possessive_pronoun", 0, "The red book is Alice's."),
        ("That one is his, not mine.", "his", "possessive_pronoun", 0,
         "That one is Alice's, not mine."),
        ("“She said no,” he wrote.", "She", "subject", 0, "“Alice said no,” he wrote."),
        ("Bob said she was late.", "Bob", "name", 0, "Alice said she was late."),
        ("Zoë thinks he is wrong.", "he", "subject", 0, "Zoë thinks Alice is wrong."),
    ],
)
def test_each_role_keeps_the_grammar(
    text: str, word: str, role: AnchorRole, occurrence: int, expected: str
) -> None:
    [p] = perturb.names([anchor(text, word, role, occurrence=occurrence)], ["Alice"])
    assert p.perturbed == expected
    assert p.kind == "name"
    assert p.attribute == "name"
    assert p.to_group == "Alice"
    assert_exact_spans(p)


def test_exact_spans_for_a_possessive() -> None:
    text = "I like her book."
    [p] = perturb.names([anchor(text, "her", "possessive_determiner")], ["Alice"])
    assert p.original_spans == (Span(7, 10, "her"),)
    assert p.perturbed_spans == (Span(7, 14, "Alice's"),)
    assert p.from_words == ("her",)
    assert p.to_words == ("Alice's",)
    assert p.from_group == "female"


def test_names_ending_in_s_take_apostrophe_s_by_default() -> None:
    a = anchor("I like his car.", "his", "possessive_determiner", "male")
    assert [p.perturbed for p in perturb.names([a], ["James", "Agnes"])] == [
        "I like James's car.",
        "I like Agnes's car.",
    ]
    assert [p.perturbed for p in perturb.names([a], ["James", "Bob"], possessive_style="'")] == [
        "I like James' car.",
        "I like Bob's car.",
    ]
    assert perturb.possessive("Chris") == "Chris's"
    assert perturb.possessive("Chris", "'") == "Chris'"


def test_all_caps_anchor_gives_an_all_caps_name() -> None:
    text = "I TOLD HIM AND HIS MOTHER."
    him = anchor(text, "HIM", "object", "male")
    his = anchor(text, "HIS", "possessive_determiner", "male")
    out = perturb.names([him, his], ["Alice"])
    assert [p.perturbed for p in out] == [
        "I TOLD ALICE AND HIS MOTHER.",
        "I TOLD HIM AND ALICE'S MOTHER.",
    ]
    for p in out:
        assert_exact_spans(p)


def test_sentence_initial_anchor_gets_a_capital_even_for_lowercase_names() -> None:
    a = anchor("he is here.", "he", "subject", "male")
    a = Anchor(a.text, a.span, a.role, a.gender, a.casing, True)
    [p] = perturb.names([a], ["dana"])
    assert p.perturbed == "Dana is here."


def test_reflexive_and_person_noun_anchors_are_skipped() -> None:
    reflexive = anchor("She hurt herself.", "herself", "reflexive")
    noun = anchor("The doctor left.", "doctor", "person_noun", None)
    assert perturb.names([reflexive, noun], ["Alice", "Bob"]) == []


def test_result_is_every_anchor_times_every_name_in_order() -> None:
    anchors = [
        anchor("She left.", "She", "subject"),
        anchor("I met him.", "him", "object", "male"),
        anchor("He hurt himself.", "himself", "reflexive", "male"),
        anchor("It is hers.", "hers", "possessive_pronoun"),
    ]
    names = ["Alice", "Bob", "Chen"]
    out = perturb.names(anchors, names)
    assert len(out) == 3 * len(names)
    assert [p.original for p in out] == [a.text for a in anchors if a.role != "reflexive"
                                         for _ in names]
    assert [p.to_group for p in out] == names * 3
    assert [p.from_group for p in out] == ["female"] * 3 + ["male"] * 3 + ["female"] * 3
    for p in out:
        assert_exact_spans(p)


def test_groups_mapping_sets_to_group() -> None:
    a = anchor("She left.", "She", "subject")
    out = perturb.names([a], ["Alice", "Bob"], groups={"Alice": "female", "Bob": "male"})
    assert [p.to_group for p in out] == ["female", "male"]
    with pytest.raises(ConfigurationError, match="Bob"):
        perturb.names([a], ["Alice", "Bob"], groups={"Alice": "female"})


def test_a_second_anchor_in_the_same_sentence_is_perturbed_on_its_own() -> None:
    text = "She said she would come."
    first = anchor(text, "She", "subject")
    second = anchor(text, "she", "subject", occurrence=0)
    out = perturb.names([first, second], ["Alice"])
    assert [p.perturbed for p in out] == [
        "Alice said she would come.",
        "She said Alice would come.",
    ]


def test_bad_input_is_a_configuration_error() -> None:
    good = anchor("She left.", "She", "subject")
    broken = Anchor("She left.", Span(0, 3, "Her"), "subject", "female", "title", True)
    with pytest.raises(ConfigurationError, match="does not match"):
        perturb.names([broken], ["Alice"])
    with pytest.raises(ConfigurationError, match="non-empty"):
        perturb.names([good], ["Alice", " "])
    with pytest.raises(ConfigurationError, match="possessive"):
        perturb.possessive("Alice", "s")  # type: ignore[arg-type]


def test_names_works_with_the_shipped_name_lists() -> None:
    from pytest_fairness.resources import names

    picked = names.popular(n=6)
    a = anchor("Yesterday she called me.", "she", "subject")
    out = perturb.names([a], picked, groups=names.genders(picked))
    assert len(out) == 6
    assert [p.to_group for p in out] == ["female", "male"] * 3
    for p in out:
        assert_exact_spans(p)


def test_names_come_with_groups_in_every_accepted_form() -> None:
    expected = (["Latisha", "Emily"], {"Latisha": "female, Black", "Emily": "female, White"})
    assert perturb.split_names({"Latisha": ("female", "Black"),
                                "Emily": ("female", "White")}) == expected
    assert perturb.split_names([("Latisha", "female, Black"),
                                ("Emily", "female, White")]) == expected
    assert perturb.split_names({"name": ["Latisha", "Emily"],
                                "group": ["female, Black", "female, White"]}) == expected

    class Frame:  # what a pandas/polars data frame offers
        columns = ("name", "group")

        def __getitem__(self, key: str) -> list[str]:
            return {"name": ["Latisha", "Emily"],
                    "group": ["female, Black", "female, White"]}[key]

    assert perturb.split_names(Frame()) == expected
    assert perturb.split_names(["Alice", "Bob"]) == (["Alice", "Bob"], None)
    assert perturb.split_names({"Alice": None}) == (["Alice"], {"Alice": None})
    with pytest.raises(ConfigurationError, match="must be a string"):
        perturb.split_names({"Alice": 3})
    with pytest.raises(ConfigurationError, match="unique"):
        perturb.split_names([("Alice", "a"), ("Alice", "b")])
