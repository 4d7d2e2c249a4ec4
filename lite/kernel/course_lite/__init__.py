"""The course's start-up in the browser-only site (`make lite`): a clear message, not a traceback.

Inside the browser, Python (Pyodide) gets numpy, and matplotlib with what it needs, from
Pyodide's CDN the first time a cell imports them; the site serves everything else itself. When
the browser cannot reach the CDN (offline, or blocked), that import fails. A learner then sees
what happened and what to do, in a few lines, instead of a traceback through Pyodide's loader.

scripts/build_lite.py packs this folder into a wheel whose start-up file (IPython runs
etc/ipython/startup/*.py when the kernel starts) calls `install`; nothing here runs elsewhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FROM_THE_CDN", "install", "message"]

# Import names of the packages that come from Pyodide's CDN (compiled to WebAssembly, found on
# no registry the site is built from): numpy, and matplotlib with its compiled dependencies.
FROM_THE_CDN = {"numpy", "matplotlib", "mpl_toolkits", "pylab", "contourpy", "kiwisolver", "PIL"}


def message(name: str) -> list[str]:
    """What the learner reads when `name` could not be fetched."""
    return [
        f"{name} could not be loaded: this browser could not download it.",
        "The in-browser course gets numpy (and matplotlib, for plots) from Pyodide's CDN the",
        "first time a notebook needs them; everything else comes with the site.",
        "Connect to the internet, restart the kernel (Kernel > Restart Kernel...), and run the",
        "notebook again from the top. Or run the course elsewhere: the Open in Colab link at",
        "the top of each notebook, or on your own machine (README: make lab).",
    ]


def _on_missing_module(
    shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None
) -> None:
    """IPython's handler for ModuleNotFoundError: our message for the CDN's packages."""
    root = (getattr(value, "name", None) or "").split(".")[0]
    if root in FROM_THE_CDN:
        # IPython shows what _render_traceback_ returns in place of the traceback
        value._render_traceback_ = lambda: message(root)  # type: ignore[attr-defined]
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def install(shell: Any) -> None:
    """Register the handler with the kernel's IPython shell."""
    shell.set_custom_exc((ModuleNotFoundError,), _on_missing_module)
