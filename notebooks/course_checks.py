"""Automatic checks for notebook 10 (exercises): friendly, specific feedback, never an exception.

Each `check_*` function takes the learner's answer (a prediction, or the function they repaired),
runs the scenario itself with minigrad and prints what it found and why: "Well done! ..." when
the exercise is solved, otherwise "Not yet: ..." with a hint. It returns None (so a check cell
shows only the printed feedback) and never raises, so the exercises notebook runs top to bottom
in any state.

Feedback comes in English or Chinese: every message is written in both, side by side, as
`_t("English", "中文")`. The language is a module-level setting, `set_language("zh")` (the
Chinese notebooks' notebooks/zh/course_checks.py does that), and any check takes `lang="en"` or
`lang="zh"` for one call. Chinese messages use the terms of docs/glossary.md; code, names and
torch's error messages stay in English in both.

How a check protects itself from the learner's code:

- it runs in a worker thread and the check waits at most `TIME_LIMIT` seconds, so an endless
  loop (or an endless iterable handed back) ends in a "Not yet" instead of a hung cell. Python
  cannot stop a thread from outside (signals only reach the main thread), so a timed-out answer
  may go on running in the background until the kernel is restarted; the message says so;
- anything raised inside, `SystemExit` from `exit()` included, becomes a message; only
  `KeyboardInterrupt` (the learner pressing stop) is passed on;
- learner objects are printed through `_show`, which survives a failing `__str__`/`__repr__`;
- the scenario runs with grad mode enabled, whatever the notebook's mode is, and the caller's
  mode is restored afterwards (a learner's `set_grad_enabled(False)` leaks in neither direction).

The checks seed minigrad's generator (`minigrad.manual_seed`) so their numbers are reproducible.
"""

from __future__ import annotations

import functools
import itertools
import re
import textwrap
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim, viz

__all__ = [
    "LANGUAGES",
    "TIME_LIMIT",
    "check_data_zero",
    "check_detach_inplace",
    "check_eval_loop",
    "check_gan_d_step",
    "check_loss_accumulation",
    "check_new_leaf",
    "check_numpy_error",
    "check_tbptt",
    "check_version",
    "check_weight_decay",
    "check_weight_log",
    "get_language",
    "set_language",
]

WIDTH = 96  # columns of a feedback line (a Chinese character takes two)
TIME_LIMIT = 10.0  # seconds one check may take, the learner's code included
_SHOW_LIMIT = 200  # characters of a learner's value shown in a message
LANGUAGES = ("en", "zh")

# Feedback is collected per worker thread and printed by the thread that called the check: a
# notebook shows output reliably only from the thread that runs the cell. The worker also
# keeps the language of the check it runs there (a `lang=` argument beats the setting).
_feedback = threading.local()
_language = "en"


def _valid(language: str) -> str:
    if language not in LANGUAGES:
        raise ValueError(
            f"unknown feedback language {language!r}; choose one of {', '.join(LANGUAGES)}"
        )
    return language


def set_language(language: str) -> None:
    """Give every check's feedback in `language`: "en" (English) or "zh" (Chinese)."""
    global _language
    _language = _valid(language)


def get_language() -> str:
    """The language checks speak when they are not given `lang=`: "en" or "zh"."""
    return _language


def _current_language() -> str:
    return getattr(_feedback, "language", None) or _language


def _t(en: str, zh: str) -> str:
    """One message in both languages; returns the one the running check speaks."""
    return zh if _current_language() == "zh" else en


def _columns(text: str) -> int:
    """How wide `text` shows in a notebook: a Chinese character takes two columns."""
    return sum(2 if _is_wide(ch) else 1 for ch in text)


def _is_wide(ch: str) -> bool:
    return bool(_WIDE.fullmatch(ch))


# Chinese characters and full-width punctuation; each is a place a Chinese line may break.
_WIDE_CHARS = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_WIDE = re.compile(f"[{_WIDE_CHARS}]")
# One wide character, a run of other non-space characters (a word, a number, code), or spaces.
_PIECES = re.compile(f"[{_WIDE_CHARS}]|[^\\s{_WIDE_CHARS}]+|\\s+")
# Chinese punctuation that must not start a line: it stays with the character before it.
_NO_LINE_START = "，。：；！？）、」』》”’"


def _wrap_zh(paragraph: str, width: int) -> str:
    """Fill Chinese text to `width` columns: a line may break between any two Chinese
    characters or at a space, but never inside a Latin word or a piece of code. Punctuation
    that may not start a line hangs past the width instead, as in Chinese typesetting."""
    pieces = _PIECES.findall(paragraph)
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if piece.isspace():
            piece = " "
        fits = _columns(line + piece) <= width
        if line and not fits and piece != " " and piece not in _NO_LINE_START:
            lines.append(line.rstrip())
            line = ""
        if line or piece != " ":
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def _wrap(paragraph: str) -> str:
    if _current_language() == "zh":
        return _wrap_zh(paragraph, WIDTH)
    return textwrap.fill(paragraph, WIDTH)


def _say(text: str) -> None:
    """Print one feedback paragraph, wrapped for the notebook."""
    lines = [_wrap(p) if p else "" for p in text.strip().split("\n")]
    collected = getattr(_feedback, "lines", None)
    if collected is None:
        print("\n".join(lines))
    else:
        collected.extend(lines)


def _show(value: Any) -> str:
    """repr(value) for a message, shortened; never raises, even if the object's repr does."""
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001 - a learner's __repr__ may fail in any way
        try:
            name = type(value).__name__
            text = _t(f"<{name} object whose repr() fails>", f"<repr() 出错的 {name} 对象>")
        except BaseException:  # noqa: BLE001
            text = _t("<an object whose repr() fails>", "<一个 repr() 出错的对象>")
    if not isinstance(text, str):
        text = _t("<an object whose repr() is not a string>", "<repr() 不返回字符串的对象>")
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 3] + "..."


