"""Hypothesis strategies for fairness tests: anchored sentences, names, and `Case`s.

Use them with `hypothesis.given` like any strategy::

    from hypothesis import given
    from pytest_fairness import strategies as fst

    @given(case=fst.name_perturbations(CORPUS, fst.names(origin="India", n=20)))
    def test_names_keep_the_label(fairness_model, case):
        pf.assert_label_invariant(fairness_model, case.original, case.perturbed)

=========================  ==============  ==============================================
strategy                   draws           from
=========================  ==============  ==============================================
`anchored_sentences`       `Anchor`        the corpus texts with a pronoun (or person) anchor
`names`                    str             a first-name list (by gender, by origin)
`name_perturbations`       `Case`          an anchored text and a non-empty subset of names
`gender_counterfactuals`   `Case`          a text with gendered words and its swap
`mutations`                `Case`          a text and its mt-nlp mutations for an attribute
`template_fills`           `Case`          a template and a subset of its fills
`prompt_counterfactuals`   `Perturbation`  a user's prompt (or prompt template) and one
                                           of its counterfactuals
`entity_name_swaps`        `Perturbation`  a sentence frame with a name of one group,
                                           swapped for a name of another (NER tests)
=========================  ==============  ==============================================

How they search and shrink. Each strategy draws from a *pool* of candidates: the corpus
texts (or prompts) that qualify (those with an anchor, a gendered word, a mutation, a
counterfactual), sorted by length
(fewer words first, then fewer characters, then corpus order), or a name list in its own
order (most popular first). A draw picks an index into the pool and, for a `Case`, a
non-empty subset of the text's perturbations (names) in their order. Hypothesis shrinks
indexes toward 0 and subsets toward their first element, so a failing test reports the
shortest failing text and the earliest failing name or perturbation: a minimal
discriminatory input.

Laziness. Building a strategy is cheap: it checks its arguments and opens a corpus file
at most (to check it exists and has the column), so strategies can be built at import or
collection time. The pool (spaCy parses, cleaned name lists) is built once, when
Hypothesis first validates the strategy, which `@given`, `find` and `.example()` do
before generating the first example, and is cached on the strategy; draws then cost an
index. Building before generation keeps the parse out of Hypothesis's timing (deadline,
`HealthCheck.too_slow`), also for a strategy inside `st.one_of` or `st.tuples`. (Drawn
interactively with `st.data()`, a strategy is built at its first draw, which Hypothesis
times.) A pool with nothing in it raises `pytest_fairness.ConfigurationError` then,
before any example, saying which corpus and why nothing qualified; the test errors, it is
not skipped. Until built, a strategy reads as ``deferred(<the call>)``; then as the call.

Reproducibility. Pools depend only on the arguments (and the corpus), never on random
state; everything random is Hypothesis's own choice of indexes, so a seed
(`hypothesis.seed`, ``derandomize=True``) or a saved example in Hypothesis's database
replays the same inputs, and a failure seen in CI replays locally.

This is the only module of pytest-fairness that imports Hypothesis.
"""

from __future__ import annotations

import itertools
import random
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from hypothesis import strategies as st

from .corpus import ANCHOR_KINDS, Corpus, CorpusSource
from .errors import ConfigurationError, FairnessError
from .resources import names as _name_lists
from .types import Anchor, Case, Perturbation
from .validation import check_bool, check_int, check_number

if TYPE_CHECKING:
    from .checks.llm import CounterfactualPrompts
    from .perturb.gender import Target
    from .perturb.kinds import PerturbationKind
    from .perturb.mutations import MutationKind
    from .perturb.name_swap import Names
    from .perturb.templates import Template, TemplateSet
    from .resources.embeddings import VectorsLike
    from .resources.fluency import FluencyScorer
    from .resources.knowledge import KnowledgeGraph

