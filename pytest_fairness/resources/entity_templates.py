"""Sentence frames for named-entity bias: frames x names of each group.

Mishra, Kumar and Kiritchenko (2020), "Assessing Demographic Bias in Named Entity
Recognition", fill sentence templates with first names of each demographic
group and measure how often a recogniser finds each name as a person. The frames here are
the project's own sentences (``pytest_fairness/data/templates_entities.json``, read on
first use): 34 English and 16 French frames, each with one ``{name}`` slot, the name at
the start, in the middle and at the end of a sentence, as subject, object and after a
preposition.

`entity_frames(lang)` returns a language's frames; `fill_frames(frames, names)` fills
frames (these or the user's) with names of each group and records where each name is.
Pure: the standard library only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from ..errors import ConfigurationError
from ..runtime.printable import printable

__all__ = ["SLOT", "NameSentence", "entity_frames", "fill_frames", "frame_languages"]

#: The slot of a frame.
SLOT = "{name}"


@dataclass(frozen=True)
class NameSentence:
    """A frame filled with a name: ``text[start:end] == name``, of `group`."""

    text: str
    start: int
    end: int
    name: str
    group: str
    frame: str


@functools.cache
def _data() -> dict[str, tuple[str, ...]]:
    raw = json.loads(resources.files("pytest_fairness").joinpath(
        "data/templates_entities.json").read_text(encoding="utf-8"))
    return {k: tuple(v) for k, v in raw.items() if isinstance(v, list)}


def frame_languages() -> tuple[str, ...]:
    """The languages with frames of their own ("en", "fr")."""
    return tuple(sorted(_data()))


def entity_frames(lang: str = "en") -> tuple[str, ...]:
    """The frames of language `lang` ("en", "fr"; "en_US" reads as "en")."""
    if not isinstance(lang, str):
        raise ConfigurationError(f"lang must be a language code such as 'en', got "
                                 f"{type(lang).__name__}")
    code = lang.lower().replace("-", "_").split("_")[0]
    frames = _data().get(code)
    if frames is None:
        raise ConfigurationError(
            f"no entity frames for language {printable(repr(lang))[:20]}; available: "
            f"{', '.join(frame_languages())}. Pass your own templates=[...] with one "
            f"{SLOT} each")
    return frames


def _frames(frames: object) -> tuple[str, ...]:
    if isinstance(frames, str) or not isinstance(frames, Iterable):
        raise ConfigurationError(
            f"templates must be a list of sentences with one {SLOT} slot each, got "
            f"{type(frames).__name__}; wrap a single template in a list")
    out = tuple(frames)
    if not out:
        raise ConfigurationError(f"templates is empty; pass sentences with one {SLOT} each")
    for frame in out:
        if not isinstance(frame, str) or frame.count(SLOT) != 1:
            raise ConfigurationError(
                f"template {printable(repr(frame))[:80]} must be a str with exactly one "
                f"{SLOT} slot (for the name), e.g. '{SLOT} went home.'")
    return out


def _groups(names: object) -> dict[str, tuple[str, ...]]:
    if not isinstance(names, Mapping) or not names:
        raise ConfigurationError(
            "names must map each group to its names, e.g. {'female (US Census 1990)': "
            f"['Mary', ...], 'male (US Census 1990)': ['James', ...]}}, got "
            f"{type(names).__name__}")
    out: dict[str, tuple[str, ...]] = {}
    for group, members in names.items():
        if not isinstance(group, str) or not group.strip():
            raise ConfigurationError(
                f"group names must be non-empty strings, got {printable(repr(group))[:40]}")
        if isinstance(members, str) or not isinstance(members, Iterable):
            raise ConfigurationError(
                f"group {printable(group)!r} must list its names (a list of str), got "
                f"{type(members).__name__}; wrap a single name in a list")
        listed = tuple(dict.fromkeys(members))
        bad = [m for m in listed if not isinstance(m, str) or not m.strip() or m != m.strip()
               or SLOT in m]
        if bad or not listed:
            raise ConfigurationError(
                f"group {printable(group)!r} needs non-empty names without surrounding "
                f"spaces, got {printable(repr(bad[:3] if bad else listed))[:80]}")
        out[group] = listed
    return out


def fill_frames(
    frames: Sequence[str], names: Mapping[str, Sequence[str]]
) -> list[NameSentence]:
    """Every frame filled with every name of every group (frames x names), in the order
    group, name, frame; each records the name's characters. Frames need exactly one
    ``{name}``; groups need at least one name (`ConfigurationError` otherwise)."""
    checked, groups = _frames(frames), _groups(names)
    out: list[NameSentence] = []
    for group, members in groups.items():
        for name in members:
            for frame in checked:
                head, tail = frame.split(SLOT)
                out.append(NameSentence(head + name + tail, len(head), len(head) + len(name),
                                        name, group, frame))
    return out
