"""``lang=`` on the relations and strategies that perturb (issue 28): a French corpus,
data set or list of texts is perturbed in French (agreement kept, never an impersonal
il); English stays the default; ``lang=`` against a corpus's own language is a
`LanguageConflictError`."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import strategies as fst
from pytest_fairness.checks.invariance import gender_cases
from pytest_fairness.errors import ConfigurationError, LanguageConflictError

pytest.importorskip("fr_core_news_sm")

FRENCH = ["Il est content.", "Elle est partie tôt.", "Il pleut depuis ce matin.",
          "Je suis venu avec lui.", "Il faut partir."]


def elle_is_positive(texts: Sequence[str]) -> list[float]:
    """A biased model: a sentence that starts with "Elle" scores 0.9, others 0.2."""
    return [0.9 if t.startswith("Elle") else 0.2 for t in texts]


def constant(texts: Sequence[str]) -> list[float]:
    return [0.3 for _ in texts]


def test_label_invariance_in_french_perturbs_with_agreement() -> None:
    cases = gender_cases(pf.Corpus(FRENCH, lang="fr"))
    assert [(c.original, c.perturbations[0].perturbed) for c in cases] == [
        ("Il est content.", "Elle est contente."),
        ("Elle est partie tôt.", "Il est parti tôt."),
        ("Je suis venu avec lui.", "Je suis venu avec elle."),
    ]  # the impersonal il pleut / il faut are left out
    with pytest.raises(pf.FairnessViolation, match=r"\[\[Elle\]\] est \[\[contente\]\]"):
        pf.assert_label_invariant(pf.as_model(elle_is_positive), FRENCH, lang="fr")
    pf.assert_label_invariant(pf.as_model(constant), pf.Corpus(FRENCH, lang="fr"))


def test_label_invariance_reads_a_dataset_in_its_language() -> None:
    data = pf.Dataset([{"text": t, "y": 1} for t in FRENCH], label="y", lang="fr")
    assert (data.lang, data.lang_given) == ("fr", True)
    assert data.select([0, 1]).lang == "fr"
    assert data.corpus().lang == "fr"
    with pytest.raises(pf.FairnessViolation):
        pf.assert_label_invariant(pf.as_model(elle_is_positive), data)
    with pytest.raises(LanguageConflictError, match="but the Corpus or Dataset says lang='fr'"):
        pf.assert_label_invariant(pf.as_model(constant), data, lang="en")


def test_english_stays_the_default() -> None:
    data = pf.Dataset([{"text": "He is happy."}])
    assert (data.lang, data.lang_given) == ("en", False)
    (case,) = gender_cases(pf.Corpus(["He is happy.", "It rains."]))
    assert case.perturbations[0].perturbed == "She is happy."
    with pytest.raises(ConfigurationError, match="lang must be a language code"):
        pf.Dataset([{"text": "x"}], lang="")


def test_nothing_to_swap_is_an_error_not_a_pass() -> None:
    with pytest.raises(ConfigurationError, match="nothing to judge"):
        pf.assert_label_invariant(pf.as_model(constant), ["Il pleut.", "Il faut partir."],
                                  lang="fr")


def test_counterfactual_prompts_in_french() -> None:
    found = pf.counterfactual_prompts(["Écris une lettre pour lui : il est prêt.",
                                       "Il pleut."], lang="fr")
    assert [p.perturbed for p in found] == ["Écris une lettre pour elle : elle est prête."]
    assert found.unperturbed == ("Il pleut.",)
    with pytest.raises(ConfigurationError, match="goes with a kind's name"):
        pf.counterfactual_prompts(["Il est prêt."], kind=pf.perturb.get_kind("gender_swap"),
                                  lang="fr")
    with pytest.raises(ConfigurationError, match="has no French version"):
        pf.counterfactual_prompts(["Il est prêt."], kind="religion", lang="fr")


FRENCH_CORPUS = pf.Corpus(["Il est allé au marché.", "Elle est partie tôt.", "Il pleut.",
                           "Il faut que nous partions."], lang="fr")


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=fst.name_perturbations(FRENCH_CORPUS, {"Marie": "female", "Jean": "male"},
                                   subset=False))
def test_name_perturbations_strategy_in_french(case: pf.Case) -> None:
    assert case.original in ("Il est allé au marché.", "Elle est partie tôt.")
    perturbed = sorted(p.perturbed for p in case.perturbations)
    if case.original.startswith("Il"):
        assert perturbed == ["Jean est allé au marché.", "Marie est allée au marché."]
    else:
        assert perturbed == ["Jean est parti tôt.", "Marie est partie tôt."]


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(anchor=fst.anchored_sentences(["Il est allé au marché.", "Il pleut."], lang="fr"),
       case=fst.gender_counterfactuals(["Il est allé au marché.", "Il pleut."], lang="fr"))
def test_anchor_and_counterfactual_strategies_take_lang(anchor: pf.Anchor,
                                                        case: pf.Case) -> None:
    assert (anchor.text, anchor.lang, anchor.word) == ("Il est allé au marché.", "fr", "Il")
    assert case.perturbations[0].perturbed == "Elle est allée au marché."


def test_strategies_refuse_a_language_conflict() -> None:
    with pytest.raises(LanguageConflictError):
        fst.gender_counterfactuals(FRENCH_CORPUS, lang="en")
    with pytest.raises(LanguageConflictError):
        fst.name_perturbations(FRENCH_CORPUS, ["Marie"], lang="en")
    with pytest.raises(LanguageConflictError):
        fst.anchored_sentences(FRENCH_CORPUS, lang="en")


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(names=st.lists(st.sampled_from(["Camille", "Dominique", "Claude"]), min_size=1,
                      unique=True))
def test_epicene_names_need_a_given_gender(names: list[str]) -> None:
    model = pf.as_model(constant)
    given_genders = dict.fromkeys(names, "female")
    result = pf.psa(model, FRENCH_CORPUS, given_genders, balance_gender=False)
    assert set(result.score_sens) == set(names)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=fst.gender_counterfactuals(["Anne est allée au marché."], lang="fr",
                                       swap_names=True))
def test_gender_counterfactuals_swap_french_names(case: pf.Case) -> None:
    assert case.perturbations[0].perturbed == "Jean est allé au marché."


def test_gender_counterfactuals_refuse_neutral_in_french() -> None:
    with pytest.raises(ConfigurationError, match="supports target='opposite' only in French"):
        fst.gender_counterfactuals(FRENCH_CORPUS, "neutral")


def test_english_mutations_refuse_a_french_corpus() -> None:
    with pytest.raises(ConfigurationError, match="use gender_counterfactuals"):
        fst.mutations(FRENCH_CORPUS, "gender")
