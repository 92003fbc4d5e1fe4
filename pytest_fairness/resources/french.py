"""French agreement: the feminine and masculine of adjectives, past participles and person
nouns, determiners and elision, from our own lexicon files plus rules of grammar.

The lexicons (written for pytest-fairness, facts of French grammar) are packaged data:
``fr_person_nouns.tsv`` (person nouns that change with the person's gender: acteur /
actrice), ``fr_epicene_nouns.txt`` (one form for both: journaliste),
``fr_fixed_gender_nouns.txt`` (a grammatical gender that is not the person's: la victime)
and ``fr_adjectives.tsv`` (adjectives with irregular feminines, forms used before a vowel,
epicene adjectives, and regular ones so that a feminine can be traced back). A word
outside the lexicons is inflected by the suffix rules of `feminine` and `masculine`.

Pure: no pytest, no model library.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from importlib import resources

__all__ = [
    "FrenchLexicon",
    "elides",
    "feminine",
    "lexicon",
    "masculine",
    "plural",
    "singular",
]

# Words starting with an aspirated h: no elision (le héros, la haine). Grammar facts.
_ASPIRATED_H = frozenset({
    "héros", "hibou", "haut", "haute", "hardi", "hardie", "hideux", "hideuse", "hongrois",
    "hongroise", "hollandais", "hollandaise", "honteux", "honteuse", "handicapé",
    "handicapée", "hautain", "hautaine", "hargneux", "hargneuse",
})
_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüœæ")

# Feminine suffix rules, longest suffix first: masculine ending -> feminine ending.
_FEMININE_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("teur", "trice"), ("eux", "euse"), ("eur", "euse"), ("ien", "ienne"), ("éen", "éenne"),
    ("ier", "ière"), ("er", "ère"), ("el", "elle"), ("eil", "eille"), ("on", "onne"),
    ("et", "ette"), ("if", "ive"), ("ou", "oue"), ("x", "se"), ("c", "que"),
    ("é", "ée"), ("e", "e"),
)
# Masculine ending <- feminine ending, tried in order (each candidate is checked by
# applying `feminine` to it).
_MASCULINE_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("trice", "teur"), ("euse", "eux"), ("euse", "eur"), ("ienne", "ien"), ("éenne", "éen"),
    ("ière", "ier"), ("ère", "er"), ("elle", "el"), ("eille", "eil"), ("onne", "on"),
    ("ette", "et"), ("ète", "et"), ("ive", "if"), ("que", "c"), ("ée", "é"), ("e", ""),
)
# Feminine endings of words that are epicene when nothing in the lexicon says otherwise.
_EPICENE_ENDINGS = ("ble", "ique", "iste", "aire", "ile", "ide", "ome", "phe", "gue",
                    "logue", "tre", "bre", "dre", "vre", "pre", "cre", "fle", "gle", "ple",
                    "èse", "ège", "ace", "ice", "ade", "ate", "ève", "ase", "sse", "me",
                    "ste", "ge", "che", "be", "pe", "le", "ne", "ve")


def _data(name: str) -> list[list[str]]:
    text = resources.files("pytest_fairness").joinpath("data", name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def elides(word: str) -> bool:
    """Whether `word` starts with a vowel or a mute h: le/la become l' before it, ce
    becomes cet, beau becomes bel ("l'actrice", "cet homme", "le héros")."""
    low = unicodedata.normalize("NFC", word.lower())
    if not low:
        return False
    if low[0] == "h":
        return low not in _ASPIRATED_H and not low.startswith(("haut", "hai", "hon"))
    return low[0] in _VOWELS


def plural(word: str) -> str:
    """The regular plural of a French noun or adjective: -s, nothing after s/x/z,
    -eau/-eu -> -x, -al -> -aux (a lexicon gives the exceptions)."""
    if word.endswith(("s", "x", "z")):
        return word
    if word.endswith(("eau", "eu")):
        return word + "x"
    if word.endswith("al") and word not in ("final", "fatal", "natal", "banal", "naval"):
        return word[:-2] + "aux"
    return word + "s"


def singular(word: str) -> str:
    """The singular of a regular French plural (`plural` undone; -aux -> -al)."""
    if word.endswith("aux") and len(word) > 4:
        return word[:-3] + "al"
    if word.endswith(("eaux", "eux")) and word.endswith("x") and not word.endswith("eux"):
        return word[:-1]
    if word.endswith("s") and len(word) > 2:
        return word[:-1]
    return word


@dataclass(frozen=True)
class FrenchLexicon:
    """The packaged French lexicons, read once (`lexicon`)."""

    #: person noun (singular or plural) -> (its gender, the other gender's form).
    nouns: dict[str, tuple[str, str]]
    #: person noun -> "sing" or "plur" when its form says it (not fils, héros).
    number: dict[str, str]
    #: singular person noun -> its plural (héroïne -> héroïnes, fils -> fils).
    plurals: dict[str, str]
    #: epicene person nouns, singular and plural.
    epicene: frozenset[str]
    #: nouns whose grammatical gender is not the person's, singular and plural.
    fixed: frozenset[str]
    #: adjective masculine singular -> feminine singular (lexicon entries only).
    to_feminine: dict[str, str]
    #: adjective feminine singular -> masculine singular (lexicon entries only).
    to_masculine: dict[str, str]
    #: masculine -> the masculine used before a vowel (beau -> bel), and its reverse.
    before_vowel: dict[str, str]
    #: every adjective form the lexicon knows.
    adjectives: frozenset[str]


@functools.lru_cache(maxsize=1)
def lexicon() -> FrenchLexicon:
    """The French lexicons of the package (module docstring)."""
    nouns: dict[str, tuple[str, str]] = {}
    number: dict[str, str] = {}
    plurals: dict[str, str] = {}
    for row in _data("fr_person_nouns.tsv"):
        masc, fem = row[0], row[1]
        masc_pl = row[2] if len(row) > 2 else plural(masc)
        fem_pl = row[3] if len(row) > 3 else plural(fem)
        nouns.setdefault(masc, ("male", fem))
        nouns.setdefault(fem, ("female", masc))
        nouns.setdefault(masc_pl, ("male", fem_pl))
        nouns.setdefault(fem_pl, ("female", masc_pl))
        for singular_form, plural_form in ((masc, masc_pl), (fem, fem_pl)):
            plurals.setdefault(singular_form, plural_form)
            if singular_form != plural_form:
                number.setdefault(singular_form, "sing")
                number.setdefault(plural_form, "plur")
    epicene = {row[0] for row in _data("fr_epicene_nouns.txt")}
    fixed = {row[0] for row in _data("fr_fixed_gender_nouns.txt")}
    to_fem: dict[str, str] = {}
    to_masc: dict[str, str] = {}
    before: dict[str, str] = {}
    for row in _data("fr_adjectives.tsv"):
        masc = row[0]
        fem = row[1] if len(row) > 1 and row[1] else _rule_feminine(masc)
        to_fem.setdefault(masc, fem)
        to_masc.setdefault(fem, masc)
        if len(row) > 2 and row[2]:
            before[masc] = row[2]
            to_masc.setdefault(row[2], masc)
    return FrenchLexicon(
        nouns=nouns,
        number=number,
        plurals=plurals,
        epicene=frozenset(epicene | {plural(w) for w in epicene}),
        fixed=frozenset(fixed | {plural(w) for w in fixed}),
        to_feminine=to_fem,
        to_masculine=to_masc,
        before_vowel=before,
        adjectives=frozenset(to_fem) | frozenset(to_masc) | frozenset(before.values()),
    )


def _rule_feminine(word: str) -> str:
    for ending, replacement in _FEMININE_SUFFIXES:
        if word.endswith(ending):
            return word[: len(word) - len(ending)] + replacement
    return word + "e"


def feminine(word: str) -> str:
    """The feminine singular of the masculine singular adjective or participle `word`
    (lower case): the lexicon first (beau -> belle, franc -> franche, jeune -> jeune),
    then suffix rules (-eux -> -euse, -if -> -ive, -ien -> -ienne, -er -> -ère, -el ->
    -elle, -on -> -onne, -et -> -ette, -c -> -que, -e unchanged, else + e: allé -> allée,
    pris -> prise)."""
    lex = lexicon()
    if word in lex.to_feminine:
        return lex.to_feminine[word]
    for masc, vowel_form in lex.before_vowel.items():
        if word == vowel_form:
            return lex.to_feminine[masc]
    return _rule_feminine(word)


def masculine(word: str, *, before_vowel: bool = False) -> str:
    """The masculine singular of the feminine singular adjective or participle `word`
    (lower case): the lexicon first (belle -> beau, or bel when `before_vowel`: "une
    belle actrice" -> "un bel acteur"), then the first suffix rule whose result gives
    `word` back through `feminine` (heureuse -> heureux, active -> actif, allée -> allé,
    grande -> grand); a word ending in an epicene ending stays (triste, habile)."""
    lex = lexicon()
    found = lex.to_masculine.get(word)
    if found is None:
        if word.endswith(_EPICENE_ENDINGS) and not word.endswith(
                ("ée", "ie", "ue", "ise", "ite", "ine", "ane", "ale", "ule", "ète", "ève",
                 "euse", "ive", "elle", "enne", "onne", "ette", "ère", "que", "ole",
                 "ouse")):
            found = word
        else:
            found = _masculine_by_rule(word)
    if before_vowel and found in lex.before_vowel:
        return lex.before_vowel[found]
    return found


def _masculine_by_rule(word: str) -> str:
    for ending, replacement in _MASCULINE_SUFFIXES:
        if word.endswith(ending):
            candidate = word[: len(word) - len(ending)] + replacement
            if candidate and _rule_feminine(candidate) == word:
                return candidate
    if word.endswith("e") and len(word) > 2:
        return word[:-1]
    return word
