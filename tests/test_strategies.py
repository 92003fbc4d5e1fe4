"""Hypothesis strategies: what they draw, how they shrink, laziness, replay, errors.

The strategies below are built at import time, as a user's test module builds them; the
first test that draws from one builds its pool (spaCy parse) and later tests reuse it.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import random
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from hypothesis import example, find, given, seed, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import HypothesisDeprecationWarning

import pytest_fairness as pf
from pytest_fairness import ConfigurationError
from pytest_fairness import strategies as fst
from pytest_fairness.types import Anchor, Case, Perturbation

if TYPE_CHECKING:
    from pytest_fairness.perturb.mutations import MutationKind

T = TypeVar("T")

CORPUS = [
    "He left.",
    "She sold fish at the market.",
    "At the market he met an old friend.",
    "I saw him near the market yesterday.",
    "Her brother works at the market on Sundays.",
    "The doctor hurt himself badly.",
    "The weather was fine all week.",
    "My aunt lives in a small town by the sea.",
    "Nobody knew what his plan for the market was.",
    "They walked home.",
]
NAMES = ["Alice", "Bob", "Carol", "Dave", "Eve"]
TEMPLATES = ["{term} is here.", "I met {term} at the market today.", "We saw {term} at the market."]
GROUPS = {"a": ["Xavier", "Xena"], "b": ["Yusuf"]}

ANCHORS = fst.anchored_sentences(CORPUS)
NAMED = fst.name_perturbations(CORPUS, NAMES)
SWAPS = fst.gender_counterfactuals(CORPUS)
FILLS = fst.template_fills(TEMPLATES, GROUPS)

QUICK = settings(database=None, max_examples=25, deadline=None)
FIND = settings(database=None, max_examples=300, deadline=None)


def shortest(texts: list[str]) -> str:
    return min(texts, key=lambda text: (len(text.split()), len(text)))


def assert_spans_match(p: Perturbation) -> None:
    assert p.original != p.perturbed or p.kind == "template"
    assert len(p.original_spans) == len(p.perturbed_spans) >= 1
    for old, new in zip(p.original_spans, p.perturbed_spans, strict=True):
        assert p.original[old.start : old.end] == old.text
        assert p.perturbed[new.start : new.end] == new.text


def drawn(strategy: st.SearchStrategy[T], apply: Callable[[Any], Any] = lambda s: s,
          n: int = 15, derandomize: bool = False) -> list[T]:
    """The values a @given test sees, in order; `apply` adds a decorator (seed)."""
    seen: list[T] = []

    @apply
    @settings(database=None, max_examples=n, deadline=None, derandomize=derandomize)
    @given(strategy)
    def record(value: T) -> None:
        seen.append(value)

    record()
    return seen


def last_failing(strategy: st.SearchStrategy[T], fails: Callable[[T], bool]) -> T:
    """Run a @given test that fails when `fails(value)`; the example Hypothesis reports.

    Hypothesis replays the minimal failing example last, so it is the last value seen.
    """
    seen: list[T] = []

    @FIND
    @given(strategy)
    def check(value: T) -> None:
        seen.append(value)
        assert not fails(value)

    with pytest.raises(AssertionError):
        check()
    return seen[-1]


# ----------------------------------------------------------------- the facade


def test_all_lists_exactly_the_public_strategies() -> None:
    assert fst.__all__ == sorted(set(fst.__all__))
    public = {
        name for name, value in vars(fst).items()
        if inspect.isfunction(value) and value.__module__ == fst.__name__
        and not name.startswith("_")
    }
    assert public == set(fst.__all__)
    assert set(fst.__all__) == {"anchored_sentences", "entity_name_swaps",
                                "gender_counterfactuals", "mutations",
                                "name_perturbations", "names", "prompt_counterfactuals",
                                "template_fills"}
    assert pf.strategies is fst


def test_reprs_read_as_the_call() -> None:
    # built on first use (deferred), then the call itself
    strategy = fst.template_fills(["{term} is here."], ["Xavier", "Yusuf"], subset=False)
    call = "template_fills(['{term} is here.'], groups=['Xavier', 'Yusuf'], subset=False)"
    assert repr(strategy) == f"deferred({call})"
    strategy.validate()
    assert repr(strategy) == call

    assert repr(fst.anchored_sentences(CORPUS, max_words=20)) == (
        "deferred(anchored_sentences(Corpus('list of 10 texts'), max_words=20))")
    assert repr(fst.name_perturbations(CORPUS, NAMES)) == (
        "deferred(name_perturbations(Corpus('list of 10 texts'), names=['Alice', 'Bob', "
        "'Carol', 'Dave', 'Eve']))")
    assert repr(fst.names(gender="female", n=10)) == "deferred(names(gender='female', n=10))"
    assert repr(fst.name_perturbations(CORPUS, fst.names(origin="India"), max_names=2)) == (
        "deferred(name_perturbations(Corpus('list of 10 texts'), "
        "names=deferred(names(origin='India')), max_names=2))")
    assert repr(fst.gender_counterfactuals(CORPUS, "neutral")) == (
        "deferred(gender_counterfactuals(Corpus('list of 10 texts'), target='neutral'))")
    assert repr(fst.mutations(CORPUS, "gender", subset=False)) == (
        "deferred(mutations(Corpus('list of 10 texts'), 'gender', subset=False))")
    assert repr(fst.template_fills("country")) == "deferred(template_fills('country'))"
    long_names = [f"N{i}" for i in range(20)]
    assert "['N0', 'N1', 'N2', ... 17 more]" in repr(fst.name_perturbations(CORPUS, long_names))


def test_building_strategies_at_import_loads_no_spacy(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("He left.\nShe stayed.\n", encoding="utf-8")
    code = (
        "import json, sys\n"
        "import pytest_fairness as pf\n"
        "from pytest_fairness import strategies as fst\n"
        f"c = {CORPUS!r}\n"
        "built = [fst.anchored_sentences(c), fst.anchored_sentences(sys.argv[1], 'person'),\n"
        "         fst.names(gender='female'), fst.names(origin='India'),\n"
        "         fst.name_perturbations(c), fst.name_perturbations(c, fst.names()),\n"
        "         fst.gender_counterfactuals(c), fst.mutations(c, 'gender'),\n"
        "         fst.template_fills('country'),\n"
        "         fst.prompt_counterfactuals(['He left.']),\n"
        "         fst.prompt_counterfactuals(pf.template_prompts(['Hi {name}.'], ['A', 'B']))]\n"
        "reprs = [repr(s) for s in built]\n"
        "print(json.dumps([m for m in ('spacy', 'thinc', 'torch', 'conceptnet_lite')\n"
        "                  if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(corpus)], capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout) == []


def test_arguments_are_checked_when_the_strategy_is_built() -> None:
    with pytest.raises(ConfigurationError, match="unknown anchor kind 'noun'"):
        fst.anchored_sentences(CORPUS, "noun")
    with pytest.raises(ConfigurationError, match="max_words must be a positive integer"):
        fst.name_perturbations(CORPUS, NAMES, max_words=0)
    with pytest.raises(ConfigurationError, match=r"not the string 'Alice'; pass \['Alice'\]"):
        fst.name_perturbations(CORPUS, "Alice")
    with pytest.raises(ConfigurationError, match="names is empty"):
        fst.name_perturbations(CORPUS, [])
    with pytest.raises(ConfigurationError, match="subset=False needs a list of names"):
        fst.name_perturbations(CORPUS, fst.names(), subset=False)
    with pytest.raises(ConfigurationError, match="target must be 'opposite' or 'neutral'"):
        fst.gender_counterfactuals(CORPUS, "female")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="attribute must be a non-empty string"):
        fst.mutations(CORPUS, "")
    with pytest.raises(ConfigurationError, match="does not exist"):
        fst.anchored_sentences("no/such/corpus.txt")


# ----------------------------------------------------------------- what they draw


@QUICK
@given(anchor=ANCHORS)
def test_anchors_come_from_the_corpus(anchor: Anchor) -> None:
    assert anchor.text in CORPUS
    assert anchor.text[anchor.span.start : anchor.span.end] == anchor.span.text
    assert anchor.role in ("subject", "object", "possessive_determiner",
                           "possessive_pronoun", "reflexive")


@QUICK
@given(case=NAMED)
def test_name_perturbations_replace_the_anchor_with_listed_names(case: Case) -> None:
    assert case.original in CORPUS
    assert case.original != "The doctor hurt himself badly."  # reflexive: takes no name
    assert 1 <= len(case.perturbations) <= len(NAMES)
    to = [str(p.to_group) for p in case.perturbations]
    assert to == sorted(to, key=NAMES.index)  # a subset, in the list's order
    for p in case.perturbations:
        assert p.original == case.original
        assert p.kind == "name"
        assert p.to_words[0].removesuffix("'s") in NAMES
        assert_spans_match(p)


@QUICK
@given(case=SWAPS)
def test_gender_counterfactuals_swap_gendered_words(case: Case) -> None:
    assert case.original in CORPUS
    [p] = case.perturbations
    assert p.original == case.original
    assert p.kind == "gender_swap"
    assert p.to_group in ("female", "male", None)
    assert_spans_match(p)


@QUICK
@given(case=FILLS)
def test_template_fills_fill_one_template_with_some_terms(case: Case) -> None:
    terms = [term for group in GROUPS.values() for term in group]
    assert case.original in [pf.perturb.fill(t, "Xavier") for t in TEMPLATES]
    assert 1 <= len(case.perturbations) <= len(terms)
    for p in case.perturbations:
        assert p.original == case.original
        assert p.kind == "template"
        assert p.to_words[0] in terms
        assert_spans_match(p)


def test_the_whole_perturbation_set_with_subset_false() -> None:
    for case in drawn(fst.name_perturbations(CORPUS, NAMES, subset=False), n=5):
        assert [p.to_group for p in case.perturbations] == NAMES
    for case in drawn(fst.template_fills(TEMPLATES, GROUPS, subset=False), n=5):
        assert len(case.perturbations) == 3


def test_names_shrink_toward_the_most_popular() -> None:
    female = fst.names(gender="female", n=10)
    assert find(female, lambda name: True, settings=FIND) == "Mary"
    values = drawn(female, n=20)
    assert set(values) <= set(pf.names.popular(gender="female", n=10))


@pytest.mark.skipif(importlib.util.find_spec("checklist") is None,
                    reason="names by origin read checklist-pattern's data")
def test_names_by_origin() -> None:
    expected = pf.names.by_origin("India", n=5)
    assert find(fst.names(origin="India", n=5), lambda name: True, settings=FIND) == expected[0]


def test_names_drawn_from_a_strategy_and_grouped_by_a_function() -> None:
    strategy = fst.name_perturbations(
        CORPUS, st.sampled_from(NAMES), groups=lambda name: "early" if name < "C" else "late",
        max_names=2,
    )
    for case in drawn(strategy, n=10):
        assert 1 <= len(case.perturbations) <= 2
        assert {p.to_group for p in case.perturbations} <= {"early", "late"}


class _Table:
    """A data-frame-like object: columns, and a list per column name (as pandas gives)."""

    columns = ("name", "group")

    def __init__(self, rows: list[tuple[str, str]]) -> None:
        self.rows = rows

    def __getitem__(self, column: str) -> list[str]:
        return [row[self.columns.index(column)] for row in self.rows]


GROUPED = {"Alice": "female", "Bob": "male", "Carol": ("female", "Black")}


@pytest.mark.parametrize(
    "names",
    [GROUPED, list(GROUPED.items()), _Table(list(GROUPED.items())),  # type: ignore[arg-type]
     {"name": list(GROUPED), "group": list(GROUPED.values())}],
    ids=["mapping", "pairs", "table", "dict-of-columns"],
)
def test_name_perturbations_take_names_with_groups_as_psa_does(names: Any) -> None:
    expected = {"Alice": "female", "Bob": "male", "Carol": "female, Black"}
    for case in drawn(fst.name_perturbations(CORPUS, names, subset=False), n=5):
        got = {p.to_words[0].removesuffix("'s"): p.to_group for p in case.perturbations}
        assert got == expected


def test_names_with_groups_and_groups_too_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match="pass groups= only with a plain list"):
        fst.name_perturbations(CORPUS, GROUPED, groups=lambda name: "x")
    with pytest.raises(ConfigurationError, match="unique"):
        fst.name_perturbations(CORPUS, [("Alice", "f"), ("Alice", "m")])


def test_a_path_corpus(tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    assert find(fst.anchored_sentences(str(path)), lambda a: True, settings=FIND).text == (
        "He left.")


# ----------------------------------------------------------------- shrinking


def test_a_failure_shrinks_to_the_shortest_anchored_sentence() -> None:
    with_word = [text for text in CORPUS if "market" in text]
    found = find(ANCHORS, lambda anchor: "market" in anchor.text, settings=FIND)
    assert found.text == shortest(with_word) == "She sold fish at the market."
    found = last_failing(ANCHORS, lambda anchor: "market" in anchor.text)
    assert found.text == "She sold fish at the market."


def test_a_failure_shrinks_to_the_shortest_sentence_and_the_earliest_name() -> None:
    def fails(case: Case) -> bool:
        return "market" in case.original and any(
            name in p.perturbed for p in case.perturbations for name in ("Carol", "Eve"))

    for minimal in (find(NAMED, fails, settings=FIND), last_failing(NAMED, fails)):
        assert minimal.original == "She sold fish at the market."
        assert minimal.perturbed == ("Carol sold fish at the market.",)


def test_gender_counterfactuals_and_fills_shrink_too() -> None:
    swap = last_failing(SWAPS, lambda case: "market" in case.original)
    assert swap.original == "She sold fish at the market."
    assert swap.perturbed == ("He sold fish at the market.",)
    fill = last_failing(FILLS, lambda case: "market" in case.original
                        and any("Yusuf" in text for text in case.perturbed))
    assert fill.original == "We saw Xavier at the market."
    assert fill.perturbed == ("We saw Yusuf at the market.",)


# ----------------------------------------------------------------- working with Hypothesis


def test_explicit_examples_run_alongside_drawn_ones() -> None:
    mine = Case("He left.", ())
    seen: list[Case] = []

    @settings(database=None, max_examples=3, deadline=None)
    @example(case=mine)
    @given(case=NAMED)
    def check(case: Case) -> None:
        seen.append(case)

    check()
    assert seen[0] is mine
    assert len(seen) > 1


def test_same_seed_same_examples() -> None:
    def fresh() -> st.SearchStrategy[Case]:  # a new strategy: the pool is built again
        return fst.name_perturbations(CORPUS, NAMES)

    first = drawn(fresh(), derandomize=True)
    assert first == drawn(fresh(), derandomize=True)
    assert len({case.original for case in first}) > 1
    assert drawn(fresh(), seed(2024)) == drawn(fresh(), seed(2024))


def test_a_saved_failure_replays_first() -> None:
    database = InMemoryExampleDatabase()

    def run() -> list[Case]:  # a fresh strategy each run, as in a new process
        seen: list[Case] = []

        @settings(database=database, max_examples=50, deadline=None)
        @given(case=fst.name_perturbations(CORPUS, NAMES))
        def check(case: Case) -> None:
            seen.append(case)
            assert "market" not in case.original or len(case.perturbations) < 2

        with pytest.raises(AssertionError):
            check()
        return seen

    reported = run()[-1]
    assert run()[0] == reported


def test_composes_with_other_strategies() -> None:
    pair = st.tuples(ANCHORS, fst.names(gender="male", n=5))
    anchor, name = find(pair, lambda value: True, settings=FIND)
    assert (anchor.text, name) == ("He left.", "James")
    texts = ANCHORS.map(lambda a: a.replace("Alex"))
    assert find(texts, lambda text: "market" in text, settings=FIND) == (
        "Alex sold fish at the market.")
    either = st.one_of(SWAPS, FILLS).filter(lambda case: len(case.perturbations) == 1)
    for case in drawn(either, n=10):
        assert isinstance(case, Case)

    @QUICK
    @given(data=st.data())
    def interactive(data: st.DataObject) -> None:
        case = data.draw(NAMED)
        assert case.perturbations

    interactive()


def test_a_slow_pool_is_built_before_generation_is_timed() -> None:
    def slow_corpus() -> list[str]:
        time.sleep(1.2)  # more than HealthCheck.too_slow allows for generating inputs
        return CORPUS

    seen: list[str] = []
    late = fst.anchored_sentences(slow_corpus).map(lambda anchor: anchor.text)

    @settings(database=None, max_examples=20)  # default deadline and health checks
    @given(st.one_of(FILLS.map(lambda case: case.original), late))
    def check(text: str) -> None:
        seen.append(text)

    check()
    assert set(seen) & set(CORPUS)


def test_drawing_leaves_the_global_random_state_alone() -> None:
    # a corpus whose reading moves the global random state, as importing spaCy does
    def texts() -> list[str]:
        random.random()
        return CORPUS

    before = random.getstate()
    with warnings.catch_warnings():
        warnings.simplefilter("error", HypothesisDeprecationWarning)
        find(fst.anchored_sentences(texts), lambda a: True, settings=FIND)
    assert random.getstate() == before


# ----------------------------------------------------------------- pools and errors


def counting(texts: list[str]) -> tuple[Callable[[], Iterator[str]], list[int]]:
    reads = [0]

    def read() -> Iterator[str]:
        reads[0] += 1
        return iter(texts)

    return read, reads


def test_the_pool_is_built_once_when_first_used() -> None:
    read, reads = counting(CORPUS)
    strategy = fst.anchored_sentences(read)
    repr(strategy)
    assert reads == [0]
    drawn(strategy, n=10)
    drawn(strategy, n=10)
    assert reads == [1]


def test_an_empty_pool_is_an_error_naming_the_corpus_and_why() -> None:
    read, reads = counting(["The weather was fine.", "They walked home."])
    strategy = fst.anchored_sentences(pf.Corpus(read, name="weather.txt"), max_words=3)

    @QUICK
    @given(strategy)
    def check(anchor: Anchor) -> None:
        raise AssertionError("never drawn")

    for _ in range(2):
        with pytest.raises(ConfigurationError) as info:
            check()
        message = str(info.value)
        assert message.startswith(
            "anchored_sentences(Corpus('weather.txt'), max_words=3) has nothing to draw: "
            "corpus weather.txt has no pronoun anchor: read 2 texts; 1 had more than 3 words")
    assert reads == [1]  # the failure is cached, not recomputed on each draw


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        (fst.name_perturbations(["The doctor hurt himself."], NAMES, kind="person"),
         r"are all reflexive pronouns or person nouns, which take no name"),
        (fst.gender_counterfactuals(["The weather was fine.", "Winds are strong today."]),
         r"read 2 texts, 2 of at most 50 words, none with a gendered word"),
        (fst.gender_counterfactuals(["My uncle is here."], "neutral"),
         r"none with a gendered word .* that can be made neutral"),
        (fst.template_fills(["{term} is here."]),
         r"^template_fills\(\['\{term\} is here.'\]\) has nothing to draw: give groups"),
    ],
)
def test_other_empty_pools(strategy: st.SearchStrategy[Case], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        find(strategy, lambda case: True, settings=FIND)


# ----------------------------------------------------------------- mutations

MUTATION_CORPUS = [
    "The actress smiled at the crowd.",
    "The weather was fine all week.",
    "A waiter brought the soup to the table.",
    "My neighbor is a nurse.",
    "The doctor said she would call.",
]
#: ActiveMutate and the gender swap only: AnalogyMutate's default word vectors take
#: long to load, and the strategy does not depend on which mutators run.
KINDS: tuple[MutationKind, ...] = ("active", "gender_swap")


def test_mutations_draw_texts_with_a_mutation_and_shrink() -> None:
    from pytest_fairness.perturb.mutations import mutations_many

    sets = mutations_many(MUTATION_CORPUS, "gender", kinds=KINDS)
    expected = {text: s for text, s in zip(MUTATION_CORPUS, sets, strict=True) if s}
    assert len(expected) >= 2
    strategy = fst.mutations(MUTATION_CORPUS, "gender", kinds=KINDS)
    for case in drawn(strategy, n=15):
        in_order = [p.perturbed for p in expected[case.original] if p.perturbed in case.perturbed]
        assert [p.perturbed for p in case.perturbations] == in_order
        for p in case.perturbations:
            assert p.original == case.original
            assert p.attribute == "gender"
            assert_spans_match(p)
    minimal = find(strategy, lambda case: True, settings=FIND)
    assert minimal.original == shortest(list(expected)) == "My neighbor is a nurse."
    assert list(minimal.perturbations) == expected[minimal.original][:1]
    whole = find(fst.mutations(MUTATION_CORPUS, "gender", kinds=KINDS, subset=False),
                 lambda case: "doctor" in case.original, settings=FIND)
    assert list(whole.perturbations) == expected["The doctor said she would call."]


def test_mutations_empty_pool() -> None:
    strategy = fst.mutations(["The weather was fine.", "It rained."], "gender", kinds=KINDS)
    with pytest.raises(ConfigurationError, match=r"read 2 texts, 2 of at most 50 words, "
                       r"none with a 'gender' mutation"):
        find(strategy, lambda case: True, settings=FIND)


FAITH_CORPUS = [
    "The weather was fine all week.",
    "A Christian family walked to church on Sunday.",
    "The church bells rang.",
    "My Christian neighbour sings.",
]


def test_mutations_draw_from_a_registered_kind() -> None:
    from pytest_fairness.perturb import DictionaryKind
    from pytest_fairness.perturb.kinds import KIND_REGISTRY

    faith = DictionaryKind("faith", {"Christian": ["Muslim", "Hindu"], "church": ["mosque"]},
                           attribute="religion")
    with KIND_REGISTRY.temporarily("faith", faith):
        strategy = fst.mutations(FAITH_CORPUS, "faith")
        for case in drawn(strategy, n=15):
            expected = [p.perturbed for p in faith.perturb(case.original)]
            assert expected, "a text without a dictionary word was drawn"
            assert [p.perturbed for p in case.perturbations] == [
                t for t in expected if t in case.perturbed
            ]
            for p in case.perturbations:
                assert (p.kind, p.attribute) == ("faith", "religion")
                assert_spans_match(p)
        minimal = find(strategy, lambda case: True, settings=FIND)
        assert minimal.original == "The church bells rang."
        assert [p.perturbed for p in minimal.perturbations] == ["The mosque bells rang."]
        whole = find(fst.mutations(FAITH_CORPUS, "faith", subset=False),
                     lambda case: "family" in case.original, settings=FIND)
        assert [p.perturbed for p in whole.perturbations] == [
            "A Muslim family walked to church on Sunday.",
            "A Hindu family walked to church on Sunday.",
            "A Christian family walked to mosque on Sunday.",
        ]
        empty = fst.mutations(["It rained."], "faith")
        with pytest.raises(ConfigurationError, match=r"none with a 'faith' mutation \(the "
                           r"replacement dictionary 'faith' \(2 words\) replaces whole words"):
            find(empty, lambda case: True, settings=FIND)


def test_mt_nlp_options_only_apply_to_the_mt_nlp_mutations() -> None:
    from pytest_fairness.perturb.kinds import KIND_REGISTRY

    with KIND_REGISTRY.temporarily("faith", {"church": ["mosque"]}):
        with pytest.raises(ConfigurationError, match=r"kinds=, candidates= only apply to the "
                           r"mt-nlp mutations, and 'faith' is the replacement dictionary"):
            fst.mutations(FAITH_CORPUS, "faith", kinds=["active"], candidates=2)
        with pytest.raises(ConfigurationError, match=r"fluency= only apply"):
            fst.mutations(FAITH_CORPUS, "faith", fluency=object())  # type: ignore[arg-type]
        fst.mutations(FAITH_CORPUS, "faith", candidates=1)  # the default is not an option
    with pytest.raises(ConfigurationError, match="no perturbation kind called 'nope'"):
        find(fst.mutations(FAITH_CORPUS, "nope"), lambda case: True, settings=FIND)
