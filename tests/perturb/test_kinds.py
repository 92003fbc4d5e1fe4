"""Perturbation kinds behind a registry (`perturb.kinds`): built-ins, yours, entry points,
and a registered kind used everywhere a kind is accepted."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from _perturbation_checks import RecordingPipeline, assert_exact_spans

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb import (
    DictionaryKind,
    FunctionKind,
    GenderSwapKind,
    MutationsKind,
    PerturbationKind,
    get_kind,
    kind_names,
    register_dictionary,
    register_kind,
)
from pytest_fairness.perturb.coerce import resolve_perturber
from pytest_fairness.perturb.kinds import KIND_REGISTRY, MT_NLP, find_kind
from pytest_fairness.resources.knowledge import InMemoryGraph
from pytest_fairness.types import Perturbation

RELIGION = {"Christian": ["Muslim", "Jewish"], "church": ["mosque"]}


@pytest.fixture(autouse=True)
def _restore_the_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Unregister what a test registered; keep deliberate failures out of the summary."""
    monkeypatch.setattr(recording, "record", lambda result: None)
    before = set(kind_names())
    yield
    for name in set(kind_names()) - before:
        KIND_REGISTRY.unregister(name)


def lexicon(texts: Sequence[str]) -> list[float]:
    """A tiny lexicon model: positive when a text says "Muslim"."""
    return [0.9 if "Muslim" in t else 0.2 for t in texts]


def neutral(texts: Sequence[str]) -> list[float]:
    return [0.5 for _ in texts]


class Upper(PerturbationKind):
    """A kind of its own: the text upper-cased."""

    def __init__(self) -> None:
        super().__init__("upper", attribute="shouting")

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        if text == text.upper():
            return []
        return [pf.perturb.coerce.perturbation_from_texts(text, text.upper(), self.attribute)]


# --------------------------------------------------------------------------- built in


def test_built_in_kinds() -> None:
    assert kind_names()[:4] == ("gender", "gender_swap", MT_NLP, "gender_names")
    gender = get_kind("gender")
    assert isinstance(gender, MutationsKind)
    assert (gender.name, gender.attribute, gender.needs_parse) == ("gender", "gender", True)
    assert gender.kinds == ("analogy", "active", "gender_swap")
    swap = get_kind("gender_swap")
    assert isinstance(swap, GenderSwapKind)
    assert swap.attribute == "gender"
    assert not swap.needs_entities
    names = get_kind("gender_names")
    assert isinstance(names, GenderSwapKind)
    assert (names.attribute, names.needs_parse, names.needs_entities) == ("gender", True, True)
    assert KIND_REGISTRY.origin("gender") == "builtin"


def test_an_attribute_of_the_graph_resolves_to_its_mt_nlp_mutations() -> None:
    religion = get_kind("religion")
    assert isinstance(religion, MutationsKind)
    assert (religion.name, religion.attribute, religion.bound) == ("religion", "religion", True)
    assert get_kind("religion") is religion  # bound once, then kept
    assert "religion" not in kind_names()  # served by "mt-nlp", not registered
    assert religion.description == "religion mutations (perturb.mutations)"
    assert find_kind("no-such-attribute") is None


def test_an_unknown_kind_lists_the_registered_ones() -> None:
    register_dictionary("faith", RELIGION)
    with pytest.raises(ConfigurationError, match=r"no perturbation kind called 'nope'.*"
                       r"Registered kinds: 'gender', 'gender_swap', 'mt-nlp', 'gender_names', "
                       r"'gender_swap_fr', 'faith'"):
        get_kind("nope")
    with pytest.raises(ConfigurationError, match="non-empty string"):
        get_kind("")


def test_the_unbound_mt_nlp_entry_perturbs_nothing_itself() -> None:
    family = get_kind(MT_NLP)
    assert isinstance(family, MutationsKind)
    assert not family.bound
    with pytest.raises(ConfigurationError, match="ask for the attribute by name"):
        family.perturb_many(["The nurse left."])
    empty = MutationsKind(graph=InMemoryGraph([]))
    assert empty.bind("religion") is None
    with KIND_REGISTRY.temporarily(MT_NLP, empty):
        assert find_kind("religion") is None
    assert find_kind("religion") is not None


