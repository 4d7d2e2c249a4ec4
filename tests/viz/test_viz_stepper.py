"""viz.stepper and viz.cut_stepper: frames, pictures, summaries, bad input, the HTML and widget."""

from __future__ import annotations

import re

import pytest

import minigrad as mg
from minigrad import viz

VERSION_ERROR = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by an "
    "inplace operation: [minigrad.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; "
    "expected version 0 instead. Hint: "
)
CORRECT = "tensor([0.1966, 0.1050, 0.0452])"


def detach_steps():
    return [
        (
            "a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)",
            lambda: mg.tensor([1.0, 2.0, 3.0], requires_grad=True),
        ),
        ("out = a.sigmoid()", lambda a: a.sigmoid()),
        ("c = out.detach()", lambda out: out.detach()),
        ("c.zero_()", lambda c: c.zero_()),
        ("out.sum().backward()", lambda out: out.sum().backward()),
    ]


def test_one_frame_per_step_labelled_by_its_code():
    steps = detach_steps()
    frames = viz.stepper(steps, "out").frames
    assert [f.label for f in frames] == [code for code, _ in steps]
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    for frame in frames:
        assert frame.svg.lstrip().startswith("<?xml") and "</svg>" in frame.svg
        assert frame.summary.startswith(f"step {frame.index + 1} of 5: {frame.label}")


def test_summary_says_what_changed_and_the_values():
    frames = viz.stepper(detach_steps(), "out").frames
    zero = frames[3].summary
    assert "out: version v0 -> v1" in zero
    assert "SigmoidBackward0 saved result=out: saved v0, now v1 -> backward will raise" in zero
    assert "out = tensor([0., 0., 0.], grad_fn=<SigmoidBackward0>)  (version 1)" in zero
    assert "c: new tensor" in frames[2].summary
    assert frames[3].error is None and frames[3].gradients == ()


def test_a_step_that_raises_shows_the_error_as_python_prints_it():
    last = viz.stepper(detach_steps(), "out").frames[-1]
    assert last.error.startswith(VERSION_ERROR)
    assert "raised:\n  " + last.error in last.summary
    assert last.gradients == ()


def test_steps_after_an_error_still_run():
    steps = [
        ("a = mg.tensor([1.0, 2.0])", lambda: mg.tensor([1.0, 2.0])),
        ("a.sum().backward()", lambda a: a.sum().backward()),
        ("b = a * 2", lambda a: a * 2),
    ]
    frames = viz.stepper(steps).frames
    assert frames[1].error == (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    )
    assert frames[2].error is None and "b = tensor([2., 4.])  (version 0)" in frames[2].summary


def test_backward_shows_the_gradients():
    steps = [*detach_steps()[:2], ("out.sum().backward()", lambda out: out.sum().backward())]
    last = viz.stepper(steps).frames[-1]
    assert last.error is None
    assert last.gradients == (f"a.grad = {CORRECT}",)
    assert f"gradients:\n  a.grad = {CORRECT}" in last.summary


def test_warnings_are_recorded_in_the_frame():
    steps = [*detach_steps()[:2], ("g = out.grad", lambda out: out.grad)]
    last = viz.stepper(steps).frames[-1]
    assert last.warnings and last.warnings[0].startswith("UserWarning: The .grad attribute")
    assert "warned:\n  UserWarning: The .grad attribute" in last.summary


def test_rerunning_gives_the_same_frames():
    first = viz.stepper(detach_steps(), "out")
    second = viz.stepper(detach_steps(), "out")
    assert [(f.label, f.summary, f.svg) for f in first] == [
        (f.label, f.summary, f.svg) for f in second
    ]
    again = viz.cut_stepper("data")
    assert [f.svg for f in again] == [f.svg for f in viz.cut_stepper("data")]


def test_names_choose_what_is_drawn_and_roots_what_is_an_output():
    frames = viz.stepper(detach_steps(), "out", names=["a", "out"]).frames
    assert [t.name for t in frames[2].after.tensors] == ["a", "out"]
    assert frames[2].after.tensor("out").is_root
    everything = viz.stepper(detach_steps()).frames
    assert [t.name for t in everything[2].after.tensors] == ["a", "out", "c"]


def test_tuple_assignment_names_each_value():
    steps = [
        ("x, y = mg.ones(2), mg.zeros(2)", lambda: (mg.ones(2), mg.zeros(2))),
        ("z = x + y", lambda x, y: x + y),
    ]
    assert "z = tensor([1., 1.])" in viz.stepper(steps).frames[-1].summary
    with pytest.raises(ValueError, match="names 2 values, but its action returned 1"):
        viz.stepper([("x, y = mg.ones(2)", lambda: mg.ones(2))])


