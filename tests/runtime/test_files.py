"""`runtime.files`: a user's path opens as a regular file or raises a named error, without
waiting; `text_encoding` takes text encodings only; paths print escaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _bounded import time_limit

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.runtime.files import (
    open_binary,
    open_text,
    regular_file,
    shown_path,
    text_encoding,
)


class Refused(ConfigurationError):
    """A caller's own error class, passed as ``error=``."""




def test_a_regular_file_opens_in_blocking_mode_and_reads_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"caf\xc3\xa9\nline 2\n")
    with open_binary(path, "data file") as handle:
        assert os.get_blocking(handle.fileno())
        assert handle.read() == b"caf\xc3\xa9\nline 2\n"
    with open_text(path, "data file", encoding="utf-8") as text:
        assert text.read() == "café\nline 2\n"
    assert regular_file(str(path), "data file") == path


def test_a_missing_file_names_the_input_and_the_hint(tmp_path: Path) -> None:
    with pytest.raises(Refused, match=r"data file '.*nope.csv' does not exist.*looked here"):
        open_binary(tmp_path / "nope.csv", "data file", error=Refused, hint=" (looked here)")


def test_a_path_with_a_nul_character_is_refused_by_name() -> None:
    with pytest.raises(ConfigurationError, match=r"data file 'a\\x00b.csv' holds a NUL"):
        open_binary("a\x00b.csv", "data file")


def test_a_dangling_link_says_where_it_points(tmp_path: Path) -> None:
    link = tmp_path / "data.csv"
    link.symlink_to(tmp_path / "gone.csv")
    with pytest.raises(ConfigurationError, match=r"symbolic link to '.*gone.csv'.*does not exist"):
        open_binary(link, "data file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_is_refused_at_once_with_no_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    with time_limit(5), pytest.raises(ConfigurationError, match=r"named pipe \(FIFO\)") as info:
        open_text(fifo, "data file", encoding="utf-8")
    assert "does not exist" not in str(info.value)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_device_and_a_link_to_it_are_refused(tmp_path: Path) -> None:
    with time_limit(5), pytest.raises(ConfigurationError, match="character device"):
        open_binary("/dev/zero", "data file")
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    with time_limit(5), pytest.raises(ConfigurationError,
                                  match=r"symbolic link to '/dev/zero'.*character device"):
        regular_file(link, "data file")


def test_a_directory_is_refused_as_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "data.csv"
    folder.mkdir()
    with pytest.raises(Refused, match="is a directory, not a file") as info:
        open_binary(folder, "data file", error=Refused)
    assert "does not exist" not in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True,
                    reason="root reads any file")
def test_an_unreadable_file_names_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "locked.csv"
    path.write_text("text\n")
    path.chmod(0)
    with pytest.raises(ConfigurationError, match="cannot be opened"):
        open_binary(path, "data file")


def test_no_file_descriptor_is_left_open_by_a_refusal(tmp_path: Path) -> None:
    folder = tmp_path / "d.csv"
    folder.mkdir()
    before = len(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").exists() else 0
    for _ in range(50):
        with pytest.raises(ConfigurationError):
            open_binary(folder, "data file")
    after = len(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").exists() else 0
    assert after <= before


@pytest.mark.parametrize("codec", ["rot13", "rot_13", "base64", "hex", "zlib", "bz2",
                                   "uu", "quopri"])
def test_codecs_that_do_not_decode_text_are_refused(codec: str) -> None:
    with pytest.raises(Refused, match=rf"encoding={codec!r} names the codec .* text encoding"):
        text_encoding(codec, error=Refused)


@pytest.mark.parametrize("bad", ["nope", "", "utf-8\x00", 8, None, b"utf-8"])
def test_unknown_or_mistyped_encodings_are_refused(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="text encoding"):
        text_encoding(bad, "corpus_encoding")


@pytest.mark.parametrize("good", ["utf-8", "UTF8", "latin-1", "cp1252", "utf-16", "utf-8-sig"])
def test_text_encodings_pass_unchanged(good: str) -> None:
    assert text_encoding(good) == good


def test_paths_are_shown_with_control_characters_escaped() -> None:
    shown = shown_path("/tmp/a\x1b[31mred\x07\u202e.csv")
    assert shown == "/tmp/a\\x1b[31mred\\x07\\u202e.csv"
    assert shown_path(Path("plain/data.csv")) == "plain/data.csv"
