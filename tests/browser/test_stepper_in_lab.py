"""The cut stepper is a working widget in a real JupyterLab in headless Chromium.

Opens fixtures/stepper_in_lab.ipynb (copied into the server's folder, so the test does not
depend on the course notebooks), runs it, and on the first stepper (`viz.cut_stepper("detach")`):
presses next, chooses the last step in the step list, checks that the code and the picture
change and that the last frame shows torch's version error; tries "predict first" / "show";
then takes the second stepper (written by hand) to its end and checks the gradient.
Screenshots of the first and the last frame go to build/screenshots/stepper_first_frame.png
and stepper_last_frame.png.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from conftest import HERE, LabServer, NotebookPages

FIXTURE = HERE / "fixtures" / "stepper_in_lab.ipynb"
NOTEBOOK = "stepper_in_lab.ipynb"
KERNEL_READY_TIMEOUT = 60.0
RUN_TIMEOUT = 90.0
WAIT_MS = 20_000  # a button press goes to the kernel and back: generous on a busy machine


def _wait_until(page: Any, what: str, check: Any, timeout_ms: int = WAIT_MS) -> Any:
    """Poll check() until it returns something true; fail with `what` after the timeout."""
    deadline = time.monotonic() + timeout_ms / 1000
    value = check()
    while not value and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        value = check()
    assert value, f"timed out waiting for {what}"
    return value


class StepperView:
    """The DOM of one stepper widget on the page."""

    def __init__(self, page: Any, root: Any) -> None:
        self.page = page
        self.root = root

    def part(self, name: str) -> Any:
        return self.root.locator(f".mg-stepper-{name}").first

    def code(self) -> str:
        return self.part("code").inner_text()

    def picture(self) -> str:
        return self.part("picture").inner_html()

    def summary(self) -> str:
        return self.part("summary").inner_text()

    def click(self, name: str) -> None:
        # ipywidgets draws the button itself with the class we gave it
        self.part(name).click()

    def wait_for_code(self, text: str) -> None:
        _wait_until(self.page, f"the code to show {text!r}", lambda: text in self.code())

    def wait_for_summary(self, text: str) -> None:
        # the code, the picture and the summary arrive as separate widget updates: the code
        # may show the new step while the summary still shows the one before
        _wait_until(self.page, f"the summary to show {text!r}", lambda: text in self.summary())


def test_stepper_widget_in_jupyterlab(
    notebook_pages: NotebookPages, lab_server: LabServer, screenshot_dir: Path
) -> None:
    shutil.copy(FIXTURE, lab_server.root / NOTEBOOK)
    page, _ = notebook_pages.open(NOTEBOOK)
    page.set_viewport_size({"width": 1280, "height": 1400})  # room for a whole frame
    failed = True
    try:
        stage = page.evaluate(
            "([p, ms]) => labTest.waitFor('kernelStage', p, 'ready', ms)",
            [NOTEBOOK, KERNEL_READY_TIMEOUT * 1000],
        )
        assert stage == "ready", f"kernel not ready: {stage}\n{lab_server.log_tail()}"
        run = page.evaluate("([p, ms]) => labTest.runAll(p, ms)", [NOTEBOOK, RUN_TIMEOUT * 1000])
        assert run["outcome"] == "done", f"Run All did not finish: {run}"
        cells = page.evaluate("p => labTest.cells(p)", NOTEBOOK)
        errors = [c["errors"] for c in cells if c["errors"]]
        assert not errors, f"cells raised: {errors}"

        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").first
        widgets = panel.locator(".mg-stepper")
        _wait_until(page, "two stepper widgets", lambda: widgets.count() == 2)
        detach = StepperView(page, widgets.nth(0))
        detach.wait_for_code("step 1 of 5: a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)")
        first_picture = detach.picture()
        assert "<svg" in first_picture
        detach.root.scroll_into_view_if_needed()
        detach.root.screenshot(path=str(screenshot_dir / "stepper_first_frame.png"))

        # next: the code and the picture move on together
        detach.click("next")
        detach.wait_for_code("step 2 of 5: out = a.sigmoid()")
        second_picture = detach.picture()
        assert "<svg" in second_picture and second_picture != first_picture
        assert "SigmoidBackward0" in second_picture

        # the step list (a <select> labelled "step"): choose the last step
        chooser = detach.part("slider").locator("select").first
        assert chooser.evaluate("s => s.labels.length && s.labels[0].textContent") == "step"
        chooser.select_option(index=4)
        detach.wait_for_code("step 5 of 5: out.sum().backward()")
        _wait_until(page, "step 5's picture", lambda: "backward will raise" in detach.picture())
        last_picture = detach.picture()
        assert "<svg" in last_picture and last_picture != second_picture
        detach.wait_for_summary("modified by an inplace operation")
        summary = detach.summary()
        assert "RuntimeError: one of the variables needed for gradient computation has been " in (
            summary
        )
        assert "modified by an inplace operation" in summary
        assert detach.part("next").is_disabled()
        detach.root.scroll_into_view_if_needed()
        detach.root.screenshot(path=str(screenshot_dir / "stepper_last_frame.png"))

        # predict first: moving back hides the picture until "show"
        detach.part("predict").locator("input[type=checkbox]").check()
        _wait_until(page, "the picture to hide", lambda: "<svg" not in detach.picture())
        assert "Predict first" in detach.part("picture").inner_text()
        detach.click("show")
        _wait_until(page, "the picture to come back", lambda: "<svg" in detach.picture())
        detach.click("back")
        detach.wait_for_code("step 4 of 5: c.zero_()")
        _wait_until(page, "step 4 to hide its picture", lambda: "<svg" not in detach.picture())
        detach.click("show")
        _wait_until(page, "step 4's picture", lambda: "was v0" in detach.picture())

        # the hand-written stepper ends in a correct gradient
        steps = StepperView(page, widgets.nth(1))
        steps.wait_for_code("step 1 of 3: a = mg.tensor")
        steps.click("next")
        steps.wait_for_code("step 2 of 3: out = a.sigmoid()")
        steps.click("next")
        steps.wait_for_code("step 3 of 3: out.sum().backward()")
        steps.wait_for_summary("a.grad = tensor([0.1966, 0.1050, 0.0452])")
        failed = False
    finally:
        notebook_pages.release(NOTEBOOK, failed=failed)
        lab_server.delete_sessions_soon(NOTEBOOK)