def _describe_error(error: BaseException) -> str:
    """'TypeName: message' for an exception, even when its __str__ fails."""
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001
        message = _t(
            "(its message cannot be printed: str() of it fails)",
            "（无法打印它的报错信息：对它调用 str() 会出错）",
        )
    if not isinstance(message, str):
        message = _t("(its message is not a string)", "（它的报错信息不是字符串）")
    if len(message) > 2 * _SHOW_LIMIT:
        message = message[: 2 * _SHOW_LIMIT - 3] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _message(error: BaseException) -> str:
    """str(error) for matching known errors; '' when it cannot be had."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001
        return ""
    return text if isinstance(text, str) else ""


def _solved(text: str) -> bool:
    # No automatic capitalisation: many messages start with code (`detach()`, `w.grad`).
    _say(_t("Well done! ", "做得好！") + text)
    return True


def _not_yet(text: str, hint: str | None = None) -> bool:
    hint_line = "\n" + _t("Hint: ", "提示：") + hint if hint else ""
    _say(_t("Not yet: ", "还没对：") + text + hint_line)
    return False


def _cancel_exit_request() -> bool:
    """Undo IPython's exit(): in a kernel it does not raise, it asks the kernel to stop."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not getattr(shell, "exit_now", False):
        return False
    shell.exit_now = False
    payloads = getattr(getattr(shell, "payload_manager", None), "_payload", None)
    if isinstance(payloads, list):
        payloads[:] = [p for p in payloads if p.get("source") != "ask_exit"]
    return True


def _never_raises(check: Callable[..., bool]) -> Callable[..., None]:
    """Run a check time-boxed in a worker thread with grad mode on; print its feedback only.

    The returned function also takes `lang="en"` or `lang="zh"`: the language of this call's
    feedback (default: the module's setting, see `set_language`).
    """

    @functools.wraps(check)
    def wrapper(*args: Any, lang: str | None = None, **kwargs: Any) -> None:
        language = _valid(lang) if lang is not None else _language
        caller_mode = mg.is_grad_enabled()
        lines: list[str] = []
        interrupted: list[BaseException] = []

        def work() -> None:
            _feedback.lines = lines
            _feedback.language = language
            try:
                mg.set_grad_enabled(True)  # the scenarios need recording, whatever the caller did
                check(*args, **kwargs)
            except KeyboardInterrupt as stop:
                interrupted.append(stop)
            except SystemExit:
                _not_yet(
                    _t(
                        "your code called exit() (or sys.exit()), which would stop the kernel.",
                        "你的代码调用了 exit()（或 sys.exit()），这会让内核停止运行。",
                    ),
                    _t(
                        "remove that call, run the cell again, then re-run this check.",
                        "删掉这个调用，重新运行那个单元格，再运行一次这个检查。",
                    ),
                )
            except BaseException as error:  # noqa: BLE001 - report anything the code raises
                _not_yet(
                    _t(
                        f"running your code raised {_describe_error(error)}",
                        f"运行你的代码时抛出了 {_describe_error(error)}",
                    ),
                    _t(
                        "read the message, fix the cell above, run it again, then re-run this "
                        "check.",
                        "读一读这条报错信息，改好上面的单元格并重新运行，再运行一次这个检查。",
                    ),
                )

        worker = threading.Thread(target=work, name=f"course_checks.{check.__name__}")
        worker.daemon = True  # a runaway answer must not keep the kernel from shutting down
        worker.start()
        worker.join(TIME_LIMIT)
        finished = not worker.is_alive()
        mg.set_grad_enabled(caller_mode)
        exit_requested = _cancel_exit_request()
        for line in list(lines):
            print(line)
        # What follows runs in the caller's thread: it speaks the call's language too.
        _feedback.language = language
        try:
            if not finished:
                _say(
                    _t(
                        f"Not yet: the check stopped waiting after {TIME_LIMIT:g} s; your code "
                        "(or something it returned, such as an endless generator) did not "
                        "finish. It may go on running in the background: restart the kernel if "
                        "the notebook gets slow.\nHint: look for a loop that never ends.",
                        f"还没对：检查等了 {TIME_LIMIT:g} 秒后不再等待；你的代码（或它返回的东西，"
                        "比如一个无穷生成器）没有结束。它可能还在后台运行：如果 notebook 变慢，"
                        "请重启内核。\n提示：找一找永远不会结束的循环。",
                    )
                )
            if exit_requested and not any("exit()" in line for line in lines):
                _say(
                    _t(
                        "Not yet: your code called exit(), which would stop the kernel. Remove it.",
                        "还没对：你的代码调用了 exit()，这会让内核停止运行。请删掉它。",
                    )
                )
        finally:
            _feedback.language = None
        if interrupted:
            raise interrupted[0]

    return wrapper


def _first(iterable: Any, count: int) -> list[Any]:
    """At most `count` items of `iterable` (an endless generator cannot hang the check)."""
    return list(itertools.islice(iter(iterable), count))


def _floats(values: Any) -> list[float]:
    """A tensor, array, list or number as a flat list of Python floats."""
    if isinstance(values, mg.Tensor):
        values = values.detach().numpy()
    return [float(v) for v in np.asarray(values, dtype=float).ravel()]


def _letter(prediction: Any) -> str | None:
    if isinstance(prediction, str) and prediction.strip().upper() in ("A", "B", "C"):
        return prediction.strip().upper()
    return None


def _unanswered(prediction: Any, example: str) -> bool:
    if prediction is None or prediction is Ellipsis:
        _say(
            _t(
                f"No answer yet: replace `None` in the cell above with your prediction "
                f"({example}), run that cell, then run this one.",
                f"还没有作答：把上面单元格里的 `None` 换成你的预测（{example}），"
                "运行那个单元格，再运行这一个。",
            )
        )
        return True
    return False


