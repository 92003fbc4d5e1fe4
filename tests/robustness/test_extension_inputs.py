"""Bad inputs to the extension points and the classic-API leftovers of issue 26.

Every case runs under the time limit of `_bounded` and asserts the error's type and that
its message names the input and the fix: registries (a family class needing arguments or
missing `build`/`detect`, a name that is not a string, a method or writer of the wrong
signature, a kind, family or writer that raises: an `ExtensionError` naming the registry,
the extension and where it was registered, the user's exception chained), silent
dictionary inputs (`{"a": "bc"}`, ``replace="no"``), ``pf.names.popular(40)``, a model
that reorders the list it is given, a ``swap=`` function that raises, and PSA names that
hold control characters. A few cases check the correct result where nothing is wrong.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _bounded import refused, time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.errors import (
    ConfigurationError,
    ExtensionError,
    ModelCallError,
    ModelOutputError,
)
from pytest_fairness.models import GeneratorFamily, ModelFamily
from pytest_fairness.models.classifiers.families import MODEL_FAMILIES
from pytest_fairness.models.generators.families import GENERATOR_FAMILIES
from pytest_fairness.perturb import PerturbationKind
from pytest_fairness.perturb.coerce import perturbation_from_texts
from pytest_fairness.perturb.kinds import KIND_REGISTRY
from pytest_fairness.perturb.name_swap import check_names
from pytest_fairness.report.formats import FORMATS, write_reports
from pytest_fairness.report.summary import Summary, build_summary
from pytest_fairness.runtime.printable import unsafe
from pytest_fairness.types import Perturbation

HERE = Path(__file__).name
HOSTILE = "kaput \x1b[2J\x1b]0;PWNED\x07 \u202eevil"


@pytest.fixture(autouse=True)
def _clean_registries() -> Iterator[None]:
    """Whatever a test registers is gone after it."""
    registries: list[Any] = [KIND_REGISTRY, MODEL_FAMILIES, GENERATOR_FAMILIES, FORMATS]
    before = [set(r.names()) for r in registries]
    yield
    for registry, names in zip(registries, before, strict=True):
        for name in set(registry.names()) - names:
            registry.unregister(name)


def _const(texts: list[str]) -> list[float]:
    return [0.6] * len(texts)


# --------------------------------------------------------------------------- families


class Wrapped:
    """A "framework" object the test families adapt."""

    def __call__(self, texts: list[str]) -> list[float]:
        return [0.5] * len(texts)


class NeedsArguments(ModelFamily):
    name = "needs-args"

    def __init__(self, path: str) -> None:
        self.path = path

    def detect(self, obj: object) -> bool:
        return isinstance(obj, Wrapped)

    def build(self, obj: object, options: Any) -> Any:
        return pf.as_model(obj, **options.common())


class NoBuild(ModelFamily):  # type: ignore[misc]  # build left out on purpose
    name = "no-build"

    def detect(self, obj: object) -> bool:
        return False


class GeneratorNeedsArguments(GeneratorFamily):
    name = "gen-needs-args"

    def __init__(self, url: str) -> None:
        self.url = url

    def detect(self, obj: object) -> bool:
        return False

    def build(self, obj: object) -> Any:
        return obj


class GeneratorNoDetect(GeneratorFamily):  # type: ignore[misc]
    name = "gen-no-detect"

    def build(self, obj: object) -> Any:
        return obj


@pytest.mark.parametrize(("register", "family", "words"), [
    (pf.register_model_family, NeedsArguments,
     ["model adapter family class NeedsArguments", "cannot be built without arguments",
      "register an instance"]),
    (pf.register_model_family, NoBuild,
     ["model adapter family class NoBuild", "does not define build",
      "detect(obj) and build(obj, options)"]),
    (pf.register_generator_family, GeneratorNeedsArguments,
     ["generator family class GeneratorNeedsArguments", "cannot be built without arguments"]),
    (pf.register_generator_family, GeneratorNoDetect,
     ["generator family class GeneratorNoDetect", "does not define detect"]),
])
def test_a_family_class_that_cannot_be_built_is_named_at_registration(
        register: Callable[..., Any], family: type, words: list[str]) -> None:
    message = refused(lambda: register(family), ExtensionError, *words)
    assert "registered at " in message
    assert f"{HERE}:" in message


def _named(value: object, base: type) -> type:
    def detect(self: object, obj: object) -> bool:
        return False

    def build(self: object, *args: object) -> Any:
        return None

    return type("Odd", (base,), {"name": value, "detect": detect, "build": build})


@pytest.mark.parametrize("value", [5, None, b"bytes", "", " padded ", ("a",)])
@pytest.mark.parametrize(("register", "base"), [
    (pf.register_model_family, ModelFamily),
    (pf.register_generator_family, GeneratorFamily),
])
def test_a_family_whose_name_is_not_a_string_is_named_at_registration(
        register: Callable[..., Any], base: type, value: object) -> None:
    refused(lambda: register(_named(value, base)), ExtensionError,
            "needs a non-empty name", repr(value)[:10], "class attribute `name`")


def test_a_name_that_is_not_a_string_is_refused_by_every_registry() -> None:
    refused(lambda: pf.register_format(5, lambda s, d, *, created: d), ExtensionError,  # type: ignore[arg-type]
            "report format needs a non-empty name", "int 5")
    refused(lambda: KIND_REGISTRY.register(None, Upper()),  # type: ignore[arg-type]
            ExtensionError, "perturbation kind needs a non-empty name", "None")


class WrongBuild(ModelFamily):
    name = "wrong-build"

    def detect(self, obj: object) -> bool:
        return isinstance(obj, Wrapped)

    def build(self, obj: object) -> Any:  # type: ignore[override]  # options left out
        return pf.as_model(obj)


def test_a_family_method_of_the_wrong_signature_is_named_at_registration() -> None:
    refused(lambda: pf.register_model_family(WrongBuild()), ExtensionError,
            "model adapter family 'wrong-build'", f"{HERE}:",
            "cannot be called as build(self, obj, options)", "too many positional arguments")


class Raising(ModelFamily):
    name = "raising"

    def __init__(self, where: str) -> None:
        self.where = where

    def detect(self, obj: object) -> bool:
        if self.where == "detect":
            raise KeyError(HOSTILE)
        return isinstance(obj, Wrapped)

    def build(self, obj: object, options: Any) -> Any:
        raise RuntimeError("no GPU")


@pytest.mark.parametrize(("where", "cause"), [("detect", KeyError), ("build", RuntimeError)])
def test_a_model_family_that_raises_is_named_with_its_origin(where: str,
                                                             cause: type) -> None:
    pf.register_model_family(Raising(where))
    with time_limit(), pytest.raises(ExtensionError) as info:
        pf.as_model(Wrapped())
    message = str(info.value)
    for word in ("model adapter family 'raising'", f"{HERE}:",
                 f"failed in {where}()", cause.__name__, "fix the model adapter family"):
        assert word in message, message
    assert isinstance(info.value.__cause__, cause)
    assert (info.value.what, info.value.name) == ("model adapter family", "raising")
    assert "\x1b" not in message
    assert "\u202e" not in message


class RaisingGenerators(GeneratorFamily):
    name = "raising-gen"

    def detect(self, obj: object) -> bool:
        return isinstance(obj, Wrapped)

    def build(self, obj: object) -> Any:
        raise ValueError("cannot reach the engine")


def test_a_generator_family_that_raises_is_named() -> None:
    pf.register_generator_family(RaisingGenerators)
    message = refused(lambda: pf.as_generator(Wrapped()), ExtensionError,
                      "generator family 'raising-gen'", f"{HERE}:",
                      "failed in build()", "ValueError: cannot reach the engine")
    assert "cause" in message


def test_a_family_that_raises_our_own_error_is_passed_on_as_it_is() -> None:
    class Unfitted(ModelFamily):
        name = "unfitted"

        def detect(self, obj: object) -> bool:
            if isinstance(obj, Wrapped):
                raise ConfigurationError("this model is not fitted; fit it first")
            return False

        def build(self, obj: object, options: Any) -> Any:
            return None

    pf.register_model_family(Unfitted())
    with pytest.raises(ConfigurationError) as info:
        pf.as_model(Wrapped())
    assert type(info.value) is ConfigurationError  # the family's own words, not wrapped
    assert str(info.value) == "this model is not fitted; fit it first"


# --------------------------------------------------------------------------- kinds


class Upper(PerturbationKind):
    name = "upper"

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        return [perturbation_from_texts(text, text.upper())] if text != text.upper() else []


class Broken(PerturbationKind):
    name = "broken"

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        raise ValueError(f"bad word in {text!r}: {HOSTILE}")


class BrokenPrepare(Upper):
    name = "broken-prepare"

    def prepare(self, docs: Any) -> None:
        raise LookupError("vectors missing")


class OneArgument(PerturbationKind):
    name = "one-argument"

    def perturb(self, text: str) -> list[Perturbation]:  # type: ignore[override]
        return []


class KindNeedsArguments(PerturbationKind):
    name = "kind-needs-args"

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__()
        self.table = table

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        return []


class KindNoPerturb(PerturbationKind):  # type: ignore[misc]
    name = "kind-no-perturb"


@pytest.mark.parametrize(("entry", "words"), [
    (KindNeedsArguments, ["KindNeedsArguments", "cannot be built without arguments"]),
    (KindNoPerturb, ["KindNoPerturb", "does not define perturb",
                     "perturb(self, text, doc)"]),
    (OneArgument, ["'one-argument'", "cannot be called as perturb(self, text, doc)",
                   "too many positional arguments"]),
])
def test_a_kind_that_cannot_be_used_is_named_at_registration(entry: Any,
                                                             words: list[str]) -> None:
    refused(lambda: pf.register_kind(entry), ExtensionError, *words,
            f"{HERE}:")
    assert entry.name not in KIND_REGISTRY


@pytest.mark.parametrize("use", [
    lambda: pf.perturb.get_kind("broken")("A text."),
    lambda: pf.counterfactual_prompts(["A text."], kind="broken"),
    lambda: pf.smooth(_const, attribute="broken", eps=0.1).score(["A text."]),
    lambda: pf.assert_eps_k_fair(_const, "A text.", eps=0.1, k=1, attribute="broken"),
])
def test_a_kind_that_raises_is_named_with_its_origin_wherever_it_is_used(
        use: Callable[[], object]) -> None:
    pf.register_kind(Broken())
    with time_limit(), pytest.raises(ExtensionError) as info:
        use()
    message = str(info.value)
    for word in ("perturbation kind 'broken'", f"{HERE}:", "failed in perturb()",
                 "ValueError: bad word in 'A text.'", "\\x1b[2J", "\\u202e"):
        assert word in message, message
    assert "\x1b" not in message
    assert "\u202e" not in message
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.origin.startswith("registered at ")
    assert f"{HERE}:" in info.value.origin


def test_a_kind_that_raises_in_prepare_is_named() -> None:
    pf.register_kind(BrokenPrepare)
    refused(lambda: pf.perturb.get_kind("broken-prepare")("a"), ExtensionError,
            "perturbation kind 'broken-prepare'", "failed in prepare()",
            "LookupError: vectors missing")


def test_a_kind_of_the_wrong_signature_used_without_registering_is_named_at_use() -> None:
    message = refused(lambda: pf.counterfactual_prompts(["A text."], kind=OneArgument()),
                      ExtensionError, "perturbation kind 'one-argument' (not registered",
                      "failed in perturb()", "TypeError",
                      "is called as perturb(self, text, doc)")
    assert "check its signature" in message


def test_a_registered_function_that_raises_is_named() -> None:
    def shout(text: str) -> str:
        raise ZeroDivisionError("oops")

    pf.register_kind("shout", shout)
    refused(lambda: pf.perturb.get_kind("shout")("hi"), ExtensionError,
            "perturbation kind 'shout'", f"{HERE}:", "ZeroDivisionError: oops")


def test_a_kind_that_raises_our_own_error_is_passed_on_as_it_is() -> None:
    class Picky(Upper):
        name = "picky"

        def perturb(self, text: str, doc: Any) -> list[Perturbation]:
            raise ConfigurationError("picky needs a sentence with a verb")

    pf.register_kind(Picky)
    with pytest.raises(ConfigurationError) as info:
        pf.perturb.get_kind("picky")("a")
    assert type(info.value) is ConfigurationError


def test_a_working_kind_still_works_and_its_origin_is_recorded() -> None:
    kind, line = pf.register_kind(Upper), sys._getframe().f_lineno
    assert [p.perturbed for p in kind("Hi there")] == ["HI THERE"]
    assert KIND_REGISTRY.origin("upper") == "user"
    assert KIND_REGISTRY.where("upper").startswith("registered at ")
    assert KIND_REGISTRY.where("upper").endswith(f"{HERE}:{line}")
    assert KIND_REGISTRY.where("gender_swap") == "built into pytest-fairness"


# --------------------------------------------------------------------------- formats


def _summary() -> Summary:
    return build_summary([])


def test_a_writer_of_the_wrong_signature_is_named_at_registration() -> None:
    def markdown(summary: Any) -> Path:
        return Path("x")

    refused(lambda: pf.register_format("md", markdown), ExtensionError,
            "report format 'md'", f"{HERE}:",
            "cannot be called as write(summary, directory, *, created)")
    assert "md" not in FORMATS


def test_a_writer_that_raises_is_named_with_its_origin(tmp_path: Path) -> None:
    def broken(summary: Any, directory: Path, *, created: str) -> Path:
        raise OSError(28, "No space left on device")

    pf.register_format("broken", broken)
    with time_limit(), pytest.raises(ExtensionError) as info:
        write_reports(tmp_path, _summary(), formats=["json", "broken"])
    message = str(info.value)
    for word in ("report format 'broken'", f"{HERE}:", "failed when called",
                 "No space left on device"):
        assert word in message, message
    assert isinstance(info.value.__cause__, OSError)
    assert (tmp_path / "fairness.json").exists()  # the formats before it were written


def test_a_built_in_writer_keeps_its_own_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(FileExistsError):  # not an extension's failure: the path is a file
        write_reports(blocker, _summary(), formats=["json"])


# --------------------------------------------------------------------------- entry points


def test_an_entry_point_that_raises_names_the_entry_point_and_its_package(
        tmp_path: Path) -> None:
    (tmp_path / "team_kinds.py").write_text(textwrap.dedent("""
        from pytest_fairness.perturb import PerturbationKind

        class Broken(PerturbationKind):
            name = "team-broken"

            def perturb(self, text, doc):
                raise RuntimeError("the lexicon file is missing")

        class NeedsArgs(PerturbationKind):
            name = "team-args"

            def __init__(self, path):
                super().__init__()

            def perturb(self, text, doc):
                return []
    """))
    info = tmp_path / "team_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: team-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [pytest_fairness.perturbations]
        team-broken = team_kinds:Broken
    """))
    code = textwrap.dedent("""
        from pytest_fairness import perturb
        from pytest_fairness.errors import ExtensionError
        try:
            perturb.get_kind("team-broken")("a text")
        except ExtensionError as exc:
            print(exc)
            print(type(exc.__cause__).__name__)
    """)
    root = str(Path(pf.__file__).parent.parent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path,
                         env={"PYTHONPATH": f"{tmp_path}:{root}", "PATH": ""})
    assert out.returncode == 0, out.stderr
    message, cause = out.stdout.strip().splitlines()
    assert ("the perturbation kind 'team-broken' (entry point 'team_kinds:Broken' of the "
            "package team-kinds (group pytest_fairness.perturbations, name 'team-broken')) "
            "failed in perturb(): RuntimeError: the lexicon file is missing") in message
    assert cause == "RuntimeError"
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [pytest_fairness.perturbations]
        team-args = team_kinds:NeedsArgs
    """))
    code = textwrap.dedent("""
        from pytest_fairness import perturb
        from pytest_fairness.errors import ExtensionError
        try:
            perturb.get_kind("team-args")
        except ExtensionError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path,
                         env={"PYTHONPATH": f"{tmp_path}:{root}", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert "cannot register the perturbation kind 'team-args' (entry point " in out.stdout
    assert "of the package team-kinds" in out.stdout
    assert "cannot be built without arguments" in out.stdout


# --------------------------------------------------------------------------- replace=, dictionaries


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, float("nan")])
@pytest.mark.parametrize("register", [
    lambda r: pf.register_kind("upper2", Upper(), replace=r),
    lambda r: pf.register_kind(Upper, replace=r),
    lambda r: pf.register_dictionary("faith", {"church": ["mosque"]}, replace=r),
    lambda r: pf.register_format("md", lambda s, d, *, created: d, replace=r),
    lambda r: pf.register_model_family(NeedsArguments("x"), replace=r),
    lambda r: pf.register_generator_family(GeneratorNeedsArguments("x"), replace=r),
])
def test_replace_must_be_a_bool(register: Callable[[object], object], value: object) -> None:
    refused(lambda: register(value), ConfigurationError, "replace must be True or False")


