"""Set the course up in Google Colab: run by the first code cell of every notebook there.

In Colab a notebook arrives alone, without minigrad. Its first code cell (written by
scripts/colab.py) clones this repository into ./cutting-the-graph, then runs this file, which:

1. installs minigrad from that clone, with the versions the stored outputs were made with
   (requirements.lock as pip constraints), unless that minigrad is installed already; with its
   `widgets` extra (ipywidgets, for viz.cut_stepper) when the runtime has no ipywidgets;
2. installs Graphviz's `dot` with apt-get when it is missing and this is root on Debian or
   Ubuntu (Colab is both); otherwise it prints the command to run;
3. puts the clone's notebooks/ folder on sys.path, for `import course_checks` (the exercises);
4. prints one line saying what is ready, and, if numpy had been imported before it was
   upgraded, that the runtime must be restarted (a running Python keeps the old numpy).

Outside Colab the cell never runs this. It changes nothing but the Python that runs it and, for
Graphviz, the machine's packages; tests/tooling/test_colab.py runs it in a fresh virtualenv
made like Colab's runtime.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

CLONE = Path(__file__).resolve().parent.parent  # the repository this file was cloned with
GRAPHVIZ_HINT = (
    "install Graphviz for the pictures: `apt-get install graphviz` (Debian, Ubuntu), "
    "`conda install -c conda-forge graphviz` (conda), `brew install graphviz` (macOS)"
)


def say(text: str) -> None:
    print(f"set-up: {text}", flush=True)


def installed_version(name: str) -> str | None:
    """The version of an installed distribution, or None."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def clone_version() -> str:
    """minigrad's version in the clone (a plain string in minigrad/__init__.py)."""
    for line in (CLONE / "minigrad" / "__init__.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise RuntimeError(f"no __version__ in {CLONE / 'minigrad' / '__init__.py'}")


def install_minigrad() -> None:
    """pip install the clone (not editable: the clone may be deleted with the runtime)."""
    if installed_version("minigrad") == clone_version():
        return
    say("installing minigrad and its dependencies (numpy, graphviz) ...")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    lock = CLONE / "requirements.lock"
    if lock.exists():
        command += ["--constraint", str(lock)]
    # the widgets extra (ipywidgets) for viz.cut_stepper, unless the runtime has ipywidgets
    # already: Colab's own (7.x) matches Colab's page, and the stepper works with it
    extra = "" if installed_version("ipywidgets") else "[widgets]"
    done = subprocess.run([*command, f"{CLONE}{extra}"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install minigrad from {CLONE}:\n{done.stderr[-2000:]}")
    importlib.invalidate_caches()  # so that this running Python finds what pip just put there


def ensure_graphviz() -> str:
    """Graphviz's version line; installs it with apt-get when missing and possible."""
    if shutil.which("dot") is None:
        if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
            say("installing Graphviz with apt-get ...")
            for step in (["update", "-qq"], ["install", "-y", "-qq", "graphviz"]):
                subprocess.run(["apt-get", *step], capture_output=True, check=False)
        if shutil.which("dot") is None:
            return f"not found: {GRAPHVIZ_HINT}"
    done = subprocess.run(["dot", "-V"], capture_output=True, text=True)
    return (done.stderr or done.stdout).strip()


def main() -> None:
    install_minigrad()
    graphviz = ensure_graphviz()
    notebooks = str(CLONE / "notebooks")
    if notebooks not in sys.path:
        sys.path.append(notebooks)
    numpy_now = installed_version("numpy")
    loaded = sys.modules.get("numpy")
    if loaded is not None and getattr(loaded, "__version__", numpy_now) != numpy_now:
        say(
            f"numpy {loaded.__version__} was already loaded and {numpy_now} is now installed: "
            "restart the runtime (Runtime > Restart session), then run the notebook again "
            "from the top (the set-up takes a second the second time)."
        )
        return
    say(f"ready: minigrad {installed_version('minigrad')}, numpy {numpy_now}, {graphviz}")


main()
