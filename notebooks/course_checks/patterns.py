"""Part B of notebook 12, two patterns of notebook 07 where `detach()` decides what a backward
reaches: the GAN discriminator step (B3) and truncated backprop through time (B5).

Each check runs the learner's function on its own small problem and watches it at work (hooks
on the generator's parameters, on the RNN cell), then compares what it saw with the conditions
the exercise states, not only with the numbers a right answer produces. A `_..._problem`
helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

from .answers import first, floats, rounded, same_weights, untried, weights
from .feedback import Problem, describe_error, error_text, not_yet, show, solved, tr
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


def _g_reached_problem(G: nn.Module, reached: list[str]) -> Problem | None:
    """A gradient that reached G in the D step (still in .grad, or cleared since), or None."""
    hint = tr("b3.hint", "give D a detached copy in the D step: D(fake.detach()).")
    if G.weight.grad is not None:
        text = tr(
            "b3.g-has-grad",
            "after the D step, G.weight.grad is {grad}. The discriminator's loss travelled "
            "back through fake into the generator: a gradient that helps D, sitting in G's "
            ".grad.",
            grad=G.weight.grad,
        )
        return text, hint
    if reached:
        text = tr(
            "b3.g-reached",
            "during the D step, backward computed a gradient for G's parameters "
            "({names}): the discriminator's loss travelled back through fake into the "
            "generator. G's .grad is empty now, but that part of the backward pass was "
            "still done, for nothing.",
            names=", ".join(dict.fromkeys(reached)),
        )
        return text, hint
    return None


def _d_step_problem(now: list[np.ndarray], before: list[np.ndarray]) -> Problem | None:
    """Why D's weights are not those of one right D step, or None."""
    if same_weights(now, before):
        text = tr(
            "b3.d-untrained",
            "D's weights did not change: the D step must still train D (backward on D's "
            "loss, then opt_D.step()).",
        )
        return text, None
    if not same_weights(now, _reference_d_step()):
        text = tr(
            "b3.d-wrong-step",
            "D's weights after your step are not those of one step of opt_D on "
            "bce(D(real), ones) + bce(D(fake), zeros). Keep D's loss and its update as "
            "given; change only what D is handed.",
        )
        return text, None
    return None


@checked
def check_gan_d_step(d_step: Callable[..., Any]) -> bool:
    """B3: `d_step(G, D, opt_D, real, z)` trains D one step and returns `fake`; no gradient may
    reach G in that step, and the G step must still reach G through `fake`."""
    if untried(d_step, "d_step"):
        return False
    G, D, opt_D, real, z = _gan()
    before = weights(D)
    reached: list[str] = []  # G's parameters a gradient reached during the D step
    for name, p in G.named_parameters():
        p.register_hook(lambda grad, name=name: reached.append(name))
    fake = d_step(G, D, opt_D, real, z)
    problem = _g_reached_problem(G, reached) or _d_step_problem(weights(D), before)
    if problem is None:
        g_step = _g_step_problem(G, D, fake)  # our own backward: it reaches G, as it should
        keep_fake = tr(
            "b3.keep-fake-hint",
            "keep fake = G(z) as it is and detach only the copy passed to D.",
        )
        problem = (g_step, keep_fake) if g_step is not None else None
    if problem is not None:
        return not_yet(*problem)
    return solved(
        tr(
            "b3.solved",
            "no gradient reached G during the D step, D took its step, and the G step can "
            "still go back through fake to G (G.weight.grad is now {grad}).",
            grad=G.weight.grad,
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


def _chunk_error(error: RuntimeError) -> Problem:
    """What a known error of a chunk's backward means (any other is raised again)."""
    if "second time" in error_text(error):
        return (
            tr(
                "b5.second-time",
                "the second chunk's backward fails with 'Trying to backward through the "
                "graph a second time'. h still carries the first chunk's graph, which the "
                "first backward freed.",
            ),
            tr(
                "b5.second-time-hint",
                "at the start of each chunk, keep h's value but drop its history: h = h.detach().",
            ),
        )
    if "modified by an inplace operation" in error_text(error):
        return (
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
    raise error


def _losses_problem(entries: list[Any], expected: list[float], trained: bool) -> Problem | None:
    """Why the chunk losses are not truncated BPTT's, or None."""
    if any(isinstance(e, mg.Tensor) and e.grad_fn is not None for e in entries):
        text = tr(
            "b5.losses-keep-graphs",
            "the losses you return are tensors that keep their chunk's graph: log "
            "loss.item(), a number.",
        )
        return text, None
    if not trained:
        text = tr(
            "b5.untrained",
            "the weights of the cell and the readout never changed: each chunk ends with "
            "backward and opt.step().",
        )
        return text, None
    got = floats(entries)
    if len(got) != len(expected):
        text = tr(
            "b5.count",
            "expected {expected} chunk losses, one per chunk of 5 steps, got {got}.",
            expected=len(expected),
            got=len(got),
        )
        return text, None
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        text = tr(
            "b5.wrong-losses",
            "your loop runs, but its chunk losses {mine}... differ from truncated BPTT's "
            "{right}... Keep the loop as it was: forward through the chunk, backward, "
            "opt.step(), loss.item().",
            mine=rounded(got[:3]),
            right=rounded(expected[:3]),
        )
        return text, None
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
        return not_yet(*_chunk_error(error))
    carried = watch.problem()
    if carried is not None:
        return not_yet(carried)
    entries = first(losses, len(expected) + 1)
    trained = not same_weights(weights(cell) + weights(readout), untrained)
    problem = _losses_problem(entries, expected, trained)
    if problem is not None:
        return not_yet(*problem)
    return solved(
        tr(
            "b5.solved",
            "all {count} chunks trained: at the start of each chunk h carried the value of "
            "the step before but no history, and within a chunk it kept its history, so each "
            "backward went back to the start of its chunk and no further.",
            count=len(entries),
        )
    )
