"""Automatic checks for the exercises of the two lessons after 08: 09_hooks_and_custom_functions
(E1-E4: check_reversing_hook, check_clip_hook, check_grad_reverse, check_ctx_attribute) and
09_higher_order_gradients (E1-E4: check_exp_saves, check_gradient_penalty, check_inner_step,
check_copying_pack_hook).

    import lesson_checks as check
    check.check_reversing_hook(prediction_e1)   # predict, then run: a letter
    check.check_clip_hook(clip_grad)            # the learner's hook, Function or function

The same feedback as notebook 10's course_checks: "Well done! ..." when the exercise is solved,
"Not yet: ..." with a hint otherwise, and "No answer yet: ..." while the answer is still the
`None` or the code the notebook gives (so a stored notebook shows no hint before the learner has
tried). Every check tests the conditions its exercise states, by running the learner's code on
its own tensors; each returns None and never raises, so the notebook runs top to bottom in any
state. A check runs in a worker thread with grad mode on and gives up after TIME_LIMIT seconds.

Feedback is in English or Chinese: `set_language("zh")` (the Chinese notebooks' copy,
notebooks/zh/lesson_checks.py, does that), or `lang="zh"` on one call. Messages are written in
both languages side by side, `_t("English", "中文")`, with the terms of docs/glossary.md.
"""

from __future__ import annotations

import functools
import re
import textwrap
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg

__all__ = [
    "GIVEN",
    "LANGUAGES",
    "TIME_LIMIT",
    "check_clip_hook",
    "check_copying_pack_hook",
    "check_ctx_attribute",
    "check_exp_saves",
    "check_grad_reverse",
    "check_gradient_penalty",
    "check_inner_step",
    "check_reversing_hook",
    "get_language",
    "set_language",
]

WIDTH = 96  # columns of a feedback line (a Chinese character takes two)
TIME_LIMIT = 10.0  # seconds one check may take, the learner's code included
LANGUAGES = ("en", "zh")

# The code the notebooks give to repair or complete, exactly as in their cells: the same code
# means "not tried yet" (tests/test_lesson_checks.py checks that the notebooks hold these).
GIVEN = {
    "clip_grad": """\
def clip_grad(grad):
    return grad  # replace this line
""",
    "GradientReversal": """\
class GradientReversal(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        pass  # your code: the values of x, unchanged

    @staticmethod
    def backward(ctx, grad):
        pass  # your code: -lam times grad for x; and for lam?
""",
    "gradient_penalty": """\
def gradient_penalty(w, inputs):
    out = (inputs @ w).tanh().sum()
    (g,) = mg.autograd.grad(out, inputs)
    return (g**2).sum()
""",
    "inner_step": """\
def inner_step(w, loss_fn, lr):
    (g,) = mg.autograd.grad(loss_fn(w), w)
    return w - lr * g.detach()
""",
}

# ---- language and printing ---------------------------------------------------------------

_language = "en"
_local = threading.local()  # the running check's language and collected lines (per thread)


def set_language(language: str) -> None:
    """Give every check's feedback in `language`: "en" (English) or "zh" (Chinese)."""
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"unknown feedback language {language!r}; choose one of en, zh")
    _language = language


def get_language() -> str:
    """The language checks speak when they are not given `lang=`: "en" or "zh"."""
    return _language


def _t(en: str, zh: str) -> str:
    """One message in both languages; returns the one the running check speaks."""
    return zh if (getattr(_local, "language", None) or _language) == "zh" else en


_WIDE_CHARS = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # Chinese characters, punctuation
_WIDE = re.compile(f"[{_WIDE_CHARS}]")
# one wide character, a run of other non-space characters (a word, code), or spaces
_PIECES = re.compile(f"[{_WIDE_CHARS}]|[^\\s{_WIDE_CHARS}]+|\\s+")
_NO_LINE_START = "，。：；！？）、」』》”’"  # punctuation that must not start a line


def _wrap(paragraph: str) -> str:
    """Fill a paragraph to WIDTH columns; Chinese may break between any two characters."""
    if not _WIDE.search(paragraph):
        return textwrap.fill(paragraph, WIDTH)
    lines, line, columns = [], "", 0
    for piece in _PIECES.findall(paragraph):
        piece = " " if piece.isspace() else piece
        width = sum(2 if _WIDE.match(ch) else 1 for ch in piece)
        if line and columns + width > WIDTH and piece != " " and piece not in _NO_LINE_START:
            lines.append(line.rstrip())
            line, columns = "", 0
        if line or piece != " ":
            line, columns = line + piece, columns + width
    return "\n".join([*lines, line.rstrip()] if line.strip() else lines)


def _say(text: str) -> None:
    """Collect one feedback paragraph (printed by the caller's thread when the check ends)."""
    _local.lines.extend(_wrap(p) if p else "" for p in text.strip().split("\n"))