__all__ = [
    "anchored_sentences",
    "entity_name_swaps",
    "gender_counterfactuals",
    "mutations",
    "name_perturbations",
    "names",
    "prompt_counterfactuals",
    "template_fills",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: Groups of a name: a mapping name -> group, or a function of the name (e.g.
#: `pytest_fairness.resources.names.gender_of`).
NameGroups = Mapping[str, str | None] | Callable[[str], str | None]

_PARSE_BATCH = 256


# --------------------------------------------------------------------------- pools


class _Pool(Generic[T]):
    """What one strategy draws from: built by `build` on the first `get()`, then cached.

    A `FairnessError` raised while building (an empty pool, a missing pipeline) is cached
    too and raised again on every later use, so a broken strategy fails the same way each
    time without parsing the corpus again.

    `args` is how the strategy's arguments read ("Corpus('a.txt'), kind='person'"): the
    pool is the one argument of the strategy's draw function, so Hypothesis shows the
    strategy as ``name(<args>)``, the call the user wrote.
    """

    def __init__(self, name: str, args: str, build: Callable[[], T]) -> None:
        self.name = name
        self.args = args
        self._build = build
        self._value: tuple[T] | None = None  # boxed: T itself may be falsy or None
        self._error: FairnessError | None = None
        self._lock = threading.Lock()

    @property
    def call(self) -> str:
        """The strategy as the call that made it, for messages."""
        return f"{self.name}({self.args})"

    def __repr__(self) -> str:
        return self.args

    def get(self) -> T:
        with self._lock:
            if self._error is not None:
                raise self._error
            if self._value is None:
                # Importing spaCy moves the global `random` state; put it back, so building
                # a pool (also inside a draw, where Hypothesis checks for this) has no
                # effect on it.
                state = random.getstate()
                try:
                    self._value = (self._build(),)
                except FairnessError as exc:
                    self._error = exc
                    raise
                finally:
                    random.setstate(state)
            return self._value[0]


@dataclass(frozen=True)
class _Cases:
    """A pool of cases, shortest original first, and whether to draw subsets of them."""

    cases: tuple[Case, ...]
    subset: bool

    @property
    def width(self) -> int:
        """The most perturbations a case has."""
        return max(len(case.perturbations) for case in self.cases)


@dataclass(frozen=True)
class _NamedAnchors:
    """The pool of `name_perturbations`: anchors, and names to draw subsets of."""

    anchors: tuple[Anchor, ...]
    names: tuple[str, ...] | st.SearchStrategy[str]
    groups: NameGroups | None
    subset: bool
    max_names: int | None


def _lazy(pool: _Pool[Any], strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """`strategy`, whose `pool` is built when Hypothesis validates it, before the first draw.

    `@given` (and `find`, `.example()`) validate their strategies, branches of `one_of`
    and elements of `tuples` included, before generating anything, so the pool's parse
    is not counted as generation time (which would fail `HealthCheck.too_slow`, e.g. for a
    branch of `one_of` first drawn late) and an empty pool is an error before the first
    example. Reads as ``deferred(<call>)`` until built, then as the call.
    """

    def build() -> st.SearchStrategy[T]:
        pool.get()
        return strategy

    build.__name__ = build.__qualname__ = pool.call
    return st.deferred(build)


def _named(name: str) -> Callable[[F], F]:
    """Give a draw function the name of its public strategy, for Hypothesis's repr."""

    def rename(function: F) -> F:
        function.__name__ = name
        function.__qualname__ = name
        return function

    return rename


def _index(draw: st.DrawFn, pool: Sequence[object]) -> int:
    """An index into `pool`, shrinking toward 0 (the shortest text, the first name)."""
    return draw(st.integers(min_value=0, max_value=len(pool) - 1))


def _some(
    draw: st.DrawFn,
    items: Sequence[T],
    subset: bool,
    limit: int | None = None,
    width: int | None = None,
) -> list[T]:
    """A non-empty subset of `items` in their order (shrinking toward the first), or all.

    Drawn as a list of indexes with repeats allowed, then deduplicated: Hypothesis shrinks
    such a list to the one earliest index that still fails, while a ``unique=True`` list
    often keeps extra elements (tried: [0, 1, 2] instead of [2]).

    `width` (at least ``len(items)``) is the number of items of the pool's widest entry:
    indexes are drawn below it and taken modulo ``len(items)``, so what is drawn after
    the text index has the same shape whichever text was drawn. Hypothesis orders
    examples by the number of choices first, so otherwise a text with one perturbation
    (no subset to draw) would count as simpler than a shorter text with several.
    """
    if not subset:
        return list(items)
    width = len(items) if width is None else width
    size = width if limit is None else min(limit, width)
    index = st.integers(min_value=0, max_value=width - 1)
    chosen = draw(st.lists(index, min_size=1, max_size=size))
    return [items[i % len(items)] for i in sorted({i % len(items) for i in chosen})]


@st.composite
@_named("anchored_sentences")
def _draw_anchor(draw: st.DrawFn, pool: _Pool[tuple[Anchor, ...]]) -> Anchor:
    anchors = pool.get()
    return anchors[_index(draw, anchors)]


@st.composite
@_named("names")
def _draw_name(draw: st.DrawFn, pool: _Pool[tuple[str, ...]]) -> str:
    found = pool.get()
    return found[_index(draw, found)]


@st.composite
@_named("name_perturbations")
def _draw_name_case(draw: st.DrawFn, pool: _Pool[_NamedAnchors]) -> Case:
    from .perturb import names as replace_anchor

    plan = pool.get()
    anchor = plan.anchors[_index(draw, plan.anchors)]
    if isinstance(plan.names, st.SearchStrategy):
        # repeats allowed, then removed: shrinks better than unique=True (see `_some`)
        drawn = draw(st.lists(plan.names, min_size=1, max_size=plan.max_names))
        chosen = list(dict.fromkeys(drawn))
    else:
        chosen = _some(draw, plan.names, plan.subset, plan.max_names)
    groups = plan.groups
    if groups is not None and not isinstance(groups, Mapping):
        groups = {name: groups(name) for name in chosen}
    return Case(anchor.text, tuple(replace_anchor([anchor], chosen, groups=groups)))


def _case_drawer(name: str) -> Callable[[_Pool[_Cases]], st.SearchStrategy[Case]]:
    @st.composite
    @_named(name)
    def draw_case(draw: st.DrawFn, pool: _Pool[_Cases]) -> Case:
        plan = pool.get()
        case = plan.cases[_index(draw, plan.cases)]
        if not plan.subset:
            return case
        chosen = _some(draw, case.perturbations, True, width=plan.width)
        return Case(case.original, tuple(chosen))

    return draw_case


@st.composite
@_named("prompt_counterfactuals")
def _draw_prompt(draw: st.DrawFn, pool: _Pool[tuple[Perturbation, ...]]) -> Perturbation:
    pairs = pool.get()
    return pairs[_index(draw, pairs)]


_draw_counterfactual = _case_drawer("gender_counterfactuals")
_draw_mutation = _case_drawer("mutations")
_draw_template_case = _case_drawer("template_fills")


# --------------------------------------------------------------------------- helpers


def _length(text: str) -> tuple[int, int]:
    """Sort key of "shorter": fewer words, then fewer characters."""
    return len(text.split()), len(text)


def _shortest_first(cases: Iterable[Case]) -> tuple[Case, ...]:
    return tuple(sorted(cases, key=lambda case: _length(case.original)))


def _short(value: object) -> str:
    """repr of an argument, long lists cut to their first items."""
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple) and len(value) > 6:
        # (a subclass, such as CounterfactualPrompts, has its own repr)
        head = ", ".join(repr(item) for item in value[:3])
        return f"[{head}, ... {len(value) - 3} more]"
    if isinstance(value, st.SearchStrategy):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class _Shown(str):
    """A string that reads as itself in `_args` (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


def _differs(value: object, default: object) -> bool:
    if value is default:
        return False
    try:
        return bool(value != default)
    except Exception:  # e.g. an array, whose != is elementwise
        return True


def _args(*positional: object, **options: tuple[object, object]) -> str:
    """Arguments as written: positional ones, then each option whose value is not its default.

    Each option is given as (value, default).
    """
    parts = [_short(value) for value in positional]
    parts += [
        f"{key}={_short(value)}"
        for key, (value, default) in options.items()
        if _differs(value, default)
    ]
    return ", ".join(parts)


def _corpus(corpus: Corpus | CorpusSource) -> Corpus:
    """A `Corpus` from a Corpus, a list of texts or a file path (cheap: nothing is parsed)."""
    return Corpus.from_source(corpus)


def _in_language(source: Corpus, lang: str | None) -> Corpus:
    """`source` read in `lang` (`perturb.languages.resolve_language`: ``lang=`` else the
    corpus's own; both and different raise `LanguageConflictError`)."""
    from .perturb.languages import resolve_language

    code = resolve_language(lang, source).code
    return source if source.lang == code else source.with_lang(code)


def _positive(what: str, value: int | None, *, optional: bool = True) -> None:
    """`value` must be a whole number >= 1 (`check_int`: not a bool, 2.5, NaN or "3"), or
    None when `optional`."""
    if value is None and optional:
        return
    if check_int(value, what) < 1:
        raise ConfigurationError(f"{what} must be a positive integer, got {value!r}")


def _flag(what: str, value: object) -> None:
    """`value` must be True or False (a string such as "false" would read as true)."""
    check_bool(value, what)


def _seed_arg(seed: object) -> None:
    if seed is not None:
        check_int(seed, "seed")


def _nlp_arg(nlp: object) -> None:
    if nlp is not None and (not isinstance(nlp, str) or not nlp.strip()):
        raise ConfigurationError(
            f"nlp must be the name of a spaCy pipeline such as 'en_core_web_sm', or None for "
            f"the run's, got {type(nlp).__name__} {nlp!r:.60}"
        )


def _short_texts(corpus: Corpus, max_words: int) -> Iterable[str]:
    return (text for text in corpus if len(text.split()) <= max_words)


def _batches(texts: Iterable[str], size: int) -> Iterable[list[str]]:
    iterator = iter(texts)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


class _Parsable:
    """Whether spaCy can parse a corpus text (`pytest_fairness.resources.nlp.unparsable`
    with the pipeline's max_length), counting the ones it cannot: a pool skips them, as
    `Corpus.anchored` does, rather than fail on one bad line of a corpus."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.skipped = 0

    def __call__(self, text: str) -> bool:
        from .resources.nlp import unparsable

        if self.limit is None or unparsable(text, self.limit) is None:
            return True
        self.skipped += 1
        return False

    def note(self) -> str:
        """", N skipped because spaCy cannot parse them", or ""."""
        return f", {self.skipped} skipped because spaCy cannot parse them" if self.skipped else ""


def _parsable(nlp: str | None) -> _Parsable:
    """A `_Parsable` for the spaCy pipeline `nlp` (loaded: its max_length counts)."""
    from .resources.nlp import load, max_length

    return _Parsable(max_length(load(nlp)))


def _nothing(call: str, why: str) -> ConfigurationError:
    return ConfigurationError(f"{call} has nothing to draw: {why}")


# --------------------------------------------------------------------------- strategies


def anchored_sentences(
    corpus: Corpus | CorpusSource,
    kind: str = "pronoun",
    *,
    max_words: int = 50,
    balance_gender: bool = False,
    seed: int | None = None,
    limit: int | None = None,
    nlp: str | None = None,
    lang: str | None = None,
) -> st.SearchStrategy[Anchor]:
    """Anchors of the corpus texts, the sentences PSA perturbs (psa, section 2; 2.2).

    Draws an `Anchor`: a corpus text of at most `max_words` words and its first
    third-person singular pronoun (``kind="pronoun"``), or its first person name or person
    noun (``kind="person"``), found by `Corpus.anchored` with spaCy. Shrinks toward the
    shortest anchored text.

    `corpus` is a `Corpus`, a list of str, or a .txt/.csv/.jsonl path. `limit` stops
    reading the corpus after that many anchors (a large corpus is then not parsed whole).
    Unlike `Corpus.anchored`, `balance_gender` is off by default: a property test wants
    every anchored text as a candidate, while PSA's female/male balance matters for the
    aggregate metrics (pass True to keep it; `seed` then picks the downsampled anchors).
    `nlp` names the spaCy pipeline (default: the run's ``--fairness-spacy-model``, or the
    language's). `lang` is the corpus's language (default its own `Corpus.lang`): French
    anchors are personal pronouns only (never an impersonal il).
    """
    source = _in_language(_corpus(corpus), lang)
    _check_kind(kind)
    _positive("max_words", max_words, optional=False)
    _positive("limit", limit)
    _flag("balance_gender", balance_gender)
    _seed_arg(seed)
    _nlp_arg(nlp)

    def build() -> tuple[Anchor, ...]:
        try:
            found = source.anchored(
                kind, max_words=max_words, balance_gender=balance_gender, seed=seed,
                limit=limit, nlp=nlp,
            )
        except ConfigurationError as exc:
            raise _nothing(pool.call, str(exc)) from exc
        return tuple(sorted(found, key=lambda anchor: _length(anchor.text)))

    pool = _Pool(
        "anchored_sentences",
        _args(source, kind=(kind, "pronoun"), max_words=(max_words, 50),
              balance_gender=(balance_gender, False), seed=(seed, None), limit=(limit, None),
              nlp=(nlp, None), lang=(lang, None)),
        build,
    )
    return _lazy(pool, _draw_anchor(pool))


def names(
    gender: str | None = None,
    origin: str | None = None,
    *,
    lang: str = "en",
    n: int | None = 100,
    clean: bool = True,
) -> st.SearchStrategy[str]:
    """First names from `pytest_fairness.resources.names`, shrinking toward the most popular.

    Without `origin`: the `n` most popular names of `lang` (`names.popular`; for English
    the 1990 US Census lists, female and male alternating when `gender` is None). With
    `origin`, a country ("India"): its names from Wikidata (`names.by_origin`, needs
    checklist-pattern). `gender` is "female", "male" or None. The list is read and cleaned
    (spaCy) when the strategy is first used; `n=None` takes whole lists, which takes some
    seconds to clean. Use it as the `names` of `name_perturbations`.
    """
    _positive("n", n)
    _flag("clean", clean)
    for what, value in (("gender", gender), ("origin", origin)):
        if value is not None and not isinstance(value, str):
            raise ConfigurationError(
                f"{what} must be a str or None, got {type(value).__name__} {value!r:.60}"
            )
    if not isinstance(lang, str):
        raise ConfigurationError(f"lang must be a language code such as 'en', got {lang!r:.60}")

    def build() -> tuple[str, ...]:
        if origin is not None:
            found = _name_lists.by_origin(origin, gender, n, clean=clean)
        else:
            found = _name_lists.popular(lang, gender, n, clean=clean)
        if not found:
            raise _nothing(pool.call, "the name list is empty (after cleaning)")
        return tuple(found)

    pool = _Pool(
        "names",
        _args(gender=(gender, None), origin=(origin, None), lang=(lang, "en"), n=(n, 100),
              clean=(clean, True)),
        build,
    )
    return _lazy(pool, _draw_name(pool))


def name_perturbations(
    corpus: Corpus | CorpusSource,
    names: Names | st.SearchStrategy[str] | None = None,
    *,
    kind: str = "pronoun",
    groups: NameGroups | None = None,
    subset: bool = True,
    max_names: int | None = None,
    max_words: int = 50,
    limit: int | None = None,
    nlp: str | None = None,
    lang: str | None = None,
) -> st.SearchStrategy[Case]:
    """An anchored text with its anchor replaced by names: PSA's perturbation (psa, section 2).

    Draws a `Case`: `original` a corpus text with an anchor (as in `anchored_sentences`;
    reflexive pronouns and person nouns take no name and are left out), `perturbations`
    the text with the anchor replaced by each of a non-empty subset of `names`, in the
    list's order (`pytest_fairness.perturb.names`: grammar kept by role, exact spans).
    Shrinks toward the shortest text and a single, earliest name.

    `names` is a list of names, names with their groups in any form PSA's ``names=``
    takes (a mapping name -> group, (name, group) pairs, a data-frame-like object with
    "name" and "group" columns: `perturb.split_names`), a strategy of names such as
    `names(origin="India")` (a non-empty list of distinct names is drawn from it), or None for
    `pytest_fairness.resources.names.popular("en")` (20 names, read when the strategy is first
    used). Computing a package list at import time would
    load spaCy; pass the `names` strategy instead. `subset=False` always uses the whole
    list (the |X| x |N| design of psa), `max_names` caps the subset size. `groups` maps
    each name to its group (or is a function of the name, e.g.
    `pytest_fairness.resources.names.gender_of`) for the perturbations' `to_group`; names
    given with their groups set it already (giving both raises `ConfigurationError`).

    `lang` is the corpus's language (default its own `Corpus.lang`; both and different:
    `LanguageConflictError`). In French a name replaces a personal il/elle or a stressed
    lui/elle with the agreement of its gender ("Il est allé" -> "Marie est allée"), each
    name's gender from `groups` when it says "female"/"male", else the French lists
    (`perturb.languages.name_genders`); the default names are the language's first 10
    female and 10 male (`Language.names`).
    """
    source = _in_language(_corpus(corpus), lang)
    _check_kind(kind)
    _positive("max_words", max_words, optional=False)
    _positive("limit", limit)
    _positive("max_names", max_names)
    _flag("subset", subset)
    _nlp_arg(nlp)
    name_list: tuple[str, ...] | None = None
    name_groups = groups
    if isinstance(names, st.SearchStrategy):
        if not subset:
            raise ConfigurationError(
                "subset=False needs a list of names (a strategy of names has no whole list)"
            )
    elif names is not None:
        name_list, given_groups = _split_names(names)
        if given_groups is not None:
            if groups is not None:
                raise ConfigurationError(
                    "names= already gives each name its group (a mapping, pairs or a "
                    "table); pass groups= only with a plain list of names"
                )
            name_groups = given_groups

    def build() -> _NamedAnchors:
        from .perturb import names as replace_anchor

        try:
            found = source.anchored(kind, max_words=max_words, balance_gender=False,
                                    limit=limit, nlp=nlp)
        except ConfigurationError as exc:
            raise _nothing(pool.call, str(exc)) from exc
        # perturb.names decides which anchor roles take a name; ask it with a probe name
        usable = [anchor for anchor in found
                  if replace_anchor([anchor], ["Alex"], genders={"Alex": "male"})]
        if not usable:
            raise _nothing(
                pool.call,
                f"the {len(found)} {kind} anchor(s) of corpus {source.name} are all "
                "reflexive pronouns or person nouns, which take no name (psa, section 2). "
                "Use texts with he/she/him/her/his/hers or a person's name",
            )
        drawn: tuple[str, ...] | st.SearchStrategy[str]
        if isinstance(names, st.SearchStrategy):
            names.validate()  # builds a `names()` pool now, not in the first (timed) draw
            drawn = names
        else:
            drawn = name_list if name_list is not None else _default_names(source.lang)
        return _NamedAnchors(
            anchors=tuple(sorted(usable, key=lambda anchor: _length(anchor.text))),
            names=drawn,
            groups=name_groups,
            subset=subset,
            max_names=max_names,
        )

    pool = _Pool(
        "name_perturbations",
        _args(source, names=(names, None), kind=(kind, "pronoun"), groups=(groups, None),
              subset=(subset, True), max_names=(max_names, None), max_words=(max_words, 50),
              limit=(limit, None), nlp=(nlp, None), lang=(lang, None)),
        build,
    )
    return _lazy(pool, _draw_name_case(pool))


def _default_names(lang: str) -> tuple[str, ...]:
    """PSA's default names in `lang`: the popular English ones, else the language's first
    10 female and 10 male names, alternating."""
    if lang == "en":
        return tuple(_name_lists.popular("en"))
    from .perturb.languages import get_language

    language = get_language(lang)
    pairs = zip(language.names("female", 10), language.names("male", 10), strict=False)
    return tuple(name for pair in pairs for name in pair)


def gender_counterfactuals(
    corpus: Corpus | CorpusSource,
    target: Target = "opposite",
    *,
    swap_names: bool | Mapping[str, str] = False,
    max_words: int = 50,
    limit: int | None = None,
    nlp: str | None = None,
    lang: str | None = None,
) -> st.SearchStrategy[Case]:
    """A corpus text and its gender counterfactual, shrinking toward the shortest text.

    Draws a `Case` whose one perturbation is `pytest_fairness.perturb.gender_swap` of the
    text: every definitional gender word swapped to `target` ("opposite" or "neutral"),
    grammar kept from spaCy's parse. This is the counterfactual x^ of the CF baseline
    (accumulated-prediction-sensitivity, section 6.5) and of the counterfactual evaluation
    of counterfactual-sentiment-bias (section 3). The pool is the texts of at most
    `max_words` words that have a swap, parsed in batches when the strategy is first used;
    `limit` stops reading the corpus after that many. `swap_names` also swaps first names (see
    `gender_swap`). `lang` is a registered language code
    (`pytest_fairness.perturb.languages`; None: the corpus's own `Corpus.lang`, "en" for a
    list or a file; both and different: `LanguageConflictError`): "fr" draws French
    counterfactuals that keep agreement (target "opposite" only, parsed by the language's
    own pipeline unless `nlp` is given); `swap_names` swaps French first names too, paired
    by rank in the French lists, with the agreement of a subject name ("Anne est
    allée." -> "Jean est allé.").
    """
    if not isinstance(target, str) or target not in ("opposite", "neutral"):
        raise ConfigurationError(f"target must be 'opposite' or 'neutral', not {target!r:.60}")
    from .perturb.languages import DEFAULT_LANGUAGE, get_language

    source = _in_language(_corpus(corpus), lang)
    language = get_language(source.lang)
    foreign = language.code != DEFAULT_LANGUAGE
    if foreign and target != "opposite":
        raise ConfigurationError(
            f"gender_counterfactuals(lang={language.code!r}) supports target='opposite' "
            f"only in {language.name} (it has no neutral forms); drop target={target!r}, "
            "or use lang='en'")
    if foreign:
        language.name_table(swap_names)  # a wrong swap_names is refused here
    if foreign and nlp is None:
        nlp = language.pipelines[0]
    _positive("max_words", max_words, optional=False)
    _positive("limit", limit)
    _nlp_arg(nlp)

    def build() -> _Cases:
        from .perturb import gender_swaps
        from .perturb.languages import swap_genders

        may_swap = _may_swap() if swap_names is False and not foreign else None
        parsable = _parsable(nlp)
        seen = short = 0
        cases: list[Case] = []

        def candidates() -> Iterable[str]:
            nonlocal seen, short
            for text in source:
                seen += 1
                if len(text.split()) > max_words or not parsable(text):
                    continue
                short += 1
                if may_swap is None or may_swap(text):
                    yield text

        for batch in _batches(candidates(), _PARSE_BATCH):
            swaps = (swap_genders(batch, language, nlp, swap_names=swap_names) if foreign else
                     gender_swaps(batch, target, nlp, swap_names=swap_names,
                                  batch_size=_PARSE_BATCH))
            cases += [Case(text, (swap,)) for text, swap in zip(batch, swaps, strict=True)
                      if swap is not None]
            if limit is not None and len(cases) >= limit:
                cases = cases[:limit]
                break
        if not cases:
            what = "a gendered word or first name" if swap_names is not False else (
                "a gendered word (pronoun, gendered noun or title)")
            unswappable = " that can be made neutral" if target == "neutral" else ""
            raise _nothing(
                pool.call,
                f"corpus {source.name}: read {seen} texts, {short} of at most {max_words} "
                f"words{parsable.note()}, none with {what}{unswappable}. Use texts that "
                "mention a gendered person",
            )
        return _Cases(_shortest_first(cases), subset=False)

    pool = _Pool(
        "gender_counterfactuals",
        _args(source, target=(target, "opposite"), swap_names=(swap_names, False),
              max_words=(max_words, 50), limit=(limit, None), nlp=(nlp, None),
              lang=(lang, None)),
        build,
    )
    return _lazy(pool, _draw_counterfactual(pool))


def mutations(
    corpus: Corpus | CorpusSource,
    attribute: str,
    *,
    subset: bool = True,
    kinds: Iterable[MutationKind] | None = None,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    candidates: int = 1,
    fluency: FluencyScorer | None = None,
    min_ratio: float | None = None,
    max_words: int = 50,
    limit: int | None = None,
    nlp: str | None = None,
) -> st.SearchStrategy[Case]:
    """A corpus text and its perturbations of the kind `attribute` (by default mt-nlp's
    mutations, mt-nlp section 2.1).

    Draws a `Case`: `original` a corpus text with at least one perturbation,
    `perturbations` a non-empty subset (in order; all with ``subset=False``) of what the
    perturbation kind called `attribute` makes of it (`pytest_fairness.perturb.get_kind`):
    for "gender" and every attribute of the knowledge graph (religion, race, ...), the
    perturbation set S of mt-nlp's sentence perturbator (Algorithm 2: AnalogyMutate,
    Algorithm 3, and ActiveMutate, Algorithm 4, of every person noun; plus the gender
    swap for "gender", `pytest_fairness.perturb.mutations.MutationsKind`); for a kind you
    registered (``pf.perturb.register_dictionary("religion", {...})``), its
    perturbations. The metamorphic relation of mt-nlp (section 2, Algorithm 1) then
    compares the model's label on `original` with each perturbed text. Shrinks toward the
    shortest text and its first perturbation.

    `kinds`, `graph`, `vectors`, `candidates`, `fluency` and `min_ratio` configure the
    mt-nlp mutations (see `pytest_fairness.perturb.mutations.mutations`; None: the
    kind's own, by default every mutation, the bundled graph,
    `pytest_fairness.resources.embeddings.default_vectors`, no fluency filter); with
    another kind they raise `ConfigurationError`. The pool is the texts of at most
    `max_words` words with a perturbation, computed in batches when the strategy is first
    used; `limit` stops reading the corpus after that many. `nlp` names the spaCy
    pipeline of a kind that parses (default: the run's ``--fairness-spacy-model``). The
    gender mutations are English: a corpus in another language (`Corpus.lang`) is
    refused for "gender", pointing to `gender_counterfactuals`.
    """
    source = _corpus(corpus)
    if not isinstance(attribute, str) or not attribute.strip():
        raise ConfigurationError(f"attribute must be a non-empty string, got {attribute!r}")
    if source.lang != "en" and attribute in ("gender", "gender_swap"):
        raise ConfigurationError(
            f"mutations(attribute={attribute!r}) are mt-nlp's English mutations, and corpus "
            f"{source.name} is in {source.lang!r}: use gender_counterfactuals(corpus), which "
            "swaps genders in the corpus's language (agreement kept in French)")
    _positive("candidates", candidates, optional=False)
    _positive("max_words", max_words, optional=False)
    _positive("limit", limit)
    _flag("subset", subset)
    _nlp_arg(nlp)
    if min_ratio is not None:
        check_number(min_ratio, "min_ratio", minimum=0)
    chosen_kinds = None if kinds is None else tuple(kinds)
    options = _mutation_options(attribute, kinds=chosen_kinds, graph=graph, vectors=vectors,
                                candidates=candidates, fluency=fluency, min_ratio=min_ratio)

    def build() -> _Cases:
        try:
            kind = _mutation_kind(attribute, options)
        except ConfigurationError as exc:
            raise _nothing(pool.call, str(exc)) from exc
        seen = short = 0
        cases: list[Case] = []
        parsable = _parsable(nlp) if kind.needs_parse else _Parsable(None)

        def candidates_of() -> Iterable[str]:
            nonlocal seen, short
            for text in source:
                seen += 1
                if len(text.split()) <= max_words and parsable(text):
                    short += 1
                    yield text

        for batch in _batches(candidates_of(), _PARSE_BATCH):
            found = kind.perturb_many(batch, nlp=nlp, batch_size=_PARSE_BATCH)
            cases += [Case(text, tuple(s)) for text, s in zip(batch, found, strict=True) if s]
            if limit is not None and len(cases) >= limit:
                cases = cases[:limit]
                break
        if not cases:
            raise _nothing(
                pool.call,
                f"corpus {source.name}: read {seen} texts, {short} of at most {max_words} "
                f"words{parsable.note()}, none with a {attribute!r} mutation ({kind.hint})",
            )
        return _Cases(_shortest_first(cases), subset=subset)

    pool = _Pool(
        "mutations",
        _args(source, attribute, subset=(subset, True), kinds=(chosen_kinds, None),
              graph=(graph, None), vectors=(vectors, None), candidates=(candidates, 1),
              fluency=(fluency, None), min_ratio=(min_ratio, None),
              max_words=(max_words, 50), limit=(limit, None), nlp=(nlp, None)),
        build,
    )
    return _lazy(pool, _draw_mutation(pool))


def _mutation_options(attribute: str, **given: Any) -> dict[str, Any]:
    """The mt-nlp options of `mutations` that were given (not None; `candidates` not 1).

    Raises `ConfigurationError` when `attribute` names a registered kind other than the
    mt-nlp mutations (cheap: the registry only, no knowledge graph).
    """
    from .perturb.kinds import KIND_REGISTRY
    from .perturb.mutations import MutationsKind

    options = {key: value for key, value in given.items()
               if value is not None and not (key == "candidates" and value == 1)}
    registered = KIND_REGISTRY.find(attribute) if options else None
    if registered is not None and not isinstance(registered, MutationsKind):
        raise ConfigurationError(
            f"{', '.join(f'{key}=' for key in options)} only apply to the mt-nlp mutations, "
            f"and {attribute!r} is {registered.description}: drop "
            f"{'them' if len(options) > 1 else 'it'}, or use an attribute of the knowledge "
            "graph"
        )
    return options


def _mutation_kind(attribute: str, options: dict[str, Any]) -> PerturbationKind:
    """The kind `mutations` draws from: `attribute`'s, with the mt-nlp `options`."""
    from .perturb import get_kind
    from .perturb.mutations import MutationsKind

    kind = get_kind(attribute)
    if not options:
        return kind
    if not isinstance(kind, MutationsKind):  # registered since the strategy was built
        raise ConfigurationError(
            f"{', '.join(f'{key}=' for key in options)} only apply to the mt-nlp mutations, "
            f"and {attribute!r} is {kind.description}"
        )
    return kind.configured(**options)


def template_fills(
    templates: TemplateSet | str | Sequence[Template | str],
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    *,
    reference: str | None = None,
    attribute: str | None = None,
    subset: bool = True,
) -> st.SearchStrategy[Case]:
    """A template filled with a reference term and with terms of groups.

    Draws a `Case` from `pytest_fairness.perturb.templates`: `original` one template
    filled with its reference term, `perturbations` its fills with a non-empty subset
    (all with ``subset=False``) of the terms, group by group. This is the counterfactual
    input generation of counterfactual-sentiment-bias (section 3, templates of Appendix A)
    and of cross-geographic phase 2 (section 3.2, templates of Appendix A). `templates`
    is a shipped set name ("cross_geographic", "country", "occupation", "name"), a
    `TemplateSet`, or templates; `groups` maps a group to its terms or lists terms (None:
    the set's own groups). Shrinks toward the shortest template and its first fill.
    """
    if isinstance(groups, str):
        raise ConfigurationError("groups must be a list of terms or a mapping, not a string")
    _flag("subset", subset)

    def build() -> _Cases:
        from .perturb import templates as fill_templates

        try:
            fills = fill_templates(templates, groups, reference=reference, attribute=attribute)
        except ConfigurationError as exc:
            raise _nothing(pool.call, str(exc)) from exc
        cases = [
            Case(original, tuple(block))
            for original, block in itertools.groupby(fills, key=lambda p: p.original)
        ]
        return _Cases(_shortest_first(cases), subset=subset)

    pool = _Pool(
        "template_fills",
        _args(templates, groups=(groups, None), reference=(reference, None),
              attribute=(attribute, None), subset=(subset, True)),
        build,
    )
    return _lazy(pool, _draw_template_case(pool))


def prompt_counterfactuals(
    prompts: Sequence[str] | CounterfactualPrompts | Sequence[Perturbation],
    kind: str | PerturbationKind = "gender_swap",
    *,
    nlp: Any = None,
) -> st.SearchStrategy[Perturbation]:
    """A user's prompt and one of its counterfactuals, shrinking toward the shortest prompt.

    Draws a `Perturbation`: `original` a prompt, `perturbed` its counterfactual x^, the
    prompt with its sensitive words replaced by another group's (counterfactual-sentiment-
    bias, section 3), as `pytest_fairness.checks.llm.counterfactual_prompts` makes them
    with the perturbation kind `kind` (a registered kind's name, "gender_swap" by default,
    or a `PerturbationKind`; `nlp` the spaCy pipeline of a kind that parses, default the
    run's). `prompts` may instead be ready counterfactuals: the result of
    `pf.template_prompts(templates, groups)` (prompt templates filled with groups of
    terms) or of `pf.counterfactual_prompts`, or a list of `Perturbation`; `kind` and `nlp`
    then do not apply. Pass the drawn pair to the LLM relations as ``[pair]``. A
    template's fill in the reference's own group (Mary -> Aisha, both "female") is a
    control of the relations' noise floor, not a counterfactual, and is never drawn.

    The pool is every (prompt, counterfactual) pair, sorted by the prompt's length (fewer
    words, then fewer characters; ties in the given order), built when the strategy is
    first used; a draw is an index into it, so a failure shrinks to the shortest failing
    prompt and its first counterfactual. A pool without a pair is a `ConfigurationError`
    naming the kind and why.
    """
    from .checks.llm import CounterfactualPrompts, ready_counterfactuals

    given: CounterfactualPrompts | list[str] | None = ready_counterfactuals(prompts)
    if given is not None:
        if _differs(kind, "gender_swap") or nlp is not None:
            raise ConfigurationError(
                "kind= and nlp= apply to prompts to perturb; these are ready "
                "counterfactuals (template_prompts, counterfactual_prompts): drop them")
    else:
        given = _prompts_arg(prompts)
        _kind_arg(kind)

    def build() -> tuple[Perturbation, ...]:
        from .checks.llm import counterfactual_prompts, same_group
        from .perturb import PerturbationKind, get_kind

        if isinstance(given, CounterfactualPrompts):
            found = given
            hint = ("every fill equals the reference fill: give groups with other terms"
                    if found.kind == "template" else "they hold no counterfactual")
        else:
            try:
                resolved = kind if isinstance(kind, PerturbationKind) else get_kind(kind)
                found = counterfactual_prompts(given, resolved, nlp=nlp)
            except ConfigurationError as exc:
                raise _nothing(pool.call, str(exc)) from exc
            hint = resolved.hint
        kept = [p for p in found if not same_group(p)]  # controls, not counterfactuals
        if not kept:
            if found:
                hint = ("every other fill is in the reference's own group: give terms of "
                        "another group")
            raise _nothing(
                pool.call,
                f"none of the {found.n_prompts} prompts has a {found.kind!r} counterfactual "
                f"({hint})",
            )
        order = sorted(range(len(kept)), key=lambda i: (_length(kept[i].original), i))
        return tuple(kept[i] for i in order)

    shown: object = prompts
    if isinstance(given, CounterfactualPrompts):  # its own repr is longer than _short keeps
        shown = _Shown(f"CounterfactualPrompts({len(given)} of {given.n_prompts} prompts, "
                       f"kind {given.kind!r})")
    pool = _Pool(
        "prompt_counterfactuals",
        _args(shown, kind=(kind, "gender_swap"), nlp=(nlp, None)),
        build,
    )
    return _lazy(pool, _draw_prompt(pool))


# --------------------------------------------------------------------------- checks


def _check_kind(kind: str) -> None:
    if not isinstance(kind, str) or kind not in ANCHOR_KINDS:
        raise ConfigurationError(
            f"unknown anchor kind {kind!r:.60}; valid kinds: {', '.join(ANCHOR_KINDS)}"
        )


def _prompts_arg(prompts: object) -> list[str]:
    """`prompts` checked as `counterfactual_prompts` checks them (cheap: nothing is
    parsed); prompt templates are pointed to `template_prompts`."""
    from .checks.llm import check_prompts

    return check_prompts(prompts)


def _kind_arg(kind: object) -> None:
    """`kind` must be a kind's name or a `PerturbationKind` (looked up when the pool is
    built, so a kind registered later is found)."""
    from .perturb.kinds import PerturbationKind

    if isinstance(kind, PerturbationKind) or (isinstance(kind, str) and kind.strip()):
        return
    raise ConfigurationError(
        "kind must be a registered perturbation kind's name (e.g. 'gender_swap') or a "
        f"PerturbationKind, got {type(kind).__name__} {kind!r:.60}"
    )


def _split_names(names: object) -> tuple[tuple[str, ...], dict[str, str | None] | None]:
    """The names and their groups (None for a plain list) of any form PSA's ``names=``
    takes (`perturb.name_swap.split_names`): distinct, non-empty, stripped names (an empty
    list or a name given twice raises, as in `psa`)."""
    from .perturb.name_swap import split_names

    if isinstance(names, str):
        raise ConfigurationError(
            f"names must be a list of names, not the string {names!r}; pass [{names!r}]"
        )
    found, groups = split_names(names)
    return tuple(found), groups


def _may_swap() -> Callable[[str], bool]:
    """A cheap test before parsing: False when no word of the text is a gendered word."""
    from .perturb import gendered_words

    word = re.compile(r"[^\W\d_]+")
    keys = {found.group(0) for w in gendered_words() if (found := word.search(w)) is not None}
    return lambda text: any(token in keys for token in word.findall(text.lower()))


@dataclass(frozen=True)
class _Swaps:
    """The pool of `entity_name_swaps`: frames, and (group, name) pairs in group order."""

    frames: tuple[str, ...]
    members: tuple[tuple[str, str], ...]


@st.composite
@_named("entity_name_swaps")
def _draw_entity_swap(draw: st.DrawFn, pool: _Pool[_Swaps]) -> Perturbation:
    from .perturb.spans import replace_span
    from .resources.entity_templates import SLOT

    plan = pool.get()
    frame = plan.frames[_index(draw, plan.frames)]
    group, name = plan.members[_index(draw, plan.members)]
    others = [m for m in plan.members if m[0] != group]
    to_group, to_name = others[_index(draw, others)]
    start = frame.index(SLOT)
    text = frame.replace(SLOT, name)
    return replace_span(text, start, start + len(name), to_name, from_group=group,
                        to_group=to_group)


def entity_name_swaps(
    names: Mapping[str, Sequence[str]],
    *,
    templates: Sequence[str] | None = None,
    lang: str = "en",
) -> st.SearchStrategy[Perturbation]:
    """A sentence frame filled with a name of one group, and the same frame with a name of
    another group: a `Perturbation` (kind "name", `from_group`/`to_group` the groups, the
    changed span the name), for `pytest_fairness.assert_entity_invariant`.

    `names` maps each group to its names (two groups at least); `templates` are frames
    with one ``{name}`` slot each (default: the package's own frames of `lang`,
    `resources.entity_templates`). Shrinks toward the first frame and the first names."""
    from .resources.entity_templates import entity_frames, fill_frames

    if not isinstance(lang, str):
        raise ConfigurationError(f"lang must be a language code such as 'en', got {lang!r:.60}")
    frames = tuple(entity_frames(lang) if templates is None else templates)
    filled = fill_frames(frames[:1], names)  # checks the frames and the names now
    fill_frames(frames, {"check": ["x"]})  # every frame has one slot
    members = tuple(dict.fromkeys((s.group, s.name) for s in filled))
    if len({g for g, _ in members}) < 2:
        raise ConfigurationError(
            "entity_name_swaps swaps a name of one group for one of another: pass names= "
            "with two groups or more")
    pool = _Pool("entity_name_swaps",
                 _args(names, templates=(templates, None), lang=(lang, "en")),
                 lambda: _Swaps(frames, members))
    return _lazy(pool, _draw_entity_swap(pool))
