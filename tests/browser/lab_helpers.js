// Helpers the browser tests call with page.evaluate("labTest.…"). Injected before JupyterLab
// loads; they only read `window.jupyterapp`, which the server exposes because it is started with
// --LabApp.expose_app_in_browser=True.
window.labTest = {
  // The notebook panel showing `path`, or null while JupyterLab is still opening it.
  panel(path) {
    const app = window.jupyterapp;
    if (!app || !app.shell) {
      return null;
    }
    for (const widget of app.shell.widgets("main")) {
      if (widget.context && widget.context.path === path && widget.sessionContext) {
        return widget;
      }
    }
    return null;
  },

  // Poll labTest[helper](path) inside the page until it equals `want` (compared as JSON) or
  // timeoutMs pass; resolves to the last value. Polling here costs no round trips to Python.
  async waitFor(helper, path, want, timeoutMs) {
    const wanted = JSON.stringify(want);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = this[helper](path);
      if (JSON.stringify(value) === wanted || Date.now() >= deadline) {
        return value;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },

  // Open a notebook in this JupyterLab, as a double click in the file browser does.
  async openNotebook(path) {
    await window.jupyterapp.commands.execute("docmanager:open", { path, factory: "Notebook" });
  },

  // Close a notebook's panel without the "save changes?" dialog (autosave is off: the copy on
  // disk stays as it was).
  closeNotebook(path) {
    const panel = this.panel(path);
    if (panel) {
      panel.dispose();
    }
  },

  // Text of an open dialog (e.g. "Select Kernel"), which would otherwise block silently.
  dialogText() {
    const dialog = document.querySelector(".jp-Dialog");
    return dialog ? dialog.innerText.replace(/\s+/g, " ").trim() : null;
  },

  // Where the notebook is on its way to a usable kernel. "ready" means: document loaded, session
  // ready, kernel connected and idle. The toolbar's idle indicator is not enough: it reads idle
  // before any kernel is attached.
  kernelStage(path) {
    const panel = this.panel(path);
    if (!panel) {
      return "notebook panel not open";
    }
    if (!panel.context.isReady) {
      return "document loading";
    }
    const sessionContext = panel.sessionContext;
    if (!sessionContext.isReady) {
      return "session starting";
    }
    const kernel = sessionContext.session && sessionContext.session.kernel;
    if (!kernel) {
      return "no kernel attached";
    }
    if (kernel.connectionStatus !== "connected") {
      return `kernel ${kernel.connectionStatus}`;
    }
    return kernel.status === "idle" ? "ready" : `kernel ${kernel.status}`;
  },

  // Clear all outputs, then run every cell with the same command as the menu's Run All, and
  // wait until the run is over or timeoutMs pass. Resolves to {outcome: "done" | "timeout",
  // running, notRun} (cell indexes). The command's own promise is not used: in JupyterLab 4.6
  // it resolved while later cells were still waiting their turn (measured).
  async runAll(path, timeoutMs) {
    const app = window.jupyterapp;
    const panel = this.panel(path);
    app.shell.activateById(panel.id);
    // Cleared first, so every output and execution count checked afterwards is from this run.
    await app.commands.execute("notebook:clear-all-cell-outputs");
    app.commands.execute("notebook:run-all-cells");
    const deadline = Date.now() + timeoutMs;
    let quietSince = null;
    for (;;) {
      const state = this.runState(path);
      const quiet = state.kernel === "idle" && state.running.length === 0;
      quietSince = quiet ? (quietSince ?? Date.now()) : null;
      // Finished: every cell ran; or nothing has moved for 2 s (Run All stops at an error, and
      // the kernel is briefly idle between two cells, hence the wait).
      if (quiet && (state.notRun.length === 0 || Date.now() - quietSince >= 2000)) {
        return { outcome: "done", ...state };
      }
      if (Date.now() >= deadline) {
        return { outcome: "timeout", ...state };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },

  // Kernel status, code cells running now, and non-empty code cells without an execution count.
  // (JupyterLab does not execute a code cell whose source is blank.)
  runState(path) {
    const panel = this.panel(path);
    const running = [];
    const notRun = [];
    panel.content.widgets.forEach((cell, index) => {
      if (cell.model.type !== "code") {
        return;
      }
      if (cell.model.executionState === "running") {
        running.push(index);
      } else if (cell.model.executionCount === null && cell.model.sharedModel.getSource().trim()) {
        notRun.push(index);
      }
    });
    const kernel = panel.sessionContext.session?.kernel;
    return { kernel: kernel ? kernel.status : "no kernel", running, notRun };
  },

  async interrupt(path) {
    const kernel = this.panel(path).sessionContext.session?.kernel;
    if (kernel) {
      await kernel.interrupt();
    }
  },

  // What each cell holds now: its model (outputs, execution count) and what its DOM renders.
  cells(path) {
    const panel = this.panel(path);
    return panel.content.widgets.map((cell) => {
      const model = cell.model.toJSON();
      const outputs = model.outputs || [];
      const rendered = (mime) =>
        Array.from(cell.node.querySelectorAll(`.jp-OutputArea-output[data-mime-type="${mime}"]`));
      const loadedImg = (node, srcPrefix) =>
        Array.from(node.querySelectorAll("img")).some(
          (img) => img.complete && img.naturalWidth > 0 && img.src.startsWith(srcPrefix),
        );
      return {
        type: model.cell_type,
        blank: cell.model.sharedModel.getSource().trim() === "",
        executionCount: model.execution_count ?? null,
        trusted: cell.model.trusted ?? null,
        errors: outputs
          .filter((output) => output.output_type === "error")
          .map((output) => `${output.ename}: ${output.evalue}`),
        // JupyterLab 4.6 renders both exceptions and stderr streams (warnings) as
        // data-mime-type="application/vnd.jupyter.stderr"; only the model's output_type tells
        // them apart, hence `errors` above.
        stderrTexts: rendered("application/vnd.jupyter.stderr").map((node) =>
          node.innerText.trim().slice(0, 300),
        ),
        // JupyterLab 4.6 draws a trusted SVG as <img src="data:image/svg+xml,…">, not inline;
        // an untrusted one becomes a "Cannot display an untrusted SVG" message. A viz picture's
        // bundle also has a text/html <img> of the same picture with its alt, which JupyterLab
        // ranks first (minigrad/viz/alt_text.py html_picture): that shows the picture too.
        svgRendered:
          rendered("image/svg+xml").some(
            (node) => node.querySelector("svg") !== null || loadedImg(node, "data:image/svg+xml"),
          ) || rendered("text/html").some((node) => loadedImg(node, "data:image/svg+xml")),
        pngRendered: ["image/png", "text/html"].some((mime) =>
          rendered(mime).some((node) => loadedImg(node, "data:image/png")),
        ),
        pictures: this.pictures(cell.node),
        outputMimes: Array.from(cell.node.querySelectorAll(".jp-OutputArea-output")).map(
          (node) => node.getAttribute("data-mime-type"),
        ),
        // Rendered markdown headings, without the "¶" anchor JupyterLab appends to each.
        headings: Array.from(
          cell.node.querySelectorAll(".jp-RenderedMarkdown :is(h1, h2, h3)"),
        ).map((node) => node.textContent.replace(/¶/g, "").trim()),
        streamText: outputs
          .filter((output) => output.output_type === "stream")
          .map((output) => (Array.isArray(output.text) ? output.text.join("") : output.text))
          .join("")
          .slice(0, 2000),
      };
    });
  },

  // Every picture an output area shows (an <img>, or an <svg> not inside another one), with
  // its accessible name as a screen reader gets it from the markup (WCAG 1.1.1): an img's alt;
  // an svg's aria-label, or its first <title> when it has role="img". `loaded`: drawn (an img
  // decoded with a size); `mime`: the output renderer that shows it; the box as laid out.
  pictures(root) {
    const shown = Array.from(root.querySelectorAll(".jp-OutputArea-output :is(img, svg)"));
    return shown
      .filter((node) => node.tagName.toLowerCase() === "img" || !node.parentElement.closest("svg"))
      .map((node) => {
        const isImg = node.tagName.toLowerCase() === "img";
        const title = node.querySelector(":scope > title");
        const name = isImg
          ? node.getAttribute("alt") || ""
          : node.getAttribute("aria-label") ||
            (node.getAttribute("role") === "img" && title ? title.textContent : "");
        const box = node.getBoundingClientRect();
        const output = node.closest(".jp-OutputArea-output");
        const around = output.getBoundingClientRect();
        return {
          tag: node.tagName.toLowerCase(),
          src: isImg ? (node.getAttribute("src") || "").slice(0, 40) : "",
          name: name.trim(),
          loaded: isImg ? node.complete && node.naturalWidth > 0 : true,
          naturalWidth: isImg ? node.naturalWidth : null,
          naturalHeight: isImg ? node.naturalHeight : null,
          width: box.width,
          height: box.height,
          mime: output.getAttribute("data-mime-type"),
          // where it sits in its output: left and top offsets, and the output's own height
          place: [box.left - around.left, box.top - around.top, around.height].map(Math.round),
        };
      });
  },

  // Prepare a whole-notebook screenshot: hide the side panels and report how much taller the
  // window must be for the notebook to fit without scrolling inside its panel.
  async screenshotLayout(path) {
    const app = window.jupyterapp;
    app.shell.collapseLeft();
    app.shell.collapseRight();
    // The notebook gets wider, so its text wraps less: let two frames pass before measuring.
    for (let frame = 0; frame < 2; frame++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    const content = this.panel(path).content;
    // The cells scroll inside the notebook's windowed-panel container, not in the page.
    const scroller = content.node.querySelector(".jp-WindowedPanel-outer") || content.node;
    scroller.scrollTop = 0;
    // Measure to the last cell's bottom rather than scrollHeight, which includes the empty
    // space JupyterLab leaves below the last cell.
    const cells = content.widgets;
    let needed = scroller.scrollHeight;
    if (cells.length > 0) {
      const lastBottom = cells[cells.length - 1].node.getBoundingClientRect().bottom;
      needed = lastBottom - scroller.getBoundingClientRect().top + 24;
    }
    return {
      extra: Math.max(0, Math.ceil(needed - scroller.clientHeight)),
      windowHeight: window.innerHeight,
    };
  },
};