@pytest.mark.parametrize(("call", "words"), [
    (lambda: pf.register_dictionary("faith", {"a": "bc"}),
     ["alternatives of 'a' must be a list of strings", "the string 'bc'",
      "{'a': ['bc']}"]),
    (lambda: pf.register_dictionary("faith", {"church": ["mosque"], "priest": "imam"}),
     ["alternatives of 'priest'", "{'priest': ['imam']}"]),
    (lambda: pf.register_dictionary({"a": "bc"}),  # type: ignore[arg-type]
     ["perturbation kind's name must be a non-empty string", "{'a': 'bc'}"]),
    (lambda: pf.register_kind("faith", {"a": "bc"}),
     ["alternatives of 'a' must be a list of strings"]),
])
def test_a_dictionary_given_strings_for_lists_is_refused(call: Callable[[], object],
                                                         words: list[str]) -> None:
    refused(call, ConfigurationError, *words)
    assert "faith" not in KIND_REGISTRY


# --------------------------------------------------------------------------- classic API


@pytest.mark.parametrize(("call", "words"), [
    (lambda: pf.names.popular(40), ["language code first", "popular(n=40)"]),
    (lambda: pf.names.popular(40.0), ["language code first", "float 40.0"]),
    (lambda: pf.names.popular(None), ["language code first", "NoneType"]),
    (lambda: pf.names.popular("en", 20), ["gender must be 'female' or 'male'", "n=20"]),
    (lambda: pf.names.by_gender(20), ["gender must be 'female' or 'male'", "n=20"]),
    (lambda: pf.names.by_origin(3), ["country name first", "countries()"]),
])
def test_a_count_in_the_place_of_a_name_is_named(call: Callable[[], object],
                                                 words: list[str]) -> None:
    refused(call, ConfigurationError, *words)


