"""Graphviz in the browser: pictures where `dot` cannot run (Python in Pyodide).

The browser-only course site (`make lite`, JupyterLite) runs Python inside the browser, in
Pyodide, which cannot start programs: `dot` never runs there. The same DOT text that `dot` would
lay out goes to @viz-js/viz instead, Graphviz itself compiled to WebAssembly, so the picture is
the same one (drawn with the browser's fonts). `dot_program.run_dot` hands its work to `render`
whenever `available()` is true; nothing here runs anywhere else.

The renderer is a JavaScript module: the one at the URL in $MINIGRAD_VIZ_JS when that is set,
else `viz-js.mjs` beside Pyodide's own files (where the course site puts it). Loading it starts
when this module is imported (with `minigrad.viz`), so it is usually ready by the first picture;
a picture asked for before that waits for it (`pyodide.ffi.run_sync`, which needs a browser with
WebAssembly JavaScript-Promise integration, such as Chrome or Edge 137 and later).

This module imports nothing from minigrad, so it can be loaded and tested on its own.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

__all__ = [
    "VIZ_JS_ENV",
    "VIZ_JS_FILE",
    "WasmGraphvizError",
    "available",
    "module_url",
    "preload",
    "render",
]

VIZ_JS_ENV = "MINIGRAD_VIZ_JS"  # a URL of @viz-js/viz's ES module (dist/viz.js), if set
VIZ_JS_FILE = "viz-js.mjs"  # else this file beside Pyodide's pyodide-lock.json
TEXT_HINT = "viz.summary(...) shows the same graph as text."


class WasmGraphvizError(RuntimeError):
    """Graphviz compiled to WebAssembly could not be loaded, or could not draw this graph."""


# The loaded renderer (a JavaScript `Viz`), the promise that loads it, and why loading failed.
_viz: Any = None
_loading: Any = None
_failure: str | None = None


def available() -> bool:
    """True in Pyodide (Python in a browser): no program can run, Graphviz comes as wasm."""
    return sys.platform == "emscripten"


def module_url() -> str:
    """Where the renderer's JavaScript module is loaded from (see the module docstring)."""
    configured = os.environ.get(VIZ_JS_ENV)
    if configured:
        return configured
    import pyodide_js  # Pyodide's JavaScript API; exists only in Pyodide

    base = str(pyodide_js.lockfileBaseUrl or "")
    return f"{base.rstrip('/')}/{VIZ_JS_FILE}"


def preload() -> None:
    """Start loading the renderer in the background (does nothing once started)."""
    global _loading, _failure
    if _loading is not None or _viz is not None:
        return
    from pyodide.code import run_js

    url = module_url()
    # import() of an ES module, then the module's instance(): a promise of a ready renderer
    _loading = run_js(f"import({json.dumps(url)}).then((module) => module.instance())")
    _loading.then(_keep, lambda error: _fail(url, error))


def _keep(viz: Any) -> None:
    global _viz
    _viz = viz


def _fail(url: str, error: Any) -> None:
    global _failure
    _failure = (
        f"Graphviz for the browser (@viz-js/viz) could not be loaded from {url}: {error}. "
        f"Set the environment variable {VIZ_JS_ENV} to the URL of its viz.js module."
    )


def _renderer() -> Any:
    """The loaded renderer; waits for it if it is still loading."""
    if _viz is not None:
        return _viz
    if _failure is not None:
        raise WasmGraphvizError(f"{_failure}\n{TEXT_HINT}")
    preload()
    from pyodide.ffi import can_run_sync, run_sync

    if not can_run_sync():
        raise WasmGraphvizError(
            "Graphviz for the browser is still loading, and this browser cannot wait for it "
            "inside a cell. Run the cell again in a moment.\n" + TEXT_HINT
        )
    try:
        _keep(run_sync(_loading))
    except Exception as error:  # a JavaScript error: the module could not be fetched or run
        _fail(module_url(), error)
        raise WasmGraphvizError(f"{_failure}\n{TEXT_HINT}") from None
    return _viz


def render(source: str, args: list[str], program: str = "dot") -> bytes:
    """What `program -T<format>` would print for the DOT `source`, from Graphviz in wasm."""
    formats = [arg[2:] for arg in args if arg.startswith("-T")]
    others = [arg for arg in args if not arg.startswith("-T")]
    if others or len(formats) > 1:
        raise WasmGraphvizError(
            f"in the browser, Graphviz takes one -T<format> and no other options; got {args}"
        )
    output_format = formats[0] if formats else "dot"
    viz = _renderer()
    if output_format not in list(viz.formats):
        raise WasmGraphvizError(
            f"in the browser, Graphviz cannot write {output_format!r}; "
            "it writes 'svg' (what Jupyter shows), 'dot', 'json' and a few others"
        )
    import js
    from pyodide.ffi import to_js

    options = to_js(
        {"format": output_format, "engine": program}, dict_converter=js.Object.fromEntries
    )
    result = viz.render(source, options)
    if result.status != "success":
        said = "\n".join(str(error.message) for error in result.errors) or "(no message)"
        raise WasmGraphvizError(
            f"Graphviz (in the browser) could not draw this graph. It said:\n{said}\n{TEXT_HINT}"
        )
    return str(result.output).encode("utf-8")


if available():
    # Start loading now, while the learner reads: by the first picture it is usually there.
    try:
        preload()
    except Exception as error:  # never fail `import minigrad.viz` over it; drawing says why
        _failure = f"Graphviz for the browser could not be loaded: {error}"
