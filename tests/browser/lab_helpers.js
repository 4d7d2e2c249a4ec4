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

  // Run every cell through the same command as the menu's Run All. Resolves to "done" when the
  // command finished (whether or not a cell raised) or to "timeout" after timeoutMs.
  async runAll(path, timeoutMs) {
    const app = window.jupyterapp;
    const panel = this.panel(path);
    app.shell.activateById(panel.id);
    const run = app.commands.execute("notebook:run-all-cells").then(() => "done");
    const timer = new Promise((resolve) => setTimeout(() => resolve("timeout"), timeoutMs));
    return Promise.race([run, timer]);
  },

  // Indexes of cells whose prompt still shows [*] (running or queued).
  busyCells(path) {
    const panel = this.panel(path);
    const busy = [];
    panel.content.widgets.forEach((cell, index) => {
      const prompt = cell.node.querySelector(".jp-InputPrompt");
      if (prompt && prompt.textContent.includes("*")) {
        busy.push(index);
      }
    });
    return busy;
  },

  kernelStatus(path) {
    const kernel = this.panel(path).sessionContext.session?.kernel;
    return kernel ? kernel.status : "no kernel";
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
        executionCount: model.execution_count ?? null,
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
        // an untrusted one becomes a "Cannot display an untrusted SVG" message.
        svgRendered: rendered("image/svg+xml").some(
          (node) => node.querySelector("svg") !== null || loadedImg(node, "data:image/svg+xml"),
        ),
        pngRendered: rendered("image/png").some((node) => loadedImg(node, "data:image/png")),
        outputMimes: Array.from(cell.node.querySelectorAll(".jp-OutputArea-output")).map(
          (node) => node.getAttribute("data-mime-type"),
        ),
      };
    });
  },

  // Prepare a whole-notebook screenshot: hide the side panels and report how much taller the
  // window must be for the notebook to fit without scrolling inside its panel.
  screenshotLayout(path) {
    const app = window.jupyterapp;
    app.shell.collapseLeft();
    app.shell.collapseRight();
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