def test_svg_has_no_addresses_and_does_not_depend_on_the_hash_seed(outputs_under_hash_seeds):
    script = (
        "from minigrad import viz\n"
        "for route in ('detach', 'data'):\n"
        "    for frame in viz.cut_stepper(route):\n"
        "        print(frame.svg)\n"
        "        print(frame.summary)\n"
    )
    first, second = outputs_under_hash_seeds(script)
    assert first == second
    assert not re.search(r"0x[0-9a-f]{6,}", first)


@pytest.mark.parametrize(
    "steps, error, message",
    [
        (
            "out = a.sigmoid()",
            TypeError,
            "expects a list of \\(code_text, action\\) pairs, got str",
        ),
        (None, TypeError, "expects a list of \\(code_text, action\\) pairs, got NoneType"),
        ([], ValueError, "needs at least one"),
        (["out = a.sigmoid()"], TypeError, "step 1 must be a \\(code_text, action\\) pair"),
        ([("a", lambda: 1, 3)], TypeError, "step 1 must be a \\(code_text, action\\) pair"),
        ([(lambda: 1, "a = 1")], TypeError, "the first item must be the code text"),
        ([("a = 1", 1)], TypeError, "step 1 \\('a = 1'\\): the action must be callable"),
        ([("c.zero_()", lambda c: c.zero_())], ValueError, "asks for c, which no earlier step"),
        ([("a = f()", lambda *args: 1)], TypeError, "cannot be passed by name"),
    ],
)
def test_bad_steps_get_a_clear_error(steps, error, message):
    with pytest.raises(error, match=message):
        viz.stepper(steps)


def test_bad_roots_and_names_get_a_clear_error():
    a = mg.tensor([1.0])
    with pytest.raises(TypeError, match="names of values the steps make"):
        viz.stepper(detach_steps(), a)
    with pytest.raises(ValueError, match="'b', which no step makes"):
        viz.stepper(detach_steps(), "b")
    with pytest.raises(TypeError, match="names must be a list of names"):
        viz.stepper(detach_steps(), names={"a": a})
    with pytest.raises(TypeError, match="names must be a list of names"):
        viz.stepper(detach_steps(), names="out")


def test_an_action_with_a_default_gets_the_value_when_it_exists():
    steps = [
        ("a = mg.ones(2)", lambda: mg.ones(2)),
        ("b = a * 2", lambda a, scale=3: a * scale),
        ("c = b + 0", lambda b, missing=5: b + missing),
    ]
    assert "c = tensor([8., 8.])" in viz.stepper(steps).frames[-1].summary


# --------------------------------------------------------------------------------------------
# cut_stepper
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["detach", "detach_", "data", "numpy", "clone_detach", "no_grad"])
def test_every_route_has_five_frames_with_pictures(route):
    stepped = viz.cut_stepper(route)
    assert len(stepped.frames) >= 5
    assert all("<svg" in frame.svg for frame in stepped.frames)
    assert stepped.frames[0].label == "a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)"
    assert f"correct:   a.grad = {CORRECT}" in stepped.frames[-1].summary


def test_detach_ends_in_the_version_error():
    last = viz.cut_stepper("detach").frames[-1]
    assert last.label == "out.sum().backward()"
    assert last.error.startswith(VERSION_ERROR)
    assert "modified by an inplace operation" in last.summary


def test_data_ends_in_a_silently_wrong_gradient_beside_the_correct_one():
    last = viz.cut_stepper("data").frames[-1]
    assert last.error is None
    assert last.gradients == ("a.grad = tensor([0., 0., 0.])",)
    assert "  correct:   a.grad = tensor([0.1966, 0.1050, 0.0452])" in last.summary
    assert "  this run:  a.grad = tensor([0., 0., 0.])   <- silently wrong" in last.summary


def test_numpy_change_is_silent_too():
    frames = viz.cut_stepper("numpy").frames
    assert frames[3].label == "n[:] = 0"
    assert "n = array([0., 0., 0.], dtype=float32)" in frames[3].summary
    assert "out = tensor([0., 0., 0.], grad_fn=<SigmoidBackward0>)  (version 0)" in (
        frames[3].summary
    )
    assert frames[-1].gradients == ("a.grad = tensor([0., 0., 0.])",)


def test_clone_detach_gives_the_correct_gradient():
    last = viz.cut_stepper("clone_detach").frames[-1]
    assert last.error is None
    assert last.gradients == (f"a.grad = {CORRECT}",)
    assert f"this run:  a.grad = {CORRECT}   <- correct" in last.summary


def test_detach_inplace_and_no_grad_keep_the_version_check():
    detach_ = viz.cut_stepper("detach_").frames
    assert "out: became a leaf (grad_fn was SigmoidBackward0); no longer requires grad" in (
        detach_[3].summary
    )
    assert detach_[-1].label == "loss.backward()" and detach_[-1].error.startswith(VERSION_ERROR)
    no_grad = viz.cut_stepper("no_grad").frames
    assert no_grad[3].label == "with mg.no_grad(): out.zero_()"
    assert "out: version v0 -> v1" in no_grad[3].summary
    assert no_grad[-1].error.startswith(VERSION_ERROR)


