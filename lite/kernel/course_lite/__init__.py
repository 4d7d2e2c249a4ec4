"""The course's start-up in the browser-only site (`make lite`): the course's packages, loaded by
the kernel itself, and a message that says what really failed.

Pyodide installs a package when a cell imports it only if its import scanner finds the import,
and the scanner gives up on any cell with a line of IPython syntax: the course's imports cell
ends in `%xmode Minimal`, so numpy and minigrad were never loaded. Here the kernel loads them
itself, whatever the cells say: `install` starts loading minigrad (with numpy, graphviz and
ipywidgets, its dependencies in the site's lock) when the kernel starts, and puts a step before
every cell (a line transform of the Pyodide kernel, which may wait) that waits for that load.

numpy (and matplotlib) come from Pyodide's CDN; everything else comes with the site. When the
load fails, an import of one of them shows what happened and what to do in a few lines, not a
traceback through Pyodide's loader: the browser could not reach the CDN (offline or blocked),
or something else went wrong, with its error.

scripts/build_lite.py packs this folder into a wheel whose start-up file (IPython runs
etc/ipython/startup/*.py when the kernel starts) calls `install`; nothing here runs elsewhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COURSE_PACKAGES", "FROM_THE_CDN", "install", "message"]

# What every notebook imports, by the lock's names (their dependencies come with them). numpy
# is named too: Pyodide reports a package it could not fetch to errorCallback when it was asked
# for, not when it was only a dependency (measured in Chromium), and its failure must be told.
COURSE_PACKAGES = ["minigrad", "numpy"]
# Import names of the packages loaded by the course (minigrad and its dependencies in the lock):
# their failure to load is explained, not left as a bare ModuleNotFoundError.
COURSE_IMPORTS = {"minigrad", "numpy", "graphviz", "ipywidgets"}
# Import names of the packages that come from Pyodide's CDN (compiled to WebAssembly, found on
# no registry the site is built from): numpy, and matplotlib with its compiled dependencies.
FROM_THE_CDN = {"numpy", "matplotlib", "mpl_toolkits", "pylab", "contourpy", "kiwisolver", "PIL"}
# How browsers word a download that never got an answer (Chromium, Firefox, Safari).
NETWORK_WORDS = ("Failed to fetch", "NetworkError", "Load failed", "ERR_NAME_NOT_RESOLVED")


class _Load:
    """The course's packages: whether they are loaded, and the loader's last errors."""

    promise: Any = None  # the load started with the kernel, until a cell waits for it
    course_loaded = False
    errors: list[str] = []


def message(name: str, errors: list[str], online: bool = True) -> list[str]:
    """What the learner reads when `name` could not be loaded; `errors` are the loader's."""
    offline = not online or any(word in error for error in errors for word in NETWORK_WORDS)
    if offline:
        return [
            f"{name} could not be loaded: this browser could not download it.",
            "The in-browser course gets numpy (and matplotlib, for plots) from Pyodide's CDN",
            "(cdn.jsdelivr.net) the first time it is needed; everything else comes with the site.",
            "Connect to the internet (or allow that site), restart the kernel (Kernel >",
            "Restart Kernel...), and run the notebook again from the top. Or run the course",
            "elsewhere: the Open in Colab link at the top of each notebook, or your own machine",
            "(README: make lab).",
        ]
    return [
        f"{name} could not be loaded, and not for want of a network: {errors[-1]}",
        "Restart the kernel (Kernel > Restart Kernel...) and run the notebook again from the top;",
        "if it happens again, please report it (the README says where), with this message.",
    ]


def _loader_options() -> Any:
    """Options for Pyodide's loaders: keep their errors, hide their progress lines."""
    import js
    from pyodide.ffi import create_proxy, to_js

    def note_error(text: Any) -> None:
        _Load.errors.append(str(text))

    def quiet(_: Any) -> None:
        pass

    callbacks = {"errorCallback": create_proxy(note_error), "messageCallback": create_proxy(quiet)}
    return to_js(callbacks, dict_converter=js.Object.fromEntries)


def _start_loading() -> None:
    """Ask Pyodide for the course's packages; does not wait."""
    import pyodide_js
    from pyodide.ffi import to_js

    _Load.errors = []
    _Load.promise = pyodide_js.loadPackage(to_js(COURSE_PACKAGES), _loader_options())


async def wait_for_course(lines: list[str]) -> list[str]:
    """A line transform of the Pyodide kernel (run before each cell, and it may wait): the
    course's packages, then those the cell imports, are loaded before the cell runs. Pyodide's
    own scan of the cell gives up on IPython syntax, so it is done here on the cell without
    its magic and shell lines. The cell itself is returned unchanged."""
    import pyodide_js

    try:
        if not _Load.course_loaded:
            if _Load.promise is None:
                _start_loading()
            await _Load.promise
            _Load.promise = None
            _Load.course_loaded = not _Load.errors
            if _Load.course_loaded:
                _preload_graphviz()
        python = "".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        await pyodide_js.loadPackagesFromImports(python, _loader_options())
    except Exception as error:  # a JavaScript error from the loader
        _Load.promise = None
        _Load.errors.append(str(error))
    return lines


def _preload_graphviz() -> None:
    """Start fetching Graphviz for the browser now, so the first picture need not wait."""
    try:
        from minigrad.viz import wasm_render
    except ImportError:
        return
    wasm_render.preload()


def _online() -> bool:
    try:
        import js

        return bool(js.navigator.onLine)
    except (ImportError, AttributeError):
        return True


def _on_missing_module(
    shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None
) -> None:
    """IPython's handler for ModuleNotFoundError: our message for the course's packages."""
    root = (getattr(value, "name", None) or "").split(".")[0]
    if root in FROM_THE_CDN | COURSE_IMPORTS and (_Load.errors or not _online()):
        lines = message(root, list(_Load.errors), _online())
        # IPython shows what _render_traceback_ returns in place of the traceback
        value._render_traceback_ = lambda: lines  # type: ignore[attr-defined]
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def install(shell: Any) -> None:
    """Start loading the course's packages, make every cell wait for them, and register the
    handler with the kernel's IPython shell."""
    shell.set_custom_exc((ModuleNotFoundError,), _on_missing_module)
    manager = getattr(getattr(shell, "kernel", None), "lite_transform_manager", None)
    transforms = getattr(manager, "line_transforms", None)
    if transforms is None:  # not Pyodide's kernel (an IPython shell in the tests)
        return
    if wait_for_course not in transforms:
        transforms.insert(0, wait_for_course)
    _start_loading()