def test_mutations_kind_options_are_checked_and_kept() -> None:
    with pytest.raises(ConfigurationError, match="unknown mutation kind"):
        MutationsKind("gender", kinds=["rewrite"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="candidates"):
        MutationsKind("gender", candidates=0)
    kind = MutationsKind("gender").configured(kinds=("active",), candidates=2)
    assert (kind.attribute, kind.kinds, kind.candidates) == ("gender", ("active",), 2)
    bound = MutationsKind(kinds=("active",)).bind("religion")
    assert bound is not None
    assert bound.kinds == ("active",)


@pytest.mark.slow
def test_the_gender_kinds_keep_the_fast_path() -> None:
    from pytest_fairness.perturb import gender_swaps, mutations_many

    texts = ["The actress smiled.", "My neighbor is a nurse.", "It rained.", "She left."] * 3
    active = MutationsKind("gender", kinds=("active", "gender_swap"))
    found = active.perturb_many(texts, batch_size=5)
    assert found == mutations_many(texts, "gender", kinds=("active", "gender_swap"))
    # the protocol's own batch loop (prepare, then perturb per text) gives the same sets
    assert PerturbationKind.perturb_many(active, texts, batch_size=5) == found
    swaps = GenderSwapKind().perturb_many(texts)
    assert swaps == [[] if s is None else [s] for s in gender_swaps(texts)]


# --------------------------------------------------------------------------- the protocol


def test_perturb_many_parses_once_per_batch_without_ner() -> None:
    from pytest_fairness.resources import nlp as nlp_module

    seen: list[int] = []

    class Nouns(PerturbationKind):
        needs_parse = True

        def __init__(self) -> None:
            super().__init__("nouns")

        def prepare(self, docs: Sequence[Any]) -> None:
            seen.append(len(docs))

        def perturb(self, text: str, doc: Any) -> list[Perturbation]:
            assert doc.text == text
            return [pf.perturb.coerce.perturbation_from_texts(text, f"{t.lemma_} " + text)
                    for t in doc if t.pos_ == "NOUN"]

    pipeline = RecordingPipeline(nlp_module.load())
    texts = ["The nurse left.", "It rained.", "A cat sat.", "Go.", "Dogs bark."]
    found = Nouns().perturb_many(texts, nlp=pipeline, batch_size=2)
    assert seen == [2, 2, 1]
    assert all(d == ["ner"] for d in pipeline.disabled) or "ner" not in pipeline.pipe_names
    assert [len(f) for f in found] == [1, 0, 1, 0, 1]
    assert Nouns().perturb_many([], nlp=pipeline) == []


def test_a_kind_without_a_parse_gets_the_texts() -> None:
    prepared: list[Sequence[Any]] = []

    class Marked(Upper):
        def prepare(self, docs: Sequence[Any]) -> None:
            prepared.append(list(docs))

    found = Marked().perturb_many(["a", "B", "c"], batch_size=2)
    assert prepared == [["a", "B"], ["c"]]
    assert [[p.perturbed for p in f] for f in found] == [["A"], [], ["C"]]
    assert [p.perturbed for p in Marked()("hi")] == ["HI"]  # a kind is a perturber
    with pytest.raises(ConfigurationError, match="batch_size"):
        Upper().perturb_many(["a"], batch_size=0)
    with pytest.raises(ConfigurationError, match="list of texts"):
        Upper().perturb_many("abc")
    with pytest.raises(ConfigurationError, match="texts must be str"):
        Upper().perturb_many([1])  # type: ignore[list-item]


def test_function_kinds() -> None:
    kind = FunctionKind("tag", lambda t: [t + "!", t + "!"], attribute="x")
    (p,) = kind("Hi")
    assert (p.perturbed, p.attribute, p.kind) == ("Hi!", "x", "custom")
    batched = FunctionKind("b", lambda ts: [[t + "?"] for t in ts], batch=True)
    assert [[p.perturbed for p in f] for f in batched.perturb_many(["a", "b"])] == [
        ["a?"], ["b?"]
    ]
    wrong = FunctionKind("w", lambda ts: [["x"]], batch=True)
    with pytest.raises(ConfigurationError, match="1 results for 2 texts"):
        wrong.perturb_many(["a", "b"])
    with pytest.raises(ConfigurationError, match="callable"):
        FunctionKind("f", 42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- registering


def test_register_a_kind_instance_class_dictionary_or_function() -> None:
    upper = register_kind(Upper())
    assert get_kind("upper") is upper
    assert KIND_REGISTRY.origin("upper") == "user"
    KIND_REGISTRY.unregister("upper")
    assert isinstance(register_kind(Upper), Upper)  # a class is built without arguments
    faith = register_kind("faith", RELIGION)
    assert isinstance(faith, DictionaryKind)
    assert (faith.name, faith.attribute) == ("faith", "faith")
    pairs = register_kind("faith_pairs", [("Christian", "Muslim")])
    assert isinstance(pairs, DictionaryKind)
    assert pairs.pairs
    fn = register_kind("exclaim", lambda t: t + "!")
    assert isinstance(fn, FunctionKind)
    assert [p.perturbed for p in get_kind("exclaim")("Hi")] == ["Hi!"]
    assert set(kind_names()) >= {"upper", "faith", "faith_pairs", "exclaim"}


def test_name_and_attribute_may_be_class_attributes() -> None:
    class Reverse(PerturbationKind):
        name = "reverse"
        attribute = "word_order"

        def perturb(self, text: str, doc: Any) -> list[Perturbation]:
            return [pf.perturb.coerce.perturbation_from_texts(
                text, " ".join(reversed(text.split())), self.attribute)]

    kind = register_kind(Reverse)
    assert (kind.name, kind.attribute) == ("reverse", "word_order")
    assert [p.perturbed for p in get_kind("reverse")("a b")] == ["b a"]
    assert Reverse("again").name == "again"

    class Nameless(Reverse):
        name = None  # type: ignore[assignment]

    with pytest.raises(ConfigurationError, match="Nameless has no name"):
        Nameless()


def test_a_duplicate_registration_is_refused_unless_replace() -> None:
    register_dictionary("faith", RELIGION)
    with pytest.raises(ConfigurationError, match=r"'faith' is already registered \(user\); "
                       r"pick another name, or pass replace=True"):
        register_dictionary("faith", {"church": ["temple"]})
    replaced = register_dictionary("faith", {"church": ["temple"]}, replace=True)
    assert get_kind("faith") is replaced
    with pytest.raises(ConfigurationError, match="already registered"):
        register_kind("gender", RELIGION)  # a built-in too


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: register_kind("x"), "needs the kind"),
        (lambda: register_kind(Upper(), Upper()), "takes one kind"),
        (lambda: register_kind(RELIGION), "register_dictionary"),  # type: ignore[arg-type]
        (lambda: register_kind("x", 42), "cannot use int"),
        (lambda: register_kind("x", int), "not a PerturbationKind"),
        (lambda: register_kind("x", FunctionKind), "cannot be built without arguments"),
        (lambda: register_kind(" x", RELIGION), "without surrounding spaces"),
        (lambda: register_dictionary("x", {}), "empty"),
        (lambda: register_dictionary("x", {"church": ["church"]}), "itself"),
    ],
)
def test_bad_registrations_are_configuration_errors(call: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        call()
    assert "x" not in kind_names()


# --------------------------------------------------------------------------- used everywhere


def test_a_registered_kind_serves_resolve_perturber() -> None:
    register_dictionary("religion", RELIGION)
    assert isinstance(get_kind("religion"), DictionaryKind)  # registered before the graph's
    resolved = resolve_perturber(None, "religion")
    assert resolved.describe == "the replacement dictionary 'religion' (2 words)"
    found = resolved.one("A Christian prayed in a church.")
    assert [p.perturbed for p in found] == [
        "A Muslim prayed in a church.",
        "A Jewish prayed in a church.",
        "A Christian prayed in a mosque.",
    ]
    assert {p.kind for p in found} == {"religion"}
    for p in found:
        assert_exact_spans(p)
    many = resolved.many(["No faith here.", "Church."])
    assert [[p.perturbed for p in f] for f in many] == [[], ["Mosque."]]


def test_no_generator_names_the_attribute_and_the_registered_kinds() -> None:
    with pytest.raises(ConfigurationError, match=r"no perturbation generator for "
                       r"attribute='caste'.*Registered kinds: 'gender'"):
        resolve_perturber(None, "caste")


def test_smooth_by_a_registered_kind() -> None:
    register_dictionary("religion", RELIGION)
    smoothed = pf.smooth(lexicon, attribute="religion", eps=0.5)
    text = "The Christian spoke."
    assert smoothed.group(text) == (text, "The Muslim spoke.", "The Jewish spoke.")
    # Theorem 1: M(x) = 0.2, M(S) = 0.9, 0.2 (k = 2)
    e = math.exp(0.5)
    assert smoothed.score([text])[0] == pytest.approx(e / (2 + e) * 0.2 + 1.1 / (2 + e))


def test_eps_k_fairness_by_a_registered_kind() -> None:
    register_dictionary("religion", RELIGION)
    pf.assert_eps_k_fair(neutral, "The Christian spoke.", eps=0.0, k=2, attribute="religion")
    with pytest.raises(pf.FairnessViolation, match=r"\+ The \[\[Muslim\]\] spoke"):
        pf.assert_eps_k_fair(lexicon, "The Christian spoke.", eps=0.1, k=2,
                             attribute="religion")
    with pytest.raises(ConfigurationError, match="no religion perturbation"):
        pf.assert_eps_k_fair(lexicon, "Nothing here.", eps=0.1, k=1, attribute="religion")


def test_a_kind_as_a_perturber() -> None:
    kind = DictionaryKind("faith", RELIGION)
    resolved = resolve_perturber(kind)
    assert resolved.describe == kind.description
    assert [p.perturbed for p in resolved.one("church")] == ["mosque"]


# --------------------------------------------------------------------------- entry points


def test_an_entry_point_registers_kinds_lazily(tmp_path: Path) -> None:
    (tmp_path / "faith_kinds.py").write_text(textwrap.dedent("""
        from pytest_fairness.perturb import DictionaryKind, PerturbationKind

        FAITH = {"church": ["mosque", "temple"]}
        PAIRS = DictionaryKind("pairs", [("church", "mosque")], attribute="religion")

        class Reverse(PerturbationKind):
            def __init__(self):
                super().__init__("reverse")

            def perturb(self, text, doc):
                return [text[::-1]] if text != text[::-1] else []
    """))
    info = tmp_path / "faith_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: faith-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [pytest_fairness.perturbations]
        faith = faith_kinds:FAITH
        pairs = faith_kinds:PAIRS
        reverse = faith_kinds:Reverse
    """))
    code = textwrap.dedent("""
        import sys
        from pytest_fairness import perturb
        from pytest_fairness.perturb.kinds import KIND_REGISTRY
        perturb.get_kind("gender")
        assert "faith_kinds" not in sys.modules, "loaded before it was asked for"
        faith = perturb.get_kind("faith")
        assert "faith_kinds" in sys.modules
        assert type(faith).__name__ == "DictionaryKind" and faith.name == "faith"
        print([p.perturbed for p in faith("A church.")])
        print(perturb.get_kind("pairs")("A mosque.")[0].perturbed)
        print(type(perturb.get_kind("reverse")).__name__)
        print(KIND_REGISTRY.origin("faith"))
        print(perturb.kind_names())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "['A mosque.', 'A temple.']",
        "A church.",
        "Reverse",
        "entry point faith-kinds",
        "('gender', 'gender_swap', 'mt-nlp', 'gender_names', 'gender_swap_fr', 'faith', 'pairs', "
        "'reverse')",
    ]


def test_a_broken_entry_point_says_which_one(tmp_path: Path) -> None:
    info = tmp_path / "broken_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pytest_fairness.perturbations]\nbroken = no_such_module:KIND\n"
    )
    code = textwrap.dedent("""
        from pytest_fairness import perturb
        try:
            perturb.get_kind("broken")
        except perturb.kinds.ConfigurationError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert "could not load the perturbation kind 'broken'" in out.stdout