def test_unknown_route_names_the_valid_ones():
    with pytest.raises(ValueError, match="unknown route 'detatch'; the routes are 'detach', "):
        viz.cut_stepper("detatch")


# --------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------


def test_html_fallback_has_every_frame_in_order():
    stepped = viz.cut_stepper("detach")
    page = stepped.html()
    assert page.count('<details class="mg-stepper-frame"') == len(stepped.frames)
    assert page.count("<svg") == len(stepped.frames) and "<?xml" not in page
    positions = [page.index(f"step {i + 1} of 5: ") for i in range(5)]
    assert positions == sorted(positions)
    assert "modified by an inplace operation" in page
    text = stepped.text()
    assert all(frame.summary in text for frame in stepped.frames)


def test_html_fallback_shows_one_frame_at_a_time_at_one_height():
    page = viz.cut_stepper("data").html()
    frames = re.findall(r'<details class="mg-stepper-frame" name="(mg-stepper-\w+)"( open)?>', page)
    assert len(frames) == 5 and len({name for name, _ in frames}) == 1  # one group: one open
    assert [opened for _, opened in frames] == [" open", "", "", "", ""]
    heights = re.findall(r'class="mg-stepper-picture" lang="en" style="height:(\d+)px', page)
    assert heights == ["340"] * 5
    assert page == viz.cut_stepper("data").html()  # the same on every run


@pytest.mark.parametrize("route", ["detach", "detach_", "data", "numpy", "clone_detach", "no_grad"])
def test_every_frame_of_a_stepper_is_drawn_the_same_way(route):
    stepped = viz.cut_stepper(route)
    assert {frame.graph.stacked for frame in stepped} == {False}  # small graphs: side by side


def test_a_value_changed_unseen_stays_marked_in_the_next_frames():
    # .data route: step 4 (d.zero_()) changes out's memory behind the version check; step 5's
    # "before" is that same state and must say so too, not show the saved value plain
    frames = viz.cut_stepper("data").frames
    note = "memory changed via d"
    after_4 = frames[3].graph.source
    before_5 = frames[4].graph.source
    assert re.search(rf"after_F0_result \[label=<[^\n]*{note}[^\n]*color=\"#922b21\"", after_4)
    assert re.search(rf"before_F0_result \[label=<[^\n]*{note}[^\n]*color=\"#922b21\"", before_5)
    assert "after_F0_result" in frames[4].graph.source and note not in re.search(
        r"after_F0_result \[label=<[^\n]*", before_5
    ).group(0)  # backward freed it: nothing left to warn about
    assert note not in frames[2].graph.source  # and nothing before the change


def test_mimebundle_offers_html_text_and_the_widget_view():
    pytest.importorskip("ipywidgets")
    bundle = viz.cut_stepper("data")._repr_mimebundle_()
    assert set(bundle) == {
        "text/plain",
        "text/html",
        "application/vnd.jupyter.widget-view+json",
    }
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["version_major"] == 2 and view["model_id"]
    assert "0x" not in bundle["text/plain"]
    only_html = viz.cut_stepper("data")._repr_mimebundle_(include={"text/html"})
    assert set(only_html) == {"text/html"}


def test_mimebundle_without_ipywidgets_is_html_and_text(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import raises ImportError
    monkeypatch.delitem(sys.modules, "minigrad.viz.stepper_widget", raising=False)
    bundle = viz.cut_stepper("detach")._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}


def test_widget_steps_through_the_frames():
    pytest.importorskip("ipywidgets")
    stepped = viz.cut_stepper("detach")
    box = stepped.widget()
    parts = {}

    def collect(widget):
        for name in widget._dom_classes:
            parts[name.removeprefix("mg-stepper-")] = widget
        for child in getattr(widget, "children", ()):
            collect(child)

    collect(box)
    slider, code, picture = parts["slider"], parts["code"], parts["picture"]
    assert "step 1 of 5: a = mg.tensor" in code.value and "<svg" in picture.value
    assert parts["back"].disabled and not parts["next"].disabled
    parts["next"].click()
    assert slider.value == 2 and "out = a.sigmoid()" in code.value
    slider.value = 5
    assert "modified by an inplace operation" in parts["summary"].value
    assert parts["next"].disabled
    parts["predict"].value = True  # predict first: the picture waits for "show"
    assert "<svg" not in picture.value and parts["summary"].value == ""
    assert parts["show"].layout.display is None
    parts["show"].click()
    assert "<svg" in picture.value and parts["show"].layout.display == "none"
    parts["back"].click()
    assert slider.value == 4 and "<svg" not in picture.value
