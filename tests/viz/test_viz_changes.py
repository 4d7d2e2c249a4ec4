"""minigrad.viz.changes: what a call changed, as structured facts, and the text made from them.

The sentences are the ones the notebooks print (and nbval compares), so they are checked
word for word here; the facts behind them are checked as data.
"""

from __future__ import annotations

import textwrap

import minigrad as mg
from minigrad import viz
from minigrad.viz import changes as ch


def sigmoid_graph():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return a, a.sigmoid()


def test_detach_in_place_gives_two_tensor_facts_and_one_cut_edge():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    s = b.sum()
    comparison = viz.cut(lambda: b.detach_(), s, names=dict(a=a, b=b, s=s))
    key = comparison.before.tensor("b").key
    assert comparison.changes.facts == (
        ch.TensorChange(key, "b", ch.BECAME_LEAF, old="MulBackward0"),
        ch.TensorChange(key, "b", ch.STOPPED_REQUIRING_GRAD),
    )
    edges = comparison.changes.edges
    assert edges.cut == (("MulBackward0", "b"),)
    assert edges.unreachable == ()
    assert comparison.changes.lines == (
        "b: became a leaf (grad_fn was MulBackward0); no longer requires grad",
        "edge removed: MulBackward0 -> b",
    )
    # the picture's notes are the short forms, in the same order
    assert comparison.changes.marks.notes[key] == ["became a leaf", "no longer requires grad"]


def test_an_in_place_op_on_a_non_leaf_notes_its_new_grad_fn_then_its_version():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    comparison = viz.cut(lambda: b.mul_(3), b, names=dict(a=a, b=b))
    key = comparison.before.tensor("b").key
    new_function = comparison.after.function("MulBackward0#2").key
    assert comparison.changes.facts == (
        ch.TensorChange(key, "b", ch.NEW_GRAD_FN, new="MulBackward0#2"),
        ch.TensorChange(key, "b", ch.VERSION, old=0, new=1),
        ch.NewFunction(new_function, "MulBackward0#2"),
    )
    marks = comparison.changes.marks
    assert marks.notes[key] == ["grad_fn is now MulBackward0#2", "was v0"]
    assert marks.new == {new_function}


def test_saved_value_facts_stale_unseen_and_freed():
    a, out = sigmoid_graph()
    c = out.detach()
    stale = viz.cut(lambda: c.zero_(), out, names=dict(a=a, out=out, c=c))
    (fact,) = [f for f in stale.changes.facts if isinstance(f, ch.SavedChange)]
    assert fact == ch.SavedChange("F0_result", "SigmoidBackward0 saved result=out", ch.STALE, 0, 1)
    a, out = sigmoid_graph()
    d = out.data
    unseen = viz.cut(lambda: d.zero_(), out, names=dict(a=a, out=out, d=d))
    (fact,) = [f for f in unseen.changes.facts if isinstance(f, ch.SavedChange)]
    assert (fact.kind, fact.movers, fact.current_version) == (ch.UNSEEN, ("d",), 0)
    assert unseen.changes.marks.notes["F0_result"] == [
        "memory changed via d",
        "backward will NOT notice",
    ]
    a, out = sigmoid_graph()
    loss = out.sum()
    freed = viz.cut(lambda: loss.backward(), loss, names=dict(a=a, out=out, loss=loss))
    (fact,) = [f for f in freed.changes.facts if isinstance(f, ch.SavedChange)]
    assert (fact.kind, fact.name) == (ch.FREED, "SigmoidBackward0 saved result=out")


def test_a_new_tensor_fact_carries_its_kind_and_what_it_shares():
    a, out = sigmoid_graph()
    comparison = viz.cut(lambda: out.detach(), out, names=dict(a=a, out=out))
    (fact,) = comparison.changes.facts
    assert isinstance(fact, ch.NewTensor)
    assert (fact.name, fact.is_leaf, fact.requires_grad, fact.grad_fn) == (
        "out.detach()",
        True,
        False,
        None,
    )
    assert fact.sharing == " (shares memory + version counter with out)"


def test_freezing_a_layer_reads_as_the_notebook_prints_it(frozen_body):
    # notebook 07, section 1 (its stored output is this text)
    frozen = frozen_body
    assert frozen.summary() == textwrap.dedent(
        """\
        after body.requires_grad_(False):
          W1: no longer requires grad
          b1: no longer requires grad
          edge removed: TanhBackward0 -> AddmmBackward0
          no longer reachable: TanhBackward0, AddmmBackward0#2, AccumulateGrad(b1), \
TBackward0#2, AccumulateGrad(W1)"""
    )
    assert frozen.changes.edges.unreachable[0] == "TanhBackward0"


def test_one_data_alias_behind_many_saved_copies():
    w = mg.tensor([0.5, -0.3], requires_grad=True)
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        y = (y * w).tanh()
    d = w.data
    comparison = viz.cut(lambda: d.mul_(2.0), y.sum(), names=dict(w=w, d=d), label="d.mul_(2)")
    tail = "(another version counter), still v0: backward will silently use the new values"
    assert comparison.changes.lines == (
        "d: version v0 -> v1",
        f"MulBackward0 saved other=w: memory changed through d {tail}",
        f"MulBackward0#2 saved other=w: memory changed through d {tail}",
        f"MulBackward0#3 saved other=w: memory changed through d {tail}",
    )


def test_nothing_changed_has_no_facts():
    a, out = sigmoid_graph()
    comparison = viz.cut(lambda: None, out, names=dict(a=a, out=out), label="nothing")
    assert comparison.changes.facts == () and comparison.changes.lines == ()
    assert comparison.summary() == "after nothing:\n  nothing changed"
