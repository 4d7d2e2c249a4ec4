"""Part B of notebook 10, the patterns of notebooks 06 and 07: the GAN discriminator step (B3),
a log of weights for a plot (B4) and truncated backprop through time (B5).

Each check runs the learner's function on its own small problem and watches it at work (hooks
on the parameters, on the RNN cell), then compares what it saw with the conditions the exercise
states, not only with the numbers a right answer produces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

from .answers import first, floats, rounded, same_weights, untried, weights
from .feedback import describe_error, error_text, not_yet, say, show, solved, tr
from .sandbox import checked

# ---- B3: the GAN discriminator step ----------------------------------------------------------


def _gan() -> tuple[nn.Module, nn.Module, optim.Optimizer, mg.Tensor, mg.Tensor]:
    mg.manual_seed(0)
    G = nn.Linear(1, 1)
    D = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
    opt_D = optim.SGD(D.parameters(), lr=0.05)
    real, z = mg.randn(16, 1) * 0.5 + 3.0, mg.randn(16, 1)
    return G, D, opt_D, real, z


def _reference_d_step() -> list[np.ndarray]:
    """D's weights after one right D step."""
    G, D, opt_D, real, z = _gan()
    bce = nn.BCEWithLogitsLoss()
    fake = G(z)
    opt_D.zero_grad()
    (bce(D(real), mg.ones(16, 1)) + bce(D(fake.detach()), mg.zeros(16, 1))).backward()
    opt_D.step()
    return weights(D)


def _g_step_problem(G: nn.Module, D: nn.Module, fake: Any) -> str | None:
    """Run the generator step on `fake`; what went wrong, or None when G got its gradient."""
    if not isinstance(fake, mg.Tensor):
        return tr(
            "b3.not-a-tensor",
            "d_step should return fake (a tensor), not {fake}.",
            fake=show(fake),
        )
    if fake.grad_fn is None:
        return tr(
            "b3.fake-cut",
            "G got no gradient, but the fake you returned has no grad_fn either, so the G step "
            "cannot train G through it (was it made under no_grad, or detached itself?).",
        )
    try:
        nn.BCEWithLogitsLoss()(D(fake), mg.ones(16, 1)).backward()
    except RuntimeError as error:
        if "second time" in error_text(error):
            return tr(
                "b3.g-step-freed",
                "the G step after your D step fails with 'Trying to backward through the graph "
                "a second time': a backward in your D step already went through fake into G and "
                "freed that part of the graph.",
            )
        return tr(
            "b3.g-step-fails",
            "the G step after your D step fails: {error}",
            error=describe_error(error),
        )
    if G.weight.grad is None:
        return tr(
            "b3.g-step-misses-g",
            "the G step after your D step gives G no gradient: the fake you returned does not "
            "lead back to G.",
        )
    return None


@checked
def check_gan_d_step(d_step: Callable[..., Any]) -> bool:
    """B3: `d_step(G, D, opt_D, real, z)` trains D one step and returns `fake`; no gradient may
    reach G in that step, and the G step must still reach G through `fake`."""
    if untried(d_step, "d_step"):
        return False
    trained = _reference_d_step()
    G, D, opt_D, real, z = _gan()
    before = weights(D)
    reached: list[str] = []
    d_step_running = [True]
    for name, p in G.named_parameters():
        p.register_hook(lambda grad, name=name: reached.append(name) if d_step_running[0] else None)
    fake = d_step(G, D, opt_D, real, z)
    d_step_running[0] = False
    hint = tr(
        "b3.hint",
        "give D a detached copy in the D step: D(fake.detach()).",
    )
    if G.weight.grad is not None:
        return not_yet(
            tr(
                "b3.g-has-grad",
                "after the D step, G.weight.grad is {grad}. The discriminator's loss travelled "
                "back through fake into the generator: a gradient that helps D, sitting in G's "
                ".grad.",
                grad=G.weight.grad,
            ),
            hint,
        )
    if reached:
        return not_yet(
            tr(
                "b3.g-reached",
                "during the D step, backward computed a gradient for G's parameters "
                "({names}): the discriminator's loss travelled back through fake into the "
                "generator. G's .grad is empty now, but that part of the backward pass was "
                "still done, for nothing.",
                names=", ".join(dict.fromkeys(reached)),
            ),
            hint,
        )
    if same_weights(weights(D), before):
        return not_yet(
            tr(
                "b3.d-untrained",
                "D's weights did not change: the D step must still train D (backward on D's "
                "loss, then opt_D.step()).",
            )
        )
    if not same_weights(weights(D), trained):
        return not_yet(
            tr(
                "b3.d-wrong-step",
                "D's weights after your step are not those of one step of opt_D on "
                "bce(D(real), ones) + bce(D(fake), zeros). Keep D's loss and its update as "
                "given; change only what D is handed.",
            )
        )
    problem = _g_step_problem(G, D, fake)
    if problem is not None:
        return not_yet(
            problem,
            tr(
                "b3.keep-fake-hint",
                "keep fake = G(z) as it is and detach only the copy passed to D.",
            ),
        )
    return solved(
        tr(
            "b3.solved",
            "no gradient reached G during the D step, D took its step, and the G step can "
            "still go back through fake to G (G.weight.grad is now {grad}).",
            grad=G.weight.grad,
        )
    )