def _not_a_letter(prediction: Any) -> bool:
    return _not_yet(
        _t(
            f"{_show(prediction)} is not one of the letters A, B, C.",
            f"{_show(prediction)} 不是 A、B、C 中的一个字母。",
        ),
        _t('e.g. "A"', '例如 "A"'),
    )


def _a_letter() -> str:
    return _t('a letter: "A", "B" or "C"', '一个字母："A"、"B" 或 "C"')


# --------------------------------------------------------------------------------------------
# Predict, then run
# --------------------------------------------------------------------------------------------


@_never_raises
def check_version(prediction: Any) -> bool:
    """Q1: `c = out.detach(); c.mul_(2)`: what is `out._version` afterwards?"""
    if _unanswered(prediction, _t("a whole number such as 0", "一个整数，例如 0")):
        return False
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    c.mul_(2)
    actual = out._version
    _say(
        _t(
            f"Ran it: out._version is {actual} (and c._version is {c._version}).",
            f"运行结果：out._version 是 {actual}（c._version 是 {c._version}）。",
        )
    )
    if isinstance(prediction, str):
        return _not_yet(
            _t(
                f"your prediction {_show(prediction)} is text. Write the number without quotes.",
                f"你的预测 {_show(prediction)} 是字符串。请去掉引号，直接写数字。",
            ),
            _t("e.g. prediction_a1 = 0", "例如 prediction_a1 = 0"),
        )
    if isinstance(prediction, float) and prediction.is_integer():
        prediction = int(prediction)  # 1.0 means 1
    if isinstance(prediction, bool) or not isinstance(prediction, (int, np.integer)):
        return _not_yet(
            _t(
                f"your prediction {_show(prediction)} is not a whole number.",
                f"你的预测 {_show(prediction)} 不是整数。",
            ),
            _t("write e.g. prediction_a1 = 0", "写成例如 prediction_a1 = 0"),
        )
    if prediction == actual:
        return _solved(
            _t(
                "detach() gives a new tensor that shares out's memory AND its version counter, "
                "so an in-place change through c is counted on out too. That is how backward "
                "notices it.",
                "detach() 返回的新张量与 out 共享内存，也共享版本计数器，所以通过 c 做的原地操作"
                "也记在 out 上。反向传播正是靠这一点发现修改的。",
            )
        )
    if prediction == 0:
        return _not_yet(
            _t(
                "out._version is 1, not 0. c is a different object, but it shares out's version "
                "counter (only .data gets a fresh one), so c.mul_(2) bumps both.",
                "out._version 是 1，不是 0。c 是另一个对象，但它与 out 共享版本计数器"
                "（只有 .data 会得到一个新的计数器），所以 c.mul_(2) 让两者都加一。",
            ),
            _t("notebook 04, section 2.", "见 notebook 04 第 2 节。"),
        )
    return _not_yet(
        _t(
            f"out._version is {actual}, not {_show(prediction)}: one in-place operation adds "
            "exactly one, and c shares out's counter.",
            f"out._version 是 {actual}，不是 {_show(prediction)}：每次原地操作恰好加一，"
            "而 c 与 out 共享计数器。",
        ),
        _t(
            "count the in-place operations, and ask who shares the counter.",
            "数一数有几次原地操作，再想想谁共享这个计数器。",
        ),
    )


@_never_raises
def check_numpy_error(prediction: Any) -> bool:
    """Q2: `x` requires grad. Which raises: A x.detach().numpy(), B x.numpy(), C x.tolist()?"""
    if _unanswered(prediction, _a_letter()):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_a_letter(prediction)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    outcomes = {}
    for key, action in (
        ("A", lambda: x.detach().numpy()),
        ("B", lambda: x.numpy()),
        ("C", lambda: x.tolist()),
    ):
        try:
            action()
            outcomes[key] = _t("runs", "正常运行")
        except RuntimeError as error:
            outcomes[key] = _t("raises ", "抛出 ") + _describe_error(error)
    for key, label in (("A", "x.detach().numpy()"), ("B", "x.numpy()"), ("C", "x.tolist()")):
        _say(
            _t(
                f"Ran it: {key} {label:20} {outcomes[key]}",
                f"运行结果：{key} {label:20} {outcomes[key]}",
            )
        )
    if letter == "B":
        return _solved(
            _t(
                "numpy() refuses a tensor that requires grad, because the array would let you "
                "change it with no record in the graph. detach() first makes the intent "
                "explicit; tolist() copies the numbers into Python floats, so it is allowed.",
                "numpy() 拒绝需要梯度的张量，因为得到的数组能在计算图毫无记录的情况下修改它。"
                "先调用 detach() 能把意图说清楚；tolist() 把数值复制成 Python 浮点数，所以允许。",
            )
        )
    if letter == "C":
        return _not_yet(
            _t(
                "tolist() works: it copies the values into plain Python numbers, which cannot "
                "change the tensor. The refusal is about handing out an array that shares "
                "memory.",
                "tolist() 可以运行：它把数值复制成普通的 Python 数字，改它们不会改到张量。"
                "被拒绝的是交出一个共享内存的数组。",
            ),
            _t(
                "which of the three would give you memory you could write into?",
                "三者中哪一个会交给你一块可以写入的内存？",
            ),
        )
    return _not_yet(
        _t(
            "x.detach().numpy() is the recommended fix, and it runs. The error comes from "
            "calling numpy() directly on a tensor that requires grad.",
            "x.detach().numpy() 正是推荐的写法，它可以运行。报错来自直接对需要梯度的张量调用 "
            "numpy()。",
        ),
        _t(
            "which of the three has no detach() in front of numpy()?",
            "三者中哪一个在 numpy() 前面没有 detach()？",
        ),
    )