@pytest.mark.parametrize(("call", "words"), [
    (lambda: pf.names.by_gender("female", 3, seed="x"), ["seed must be an integer"]),
    (lambda: pf.names.by_gender("female", 3, seed=1.5), ["seed must be an integer"]),
    (lambda: pf.names.by_gender("female", 3, seed=float("nan")), ["seed"]),
    (lambda: pf.names.groups(5), ["names must be a list of names", "int 5"]),
    (lambda: pf.names.groups([None]), ["names[0] must be a first name", "NoneType"]),
    (lambda: pf.names.groups(["Mary"], by=5), ["by must be 'gender', 'race'"]),
    (lambda: pf.names.groups(["Mary"], label_source="no"), ["label_source must be True"]),
    (lambda: pf.names.gender_of(5), ["name must be a first name", "int 5"]),
    (lambda: pf.names.race_of(5), ["name must be a first name"]),
    (lambda: pf.names.origin_gender(None), ["name must be a first name"]),
    (lambda: pf.names.consensus_gender(None), ["name must be a first name"]),
    (lambda: pf.names.genders("Mary"), ["not one string 'Mary'", "['Mary']"]),
    (lambda: pf.names.genders([5]), ["names[0] must be a first name"]),
    (lambda: pf.names.genders(5), ["names must be a list of names"]),
    (lambda: pf.names.clean("Mary"), ["not one string 'Mary'"]),
    (lambda: pf.names.not_words(5), ["names must be a list of names"]),
    (lambda: pf.names.popular(clean="no"), ["clean must be True or False"]),
    (lambda: pf.names.by_origin("India", n=2, latin_only="no"),
     ["latin_only must be True or False"]),
])
def test_the_name_lists_name_their_bad_arguments(call: Callable[[], object],
                                                 words: list[str]) -> None:
    refused(call, ConfigurationError, *words)