def _solved(text: str) -> None:
    _say(_t("Well done! ", "做得好！") + text)


def _not_yet(text: str, hint: str | None = None) -> None:
    _say(
        _t("Not yet: ", "还没对：") + text + ("\n" + _t("Hint: ", "提示：") + hint if hint else "")
    )


def _no_answer(what: str) -> None:
    _say(_t("No answer yet: ", "还没有作答：") + what)


def _show(value: Any) -> str:
    """repr(value), shortened; never raises, even if the object's repr does."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a learner's __repr__ may fail in any way
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 160 else text[:157] + "..."


# ---- running a check safely --------------------------------------------------------------


def _checked(check: Callable[..., None]) -> Callable[..., None]:
    """Run `check` in a worker thread, time-boxed, with grad mode on; print its feedback only.

    Anything the learner's code raises (SystemExit included) becomes a "Not yet"; only
    KeyboardInterrupt (the learner pressing stop) goes on. The returned function also takes
    `lang="en"` or `lang="zh"` for one call.
    """

    @functools.wraps(check)
    def wrapper(*args: Any, lang: str | None = None) -> None:
        language = lang if lang in LANGUAGES else _language
        lines: list[str] = []
        interrupted: list[BaseException] = []

        def work() -> None:
            _local.lines, _local.language = lines, language
            try:
                with mg.enable_grad():  # the scenarios record, whatever mode the notebook is in
                    check(*args)
            except KeyboardInterrupt as stop:
                interrupted.append(stop)
            except BaseException as error:  # noqa: BLE001 - report anything the code raises
                _not_yet(
                    _t(
                        f"running your code raised {_error_text(error)}",
                        f"运行你的代码时抛出了 {_error_text(error)}",
                    ),
                    _t(
                        "read the message, fix the cell above, run it again, then this check.",
                        "读一读这条报错信息，改好上面的单元格并重新运行，再运行这个检查。",
                    ),
                )

        worker = threading.Thread(target=work, name=f"lesson_checks.{check.__name__}", daemon=True)
        worker.start()
        worker.join(TIME_LIMIT)
        if worker.is_alive():
            _local.lines, _local.language = lines, language
            _not_yet(
                _t(
                    f"the check stopped waiting after {TIME_LIMIT:g} s: your code did not "
                    "finish (it may go on running: restart the kernel if the notebook slows).",
                    f"检查等了 {TIME_LIMIT:g} 秒后不再等待：你的代码没有结束"
                    "（它可能还在后台运行；如果 notebook 变慢，请重启内核）。",
                ),
                _t("look for a loop that never ends.", "找一找永远不会结束的循环。"),
            )
        print("\n".join(lines))
        if interrupted:
            raise interrupted[0]

    return wrapper


def _error_text(error: BaseException) -> str:
    """'TypeName: message', the message cut at 300 characters; never raises."""
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - a learner's exception may fail to print
        message = ""
    message = message if len(message) <= 300 else message[:297] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _code_key(code: types.CodeType) -> tuple[Any, ...]:
    """What a function does, without where it stands: bytecode, names, constants."""
    consts = tuple(_code_key(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, consts)


def _given(name: str) -> Any:
    namespace: dict[str, Any] = {"mg": mg}
    exec(compile(GIVEN[name], f"<given {name}>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace[name]


def _unchanged(answer: Any, name: str) -> bool:
    """Whether `answer` is the function (or the Function's methods) as the notebook gives it."""
    given = _given(name)
    pairs = [(answer, given)]
    if isinstance(given, type):
        pairs = [(getattr(answer, m, None), getattr(given, m)) for m in ("forward", "backward")]
    try:
        return all(_code_key(a.__code__) == _code_key(g.__code__) for a, g in pairs)
    except AttributeError:
        return False


def _values(t: Any) -> np.ndarray:
    return t.detach().numpy().astype(float)


def _close(t: Any, expected: Any) -> bool:
    values = np.asarray(_values(t) if isinstance(t, mg.Tensor) else t, dtype=float)
    return values.shape == np.shape(expected) and bool(np.allclose(values, expected, atol=1e-5))


# ---- predictions ----------------------------------------------------------------------------


def _letter(prediction: Any, name: str) -> str | None:
    """The letter A, B or C the learner predicted; None (after saying why) when there is none."""
    if prediction is None:
        _no_answer(
            _t(
                'replace `None` in the cell above by "A", "B" or "C", run it, then this cell.',
                '把上面单元格里的 `None` 换成 "A"、"B" 或 "C"，运行它，再运行这个单元格。',
            )
        )
        return None
    letter = prediction.strip().upper() if isinstance(prediction, str) else None
    if letter not in ("A", "B", "C"):
        _not_yet(
            _t(
                f"{_show(prediction)} is not one of A, B, C.", f"{_show(prediction)} 不是 A、B、C。"
            ),
            _t(f'write e.g. {name} = "A"', f'例如写 {name} = "A"'),
        )
        return None
    return letter


@_checked
def check_reversing_hook(prediction: Any) -> None:
    """Hooks E1: `b = x * 2; b.register_hook(lambda grad: -grad); (x * 3 + b).sum().backward()`."""
    letter = _letter(prediction, "prediction_e1")
    if letter is None:
        return
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    b.register_hook(lambda grad: -grad)
    (x * 3 + b).sum().backward()
    _say(_t(f"Ran it: x.grad = {x.grad}", f"运行结果：x.grad = {x.grad}"))
    if letter == "B":
        _solved(
            _t(
                "the hook's return value replaces b's gradient, so b's branch sends -2 instead "
                "of 2, and x.grad = 3 - 2 = 1. The x * 3 branch has no hook and is unchanged.",
                "钩子的返回值替换了 b 的梯度，于是 b 这一支传回 -2 而不是 2，"
                "x.grad = 3 - 2 = 1。x * 3 这一支没有钩子，保持不变。",
            )
        )
    elif letter == "A":
        _not_yet(
            _t(
                "5 is x.grad without the hook: 3 from x * 3 plus 2 from b = x * 2. The hook's "
                "return value replaces b's gradient, and it returns -grad.",
                "5 是没有钩子时的 x.grad：x * 3 贡献 3，b = x * 2 贡献 2。"
                "钩子的返回值会替换 b 的梯度，而它返回的是 -grad。",
            ),
            _t(
                "what does b's branch send back with the sign flipped?",
                "符号反过来后，b 这一支传回多少？",
            ),
        )
    else:
        _not_yet(
            _t(
                "3 is what b.detach(), or a hook returning grad * 0, would give: b's branch "
                "sends nothing. This hook does not stop the gradient, it reverses it.",
                "3 是 b.detach() 或返回 grad * 0 的钩子给出的结果：b 这一支什么也不传回。"
                "这个钩子并不阻断梯度，而是把它取反。",
            ),
            _t("add up the two branches, with b's sign flipped.", "把两支加起来，b 那一支取反。"),
        )


class _Square(mg.autograd.Function):
    """Hooks E4's Function: the tensor kept as an attribute of ctx, not saved."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return 2 * ctx.x * grad


@_checked
def check_ctx_attribute(prediction: Any) -> None:
    """Hooks E4: `ctx.x = x` in forward, then `x.add_(1)` under no_grad, then backward."""
    letter = _letter(prediction, "prediction_e4")
    if letter is None:
        return
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = _Square.apply(x)
    with mg.no_grad():
        x.add_(1)
    y.sum().backward()
    _say(_t(f"Ran it: no error, x.grad = {x.grad}", f"运行结果：没有报错，x.grad = {x.grad}"))
    if letter == "C":
        _solved(
            _t(
                "ctx.x is the tensor x itself, with no version recorded, so backward reads the "
                "changed values [2, 3] and silently returns 2 * [2, 3]. ctx.save_for_backward(x) "
                "would have raised the version error instead. It is the .data mistake of notebook "
                "04 in a new place (an attribute is fine for a number, such as lam).",
                "ctx.x 就是张量 x 本身，没有记下版本号，所以反向传播读到的是修改后的值 [2, 3]，"
                "悄无声息地返回 2 * [2, 3]。换成 ctx.save_for_backward(x) 就会抛出版本错误。"
                "这正是 notebook 04 里 .data 的错误换了个地方"
                "（数字，比如 lam，放在属性里没问题）。",
            )
        )
    elif letter == "A":
        _not_yet(
            _t(
                "there is no error. Only tensors kept with ctx.save_for_backward are checked "
                "against in-place changes; an attribute of ctx is a plain Python reference.",
                "没有报错：只有用 ctx.save_for_backward 保存的张量才会检查原地修改。"
                "ctx 的属性只是一个普通的 Python 引用。",
            ),
            _t(
                "which values does 2 * ctx.x read when backward runs?",
                "反向传播运行时，2 * ctx.x 读到的是哪些值？",
            ),
        )
    else:
        _not_yet(
            _t(
                "[2, 4] would need the values of x as forward saw them, but nothing kept a copy: "
                "ctx.x is x itself, which add_ changed to [2, 3].",
                "[2, 4] 需要 forward 看到的 x 的值，但没有任何东西保留副本：ctx.x 就是 x 本身，"
                "而 add_ 已把它改成 [2, 3]。",
            ),
            _t("does ctx.x = x copy anything?", "ctx.x = x 复制了什么吗？"),
        )


@_checked
def check_exp_saves(prediction: Any) -> None:
    """Higher-order E1: which value does `x.exp()`'s node keep for backward?"""
    letter = _letter(prediction, "prediction_e1")
    if letter is None:
        return
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    saved = []

    def pack(tensor: Any) -> Any:
        saved.append([round(v, 4) for v in tensor.tolist()])
        return tensor

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        y = x.exp()
    _say(
        _t(
            f"Ran it: ExpBackward0 saved {len(saved)} value, {saved[0]}: the values of y, "
            f"its _saved_result = {y.grad_fn._saved_result}",
            f"运行结果：ExpBackward0 保存了 {len(saved)} 个值 {saved[0]}，正是 y 的值，"
            f"它的 _saved_result = {y.grad_fn._saved_result}",
        )
    )
    if letter == "B":
        _solved(
            _t(
                "the derivative of exp is exp, which forward already computed: backward only "
                "needs grad * result, so keeping y saves recomputing it and x is not kept.",
                "exp 的导数就是 exp，而 forward 已经算出来了：反向传播只需要 grad * result，"
                "所以保留 y 就不必重算，x 不需要保存。",
            )
        )
    else:
        _not_yet(
            _t(
                "exp keeps only its result. Its derivative is exp(x) = y, already computed "
                "forward, so backward needs grad * y and never x."
                if letter == "A"
                else "one value is enough: the derivative exp(x) is y itself, so keeping x as "
                "well would only cost memory.",
                "exp 只保存它的结果。它的导数 exp(x) 就是 forward 已算出的 y，"
                "所以反向传播需要的是 grad * y，用不到 x。"
                if letter == "A"
                else "一个值就够了：导数 exp(x) 就是 y 本身，再保存 x 只会多占内存。",
            ),
            _t(
                "what is d/dx exp(x), and which tensor holds it?",
                "d/dx exp(x) 是什么？哪个张量里已经有它？",
            ),
        )


@_checked
def check_copying_pack_hook(prediction: Any) -> None:
    """Higher-order E4: a pack hook that clones, an in-place change, then backward."""
    letter = _letter(prediction, "prediction_e4")
    if letter is None:
        return
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = (x * x).sum()
    with mg.no_grad():
        x.add_(1)
    y.backward()
    _say(_t(f"Ran it: no error, x.grad = {x.grad}", f"运行结果：没有报错，x.grad = {x.grad}"))
    if letter == "B":
        _solved(
            _t(
                "the pack hook kept copies of x, which add_ cannot reach: backward multiplies "
                "with the values forward used, [1, 2], and there is nothing stale to catch. "
                "The gradient is the right one for the computation that ran.",
                "pack 钩子保存的是 x 的副本，add_ 改不到它们：反向传播用的是 forward 当时的值 "
                "[1, 2]，没有过期的保存值可查。这个梯度对实际运行的计算是正确的。",
            )
        )
    elif letter == "A":
        _not_yet(
            _t(
                "there is no error. The version check compares a saved tensor's version with the "
                "version it had when saved, and the saved tensors here are clones that nothing "
                "changed.",
                "没有报错：版本检查比较的是保存的张量现在的版本和保存时的版本，"
                "而这里保存的是克隆出的副本，没有被改过。",
            ),
            _t("what did the pack hook hand to the graph?", "pack 钩子交给计算图的是什么？"),
        )
    else:
        _not_yet(
            _t(
                "[4, 6] would be 2 * x with the changed x, but backward reads the copies the pack "
                "hook made during forward, when x was [1, 2].",
                "[4, 6] 是用修改后的 x 算出的 2 * x，但反向传播读取的是 pack 钩子在 forward 时"
                "做的副本，那时 x 还是 [1, 2]。",
            ),
            _t("which tensors does unpack give back?", "unpack 交回的是哪些张量？"),
        )


# ---- E2: a hook that clips -------------------------------------------------------------------


@_checked
def check_clip_hook(clip_grad: Any) -> None:
    """E2: a tensor hook that returns the gradient clipped to [-1, 1], leaving its input alone."""
    if _unchanged(clip_grad, "clip_grad"):
        _no_answer(
            _t(
                "clip_grad still returns grad unchanged. Replace that line, run the cell, then "
                "this one.",
                "clip_grad 仍然原样返回 grad。替换那一行，运行那个单元格，再运行这一个。",
            )
        )
        return
    if not callable(clip_grad):
        _not_yet(
            _t(
                f"clip_grad is {_show(clip_grad)}, not a function.",
                f"clip_grad 是 {_show(clip_grad)}，不是函数。",
            ),
            _t("define it with def clip_grad(grad): ...", "用 def clip_grad(grad): ... 定义它。"),
        )
        return
    grad = mg.tensor([[-3.0, 0.5], [2.0, -0.25]])
    before = _values(grad)
    result = clip_grad(grad)
    expected = np.clip(before, -1.0, 1.0)
    changed_input = not np.array_equal(_values(grad), before)
    if changed_input:
        _not_yet(
            _t(
                f"clip_grad changed the gradient it received in place (it is now {grad.tolist()}). "
                "A hook must not modify its argument: other hooks, retain_grad or your own "
                "logging may hold that same tensor and would see the clipped values too.",
                f"clip_grad 原地修改了它收到的梯度（现在是 {grad.tolist()}）。"
                "钩子不能修改它的参数："
                "其他钩子、retain_grad 或你自己的日志可能持有同一个张量，也会看到被裁剪的值。",
            ),
            _t(
                "use an out-of-place operation that returns a new tensor: clamp, not clamp_.",
                "用返回新张量的非原地操作：clamp，而不是 clamp_。",
            ),
        )
        return
    if result is None:
        _not_yet(
            _t(
                "clip_grad returned None. A hook that returns None only looks: backward goes on "
                "with the gradient unchanged, so nothing is clipped.",
                "clip_grad 返回了 None。返回 None 的钩子只是看一眼：反向传播继续使用原来的梯度，"
                "什么也没有被裁剪。",
            ),
            _t("return the clipped tensor.", "返回裁剪后的张量。"),
        )
        return
    if not isinstance(result, mg.Tensor):
        _not_yet(
            _t(
                f"clip_grad returned a {type(result).__name__}, not a tensor; backward needs a "
                'tensor to go on with (torch: "expected Variable, but hook returned ...").',
                f"clip_grad 返回的是 {type(result).__name__}，不是张量；反向传播需要一个张量才能"
                '继续（torch 会报 "expected Variable, but hook returned ..."）。',
            ),
            _t("stay with tensor operations on grad.", "对 grad 只用张量运算。"),
        )
        return
    if tuple(result.shape) != tuple(grad.shape):
        _not_yet(
            _t(
                f"clip_grad returned shape {tuple(result.shape)} for a gradient of shape "
                f"{tuple(grad.shape)}; a hook must keep the gradient's shape.",
                f"对形状为 {tuple(grad.shape)} 的梯度，clip_grad 返回了形状 {tuple(result.shape)}；"
                "钩子必须保持梯度的形状。",
            ),
            _t("clip each value; do not sum or reshape.", "逐个值裁剪，不要求和或改变形状。"),
        )
        return
    if not _close(result, expected):
        if _close(result, before / np.abs(before).max()):
            problem = _t(
                "it rescales every value, also those already inside [-1, 1] (0.5 became "
                "0.1667); clipping leaves those alone",
                "它缩放了每一个值，包括本来就在 [-1, 1] 之内的值（0.5 变成了 0.1667）；"
                "裁剪不会动这些值",
            )
        elif _values(result).min() >= 0:
            problem = _t(
                "negative values came out as 0 or positive; the lower bound is -1",
                "负值变成了 0 或正数；下界是 -1",
            )
        else:
            problem = _t(
                f"the values are {result.tolist()}, clipping gives {expected.tolist()}",
                f"得到的值是 {result.tolist()}，裁剪应得 {expected.tolist()}",
            )
        _not_yet(
            _t(
                f"for the gradient {before.tolist()}, {problem}.",
                f"对梯度 {before.tolist()}，{problem}。",
            ),
            _t("grad.clamp(low, high) clips each value.", "grad.clamp(low, high) 逐个值裁剪。"),
        )
        return
    x = mg.tensor([0.5, -2.0, 3.0], requires_grad=True)
    h = x * 2
    h.register_hook(clip_grad)
    ((h * h).sum() / 2).backward()  # h's gradient is h = [1, -4, 6]
    if not _close(x.grad, [2.0, -2.0, 2.0]):
        _not_yet(
            _t(
                f"called on its own it clips, but registered on h it gave x.grad = {x.grad}, "
                "not [2, -2, 2].",
                f"单独调用时能裁剪，但注册到 h 上后得到 x.grad = {x.grad}，而不是 [2, -2, 2]。",
            )
        )
        return
    _solved(
        _t(
            f"registered on h = x * 2, it turned h's gradient [1, -4, 6] into [1, -1, 1], so "
            f"x.grad = {x.grad}; the gradient it received is unchanged.",
            f"注册到 h = x * 2 上后，它把 h 的梯度 [1, -4, 6] 变成 [1, -1, 1]，所以 "
            f"x.grad = {x.grad}；它收到的梯度保持不变。",
        )
    )


# ---- E3: a gradient reversal layer -----------------------------------------------------------


@_checked
def check_grad_reverse(function: Any) -> None:
    """E3: `function.apply(x, lam)` has x's values; the gradient reaching x is -lam times it."""
    if _unchanged(function, "GradientReversal"):
        _no_answer(
            _t(
                "forward and backward still only `pass`. Fill them in, run the cell, then this "
                "one.",
                "forward 和 backward 里仍然只有 `pass`。补全它们，运行那个单元格，再运行这一个。",
            )
        )
        return
    if not (isinstance(function, type) and issubclass(function, mg.autograd.Function)):
        _not_yet(
            _t(
                f"{_show(function)} is not a subclass of mg.autograd.Function.",
                f"{_show(function)} 不是 mg.autograd.Function 的子类。",
            ),
            _t(
                "keep class GradientReversal(mg.autograd.Function).",
                "保留 class GradientReversal(mg.autograd.Function)。",
            ),
        )
        return
    upstream = mg.tensor([1.0, 2.0, 3.0])  # d(loss)/dy for loss = (y * upstream).sum()
    for lam in (1.0, 0.5):
        x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
        try:
            y = function.apply(x, lam)
        except TypeError as error:
            if "save_for_backward" in str(error):
                _not_yet(
                    _t(
                        f"forward raised TypeError: {error}. save_for_backward is for tensors; "
                        "a number such as lam is kept as an attribute of ctx.",
                        f"forward 抛出 TypeError: {error}。save_for_backward 只用于张量；"
                        "lam 这样的数字作为 ctx 的属性保存。",
                    ),
                    _t("ctx.lam = lam", "ctx.lam = lam"),
                )
                return
            raise
        if not isinstance(y, mg.Tensor):
            _not_yet(
                _t(
                    f"GradientReversal.apply(x, {lam}) returned {_show(y)}: forward must "
                    "return a tensor with the values of x.",
                    f"GradientReversal.apply(x, {lam}) 返回了 {_show(y)}：forward 必须返回"
                    "一个与 x 数值相同的张量。",
                ),
                _t(
                    "x.view_as(x) or x.clone() returns x's values as a new tensor.",
                    "x.view_as(x) 或 x.clone() 以新张量返回 x 的值。",
                ),
            )
            return
        if not _close(y, _values(x)):
            _not_yet(
                _t(
                    f"with lam = {lam}, forward gave {y.tolist()} for x = {x.tolist()}; the layer "
                    "must not change the values (only the gradient is reversed).",
                    f"lam = {lam} 时，对 x = {x.tolist()}，forward 给出 {y.tolist()}；"
                    "这一层不能改变数值（只反转梯度）。",
                ),
                _t("forward returns x's values unchanged.", "forward 原样返回 x 的值。"),
            )
            return
        try:
            (y * upstream).sum().backward()
        except RuntimeError as error:
            text = str(error)
            if "incorrect number of gradients" in text or "different than None" in text:
                _not_yet(
                    _t(
                        f"backward raised RuntimeError: {text}. backward returns one value per "
                        "input of forward, x and lam: a gradient for x, and None for lam, which "
                        "is a number.",
                        f"backward 抛出 RuntimeError: {text}。backward 要为 forward 的每个输入"
                        "（x 和 lam）各返回一个值：x 的梯度，以及 lam 的 None（它是一个数字）。",
                    ),
                    _t("return -ctx.lam * grad, None", "return -ctx.lam * grad, None"),
                )
                return
            raise
        wanted = -lam * _values(upstream)
        if x.grad is None or not _close(x.grad, wanted):
            got = None if x.grad is None else _values(x.grad)
            if got is not None and np.allclose(got, -_values(upstream)):
                problem = _t(
                    "the gradient is reversed but not scaled by lam",
                    "梯度被反转了，但没有乘上 lam",
                )
            elif got is not None and np.allclose(got, lam * _values(upstream)):
                problem = _t("the gradient is scaled but not reversed", "梯度被缩放了，但没有反转")
            else:
                problem = _t(f"x.grad is {x.grad}", f"x.grad 是 {x.grad}")
            _not_yet(
                _t(
                    f"with lam = {lam} and the gradient {upstream.tolist()} arriving from above, "
                    f"x.grad should be {wanted.tolist()}; {problem}.",
                    f"lam = {lam}、从上方传来的梯度为 {upstream.tolist()} 时，x.grad 应为 "
                    f"{wanted.tolist()}；{problem}。",
                ),
                _t(
                    "backward returns -ctx.lam * grad for x.",
                    "backward 为 x 返回 -ctx.lam * grad。",
                ),
            )
            return
    _solved(
        _t(
            "the values pass through unchanged, and the gradient comes back times -lam "
            "(checked with lam = 1 and 0.5), with None for the number lam.",
            "数值原样通过，梯度乘以 -lam 传回（用 lam = 1 和 0.5 检查过），"
            "数字 lam 的梯度是 None。",
        )
    )


# ---- E4: a gradient penalty -------------------------------------------------------------------


def _penalty_reference(w_values: list[float], x_values: list[list[float]]) -> tuple[float, Any]:
    """The penalty's value and its gradient with respect to w, computed the right way."""
    w = mg.tensor(w_values, requires_grad=True)
    inputs = mg.tensor(x_values, requires_grad=True)
    (g,) = mg.autograd.grad((inputs @ w).tanh().sum(), inputs, create_graph=True)
    penalty = (g**2).sum()
    penalty.backward()
    return penalty.item(), _values(w.grad)


@_checked
def check_gradient_penalty(gradient_penalty: Any) -> None:
    """E4: the penalty's value is right, its backward() trains w, and it calls no backward()."""
    if _unchanged(gradient_penalty, "gradient_penalty"):
        _no_answer(
            _t(
                "gradient_penalty is still as given. Repair it, run the cell, then this one.",
                "gradient_penalty 还是原样。修好它，运行那个单元格，再运行这一个。",
            )
        )
        return
    w_values, x_values = [0.5, -1.0], [[1.0, 2.0], [3.0, -1.0]]
    value, w_grad = _penalty_reference(w_values, x_values)
    w = mg.tensor(w_values, requires_grad=True)
    inputs = mg.tensor(x_values, requires_grad=True)
    penalty = gradient_penalty(w, inputs)
    if w.grad is not None or inputs.grad is not None:
        _not_yet(
            _t(
                "calling gradient_penalty already wrote into w.grad or inputs.grad: it calls "
                "backward() inside. Those gradients would be added to the ones of the training "
                "step, and backward(create_graph=True) also makes a reference cycle.",
                "调用 gradient_penalty 时就已经写入了 w.grad 或 inputs.grad：它在内部调用了 "
                "backward()。这些梯度会累加到训练步骤的梯度上，而且 backward(create_graph=True) "
                "还会造成引用循环。",
            ),
            _t(
                "mg.autograd.grad returns the gradient without touching any .grad.",
                "mg.autograd.grad 返回梯度，不会改动任何 .grad。",
            ),
        )
        return
    if not isinstance(penalty, mg.Tensor) or penalty.dim() != 0:
        _not_yet(
            _t(
                f"gradient_penalty returned {_show(penalty)}; it must return a 0-d tensor.",
                f"gradient_penalty 返回了 {_show(penalty)}；它必须返回一个零维张量。",
            ),
            _t("return (g**2).sum()", "return (g**2).sum()"),
        )
        return
    if not _close(penalty, value):
        _not_yet(
            _t(
                f"the penalty is {penalty.item():.4f}, expected {value:.4f}: the squared "
                "gradient with respect to inputs (not w), summed.",
                f"惩罚项是 {penalty.item():.4f}，应为 {value:.4f}：对 inputs（不是 w）的梯度"
                "的平方之和。",
            ),
            _t("mg.autograd.grad(out, inputs, ...)", "mg.autograd.grad(out, inputs, ...)"),
        )
        return
    if not penalty.requires_grad:
        _not_yet(
            _t(
                "the value is right, but the penalty has no graph: the gradient g was returned "
                "as a constant, so backward() has nothing to walk back to w. (retain_graph=True "
                "keeps saved values but records nothing; .detach() would cut g off as well.)",
                "数值对了，但惩罚项没有计算图：梯度 g 是作为常数返回的，所以 backward() 无法沿图"
                "回到 w。（retain_graph=True 只保留保存值，并不记录；.detach() 同样会把 g 切断。）",
            ),
            _t(
                "ask autograd.grad to record the backward pass it runs.",
                "让 autograd.grad 把它执行的反向传播也记录下来。",
            ),
        )
        return
    penalty.backward()
    if w.grad is None or not _close(w.grad, w_grad):
        _not_yet(
            _t(
                f"penalty.backward() gave w.grad = {w.grad}, expected {w_grad.round(4).tolist()}.",
                f"penalty.backward() 得到 w.grad = {w.grad}，应为 {w_grad.round(4).tolist()}。",
            ),
            _t(
                "is anything detached between w and the penalty?",
                "w 和惩罚项之间是否有什么被分离了？",
            ),
        )
        return
    _solved(
        _t(
            f"with create_graph=True the gradient g has a graph, so the penalty "
            f"({value:.4f}) can be differentiated again: w.grad = {w.grad}.",
            f"有了 create_graph=True，梯度 g 带有计算图，所以惩罚项（{value:.4f}）可以再求导："
            f"w.grad = {w.grad}。",
        )
    )


# ---- E5: a MAML inner step ------------------------------------------------------------------

_TASK = {
    "train": ([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]),
    "test": ([1.5, -1.0], [3.0, -2.0]),
}


def _task_loss(w: Any, split: str) -> Any:
    xs, ys = (mg.tensor(v) for v in _TASK[split])
    return ((xs * w - ys) ** 2).mean()


def _meta_gradients(lr: float) -> tuple[float, float]:
    """(full MAML's, first-order MAML's) gradient of the outer loss at w = 0.5."""
    found = []
    for first_order in (False, True):
        w = mg.tensor([0.5], requires_grad=True)
        (g,) = mg.autograd.grad(_task_loss(w, "train"), w, create_graph=True)
        g = g.detach() if first_order else g
        _task_loss(w - lr * g, "test").backward()
        found.append(w.grad.item())
    return found[0], found[1]


@_checked
def check_inner_step(inner_step: Any) -> None:
    """E5: the adapted weight is right, w is unchanged, no backward() inside, and the outer loss's
    gradient with respect to w is full MAML's (second-order), for two learning rates."""
    if _unchanged(inner_step, "inner_step"):
        _no_answer(
            _t(
                "inner_step is still as given. Repair it, run the cell, then this one.",
                "inner_step 还是原样。修好它，运行那个单元格，再运行这一个。",
            )
        )
        return
    for lr in (0.1, 0.05):
        full, first_order = _meta_gradients(lr)
        w = mg.tensor([0.5], requires_grad=True)
        w_fast = inner_step(w, lambda w: _task_loss(w, "train"), lr)
        if w._version != 0 or w.tolist() != [0.5]:
            _not_yet(
                _t(
                    f"inner_step changed w itself (now {w.tolist()}). MAML keeps w as the "
                    "starting point and needs the adapted weight as a new tensor computed from "
                    "it.",
                    f"inner_step 修改了 w 本身（现在是 {w.tolist()}）。MAML 要保留 w 作为起点，"
                    "适应后的权重应是由它计算出的新张量。",
                ),
                _t(
                    "return w - lr * g instead of updating w in place.",
                    "返回 w - lr * g，而不是原地更新 w。",
                ),
            )
            return
        if w.grad is not None:
            _not_yet(
                _t(
                    "calling inner_step already wrote into w.grad: it calls backward() inside, "
                    "and that gradient would be added to the outer one.",
                    "调用 inner_step 时就已经写入了 w.grad：它在内部调用了 backward()，"
                    "这个梯度会累加到外层梯度上。",
                ),
                _t("take g from mg.autograd.grad.", "用 mg.autograd.grad 求 g。"),
            )
            return
        expected = 0.5 - lr * 2 * (0.5 * 14 / 3 - 28 / 3)  # w - lr * d/dw mean((x w - y)^2)
        if not isinstance(w_fast, mg.Tensor) or not _close(w_fast, [expected]):
            _not_yet(
                _t(
                    f"with lr = {lr}, inner_step returned {_show(w_fast)}; one SGD step from "
                    f"w = 0.5 gives {expected:.4f}.",
                    f"lr = {lr} 时，inner_step 返回了 {_show(w_fast)}；从 w = 0.5 走一步 SGD "
                    f"应得 {expected:.4f}。",
                ),
                _t("return w - lr * g", "return w - lr * g"),
            )
            return
        if w_fast.grad_fn is None:
            _not_yet(
                _t(
                    "the adapted weight has no grad_fn: it is not connected to w at all "
                    "(w.data, .detach() or no_grad cut it), so the outer loss cannot train w.",
                    "适应后的权重没有 grad_fn：它与 w 完全没有连接（w.data、.detach() 或 no_grad "
                    "把它切断了），所以外层损失无法训练 w。",
                ),
                _t("compute it from w itself: w - lr * g.", "直接用 w 计算：w - lr * g。"),
            )
            return
        _task_loss(w_fast, "test").backward()
        got = None if w.grad is None else w.grad.item()
        if got is not None and abs(got - first_order) < 1e-5:
            _not_yet(
                _t(
                    f"the outer gradient is {got:.4f}, first-order MAML's; full MAML gives "
                    f"{full:.4f}. The inner gradient g reaches w_fast as a constant, so the "
                    "path w -> g -> w_fast is missing: g needs a graph (create_graph=True) and "
                    "must not be detached.",
                    f"外层梯度是 {got:.4f}，这是一阶 MAML 的结果；完整的 MAML 应得 {full:.4f}。"
                    "内层梯度 g 作为常数进入 w_fast，缺少 w -> g -> w_fast 这条路径：g 需要"
                    "计算图（create_graph=True），而且不能被分离。",
                ),
                _t(
                    "two changes: record the inner backward pass, and drop the .detach().",
                    "两处修改：记录内层反向传播，并去掉 .detach()。",
                ),
            )
            return
        if got is None or abs(got - full) > 1e-5:
            _not_yet(
                _t(
                    f"with lr = {lr} the outer gradient is {got}, full MAML gives {full:.4f}.",
                    f"lr = {lr} 时外层梯度是 {got}，完整的 MAML 应得 {full:.4f}。",
                )
            )
            return
    _solved(
        _t(
            f"the outer loss now reaches w twice, directly and through the recorded inner "
            f"gradient: w.grad = {full:.4f} (first-order MAML would give {first_order:.4f}).",
            f"外层损失现在两次到达 w：直接一次，经由记录下来的内层梯度又一次："
            f"w.grad = {full:.4f}（一阶 MAML 会得到 {first_order:.4f}）。",
        )
    )
