"""The checks behind notebook 10: right answers are praised, wrong ones get specific feedback.

`notebooks/course_checks.py` is imported the way the notebook kernel imports it (its folder on
sys.path). Every check must print and return, never raise, whatever the learner's code does.
Every test runs in both feedback languages (the `language` fixture): English, and Chinese as
the zh notebooks speak it; `tr(english, chinese)` names what a test looks for in each.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
import threading
from pathlib import Path

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))
import course_checks as check  # noqa: E402  (found through the sys.path entry above)

COURSE_CHECKS = Path(check.__file__)


@pytest.fixture(autouse=True, params=check.LANGUAGES)
def language(request):
    """Every test once per feedback language; English again afterwards."""
    check.set_language(request.param)
    yield request.param
    check.set_language("en")


def tr(english: str, chinese: str) -> str:
    """What a test looks for, in the language the checks speak now."""
    return chinese if check.get_language() == "zh" else english


def flat(text: str) -> str:
    """``text`` without whitespace: Chinese feedback is wrapped anywhere, even inside a phrase."""
    return "".join(text.split())


def has(text: str, phrase: str) -> bool:
    """Whether the feedback ``text`` says ``phrase`` (line breaks and spaces ignored)."""
    return flat(phrase) in flat(text)


def solved_word() -> str:
    return tr("Well done!", "做得好！")


def not_yet(text: str) -> bool:
    return has(text, tr("Not yet:", "还没对：")) or has(text, tr("No answer yet", "还没有作答"))


def run(capsys: pytest.CaptureFixture[str], function, *args) -> tuple[bool, str]:
    """Call a check; return whether it said "solved" and what it printed (lines joined)."""
    assert function(*args) is None  # a check cell shows only the printed feedback
    text = " ".join(capsys.readouterr().out.split())
    solved = has(text, solved_word())
    assert solved != not_yet(text)
    return solved, text


# ---- predict, then run ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "function,right,wrong,phrase",
    [
        (check.check_version, 1, 0, ("shares out's version", "共享版本计数器")),
        (check.check_numpy_error, "B", "A", ("recommended fix", "推荐的写法")),
        (check.check_numpy_error, "b", "C", ("tolist() works", "tolist() 可以运行")),
        (check.check_data_zero, "B", "A", ("no error is raised", "没有报错。同样的修改")),
        (check.check_data_zero, "B", "C", ("saved output", "保存的输出")),
        (
            check.check_new_leaf,
            {"c"},
            {"a", "c"},
            ("a and out get nothing", "a 和 out 什么也得不到"),
        ),
        (check.check_new_leaf, ["c"], {"a"}, ("c does get a gradient", "c 确实得到了梯度")),
        (check.check_detach_inplace, "C", "A", ("there is no error", "不会报错")),
        (check.check_detach_inplace, "c", "B", ("a.grad is not None", "a.grad 不是 None")),
    ],
)
def test_predictions(capsys, function, right, wrong, phrase) -> None:
    ok, text = run(capsys, function, right)
    assert ok and flat(text).count(flat(solved_word())) == 1 and not not_yet(text)
    ok, text = run(capsys, function, wrong)
    assert ok is False and has(text, tr("Not yet:", "还没对：")) and has(text, tr(*phrase))
    assert has(text, tr("Ran it:", "运行结果："))  # the check also shows what really happens


@pytest.mark.parametrize(
    "function",
    [
        check.check_version,
        check.check_numpy_error,
        check.check_data_zero,
        check.check_new_leaf,
        check.check_detach_inplace,
    ],
)
@pytest.mark.parametrize("answer", [None, "nonsense", 3.5, object()])
def test_unanswered_or_malformed_predictions_never_raise(capsys, function, answer) -> None:
    ok, text = run(capsys, function, answer)
    assert ok is False
    assert not_yet(text)


# ---- loop 1: loss accumulation --------------------------------------------------------------


def epoch_keeping_graphs(model, opt, batches):
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = total + loss
    return total / len(batches)


def epoch_with_item(model, opt, batches):
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(batches)


def test_loss_accumulation(capsys) -> None:
    ok, text = run(capsys, check.check_loss_accumulation, epoch_keeping_graphs)
    assert not ok and "grad_fn" in text
    assert has(text, tr("4 MseLossBackward0 nodes", "4 个 MseLossBackward0 节点"))
    assert "loss.item()" in text
    ok, text = run(capsys, check.check_loss_accumulation, epoch_with_item)
    assert ok


def test_loss_accumulation_wrong_value(capsys) -> None:
    ok, text = run(capsys, check.check_loss_accumulation, lambda model, opt, batches: 0.0)
    assert not ok and has(text, tr("mean loss over the epoch", "平均损失是"))


# ---- loop 2: weight decay through .data -----------------------------------------------------


def step_through_data(w, x, y, lr=0.1):
    loss = ((x * w - y) ** 2).mean() + (w**2).sum()
    w.data.mul_(0.9)
    loss.backward()
    with mg.no_grad():
        w.sub_(lr * w.grad)
    return loss.item()


def step_no_grad_too_early(w, x, y, lr=0.1):
    loss = ((x * w - y) ** 2).mean() + (w**2).sum()
    with mg.no_grad():
        w.mul_(0.9)
    loss.backward()
    with mg.no_grad():
        w.sub_(lr * w.grad)
    return loss.item()


def step_fixed(w, x, y, lr=0.1):
    loss = ((x * w - y) ** 2).mean() + (w**2).sum()
    loss.backward()
    with mg.no_grad():
        w.sub_(lr * w.grad)
        w.mul_(0.9)
    return loss.item()


def step_without_decay(w, x, y, lr=0.1):
    loss = ((x * w - y) ** 2).mean() + (w**2).sum()
    loss.backward()
    with mg.no_grad():
        w.sub_(lr * w.grad)
    return loss.item()


def test_weight_decay(capsys) -> None:
    ok, text = run(capsys, check.check_weight_decay, step_through_data)
    assert not ok and has(text, tr("w.grad is", "w.grad 是")) and ".data" in text
    ok, text = run(capsys, check.check_weight_decay, step_no_grad_too_early)
    assert not ok and has(text, tr("version check caught", "版本检查抓住了"))
    ok, text = run(capsys, check.check_weight_decay, step_without_decay)
    assert not ok and has(text, tr("shrink is gone", "收缩不见了"))
    ok, text = run(capsys, check.check_weight_decay, step_fixed)
    assert ok


# ---- loop 3: GAN discriminator step ---------------------------------------------------------


def d_step_without_detach(G, D, opt_D, real, z):
    bce = nn.BCEWithLogitsLoss()
    fake = G(z)
    opt_D.zero_grad()
    loss = bce(D(real), mg.ones(16, 1)) + bce(D(fake), mg.zeros(16, 1))
    loss.backward()
    opt_D.step()
    return fake


def d_step_with_detach(G, D, opt_D, real, z):
    bce = nn.BCEWithLogitsLoss()
    fake = G(z)
    opt_D.zero_grad()
    loss = bce(D(real), mg.ones(16, 1)) + bce(D(fake.detach()), mg.zeros(16, 1))
    loss.backward()
    opt_D.step()
    return fake


def d_step_fake_detached_for_good(G, D, opt_D, real, z):
    bce = nn.BCEWithLogitsLoss()
    fake = G(z).detach()
    opt_D.zero_grad()
    (bce(D(real), mg.ones(16, 1)) + bce(D(fake), mg.zeros(16, 1))).backward()
    opt_D.step()
    return fake


def test_gan_d_step(capsys) -> None:
    ok, text = run(capsys, check.check_gan_d_step, d_step_without_detach)
    assert not ok and has(text, tr("G.weight.grad is tensor", "G.weight.grad 是 tensor"))
    assert "fake.detach()" in text
    ok, text = run(capsys, check.check_gan_d_step, d_step_fake_detached_for_good)
    assert not ok and has(text, tr("no grad_fn", "也没有 grad_fn"))
    ok, text = run(capsys, check.check_gan_d_step, d_step_with_detach)
    assert ok


# ---- loop 4: logging weights ----------------------------------------------------------------


def make_recorder(take):
    def record_weights(w):
        opt = optim.SGD([w], lr=0.1)
        history = []
        for _ in range(3):
            loss = ((w - 2.0) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            history.append(take(w))
        return history

    return record_weights


def test_weight_log(capsys) -> None:
    ok, text = run(capsys, check.check_weight_log, make_recorder(lambda w: w.numpy()))
    assert not ok and "detach().numpy()" in text
    ok, text = run(capsys, check.check_weight_log, make_recorder(lambda w: w.detach().numpy()))
    assert not ok and has(text, tr("shares memory", "共享内存")) and ".copy()" in text
    ok, text = run(
        capsys, check.check_weight_log, make_recorder(lambda w: w.detach().numpy().copy())
    )
    assert ok
    ok, text = run(capsys, check.check_weight_log, make_recorder(lambda w: w.item()))
    assert ok


# ---- loop 5: truncated BPTT -----------------------------------------------------------------


def make_rnn_trainer(before_chunk, retain_graph=False):
    def train_rnn(cell, readout, opt, xs, ys, chunk=5):
        h = mg.zeros(1, cell.hidden_size)
        losses = []
        for start in range(0, xs.shape[0], chunk):
            h = before_chunk(h)
            loss = 0.0
            for t in range(start, start + chunk):
                h = cell(xs[t : t + 1], h)
                loss = loss + F.mse_loss(readout(h), ys[t : t + 1])
            opt.zero_grad()
            loss.backward(retain_graph=retain_graph)
            opt.step()
            losses.append(loss.item())
        return losses

    return train_rnn


def test_tbptt(capsys) -> None:
    ok, text = run(capsys, check.check_tbptt, make_rnn_trainer(lambda h: h))
    assert not ok and "second time" in text and "h = h.detach()" in text
    ok, text = run(capsys, check.check_tbptt, make_rnn_trainer(lambda h: h, retain_graph=True))
    assert not ok and "retain_graph=True" in text
    ok, text = run(capsys, check.check_tbptt, make_rnn_trainer(lambda h: mg.zeros(1, 4)))
    assert not ok and "zeros" in text
    ok, text = run(capsys, check.check_tbptt, make_rnn_trainer(lambda h: h.detach()))
    assert ok


# ---- never raising --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "function",
    [
        check.check_loss_accumulation,
        check.check_weight_decay,
        check.check_gan_d_step,
        check.check_weight_log,
        check.check_tbptt,
    ],
)
def test_loop_checks_report_any_error_instead_of_raising(capsys, function) -> None:
    def broken(*args, **kwargs):
        raise ValueError("oops")

    ok, text = run(capsys, function, broken)
    assert ok is False and "ValueError: oops" in text
    ok, text = run(capsys, function, None)  # not even a function
    assert ok is False and not_yet(text)


# ---- loop 6: no_grad / enable_grad ----------------------------------------------------------


def fit_all_under_no_grad(model, opt, batches, val_x, val_y):
    losses = []
    with mg.no_grad():
        for x, y in batches:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


def fit_with_enable_grad(model, opt, batches, val_x, val_y):
    losses = []
    with mg.no_grad():
        for x, y in batches:
            with mg.enable_grad():
                loss = F.mse_loss(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


def fit_no_grad_for_validation(model, opt, batches, val_x, val_y):
    losses = []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with mg.no_grad():
            losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


def fit_leaving_grad_off(model, opt, batches, val_x, val_y):
    losses = []
    for x, y in batches:
        mg.set_grad_enabled(True)
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        mg.set_grad_enabled(False)
        losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


def test_eval_loop(capsys) -> None:
    ok, text = run(capsys, check.check_eval_loop, fit_all_under_no_grad)
    assert not ok and "does not require grad" in text and "enable_grad" in text
    ok, text = run(capsys, check.check_eval_loop, fit_leaving_grad_off)
    assert not ok and has(text, tr("grad mode was still off", "梯度模式仍然是关闭的"))
    assert mg.is_grad_enabled()  # the learner's plain call did not leak out of the check
    for solution in (fit_with_enable_grad, fit_no_grad_for_validation):
        ok, text = run(capsys, check.check_eval_loop, solution)
        assert ok


# ---- bad answers of every kind, with grad mode on and off -----------------------------------

PREDICTION_CHECKS = [
    check.check_version,
    check.check_numpy_error,
    check.check_data_zero,
    check.check_new_leaf,
    check.check_detach_inplace,
]
LOOP_CHECKS = [
    check.check_loss_accumulation,
    check.check_weight_decay,
    check.check_gan_d_step,
    check.check_weight_log,
    check.check_tbptt,
    check.check_eval_loop,
]


class Unprintable:
    """A learner's object whose __str__ and __repr__ both fail."""

    def __repr__(self) -> str:
        raise RuntimeError("repr fails")

    __str__ = __repr__