def test_the_name_lists_still_answer() -> None:
    assert pf.names.genders(["Mary", "James"]) == {"Mary": "female", "James": "male"}
    assert pf.names.by_gender("female", 3, seed=3) == pf.names.by_gender("female", 3, seed=3)
    assert pf.names.clean(["Mary", "Will"]) == ["Mary"]


def test_popular_with_n_still_works() -> None:
    names = pf.names.popular(n=4)
    assert len(names) == 4
    assert names == pf.names.popular("en", n=4)


def _sorts(texts: list[str]) -> list[float]:
    texts.sort()
    return [len(t) / 100 for t in texts]


def _reverses(texts: list[str]) -> list[float]:
    texts.reverse()
    return [len(t) / 100 for t in texts]


@pytest.mark.parametrize("model", [_sorts, _reverses])
@pytest.mark.parametrize("remote", [False, True])
def test_a_model_that_reorders_its_input_is_named(model: Callable[[list[str]], Any],
                                                  remote: bool) -> None:
    adapted = pf.as_model(model, output="score", remote=remote)
    refused(lambda: adapted.score(["zz", "a", "mmm"]), ModelOutputError,
            f"model '{model.__name__}'", "reordered the list of texts", "sorted(texts)")


def test_a_model_that_reorders_its_input_fails_a_relation_with_the_same_error() -> None:
    refused(lambda: pf.assert_counterfactual_fair(_sorts, ["He is here.", "She left us."],
                                                  max_gap=0.1),
            ModelOutputError, "reordered the list of texts")