@_never_raises
def check_data_zero(prediction: Any) -> bool:
    """Q3: `out = a.sigmoid(); out.data.zero_(); out.sum().backward()`: what is a.grad?"""
    if _unanswered(prediction, _a_letter()):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_a_letter(prediction)
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    _say(
        _t(
            f"Ran it: no error, a.grad = {a.grad}  (the correct gradient is "
            "[0.1966, 0.1050, 0.0452])",
            f"运行结果：没有报错，a.grad = {a.grad}（正确的梯度是 [0.1966, 0.1050, 0.0452]）",
        )
    )
    if letter == "B":
        return _solved(
            _t(
                "SigmoidBackward0 computes the gradient from the saved output, which "
                ".data.zero_() overwrote. .data has its own version counter, so out._version "
                "stayed 0 and backward could not tell: a silently wrong gradient. Through "
                "detach() it would have raised.",
                "SigmoidBackward0 用保存的输出计算梯度，而 .data.zero_() 把它覆盖了。.data "
                "有自己的版本计数器，所以 out._version 仍是 0，反向传播无从察觉：梯度悄无声息地"
                "错了。如果通过 detach() 修改，就会报错。",
            )
        )
    if letter == "A":
        return _not_yet(
            _t(
                "no error is raised. The same change through out.detach() would raise, because "
                "the detached tensor shares out's version counter; out.data does not, so the "
                "check is blind.",
                "没有报错。同样的修改如果通过 out.detach() 进行就会报错，因为分离出的张量与 out "
                "共享版本计数器；out.data 不共享，所以检查看不见这次修改。",
            ),
            _t("notebook 04, sections 4 and 5.", "见 notebook 04 第 4、5 节。"),
        )
    return _not_yet(
        _t(
            "the gradient is not the correct one: sigmoid's backward reads the saved output "
            "out, and you zeroed it in place.",
            "得到的梯度不是正确的：sigmoid 的反向计算读取保存的输出 out，而你原地把它清零了。",
        ),
        _t(
            "which value does SigmoidBackward0 multiply with?",
            "SigmoidBackward0 乘的是哪个值？",
        ),
    )


@_never_raises
def check_new_leaf(prediction: Any) -> bool:
    """Q4: `c = out.detach().requires_grad_(True); (c * 3).sum().backward()`: who has a .grad?"""
    if _unanswered(
        prediction, _t('a set of names such as {"a", "out"}', '一个名字集合，例如 {"a", "out"}')
    ):
        return False
    if isinstance(prediction, str):
        prediction = [prediction]
    try:
        names = {str(name).strip() for name in _first(prediction, 10)}
    except TypeError:
        return _not_yet(
            _t(
                f"{_show(prediction)} is not a set of names.",
                f"{_show(prediction)} 不是一个名字集合。",
            ),
            _t('e.g. prediction_a4 = {"a"}', '例如 prediction_a4 = {"a"}'),
        )
    unknown = names - {"a", "out", "c"}
    if unknown:
        return _not_yet(
            _t(
                f"unknown name(s) {sorted(unknown)}: choose among a, out, c.",
                f"未知的名字 {sorted(unknown)}：请在 a、out、c 中选择。",
            )
        )
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach().requires_grad_(True)
    (c * 3).sum().backward()
    found = {"a": a._grad, "out": out._grad, "c": c._grad}
    _say(_t("Ran it: ", "运行结果：") + ", ".join(f"{k}.grad = {v}" for k, v in found.items()))
    if names == {"c"}:
        return _solved(
            _t(
                "c is a new leaf that requires grad, so it gets its own .grad. The graph built "
                "from c has no edge back to out or a, so they receive nothing (and out, a "
                "non-leaf, would not keep a .grad anyway without retain_grad()).",
                "c 是一个需要梯度的新叶子张量，所以它有自己的 .grad。从 c 构建的计算图没有连回 "
                "out 或 a 的边，所以它们什么也得不到（何况 out 是非叶子张量，不调用 "
                "retain_grad() 本来也不会保留 .grad）。",
            )
        )
    if "c" not in names:
        return _not_yet(
            _t(
                "c does get a gradient: after requires_grad_(True) a detached tensor is a new "
                "leaf (the popular claim that it 'can never have a gradient' is wrong, "
                "notebook 09).",
                "c 确实得到了梯度：调用 requires_grad_(True) 之后，分离出的张量就是一个新的"
                "叶子张量（流行说法“它永远不会有梯度”是错的，见 notebook 09）。",
            )
        )
    return _not_yet(
        _t(
            "a and out get nothing: the new graph starts at c, and detach() left no edge back "
            "to the old one.",
            "a 和 out 什么也得不到：新的计算图从 c 开始，detach() 没有留下连回旧计算图的边。",
        ),
        _t(
            "draw it: viz.draw((c * 3).sum(), names=dict(a=a, out=out, c=c)).",
            "画出来看看：viz.draw((c * 3).sum(), names=dict(a=a, out=out, c=c))。",
        ),
    )


