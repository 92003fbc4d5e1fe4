"""The "gender_names" kind (issue 24): pronouns, gendered words and first names swapped
together, on the real spaCy pipeline, against sentences whose counterfactuals were
written by hand.

Each expected output was written by reading the sentence: every gendered pronoun and word
to its counterpart, every first name to its one counterpart of the other gender in the
packaged pair table (`default_name_pairs`: Emily <-> Stanley, Jennifer <-> David, Robert
<-> Linda, Kevin <-> Sarah, ... by frequency rank), every mention of a name to the same
counterpart; surnames, months and sentences without a gendered person left alone.
"""

from __future__ import annotations

import pytest
from _perturbation_checks import assert_exact_spans

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb import get_kind
from pytest_fairness.perturb.gender import GENDER_NAMES, GenderSwapKind, gender_swap
from pytest_fairness.perturb.name_pairs import default_name_pairs

pytestmark = pytest.mark.slow

#: (sentence, its counterfactual, the changed words, from_group, to_group).
GOLD: list[tuple[str, str, tuple[str, ...], str | None, str | None]] = [
    ("Emily said she is applying.", "Stanley said he is applying.",
     ("Emily", "she"), "female", "male"),
    ("Emily told her brother that Emily would call him.",
     "Stanley told his sister that Stanley would call her.",
     ("Emily", "her", "brother", "Emily", "him"), None, None),
    ("Ask Jennifer about her plans; Jennifer knows the answer.",
     "Ask David about his plans; David knows the answer.",
     ("Jennifer", "her", "Jennifer"), "female", "male"),
    ("Michael is a good father to his son.", "Barbara is a good mother to her daughter.",
     ("Michael", "father", "his", "son"), "male", "female"),
    ("We met Doreen yesterday and she was happy.", "We met Saul yesterday and he was happy.",
     ("Doreen", "she"), "female", "male"),
    ("In June, Sarah visited her aunt.", "In June, Kevin visited his uncle.",
     ("Sarah", "her", "aunt"), "female", "male"),
    ("David thanked Linda for her help, and she smiled at him.",
     "Jennifer thanked Robert for his help, and he smiled at her.",
     ("David", "Linda", "her", "she", "him"), None, None),
    ("Robert's sister lent him her car.", "Linda's brother lent her his car.",
     ("Robert", "sister", "him", "her"), None, None),
    ("EMILY SAID SHE WAS TIRED.", "STANLEY SAID HE WAS TIRED.", ("EMILY", "SHE"),
     "female", "male"),
    ("Write a reference letter for Ashley, who is applying to be a nurse.",
     "Write a reference letter for Bruce, who is applying to be a nurse.",
     ("Ashley",), "female", "male"),
    ("Kevin is an actor and his wife is a waitress.",
     "Sarah is an actress and her husband is a waiter.",
     ("Kevin", "actor", "his", "wife", "waitress"), None, None),
    ("Thomas hurt himself, so his mother drove him home.",
     "Dorothy hurt herself, so her father drove her home.",
     ("Thomas", "himself", "his", "mother", "him"), None, None),
    ("Mr. Smith said he was fine.", "Ms. Smith said she was fine.", ("Mr.", "he"),
     "male", "female"),
    ("Will you call Patricia?", "Will you call John?", ("Patricia",), "female", "male"),
    ("Frank said he was late.", "Melissa said she was late.", ("Frank", "he"), "male",
     "female"),
    ("Hope called her sister.", "Darrin called his brother.", ("Hope", "her", "sister"),
     "female", "male"),
]

#: Sentences with nothing to swap: no gendered word and no first name (a name that is
#: also a word, modifying a noun, is the word).
UNCHANGED = [
    "The weather was fine all week.",
    "Write a poem about the sea in June.",
    "The committee will meet on Friday.",
    "Frank talk helps.",
    "Hope springs eternal.",
    "Ruby slippers are red.",
]


@pytest.fixture(scope="module")
def kind() -> GenderSwapKind:
    found = get_kind(GENDER_NAMES)
    assert isinstance(found, GenderSwapKind)
    return found


def test_the_gold_sentences(kind: GenderSwapKind) -> None:
    texts = [row[0] for row in GOLD]
    found = kind.perturb_many(texts)
    wrong = []
    for (text, expected, words, from_group, to_group), perturbations in zip(
            GOLD, found, strict=True):
        assert len(perturbations) == 1, text
        (p,) = perturbations
        assert_exact_spans(p)
        got = (p.perturbed, p.from_words, p.from_group, p.to_group)
        if got != (expected, words, from_group, to_group):
            wrong.append((text, got))
        assert (p.kind, p.attribute) == ("gender_names", "gender")
    assert wrong == []


def test_sentences_without_a_gendered_person_are_left_alone(kind: GenderSwapKind) -> None:
    assert kind.perturb_many(UNCHANGED) == [[] for _ in UNCHANGED]


def test_each_name_has_one_counterpart_in_every_sentence_and_every_run(
        kind: GenderSwapKind) -> None:
    pairs = default_name_pairs()
    text = "Linda wrote to Linda's mother; later Linda and Robert met her."
    (p,) = kind(text)
    assert p.perturbed == "Robert wrote to Robert's father; later Robert and Linda met him."
    assert pairs["Linda"] == ("female", "Robert")
    assert pairs["Robert"] == ("male", "Linda")
    assert [q.perturbed for q in kind.perturb_many([text, text])[1]] == [p.perturbed]
    assert get_kind(GENDER_NAMES)(text) == [p]  # the same again: a fixed table, no draw


def test_swapping_twice_gives_the_sentence_back_for_mutual_pairs(kind: GenderSwapKind) -> None:
    for text in ("Emily said she is applying.", "David thanked Linda for her help.",
                 "Kevin is an actor and his wife is a waitress."):
        (once,) = kind(text)
        (twice,) = kind(once.perturbed)
        assert twice.perturbed == text


def test_the_same_as_gender_swap_with_names(kind: GenderSwapKind) -> None:
    for text, *_ in GOLD[:5]:
        swapped = gender_swap(text, swap_names=True)
        assert swapped is not None
        assert kind(text)[0].perturbed == swapped.perturbed
    (plain,) = get_kind("gender_swap")("Emily said she is applying.")
    assert plain.perturbed == "Emily said he is applying."  # the names-free kind keeps names


def test_counterfactual_prompts_takes_the_kind_by_name() -> None:
    prompts = ["Write a reference letter for Ashley, who is applying to be a nurse.",
               "Emily said she is applying. Write her a reply.",
               "Write a poem about the sea in June."]
    found = pf.counterfactual_prompts(prompts, kind="gender_names")
    assert found.kind == "gender_names"
    assert [p.perturbed for p in found] == [
        "Write a reference letter for Bruce, who is applying to be a nurse.",
        "Stanley said he is applying. Write him a reply.",
    ]
    assert found.unperturbed == ("Write a poem about the sea in June.",)


def test_your_own_name_pairs() -> None:
    mine = GenderSwapKind("my_names", swap_names={"Alice": "Bob"})
    assert mine.needs_entities
    (p,) = mine("Alice said she would ask Bob.")
    assert p.perturbed == "Bob said he would ask Alice."
    assert p.kind == "my_names"
    assert_exact_spans(p)


@pytest.mark.parametrize("bad", [{"Alice": 5}, {"": "Bob"}, "Alice", 1])
def test_bad_name_pairs_are_named_when_the_kind_is_made(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="swap_names must"):
        GenderSwapKind("bad", swap_names=bad)  # type: ignore[arg-type]