def test_a_model_that_changes_its_input_without_reordering_it_gives_correct_scores() -> None:
    def lowers_then_clears(texts: list[str]) -> list[float]:
        texts[:] = [t.lower() for t in texts]
        out = [len(t) / 100 for t in texts]
        texts.clear()
        return out

    scores = pf.as_model(lowers_then_clears, output="score").score(["zz", "a", "mmm"])
    assert scores.tolist() == [0.02, 0.01, 0.03]


def test_a_swap_function_that_raises_names_swap() -> None:
    def my_swap(text: str) -> str:
        raise KeyError(f"no counterpart for {text.split()[0]}")

    message = refused(
        lambda: pf.assert_counterfactual_fair(_const, ["He is here."], max_gap=0.1,
                                              swap=my_swap),
        ExtensionError, "the swap= function", "my_swap", "KeyError",
        "no counterpart for He", "'He is here.'", "fix the function given as swap=")
    assert "perturber" not in message


def test_a_swap_function_of_the_wrong_signature_names_swap() -> None:
    refused(lambda: pf.assert_counterfactual_fair(_const, ["He is here."], max_gap=0.1,
                                                  swap=lambda: "x"),  # type: ignore[arg-type]
            ConfigurationError, "swap=", "cannot be called with one text")


def test_a_perturber_that_raises_names_perturber() -> None:
    def flaky(text: str) -> str:
        raise RuntimeError("service down")

    refused(lambda: pf.smooth(_const, perturber=flaky, eps=0.1).score(["A text."]),
            ExtensionError, "the perturber= function ", "flaky raised RuntimeError: service down",
            "'A text.'")


