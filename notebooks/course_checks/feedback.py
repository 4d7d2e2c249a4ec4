"""How a check talks: the language setting, the messages in English or Chinese, line wrapping.

Every message is written once in English, in the code, under a key:

    tr("b1.returned", "train_epoch returned {result}.", result=show(result))

`tr` gives it in the language of the running check, with its {fields} filled in. The Chinese
texts are not in the code: they are translated in translations/zh/course_checks.md (one block
per key, like a notebook's markdown cells) and `scripts/translations.py build` writes them to
zh.json next to this file, which `tr` reads. `scripts/translations.py check` fails when a
message has no Chinese block or its English changed since it was translated. A key without a
Chinese text falls back to the English one.

Chinese messages use the terms of docs/glossary.md; code, names and torch's error messages stay
in English in both languages.
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
import threading
from pathlib import Path
from typing import Any

WIDTH = 96  # columns of a feedback line (a Chinese character takes two)
SHOW_LIMIT = 200  # characters of a learner's value shown in a message
LANGUAGES = ("en", "zh")
CHINESE_MESSAGES = Path(__file__).with_name("zh.json")

# Feedback is collected per worker thread and printed by the thread that called the check (a
# notebook shows output reliably only from the thread that runs the cell). Each thread also
# keeps the language of the check it runs: a call's `lang=` beats the module's setting.
_running = threading.local()
_language = "en"

# What a check found wrong: the text of its "Not yet", and a hint (or None).
Problem = tuple[str, str | None]


def valid_language(language: str) -> str:
    """`language` itself, or a ValueError naming the choices."""
    if language not in LANGUAGES:
        raise ValueError(
            f"unknown feedback language {language!r}; choose one of {', '.join(LANGUAGES)}"
        )
    return language


def set_language(language: str) -> None:
    """Give every check's feedback in `language`: "en" (English) or "zh" (Chinese)."""
    global _language
    _language = valid_language(language)


def get_language() -> str:
    """The language checks speak when they are not given `lang=`: "en" or "zh"."""
    return _language


def current_language() -> str:
    """The language of the check running in this thread (the setting outside a check)."""
    return getattr(_running, "language", None) or _language


def collect(lines: list[str] | None, language: str | None) -> None:
    """From now on, this thread's feedback goes into `lines` (None: printed at once) and speaks
    `language` (None: the module's setting)."""
    _running.lines = lines
    _running.language = language


@functools.cache
def _chinese() -> dict[str, str]:
    """The Chinese messages by key (empty when zh.json is missing or unreadable)."""
    try:
        messages = json.loads(CHINESE_MESSAGES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return messages if isinstance(messages, dict) else {}


def tr(key: str, english: str, /, **fields: Any) -> str:
    """The message `key` in the running check's language, its {fields} filled in.

    `english` must be a plain string literal: scripts/translations.py reads the keys and the
    English texts from the source code to keep translations/zh/course_checks.md in step.
    """
    text = _chinese().get(key, english) if current_language() == "zh" else english
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation naming other {fields}
        return english.format(**fields)


# ---- wrapping ----------------------------------------------------------------------------------

# Chinese characters and full-width punctuation; each is a place a Chinese line may break.
_WIDE_CHARS = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_WIDE = re.compile(f"[{_WIDE_CHARS}]")
# One wide character, a run of other non-space characters (a word, a number, code), or spaces.
_PIECES = re.compile(f"[{_WIDE_CHARS}]|[^\\s{_WIDE_CHARS}]+|\\s+")
# Chinese punctuation that must not start a line: it stays with the character before it.
_NO_LINE_START = "，。：；！？）、」』》”’"
# ... and punctuation that must not end one: it goes down with the character after it.
_NO_LINE_END = "（「『《“‘"


def is_wide(ch: str) -> bool:
    """Whether `ch` takes two columns (a Chinese character or full-width punctuation)."""
    return bool(_WIDE.fullmatch(ch))


def columns(text: str) -> int:
    """How wide `text` shows in a notebook: a Chinese character takes two columns."""
    return sum(2 if is_wide(ch) else 1 for ch in text)


def wrap_zh(paragraph: str, width: int) -> str:
    """Fill Chinese text to `width` columns: a line may break between any two Chinese
    characters or at a space, but never inside a Latin word or a piece of code. As in Chinese
    typesetting, punctuation that may not start a line hangs past the width, and an opening
    bracket or quote that may not end one moves down to the next line."""
    lines: list[str] = []
    line = ""
    for piece in _PIECES.findall(paragraph):
        if piece.isspace():
            piece = " "
        fits = columns(line + piece) <= width
        if line and not fits and piece != " " and piece not in _NO_LINE_START:
            carried = ""
            while line and line[-1] in _NO_LINE_END:
                line, carried = line[:-1], line[-1] + carried
            lines.append(line.rstrip())
            line = carried
        if line or piece != " ":
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def _wrap(paragraph: str) -> str:
    if current_language() == "zh":
        return wrap_zh(paragraph, WIDTH)
    return textwrap.fill(paragraph, WIDTH)


def join(head: str, text: str) -> str:
    """`head` and `text` as one sentence: a space between them, none after Chinese punctuation."""
    return head + ("" if head and is_wide(head[-1]) else " ") + text


# ---- saying things -----------------------------------------------------------------------------


def say(text: str) -> None:
    """Print one piece of feedback, each of its lines wrapped for the notebook."""
    lines = [_wrap(p) if p else "" for p in text.strip().split("\n")]
    collected = getattr(_running, "lines", None)
    if collected is None:
        print("\n".join(lines))
    else:
        collected.extend(lines)


def solved(text: str) -> bool:
    """ "Well done!" and why; returns True (the exercise is solved)."""
    # No automatic capitalisation: many messages start with code (`detach()`, `w.grad`).
    say(join(tr("well-done", "Well done!"), text))
    return True


def not_yet(text: str, hint: str | None = None) -> bool:
    """ "Not yet:", what is wrong and, if given, a hint; returns False."""
    hint_line = "\n" + join(tr("hint", "Hint:"), hint) if hint else ""
    say(join(tr("not-yet", "Not yet:"), text) + hint_line)
    return False


def no_answer(text: str) -> bool:
    """ "No answer yet:" and what to do; returns False."""
    say(join(tr("no-answer", "No answer yet:"), text))
    return False


def show(value: Any) -> str:
    """repr(value) for a message, shortened; never raises, even if the object's repr does."""
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001 - a learner's __repr__ may fail in any way
        try:
            name = type(value).__name__
            text = tr("show.repr-fails", "<{name} object whose repr() fails>", name=name)
        except BaseException:  # noqa: BLE001
            text = tr("show.repr-fails-unnamed", "<an object whose repr() fails>")
    if not isinstance(text, str):
        text = tr("show.repr-not-text", "<an object whose repr() is not a string>")
    return text if len(text) <= SHOW_LIMIT else text[: SHOW_LIMIT - 3] + "..."


def describe_error(error: BaseException) -> str:
    """'TypeName: message' for an exception, even when its __str__ fails."""
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001
        message = tr("error.unprintable", "(its message cannot be printed: str() of it fails)")
    if not isinstance(message, str):
        message = tr("error.not-text", "(its message is not a string)")
    if len(message) > 2 * SHOW_LIMIT:
        message = message[: 2 * SHOW_LIMIT - 3] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def error_text(error: BaseException) -> str:
    """str(error) for matching known errors; '' when it cannot be had."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001
        return ""
    return text if isinstance(text, str) else ""