class UnprintableError(Exception):
    """An exception whose message cannot be turned into text."""

    def __str__(self) -> str:
        raise ValueError("str fails")


def raises_unprintable(*args):
    raise UnprintableError()


def calls_exit(*args):
    sys.exit(3)


def raises_base_exception(*args):
    raise GeneratorExit("unusual")


def returns_unprintable(*args):
    return Unprintable()


def returns_endless(*args):
    return itertools.count()


def turns_grad_off_and_fails(*args):
    mg.set_grad_enabled(False)
    raise ValueError("after switching grad mode off")


BAD_FUNCTIONS = [
    raises_unprintable,
    calls_exit,
    raises_base_exception,
    returns_unprintable,
    returns_endless,
    turns_grad_off_and_fails,
    None,
    "not a function",
]
BAD_PREDICTIONS = [Unprintable(), itertools.repeat("a"), float("nan"), -1, True, b"B", ["A"]]


@pytest.fixture(params=[True, False], ids=["grad-on", "grad-off"])
def grad_mode(request):
    """Run the test with grad mode on and off in the caller; restore it on for other tests."""
    mg.set_grad_enabled(request.param)
    yield request.param
    mg.set_grad_enabled(True)


def assert_not_yet(capsys, function, answer, mode) -> str:
    assert function(answer) is None
    text = " ".join(capsys.readouterr().out.split())
    assert not_yet(text), text
    assert not has(text, solved_word())
    assert mg.is_grad_enabled() is mode  # the caller's mode comes back
    return text