@pytest.mark.parametrize("name", ["Alex\x00", "Al\nex", "Alex\ud800", "\u202eAlex",
                                  "Alex\x1b[31m", "Al\u2028ex", "Alex\x7f"])
@pytest.mark.parametrize("form", ["mapping", "list"])
def test_psa_refuses_names_with_control_characters(name: str, form: str) -> None:
    names: Any = {name: "x", "Bob": "y"} if form == "mapping" else [name, "Bob"]
    message = refused(lambda: pf.psa(_const, ["He left early.", "She left late."], names),
                      ConfigurationError,
                      "holds the character", "remove it from the name")
    assert all(c.isprintable() for c in message)


def test_psa_keeps_names_with_joiners_and_marks() -> None:
    found = pf.psa(_const, ["He left early.", "She left late."], ["Zoë", "Ana\u0301", "Bob"])
    assert set(found.score_sens) == {"Zoë", "Ana\u0301", "Bob"}


def test_a_model_error_is_still_a_model_call_error() -> None:
    def fails(texts: list[str]) -> list[float]:
        raise RuntimeError("CUDA out of memory")

    refused(lambda: pf.as_model(fails).score(["a"]), ModelCallError, "CUDA out of memory")


# --------------------------------------------------------------------------- fuzz

NAMES = st.one_of(st.text(max_size=12), st.integers(), st.none(), st.binary(max_size=4),
                  st.floats(allow_nan=True), st.tuples(st.text(max_size=3)))