# ---- B4: a log of the weights ----------------------------------------------------------------


def _reference_log() -> tuple[list[float], list[float]]:
    """w's value before and after each of the three SGD steps."""
    w = mg.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    before, after = [], []
    for _ in range(3):
        before.append(w.item())
        loss = ((w - 2.0) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        after.append(w.item())
    return before, after


def _entry_problem(entries: list[Any], w: mg.Tensor) -> str | None:
    """What is wrong with the kind of values logged (not their numbers), or None."""
    for entry in entries:
        if entry is w:
            return tr(
                "b4.w-itself",
                "the entries of your log are w itself, the same tensor each time, so each one "
                "shows w's latest value; and the log should hold numpy arrays or numbers.",
            )
        if isinstance(entry, mg.Tensor) and entry.grad_fn is not None:
            return tr(
                "b4.tensor-with-graph",
                "the entries of your log are tensors that keep a graph ({entry}), not numpy "
                "arrays or numbers: each one holds on to the graph it came from.",
                entry=show(entry),
            )
        if isinstance(entry, mg.Tensor) and np.shares_memory(entry.numpy(), w.detach().numpy()):
            return tr(
                "b4.tensor-shares-memory",
                "the entries of your log are tensors on w's own memory ({entry}): w.detach() and "
                "w.data share it, and opt.step() changes w in place, so all the entries show "
                "w's final value. And the log should hold numpy arrays or numbers.",
                entry=show(entry),
            )
        if isinstance(entry, mg.Tensor):
            return tr(
                "b4.tensor",
                "the entries of your log are tensors ({entry}), not numpy arrays or numbers.",
                entry=show(entry),
            )
        if isinstance(entry, np.ndarray) and np.shares_memory(entry, w.detach().numpy()):
            return tr(
                "b4.shares-memory",
                "every array in your log is w's own memory: numpy() hands out a view of a "
                "tensor's memory, not a copy, whichever way you reach it (w.detach().numpy(), "
                "w.data.numpy(), np.asarray(...)), and opt.step() changes w in place, so all "
                "the entries show w's final value.",
            )
    return None


@checked
def check_weight_log(record_weights: Callable[..., Any]) -> bool:
    """B4: `record_weights(w)` takes three SGD steps and returns w's value after each one, as
    numpy arrays or numbers that later steps leave alone."""
    if untried(record_weights, "record_weights"):
        return False
    before, after = _reference_log()
    w = mg.tensor([0.0], requires_grad=True)
    try:
        history = record_weights(w)
    except RuntimeError as error:
        if "numpy()" not in error_text(error):
            raise
        return not_yet(
            tr(
                "b4.numpy-refused",
                "record_weights raised: {message} (numpy() would hand out an array that shares "
                "w's memory, and w requires grad.)",
                message=error_text(error),
            ),
            tr(
                "b4.numpy-refused-hint",
                "take the values out of the graph first: w.detach().numpy().",
            ),
        )
    try:
        entries = first(history, 4)
    except TypeError:
        entries = None
    if entries is None or len(entries) != 3:
        return not_yet(
            tr(
                "b4.count",
                "record_weights returned {history}; expected a list of 3 values, one after "
                "each step.",
                history=show(history),
            )
        )
    copy_hint = tr(
        "b4.copy-hint",
        "store a copy of the values: w.detach().numpy().copy() (or w.item() / w.tolist()).",
    )
    problem = _entry_problem(entries, w)
    if problem is not None:
        return not_yet(problem, copy_hint)
    try:
        logged = [floats(entry) for entry in entries]
    except (TypeError, ValueError):
        return not_yet(
            tr(
                "b4.not-values",
                "record_weights returned {history}, not a list of values.",
                history=show(history),
            )
        )
    if any(len(values) != 1 for values in logged):
        return not_yet(
            tr(
                "b4.not-one-value",
                "each entry should hold w's one value; got {history}.",
                history=show(history),
            )
        )
    mine = [values[0] for values in logged]
    say(
        tr(
            "b4.log",
            "Your log: {mine}   expected: {right}",
            mine=rounded(mine),
            right=rounded(after),
        )
    )
    if np.allclose(mine, before, atol=1e-6):
        return not_yet(
            tr(
                "b4.before-steps",
                "these are w's values before each step; the log should hold them after each "
                "opt.step().",
            )
        )
    if not np.allclose(mine, after, atol=1e-6) or not np.isclose(floats(w)[0], after[-1]):
        return not_yet(
            tr(
                "b4.wrong-values",
                "the logged values differ from w's value after each of the three steps. Keep "
                "the training loop as it was; change only what you append.",
            )
        )
    return solved(
        tr(
            "b4.solved",
            "each entry is a snapshot of w after its step, taken out of the graph and safe "
            "from later updates.",
        )
    )


# ---- B5: truncated backprop through time ------------------------------------------------------

CHUNK = 5


def _sequence() -> tuple[mg.Tensor, mg.Tensor]:
    t = np.arange(31, dtype=np.float32)
    wave = np.sin(t / 3.0).astype(np.float32).reshape(-1, 1)
    return mg.from_numpy(wave[:-1].copy()), mg.from_numpy(wave[1:].copy())


def _rnn() -> tuple[nn.Module, nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    cell, readout = nn.RNNCell(1, 4), nn.Linear(4, 1)
    opt = optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.1)
    return cell, readout, opt


def _reference_tbptt() -> list[float]:
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    h = mg.zeros(1, 4)
    losses = []
    for start in range(0, xs.shape[0], CHUNK):
        h = h.detach()
        loss = 0.0
        for t in range(start, start + CHUNK):
            h = cell(xs[t : t + 1], h)
            loss = loss + F.mse_loss(readout(h), ys[t : t + 1])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


class _HiddenWatch:
    """For each step of the RNN cell: the hidden state it was handed (values, has a history?)
    and the one it returned."""

    def __init__(self, cell: nn.Module) -> None:
        self.steps: list[tuple[np.ndarray, bool, np.ndarray]] = []
        cell.register_forward_hook(self._forward)

    def _forward(self, module: nn.Module, args: tuple, output: Any) -> None:
        h = args[1] if len(args) > 1 and isinstance(args[1], mg.Tensor) else None
        h_in = np.zeros(4) if h is None else np.array(floats(h))
        history = h is not None and h.grad_fn is not None
        out = np.array(floats(output)) if isinstance(output, mg.Tensor) else np.zeros(4)
        self.steps.append((h_in, history, out))

    def problem(self) -> str | None:
        """The first step where h was not carried the way truncated BPTT carries it."""
        for t in range(1, len(self.steps)):
            h_in, history, _ = self.steps[t]
            previous = self.steps[t - 1][2]
            chunk_start = t % CHUNK == 0
            if chunk_start and not np.any(h_in) and np.any(previous):
                return tr(
                    "b5.restarted",
                    "at step {t}, the start of a chunk, h came in as zeros although the step "
                    "before ended with h = {previous}: the hidden state was restarted instead "
                    "of carrying its value. detach() keeps the value of h and drops only its "
                    "history.",
                    t=t,
                    previous=rounded(list(previous)),
                )
            if not np.allclose(h_in, previous, atol=1e-6):
                return tr(
                    "b5.not-carried",
                    "at step {t}, h came in as {h_in}, not as the value the step before ended "
                    "with ({previous}): the hidden state must carry its value from step to "
                    "step.",
                    t=t,
                    h_in=rounded(list(h_in)),
                    previous=rounded(list(previous)),
                )
            if not chunk_start and not history:
                return tr(
                    "b5.cut-inside-chunk",
                    "at step {t}, inside the chunk that starts at step {start}, h came in with "
                    "no history (no grad_fn): it was detached within the chunk, so backward "
                    "stops there instead of going back through all 5 steps of the chunk. "
                    "Truncated BPTT cuts only between chunks.",
                    t=t,
                    start=t - t % CHUNK,
                )
        return None


@checked
def check_tbptt(train_rnn: Callable[..., Any]) -> bool:
    """B5: `train_rnn(cell, readout, opt, xs, ys)` trains in chunks of 5 steps; h keeps its
    value from chunk to chunk and its history only within a chunk."""
    if untried(train_rnn, "train_rnn"):
        return False
    expected = _reference_tbptt()
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    watch = _HiddenWatch(cell)
    untrained = weights(cell) + weights(readout)
    try:
        losses = train_rnn(cell, readout, opt, xs, ys)
    except RuntimeError as error:
        if "second time" in error_text(error):
            return not_yet(
                tr(
                    "b5.second-time",
                    "the second chunk's backward fails with 'Trying to backward through the "
                    "graph a second time'. h still carries the first chunk's graph, which the "
                    "first backward freed.",
                ),
                tr(
                    "b5.second-time-hint",
                    "at the start of each chunk, keep h's value but drop its history: "
                    "h = h.detach().",
                ),
            )
        if "modified by an inplace operation" in error_text(error):
            return not_yet(
                tr(
                    "b5.retained",
                    "a later chunk's backward went back into an earlier chunk's graph, which "
                    "was kept (retain_graph=True keeps it), but opt.step() has changed weights "
                    "it saved, so the version check refuses. Keeping the whole past is the "
                    "wrong fix anyway: memory grows with every chunk.",
                ),
                tr(
                    "b5.retained-hint",
                    "remove retain_graph=True and cut the history instead: h = h.detach().",
                ),
            )
        raise
    problem = watch.problem()
    if problem is not None:
        return not_yet(problem)
    entries = first(losses, len(expected) + 1)
    if any(isinstance(e, mg.Tensor) and e.grad_fn is not None for e in entries):
        return not_yet(
            tr(
                "b5.losses-keep-graphs",
                "the losses you return are tensors that keep their chunk's graph: log "
                "loss.item(), a number.",
            )
        )
    if same_weights(weights(cell) + weights(readout), untrained):
        return not_yet(
            tr(
                "b5.untrained",
                "the weights of the cell and the readout never changed: each chunk ends with "
                "backward and opt.step().",
            )
        )
    got = floats(entries)
    if len(got) != len(expected):
        return not_yet(
            tr(
                "b5.count",
                "expected {expected} chunk losses, one per chunk of 5 steps, got {got}.",
                expected=len(expected),
                got=len(got),
            )
        )
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        return not_yet(
            tr(
                "b5.wrong-losses",
                "your loop runs, but its chunk losses {mine}... differ from truncated BPTT's "
                "{right}... Keep the loop as it was: forward through the chunk, backward, "
                "opt.step(), loss.item().",
                mine=rounded(got[:3]),
                right=rounded(expected[:3]),
            )
        )
    return solved(
        tr(
            "b5.solved",
            "all {count} chunks trained: at the start of each chunk h carried the value of "
            "the step before but no history, and within a chunk it kept its history, so each "
            "backward went back to the start of its chunk and no further.",
            count=len(got),
        )
    )