@pytest.mark.parametrize("function", LOOP_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("answer", BAD_FUNCTIONS, ids=lambda a: getattr(a, "__name__", str(a)))
def test_loop_checks_survive_bad_answers(capsys, grad_mode, function, answer) -> None:
    text = assert_not_yet(capsys, function, answer, grad_mode)
    if answer is calls_exit:
        assert "exit()" in text
    if answer is raises_unprintable:
        assert "UnprintableError" in text


@pytest.mark.parametrize("function", PREDICTION_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("answer", BAD_PREDICTIONS, ids=lambda a: type(a).__name__)
def test_prediction_checks_survive_bad_answers(capsys, grad_mode, function, answer) -> None:
    assert_not_yet(capsys, function, answer, grad_mode)


RIGHT_ANSWERS = [
    (check.check_version, 1),
    (check.check_numpy_error, "B"),
    (check.check_data_zero, "B"),
    (check.check_new_leaf, {"c"}),
    (check.check_detach_inplace, "C"),
    (check.check_loss_accumulation, epoch_with_item),
    (check.check_weight_decay, step_fixed),
    (check.check_gan_d_step, d_step_with_detach),
    (check.check_weight_log, make_recorder(lambda w: w.item())),
    (check.check_tbptt, make_rnn_trainer(lambda h: h.detach())),
    (check.check_eval_loop, fit_no_grad_for_validation),
]


@pytest.mark.parametrize("function,answer", RIGHT_ANSWERS, ids=lambda v: getattr(v, "__name__", ""))
def test_right_answers_pass_whatever_the_callers_grad_mode(capsys, grad_mode, function, answer):
    """A `set_grad_enabled(False)` left over in the notebook must not fail a correct answer."""
    assert function(answer) is None
    text = capsys.readouterr().out
    assert has(text, solved_word()), text
    assert mg.is_grad_enabled() is grad_mode


def test_a_hanging_answer_is_cut_off(capsys, monkeypatch) -> None:
    monkeypatch.setattr(check, "TIME_LIMIT", 0.2)
    release = threading.Event()

    def hangs(*args):
        release.wait(30)  # stands for an endless loop, without burning a core in the test

    try:
        text = assert_not_yet(capsys, check.check_loss_accumulation, hangs, True)
    finally:
        release.set()
    assert has(text, tr("stopped waiting after 0.2 s", "等了 0.2 秒后不再等待"))


def test_the_learner_can_still_interrupt(capsys) -> None:
    def interrupted(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check.check_tbptt(interrupted)
    assert mg.is_grad_enabled()


# ---- the two languages --------------------------------------------------------------------

FEEDBACK_CALLS = {"_say", "_solved", "_not_yet"}
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _is_call(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _placeholders(node: ast.expr) -> list[str]:
    """The {expressions} of an f-string (empty for a plain string), in order."""
    if not isinstance(node, ast.JoinedStr):
        return []
    return [ast.unparse(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]


def _untranslated(node: ast.AST, inside_t: bool = False) -> list[ast.AST]:
    """String literals under ``node`` that are words but not inside a _t(...) call."""
    if _is_call(node, "_t"):
        inside_t = True
    if isinstance(node, ast.Constant) and not inside_t:
        # A word, not code such as ".grad = " (an attribute after a dot is code).
        words = isinstance(node.value, str) and re.search(r"(?<![.\w])[A-Za-z]{3,}", node.value)
        return [node] if words else []
    return [
        found for child in ast.iter_child_nodes(node) for found in _untranslated(child, inside_t)
    ]


def test_no_message_is_missing_its_translation(language) -> None:
    """Every feedback text is a _t(english, chinese) pair: the Chinese really is Chinese, and
    both sides fill in the same values."""
    tree = ast.parse(COURSE_CHECKS.read_text(encoding="utf-8"))
    pairs = [node for node in ast.walk(tree) if _is_call(node, "_t")]
    assert len(pairs) > 100  # every check's messages, not a handful
    for pair in pairs:
        where = f"course_checks.py line {pair.lineno}"
        assert len(pair.args) == 2 and not pair.keywords, f"{where}: _t(english, chinese)"
        english, chinese = pair.args
        chinese_text = ast.unparse(chinese)
        assert CHINESE.search(chinese_text), f"{where}: the second text is not Chinese"
        assert not CHINESE.search(ast.unparse(english)), f"{where}: the first is not English"
        assert sorted(_placeholders(english)) == sorted(_placeholders(chinese)), (
            f"{where}: the two languages show different values"
        )
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(_is_call(node, name) for name in FEEDBACK_CALLS)
    ]
    for call in calls:
        bare = [n for arg in call.args for n in _untranslated(arg)]
        assert not bare, f"course_checks.py line {call.lineno}: text outside _t(...)"


def test_the_language_can_be_set_per_module_and_per_call(capsys, language) -> None:
    other = "en" if language == "zh" else "zh"
    check.check_version(1, lang=other)
    text = capsys.readouterr().out
    assert has(text, "Well done!" if other == "en" else "做得好！")
    assert check.get_language() == language  # one call's language does not stick
    with pytest.raises(ValueError, match="unknown feedback language 'fr'; choose one of en, zh"):
        check.set_language("fr")
    with pytest.raises(ValueError, match="unknown feedback language"):
        check.check_version(1, lang="fr")


def test_the_zh_folder_imports_the_same_checks_in_chinese(tmp_path, language) -> None:
    """notebooks/zh/course_checks.py: the zh notebooks' `import course_checks` speaks Chinese."""
    import subprocess

    zh = COURSE_CHECKS.parent / "zh"
    program = (
        "import course_checks as check; print(check.__file__, check.get_language()); "
        "check.check_version(1)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=zh, capture_output=True, text=True, check=True
    )
    first, *feedback = done.stdout.splitlines()
    assert first == f"{COURSE_CHECKS} zh"
    assert "做得好！" in "".join(feedback)


def test_chinese_feedback_breaks_between_characters_not_inside_code() -> None:
    text = (
        "还没对：train_epoch 返回了 tensor(2.8022, grad_fn=<DivBackward0>)。"
        "它带有 grad_fn，所以仍然指向每个批次的计算图："
        "只要这个结果还在，4 个 MseLossBackward0 节点（每个批次一个）就一直存活。"
    )
    lines = check._wrap_zh(text, 40).split("\n")
    assert len(lines) > 2
    # Only punctuation that may not start a line hangs past the width.
    assert all(check._columns(line.rstrip("，。：；！？）、")) <= 40 for line in lines)
    assert not any(line[0] in "，。：；！？）、" for line in lines)
    # Nothing is lost or split: the lines joined again give the text, code words whole.
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert any("grad_fn=<DivBackward0>)" in line for line in lines)