ENTRIES = st.one_of(
    st.integers(), st.text(max_size=8), st.none(),
    st.dictionaries(st.text(max_size=8), st.one_of(st.text(max_size=8),
                                                  st.lists(st.text(max_size=8), max_size=3),
                                                  st.integers()), max_size=3),
    st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)), max_size=3),
    st.lists(st.text(max_size=8), max_size=3),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=NAMES, entry=ENTRIES)
def test_any_registration_registers_or_is_a_named_error(name: Any, entry: Any) -> None:
    before = KIND_REGISTRY.names()
    message = None
    with time_limit():
        try:
            kind = KIND_REGISTRY.register(name, entry)
        except ConfigurationError as exc:
            message = str(exc)
    if message is not None:
        assert not any(unsafe(c) for c in message), message
        assert "perturbation kind" in message or "dictionary" in message or any(
            word in message for word in ("alternative", "word", "pair")), message
        assert KIND_REGISTRY.names() == before  # nothing half-registered
        return
    assert isinstance(kind, PerturbationKind)
    assert isinstance(name, str)
    assert KIND_REGISTRY.get(name) is kind
    KIND_REGISTRY.unregister(name)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4))
def test_any_names_are_checked_or_named(names: list[str]) -> None:
    message = None
    try:
        found = check_names(names)
    except ConfigurationError as exc:
        message = str(exc)
    if message is not None:
        assert not any(unsafe(c) for c in message), message  # terminal-safe
        return
    assert all(not unsafe(c) for name in found for c in name)
    assert len(found) == len(set(found)) == len(names)