@_never_raises
def check_detach_inplace(prediction: Any) -> bool:
    """Q5: `b = a * 2; s = b.sum(); b.detach_(); s.backward()`: what happens to a.grad?"""
    if _unanswered(prediction, _a_letter()):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_a_letter(prediction)
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    s = b.sum()
    b.detach_()
    s.backward()
    _say(
        _t(
            f"Ran it: no error, a.grad = {a.grad}; b is now a leaf: b.grad_fn = {b.grad_fn}",
            f"运行结果：没有报错，a.grad = {a.grad}；b 现在是叶子张量：b.grad_fn = {b.grad_fn}",
        )
    )
    if letter == "C":
        return _solved(
            _t(
                "detach_() changed the tensor b (it is now a leaf that does not require grad), "
                "but SumBackward0 recorded its edge to MulBackward0 before that. Backward "
                "follows the recorded edges, so the gradient 2 still reaches a.",
                "detach_() 改变了张量 b（它现在是不需要梯度的叶子张量），但 SumBackward0 在此之前"
                "已经记录了指向 MulBackward0 的边。反向传播沿着记录下的边走，"
                "所以梯度 2 仍然到达 a。",
            )
        )
    if letter == "A":
        return _not_yet(
            _t(
                "there is no error. detach_() only refuses views; on b it works, and s was "
                "built before the call.",
                "不会报错。detach_() 只拒绝视图；对 b 调用没有问题，而且 s 是在调用之前构建的。",
            ),
            _t(
                "notebook 03, section 'Edges recorded earlier survive'.",
                "见 notebook 03 “之前记录的边依然存在”一节。",
            ),
        )
    return _not_yet(
        _t(
            "a.grad is not None: detach_() cuts b off from what comes after, not the edges "
            "that s = b.sum() recorded before it.",
            "a.grad 不是 None：detach_() 切断的是 b 与之后运算的联系，而不是 s = b.sum() "
            "在它之前记录下的边。",
        ),
        _t(
            "draw s before and after: viz.cut(lambda: b.detach_(), s).",
            "画出 s 调用前后的样子：viz.cut(lambda: b.detach_(), s)。",
        ),
    )


# --------------------------------------------------------------------------------------------
# Broken training loops
# --------------------------------------------------------------------------------------------


def _regression_batches(count: int = 4) -> list[tuple[mg.Tensor, mg.Tensor]]:
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(count):
        x = rng.normal(size=(8, 2)).astype(np.float32)
        y = (x @ np.array([[1.5], [-2.0]]) + 0.5).astype(np.float32)
        batches.append((mg.from_numpy(x), mg.from_numpy(y)))
    return batches


def _reference_epoch(model: nn.Module, opt: optim.Optimizer, batches: list) -> float:
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(batches)


def _fresh_regression() -> tuple[nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    return model, optim.SGD(model.parameters(), lr=0.05)


@_never_raises
def check_loss_accumulation(train_epoch: Callable[..., Any]) -> bool:
    """Loop 1: `train_epoch(model, opt, batches)` returns the mean loss and keeps no graph."""
    batches = _regression_batches()
    model, opt = _fresh_regression()
    expected = _reference_epoch(model, opt, batches)
    model, opt = _fresh_regression()
    result = train_epoch(model, opt, batches)
    if isinstance(result, mg.Tensor) and result.grad_fn is not None:
        kept = sum(f.name == "MseLossBackward0" for f in viz.snapshot(result).functions)
        return _not_yet(
            _t(
                f"train_epoch returned {_show(result)}. It has a grad_fn, so it still points at "
                f"the graph of every batch: {kept} MseLossBackward0 nodes (one per batch) stay "
                "alive as long as the result does. Over a real epoch that is the memory leak of "
                "notebook 06.",
                f"train_epoch 返回了 {_show(result)}。它带有 grad_fn，所以仍然指向每个批次的"
                f"计算图：只要这个结果还在，{kept} 个 MseLossBackward0 节点（每个批次一个）就一直"
                "存活。换成真实的一个 epoch，这就是 notebook 06 讲的内存泄漏。",
            ),
            _t(
                "accumulate plain numbers: total += loss.item() (or loss.detach()).",
                "累加普通的数字：total += loss.item()（或 loss.detach()）。",
            ),
        )
    try:
        value = _floats(result)
    except (TypeError, ValueError):
        return _not_yet(
            _t(
                f"train_epoch returned {_show(result)}, not a number.",
                f"train_epoch 返回了 {_show(result)}，不是一个数。",
            )
        )
    if len(value) != 1 or not np.isclose(value[0], expected, rtol=1e-4, atol=1e-6):
        return _not_yet(
            _t(
                f"train_epoch returned {_show(result)}, but the mean loss over the epoch is "
                f"{expected:.4f}. Keep the training step as it was; change only what you add up.",
                f"train_epoch 返回了 {_show(result)}，但这个 epoch 的平均损失是 {expected:.4f}。"
                "训练步骤保持原样，只改你累加的东西。",
            ),
        )
    return _solved(
        _t(
            f"The mean loss {value[0]:.4f} comes back as a plain number, so each batch's graph "
            "is freed as soon as the next batch starts.",
            f"平均损失 {value[0]:.4f} 以普通数字的形式返回，所以每个批次的计算图在下一个批次开始时"
            "就被释放了。",
        )
    )


def _decay_problem() -> tuple[mg.Tensor, mg.Tensor, mg.Tensor]:
    x = mg.tensor([[1.0], [2.0], [-1.0], [0.5]])
    y = mg.tensor([[2.0], [3.5], [-2.5], [1.0]])
    w = mg.tensor([0.5], requires_grad=True)
    return w, x, y


@_never_raises
def check_weight_decay(train_step: Callable[..., Any]) -> bool:
    """Loop 2: `train_step(w, x, y)` must compute the gradient at the weights the forward used."""
    w, x, y = _decay_problem()
    w0 = _floats(w)[0]
    xs, ys = _floats(x), _floats(y)
    # d/dw [mean((x w - y)^2) + sum(w^2)] at the weights of the forward pass
    right = float(np.mean([2 * (xi * w0 - yi) * xi for xi, yi in zip(xs, ys, strict=True)]))
    right += 2 * w0
    lr = 0.1
    try:
        train_step(w, x, y)
    except RuntimeError as error:
        if "modified by an inplace operation" in _message(error):
            return _not_yet(
                _t(
                    "backward now raises 'modified by an inplace operation'. Good news: the "
                    "version check caught the early change that .data used to hide. w**2 saved "
                    "w for backward, and the shrink changed it before backward ran.",
                    "现在反向传播报错 'modified by an inplace operation'（意思是：计算梯度所需的"
                    "某个张量已被原地操作修改）。这是好消息：版本检查抓住了以前被 .data 掩盖的"
                    "过早修改。w**2 为反向传播保存了 w，而收缩在反向传播之前就改了它。",
                ),
                _t(
                    "move the shrink after loss.backward(), inside the `with mg.no_grad():` block.",
                    "把收缩移到 loss.backward() 之后，放进 `with mg.no_grad():` 块里。",
                ),
            )
        raise
    if w.grad is None:
        return _not_yet(
            _t(
                "after train_step, w.grad is None: backward never reached w.",
                "train_step 之后 w.grad 是 None：反向传播根本没有到达 w。",
            )
        )
    grad = _floats(w.grad)[0]
    if not np.isclose(grad, right, atol=1e-4):
        return _not_yet(
            _t(
                f"w.grad is {grad:.4f}, but the gradient of the loss at the weights the forward "
                f"pass used (w = {w0}) is {right:.4f}. The w.data.mul_(0.9) ran between forward "
                "and backward, so the backward of w**2 read the shrunken w. No error, because "
                "changes through .data are not counted on w's version counter.",
                f"w.grad 是 {grad:.4f}，但损失在前向传播所用权重（w = {w0}）处的梯度是 "
                f"{right:.4f}。w.data.mul_(0.9) 在前向和反向传播之间执行，所以 w**2 的反向计算"
                "读到的是收缩后的 w。没有报错，是因为通过 .data 的修改不计入 w 的版本计数器。",
            ),
            _t(
                "call loss.backward() first, then shrink and step under `with mg.no_grad():`.",
                "先调用 loss.backward()，再在 `with mg.no_grad():` 中收缩并更新。",
            ),
        )
    new = _floats(w)[0]
    shrink_then_step = w0 * 0.9 - lr * right
    step_then_shrink = (w0 - lr * right) * 0.9
    if np.isclose(new, w0 - lr * right, atol=1e-5):
        return _not_yet(
            _t(
                f"the gradient is right ({grad:.4f}), but w became {new:.4f}: the 10 % shrink "
                "is gone. Keep the weight decay, just apply it after backward.",
                f"梯度是对的（{grad:.4f}），但 w 变成了 {new:.4f}：10 % 的收缩不见了。保留权重"
                "衰减，只是把它放到反向传播之后。",
            ),
        )
    if not (
        np.isclose(new, shrink_then_step, atol=1e-5) or np.isclose(new, step_then_shrink, atol=1e-5)
    ):
        return _not_yet(
            _t(
                f"the gradient is right ({grad:.4f}), but w became {new:.4f}; expected "
                f"{step_then_shrink:.4f} (SGD step, then shrink by 10 %).",
                f"梯度是对的（{grad:.4f}），但 w 变成了 {new:.4f}；应该是 "
                f"{step_then_shrink:.4f}（先走一步 SGD，再收缩 10 %）。",
            ),
        )
    return _solved(
        _t(
            f"w.grad = {grad:.4f} is the gradient at the weights the forward pass used, and w "
            f"moved to {new:.4f}. Updating after backward under no_grad keeps the version check "
            "on your side.",
            f"w.grad = {grad:.4f} 是前向传播所用权重处的梯度，w 更新到了 {new:.4f}。"
            "在反向传播之后、在 no_grad 下更新，版本检查就站在你这一边。",
        )
    )


def _gan(seed: int = 0) -> tuple[nn.Module, nn.Module, optim.Optimizer, mg.Tensor, mg.Tensor]:
    mg.manual_seed(seed)
    G = nn.Linear(1, 1)
    D = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
    opt_D = optim.SGD(D.parameters(), lr=0.05)
    real, z = mg.randn(16, 1) * 0.5 + 3.0, mg.randn(16, 1)
    return G, D, opt_D, real, z


@_never_raises
def check_gan_d_step(d_step: Callable[..., Any]) -> bool:
    """Loop 3: `d_step(G, D, opt_D, real, z)` returns `fake`; G must get no gradient from it."""
    G, D, opt_D, real, z = _gan()
    fake = d_step(G, D, opt_D, real, z)
    if not isinstance(fake, mg.Tensor):
        return _not_yet(
            _t(
                f"d_step should return fake (a tensor), not {_show(fake)}.",
                f"d_step 应该返回 fake（一个张量），而不是 {_show(fake)}。",
            )
        )
    if G.weight.grad is not None or G.bias.grad is not None:
        return _not_yet(
            _t(
                f"after the D step, G.weight.grad is {G.weight.grad}. The discriminator's loss "
                "travelled back through fake into the generator: a gradient that helps D, "
                "sitting in G's .grad. And that backward freed G's part of the graph.",
                f"D 的训练步骤之后，G.weight.grad 是 {G.weight.grad}。判别器的损失经由 fake "
                "反向传到了生成器：一个帮助 D 的梯度落进了 G 的 .grad。而且这次反向传播释放了"
                "计算图中 G 的那一部分。",
            ),
            _t(
                "give D a detached copy in the D step: D(fake.detach()).",
                "在 D 的训练步骤中交给 D 一个分离出的张量：D(fake.detach())。",
            ),
        )
    if not all(p.grad is not None for p in D.parameters()):
        return _not_yet(
            _t(
                "some of D's parameters have no .grad: the D step must still train D.",
                "D 的某些参数没有 .grad：D 的训练步骤仍然要训练 D。",
            )
        )
    if fake.grad_fn is None:
        return _not_yet(
            _t(
                "G got no gradient, but the returned fake has no grad_fn either, so the G step "
                "cannot train G through it (was it made under no_grad, or detached itself?).",
                "G 没有得到梯度，但返回的 fake 也没有 grad_fn，所以 G 的训练步骤无法通过它训练 G"
                "（它是在 no_grad 下生成的，还是本身就被分离了？）。",
            ),
            _t(
                "keep fake = G(z) as it is and detach only the copy passed to D.",
                "fake = G(z) 保持不变，只对传给 D 的那份调用 detach()。",
            ),
        )
    bce = nn.BCEWithLogitsLoss()
    try:
        bce(D(fake), mg.ones(16, 1)).backward()  # the G step that follows
    except RuntimeError as error:
        return _not_yet(
            _t(
                f"the G step after your D step fails: {_describe_error(error)}",
                f"在你的 D 训练步骤之后，G 的训练步骤失败了：{_describe_error(error)}",
            )
        )
    return _solved(
        _t(
            "G has no .grad after the D step, D's parameters do, and the G step can still go "
            f"back through fake to G (G.weight.grad is now {G.weight.grad}).",
            "D 的训练步骤之后 G 没有 .grad，D 的参数有，而 G 的训练步骤仍然可以经由 fake "
            f"反向传到 G（现在 G.weight.grad 是 {G.weight.grad}）。",
        )
    )


@_never_raises
def check_weight_log(record_weights: Callable[..., Any]) -> bool:
    """Loop 4: `record_weights(w)` must return the value of w after each of 3 SGD steps."""
    reference = []
    w = mg.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    for _ in range(3):
        loss = ((w - 2.0) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        reference.append(w.item())
    w = mg.tensor([0.0], requires_grad=True)
    try:
        history = record_weights(w)
    except RuntimeError as error:
        if "numpy()" in _message(error):
            return _not_yet(
                _t(
                    f"record_weights raised: {_message(error)} numpy() would hand out an array "
                    "that shares w's memory, and w requires grad.",
                    f"record_weights 报错：{_message(error)}（numpy() 会交出一个与 w 共享内存的"
                    "数组，而 w 需要梯度。）",
                ),
                _t(
                    "take the values out of the graph first: w.detach().numpy().",
                    "先把数值从计算图中取出来：w.detach().numpy()。",
                ),
            )
        raise
    try:
        logged = [_floats(entry)[0] for entry in _first(history, 4)]
    except (TypeError, ValueError, IndexError):
        return _not_yet(
            _t(
                f"record_weights returned {_show(history)}, not a list of values.",
                f"record_weights 返回了 {_show(history)}，不是一个数值列表。",
            )
        )
    mine, right = [round(v, 4) for v in logged], [round(v, 4) for v in reference]
    _say(_t(f"Your log: {mine}   expected: {right}", f"你的记录：{mine}   应为：{right}"))
    if len(logged) != 3:
        return _not_yet(
            _t(
                f"expected 3 entries, one per step, got {len(logged)}.",
                f"应有 3 条记录，每步一条，实际有 {len(logged)} 条。",
            )
        )
    if np.allclose(logged, reference[-1]) and not np.allclose(logged, reference):
        return _not_yet(
            _t(
                "every entry shows the final value. w.detach().numpy() shares memory with w, "
                "and opt.step() changes w in place, so all the arrays in your list are views of "
                "the same numbers.",
                "每条记录显示的都是最终值。w.detach().numpy() 与 w 共享内存，而 opt.step() "
                "原地修改 w，所以你列表里的所有数组看的都是同一组数。",
            ),
            _t(
                "store a copy: w.detach().numpy().copy() (or w.item() / w.tolist()).",
                "存一份副本：w.detach().numpy().copy()（或 w.item() / w.tolist()）。",
            ),
        )
    if not np.allclose(logged, reference, atol=1e-6):
        return _not_yet(
            _t(
                "the logged values differ from the weights after each step.",
                "记录下的值与每一步之后的权重不一致。",
            )
        )
    return _solved(
        _t(
            "Each entry is a snapshot of w after its step, safe from later updates.",
            "每条记录都是 w 在那一步之后的快照，不受之后更新的影响。",
        )
    )


def _sequence() -> tuple[mg.Tensor, mg.Tensor]:
    t = np.arange(31, dtype=np.float32)
    wave = np.sin(t / 3.0).astype(np.float32).reshape(-1, 1)
    return mg.from_numpy(wave[:-1].copy()), mg.from_numpy(wave[1:].copy())


def _rnn() -> tuple[nn.Module, nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    cell, readout = nn.RNNCell(1, 4), nn.Linear(4, 1)
    opt = optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.1)
    return cell, readout, opt


def _reference_tbptt(chunk: int = 5) -> list[float]:
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    h = mg.zeros(1, 4)
    losses = []
    for start in range(0, xs.shape[0], chunk):
        h = h.detach()
        loss = 0.0
        for t in range(start, start + chunk):
            h = cell(xs[t : t + 1], h)
            loss = loss + F.mse_loss(readout(h), ys[t : t + 1])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@_never_raises
def check_tbptt(train_rnn: Callable[..., Any]) -> bool:
    """Loop 5: `train_rnn(cell, readout, opt, xs, ys)` trains in chunks of 5, keeping h's value."""
    expected = _reference_tbptt()
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    try:
        losses = train_rnn(cell, readout, opt, xs, ys)
    except RuntimeError as error:
        if "second time" in _message(error):
            return _not_yet(
                _t(
                    "the second chunk's backward fails with 'Trying to backward through the "
                    "graph a second time'. h still carries the first chunk's graph, which the "
                    "first backward freed.",
                    "第二段的反向传播失败，报错 'Trying to backward through the graph a second "
                    "time'（意思是：试图第二次沿同一个计算图反向传播）。h 仍然带着第一段的计算图，"
                    "而第一次反向传播已经把它释放了。",
                ),
                _t(
                    "at the start of each chunk, keep h's value but drop its history: "
                    "h = h.detach().",
                    "在每一段开始时，保留 h 的值、丢掉它的历史：h = h.detach()。",
                ),
            )
        if "modified by an inplace operation" in _message(error):
            return _not_yet(
                _t(
                    "with retain_graph=True the old graph survives, but opt.step() changed "
                    "weights it saved, so the version check refuses. Keeping the whole past is "
                    "the wrong fix anyway: memory grows with every chunk.",
                    "用了 retain_graph=True，旧的计算图保留了下来，但 opt.step() 修改了它保存的"
                    "权重，于是版本检查拒绝执行。何况保留全部历史本来就是错误的修法：内存会随每一段"
                    "增长。",
                ),
                _t(
                    "remove retain_graph=True and cut the history instead: h = h.detach().",
                    "去掉 retain_graph=True，改为切断历史：h = h.detach()。",
                ),
            )
        raise
    got = _floats(losses)
    if len(got) != len(expected):
        return _not_yet(
            _t(
                f"expected {len(expected)} chunk losses, got {len(got)}.",
                f"应有 {len(expected)} 个分段损失，实际有 {len(got)} 个。",
            )
        )
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        mine, right = [round(v, 4) for v in got[:3]], [round(v, 4) for v in expected[:3]]
        return _not_yet(
            _t(
                f"your loop runs, but its chunk losses {mine}... differ from truncated BPTT's "
                f"{right}... Did you restart h from zeros? detach() keeps the value of h and "
                "drops only its history.",
                f"你的循环能运行，但它的分段损失 {mine}... 与截断的时间反向传播的 {right}... "
                "不同。你是不是让 h 从 zeros 重新开始了？detach() 保留 h 的值，只丢掉它的历史。",
            ),
        )
    return _solved(
        _t(
            f"All {len(got)} chunks trained; each backward stops at the start of its chunk, "
            "while the hidden state carries on from one chunk to the next.",
            f"全部 {len(got)} 段都训练了；每次反向传播停在本段的开头，而隐状态从一段延续到下一段。",
        )
    )


def _fit_problem() -> tuple[nn.Module, optim.Optimizer, list, mg.Tensor, mg.Tensor]:
    batches = _regression_batches()
    model, opt = _fresh_regression()
    val_x, val_y = batches[0]
    return model, opt, batches[1:], val_x, val_y


def _reference_fit() -> list[float]:
    model, opt, batches, val_x, val_y = _fit_problem()
    losses = []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with mg.no_grad():
            losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


@_never_raises
def check_eval_loop(fit: Callable[..., Any]) -> bool:
    """Loop 6: `fit(model, opt, batches, val_x, val_y)` trains and logs each validation loss."""
    expected = _reference_fit()
    model, opt, batches, val_x, val_y = _fit_problem()
    try:
        losses = fit(model, opt, batches, val_x, val_y)
    except RuntimeError as error:
        if "does not require grad" in _message(error):
            return _not_yet(
                _t(
                    "loss.backward() raises 'element 0 of tensors does not require grad and "
                    "does not have a grad_fn': the training step runs inside `with "
                    "mg.no_grad():`, so nothing was recorded and backward has no graph to walk.",
                    "loss.backward() 报错 'element 0 of tensors does not require grad and does "
                    "not have a grad_fn'（意思是：第 0 个张量不需要梯度，也没有 grad_fn）：训练"
                    "步骤在 `with mg.no_grad():` 里运行，什么也没记录，反向传播没有计算图可走。",
                ),
                _t(
                    "keep no_grad around the validation line only, or wrap the training step in "
                    "`with mg.enable_grad():`.",
                    "只让 no_grad 包住验证那一行，或者把训练步骤放进 `with mg.enable_grad():`。",
                ),
            )
        raise
    if not mg.is_grad_enabled():
        return _not_yet(
            _t(
                "after fit() returned, grad mode was still off: a plain set_grad_enabled(False) "
                "stays in force until it is switched back, and silently stops every later "
                "training step from recording.",
                "fit() 返回之后，梯度模式仍然是关闭的：单独调用的 set_grad_enabled(False) "
                "会一直生效，直到被切换回来，并且悄悄地让之后的每个训练步骤都不再记录。",
            ),
            _t(
                "use `with mg.no_grad():` (it restores the mode at the end of the block).",
                "使用 `with mg.no_grad():`（它在块结束时恢复原来的模式）。",
            ),
        )
    got = _floats(_first(losses, len(expected) + 1))
    mine, right = [round(v, 4) for v in got], [round(v, 4) for v in expected]
    _say(
        _t(
            f"Your validation losses: {mine}   expected: {right}",
            f"你的验证损失：{mine}   应为：{right}",
        )
    )
    if len(got) != len(expected):
        return _not_yet(
            _t(
                f"expected {len(expected)} validation losses, one per step, got {len(got)}.",
                f"应有 {len(expected)} 个验证损失，每步一个，实际有 {len(got)} 个。",
            )
        )
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        return _not_yet(
            _t(
                "the validation losses differ from training on every batch and validating "
                "after each step. Keep the loop as it was; change only where recording is on "
                "or off.",
                "这些验证损失与“每个批次都训练、每步之后都验证”的结果不同。循环保持原样，只改"
                "在哪里开启或关闭记录。",
            ),
        )
    return _solved(
        _t(
            "the training step records a graph and the validation loss does not: no_grad "
            "where no gradient is needed, enable_grad (or no no_grad at all) where backward "
            "must run.",
            "训练步骤记录计算图，验证损失则不记录：不需要梯度的地方用 no_grad，必须反向传播的"
            "地方用 enable_grad（或者干脆不用 no_grad）。",
        )
    )
