"""Build the browser-only course site (JupyterLite) into build/lite/: `make lite`.

The whole course runs in the browser: Python is Pyodide (CPython compiled to WebAssembly), the
notebooks are the repository's, and pictures are drawn by Graphviz compiled to WebAssembly
(minigrad/viz/wasm_render.py). The build needs only PyPI and npm, and the site serves itself:

1. npm (lite/package-lock.json, installed by scripts/setup_lite.sh): the Pyodide core (`pyodide`:
   interpreter, standard library, pyodide-lock.json) and `@viz-js/viz`, copied into the site's
   static/pyodide/ folder, from which the kernel loads Pyodide (its `pyodideUrl`).
2. PyPI: every pure-Python wheel that the kernel and the course load, at exactly the version
   Pyodide's lock names (ipython, jedi, traitlets, micropip, ...), the course's own pins from
   requirements.lock for the packages Pyodide does not have (graphviz, comm, ipywidgets), a
   minigrad wheel built from this checkout, and a small wheel made here from lite/kernel/ (the
   kernel's start-up: a clear message when numpy cannot be fetched).
3. pyodide-lock.json: only the packages above, each pure wheel as a file of the site with its
   own sha256 (PyPI's files differ byte for byte from Pyodide's rebuilt ones). The compiled
   ones, numpy and matplotlib with what matplotlib needs (contourpy, kiwisolver, pillow), are on
   no registry reachable here: they keep the file name and sha256 of Pyodide's lock, as a URL on
   Pyodide's CDN, fetched by the learner's browser the first time a notebook imports them and
   checked against that sha256. With --with-pyodide-wheels (the Pages workflow) they are
   downloaded now, checked against the same sha256, and served by the site too.
4. `jupyter lite build` (from .venv-lite) with the notebooks as contents, then the kernel's
   settings patched into jupyter-lite.json (no PyPI fallback at run time; the start-up wheel
   loaded with Pyodide), and a check that every package in the lock is either a file of the
   site or one of the pinned CDN wheels.

Usage: python -m scripts.build_lite [--out DIR] [--with-pyodide-wheels]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from scripts.course import NOTEBOOKS, REPO, find_notebooks

LITE = REPO / "lite"
NODE_MODULES = LITE / "node_modules"
PYODIDE_NPM = NODE_MODULES / "pyodide"
VIZ_JS = NODE_MODULES / "@viz-js" / "viz" / "dist" / "viz.js"
KERNEL_SOURCE = LITE / "kernel"
LITE_VENV = REPO / ".venv-lite"
REQUIREMENTS_LOCK = REPO / "requirements.lock"
OUT = REPO / "build" / "lite"
WORK = REPO / "build" / "lite-work"

SETUP_HINT = "run `bash scripts/setup_lite.sh` (make lite does)"
# The files of the npm package that Pyodide needs in a browser (the rest is for Node.js).
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]
VIZ_JS_NAME = "viz-js.mjs"  # minigrad.viz.wasm_render looks for it beside the lock
PYODIDE_CDN = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"

# What the kernel needs when it starts. Left to itself it loads micropip, installs piplite with
# micropip, then ipykernel, comm, pyodide-kernel, jedi and ipython with piplite, one after the
# other (each resolved by micropip). Named in `loadPyodideOptions.packages` (lite_config) they
# are all in the lock and Pyodide loads them together with itself, which the kernel then skips:
# the measured start in benchmarks/README.md. piplite, ipykernel (a stand-in of the kernel's)
# and pyodide-kernel come with the kernel's JupyterLab extension (KERNEL_WHEELS).
KERNEL_START = ["micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython"]
KERNEL_ROOTS = [*KERNEL_START, "traitlets"]
KERNEL_WHEELS = (
    LITE_VENV / "share" / "jupyter" / "labextensions" / "@jupyterlite" / "pyodide-kernel-extension"
)
# the extension's wheels: their lock dependencies and import names
FROM_THE_EXTENSION = {
    "piplite": (["micropip"], ["piplite"]),
    "ipykernel": (["pyodide-kernel"], ["ipykernel"]),
    "pyodide-kernel": (["comm", "ipython"], ["pyodide_kernel"]),
}
# What the notebooks import (minigrad brings numpy and graphviz).
COURSE_ROOTS = ["minigrad", "matplotlib", "course-lite"]
# Packages Pyodide's lock does not have, taken from PyPI at the course's own pins
# (requirements.lock): their lock dependencies and import names.
FROM_PYPI = {
    "comm": ([], ["comm"]),
    "graphviz": ([], ["graphviz"]),
    "ipywidgets": (["comm", "ipython", "traitlets"], ["ipywidgets"]),
}
# minigrad's runtime dependencies in the browser (pyproject.toml; ipywidgets is its `widgets`
# extra, so that viz.cut_stepper is a widget there too).
MINIGRAD_DEPENDS = ["numpy", "graphviz", "ipywidgets"]
COURSE_LITE_VERSION = "1.0"


def lite_url(notebook: str | Path, site_root: str = "lite/") -> str:
    """Where a notebook opens in the browser-only site, relative to the published website's
    root (the Pages workflow puts the site under lite/): for the website's "run in the browser"
    links. `notebook` is a path inside notebooks/ ("02_detach", "zh/02_detach.ipynb")."""
    rel = Path(notebook).with_suffix(".ipynb").as_posix().removeprefix("notebooks/")
    return f"{site_root}lab/index.html?path={rel}"


def canonical(name: str) -> str:
    """A package name as the lock and PyPI compare them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_pure(file_name: str) -> bool:
    """A wheel that runs on any Python 3 (PyPI has the same one)."""
    return file_name.endswith("-none-any.whl")


def require(path: Path, what: str) -> None:
    if not path.exists():
        raise SystemExit(f"build_lite: {what} not found at {path}; {SETUP_HINT}")


def course_pins(names: list[str]) -> dict[str, str]:
    """The versions requirements.lock pins for `names`."""
    pins = {}
    for line in REQUIREMENTS_LOCK.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("==")
        if sep and canonical(name) in names:
            pins[canonical(name)] = version.strip()
    missing = sorted(set(names) - set(pins))
    if missing:
        raise SystemExit(f"build_lite: requirements.lock pins no version of {', '.join(missing)}")
    return pins


def closure(packages: dict[str, dict], roots: list[str]) -> list[str]:
    """The lock's names of `roots` and of everything they depend on, sorted."""
    seen: set[str] = set()
    todo = [canonical(root) for root in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise SystemExit(f"build_lite: {name} is not in Pyodide's lock nor made here")
        seen.add(name)
        todo += [canonical(dep) for dep in packages[name]["depends"]]
    return sorted(seen)


def pip(*args: str) -> None:
    """Run pip of the Python running this script (PyPI only, quiet)."""
    command = [sys.executable, "-m", "pip", *args, "-q", "--disable-pip-version-check"]
    done = subprocess.run(command, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"build_lite: `pip {' '.join(args[:3])} ...` failed (see above)")


def download_pure(specs: list[str], folder: Path) -> None:
    """Wheels for Pyodide's Python from PyPI: `name==version` each, no dependencies."""
    version = pyodide_python()
    pip(
        "download",
        "--no-deps",
        "--only-binary=:all:",
        f"--python-version={version}",
        "--platform=any",  # with the two below: pure-Python wheels only
        "--implementation=py",
        "--abi=none",
        "--dest",
        str(folder),
        *specs,
    )


def pyodide_python() -> str:
    """Pyodide's Python version, major.minor (from its lock), for pip's wheel choice."""
    info = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
    return ".".join(info["python"].split(".")[:2])


def find_wheel(folder: Path, name: str, version: str | None = None) -> Path:
    """The pure wheel of `name` (at `version`) in `folder`."""
    for wheel in sorted(folder.glob("*.whl")):
        wheel_name, wheel_version = wheel.name.split("-")[:2]
        if canonical(wheel_name) == canonical(name) and version in (None, wheel_version):
            if is_pure(wheel.name):
                return wheel
    raise SystemExit(f"build_lite: no pure-Python wheel of {name} {version or ''} from PyPI")


def top_level_names(wheel: Path) -> list[str]:
    """The importable names a wheel installs (its top-level packages and modules)."""
    names = set()
    with zipfile.ZipFile(wheel) as archive:
        for entry in archive.namelist():
            head = entry.split("/")[0]
            if head.endswith((".dist-info", ".data")):
                continue
            names.add(head.removesuffix(".py"))
    return sorted(names)


def build_minigrad(folder: Path) -> Path:
    """A wheel of this checkout's minigrad (pip wheel, isolated build from PyPI)."""
    for old in folder.glob("minigrad-*.whl"):
        old.unlink()
    pip("wheel", "--no-deps", "--wheel-dir", str(folder), str(REPO))
    return find_wheel(folder, "minigrad")


def build_course_lite(folder: Path) -> Path:
    """The start-up wheel: lite/kernel/course_lite and an IPython start-up file as data.

    IPython runs <sys.prefix>/etc/ipython/startup/*.py when the kernel starts, and Pyodide
    installs a wheel's .data/data files under sys.prefix. Written by hand (a few files), with
    fixed dates so that the same source gives the same wheel and sha256.
    """
    name, version = "course_lite", COURSE_LITE_VERSION
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": (KERNEL_SOURCE / name / "__init__.py").read_bytes(),
        f"{name}-{version}.data/data/etc/ipython/startup/50-course-lite.py": (
            KERNEL_SOURCE / "50-course-lite.py"
        ).read_bytes(),
        f"{dist_info}/METADATA": (
            f"Metadata-Version: 2.1\nName: course-lite\nVersion: {version}\n"
            "Summary: Start-up of the Cutting the Graph kernel in the browser\n"
        ).encode(),
        f"{dist_info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: scripts.build_lite\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
        f"{dist_info}/top_level.txt": f"{name}\n".encode(),
    }
    record = []
    for path, data in files.items():
        digest = hashlib.sha256(data).digest()
        encoded = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.append(f"{path},sha256={encoded},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return wheel


def lock_entry(wheel: Path, name: str, depends: list[str], imports: list[str]) -> dict:
    """A pyodide-lock.json entry for a wheel the site serves."""
    version = wheel.name.split("-")[1]
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": sha256(wheel),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
    }


def fetch_pinned(url: str, expected: str, target: Path) -> None:
    """Download `url` to `target`, refusing it unless its sha256 is `expected`."""
    if target.exists() and sha256(target) == expected:
        return
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except (OSError, urllib.error.URLError) as error:  # no network, refused, timed out, 404
        reason = getattr(error, "reason", None) or error
        raise SystemExit(
            f"build_lite: could not download {url} ({reason}); --with-pyodide-wheels needs "
            "Pyodide's CDN: build on a machine that reaches it (the Pages workflow does), or "
            "without the option (the learner's browser then fetches these wheels itself)"
        ) from None
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise SystemExit(
            f"build_lite: {url} has sha256 {got}, but Pyodide's lock pins {expected}; not using it"
        )
    target.write_bytes(data)


def make_lock(folder: Path, with_cdn_wheels: bool) -> tuple[dict, list[str]]:
    """The site's pyodide-lock.json, with its wheels put into `folder`; and the CDN wheels."""
    lock = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text(encoding="utf-8"))
    version = json.loads((PYODIDE_NPM / "package.json").read_text(encoding="utf-8"))["version"]
    cdn = PYODIDE_CDN.format(version=version)
    packages = {canonical(name): entry for name, entry in lock["packages"].items()}

    wheels = WORK / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    pins = course_pins(list(FROM_PYPI))
    download_pure([f"{name}=={pins[name]}" for name in FROM_PYPI], wheels)
    made = {}
    for name, (depends, imports) in FROM_PYPI.items():
        made[name] = lock_entry(find_wheel(wheels, name, pins[name]), name, depends, imports)
    extension_wheels = KERNEL_WHEELS / "static" / "pypi"
    for name, (depends, imports) in FROM_THE_EXTENSION.items():
        wheel = find_wheel(extension_wheels, name)
        shutil.copy2(wheel, wheels / wheel.name)
        made[name] = lock_entry(wheels / wheel.name, name, depends, imports)
    made["minigrad"] = lock_entry(build_minigrad(wheels), "minigrad", MINIGRAD_DEPENDS, [])
    made["minigrad"]["imports"] = ["minigrad"]
    course_lite = build_course_lite(wheels)
    made["course-lite"] = lock_entry(course_lite, "course-lite", [], ["course_lite"])
    packages.update(made)

    needed = closure(packages, KERNEL_ROOTS + COURSE_ROOTS + list(FROM_PYPI))
    pure = [n for n in needed if n not in made and is_pure(packages[n]["file_name"])]
    download_pure([f"{n}=={packages[n]['version']}" for n in pure], wheels)
    site_packages: dict[str, dict] = {}
    from_cdn = []
    for name in needed:
        entry = dict(packages[name])
        if name in made:
            wheel = wheels / entry["file_name"]
        elif name in pure:
            wheel = find_wheel(wheels, name, entry["version"])
            entry.update(file_name=wheel.name, sha256=sha256(wheel))
        elif with_cdn_wheels:  # compiled: Pyodide's own file, checked against its sha256
            wheel = wheels / entry["file_name"]
            fetch_pinned(cdn + entry["file_name"], entry["sha256"], wheel)
        else:  # compiled: fetched from the CDN by the browser, which checks the sha256
            entry["file_name"] = cdn + entry["file_name"]
            from_cdn.append(name)
            site_packages[name] = entry
            continue
        shutil.copy2(wheel, folder / wheel.name)
        site_packages[name] = entry
    lock["packages"] = site_packages
    return lock, from_cdn


def stage_notebooks(target: Path) -> None:
    """The notebooks as the site's contents (English and Chinese, with course_checks).

    Each notebook is written with its multi-line texts as single strings. On disk nbformat
    stores them as lists of lines; a Jupyter server joins them when it reads a notebook, but
    JupyterLite hands the file's JSON to the page as it is, and JupyterLab's output area turns
    a list into text with commas between the lines (",False None True"). Joined here, once, the
    site's copy is what a server would send.
    """
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(
        NOTEBOOKS, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )
    for path in target.rglob("*.ipynb"):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        text = json.dumps(joined_lines(notebook), indent=1, ensure_ascii=False)
        path.write_text(text + "\n", encoding="utf-8")


def joined_lines(notebook: dict) -> dict:
    """The notebook with every cell source and output text as one string (nbformat's
    rejoin_lines, done here without its other conversions)."""
    for cell in notebook.get("cells", []):
        cell["source"] = one_string(cell.get("source", ""))
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = one_string(output["text"])
            for mime, value in output.get("data", {}).items():
                if not mime.endswith("json"):  # JSON data is data, not lines
                    output["data"][mime] = one_string(value)
        for attachment in cell.get("attachments", {}).values():
            for mime, value in attachment.items():
                if not mime.endswith("json"):
                    attachment[mime] = one_string(value)
    return notebook


def one_string(value: Any) -> Any:
    """A list of lines as one string; anything else as it is."""
    return "".join(value) if isinstance(value, list) else value


ABOUT_NAME = "about_this_site.md"


def about_site(lock: dict, from_cdn: list[str]) -> str:
    """The site's note (a file beside the notebooks) on what the browser fetches at run time."""
    lines = [
        "# About this site",
        "",
        "The course runs here in your browser: Python is Pyodide (CPython compiled to",
        "WebAssembly), and the pictures are drawn by Graphviz compiled to WebAssembly. Nothing is",
        "installed on your machine, and your changes stay in this browser's storage.",
        "",
    ]
    if not from_cdn:
        lines.append("This site serves every file it needs itself: it fetches nothing elsewhere.")
        return "\n".join(lines) + "\n"
    lines += [
        "This site serves every file it needs itself, except these packages compiled to",
        "WebAssembly, which your browser fetches from Pyodide's CDN (cdn.jsdelivr.net) the first",
        "time a notebook needs them, and installs only if the file's sha256 is the one below",
        "(the one Pyodide's own package list gives):",
        "",
        "| package | version | sha256 |",
        "| --- | --- | --- |",
    ]
    for name in from_cdn:
        entry = lock["packages"][name]
        lines.append(f"| {name} | {entry['version']} | `{entry['sha256']}` |")
    lines += [
        "",
        "numpy is needed by every notebook (minigrad is built on it), matplotlib by the plots of",
        "06. Without a connection to that CDN, a notebook's first cell says so.",
    ]
    return "\n".join(lines) + "\n"


def lite_config() -> dict:
    """jupyter-lite.json's settings for the Pyodide kernel (see the module docstring, step 4)."""
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Cutting the Graph",
            "litePluginSettings": {
                KERNEL_PLUGIN: {
                    "pyodideUrl": "./static/pyodide/pyodide.mjs",
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {"packages": [*KERNEL_START, "course-lite"]},
                }
            },
        },
    }


def patch_config(out: Path) -> None:
    """Put the kernel's settings into the built jupyter-lite.json (the build drops some)."""
    path = out / "jupyter-lite.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    data = config.setdefault("jupyter-config-data", {})
    settings = data.setdefault("litePluginSettings", {}).setdefault(KERNEL_PLUGIN, {})
    wanted = lite_config()["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    settings.update(wanted)
    data["appName"] = lite_config()["jupyter-config-data"]["appName"]
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def check(out: Path, from_cdn: list[str]) -> list[str]:
    """Problems in the built site (empty when fine)."""
    problems = []
    static = out / "static" / "pyodide"
    for name in PYODIDE_FILES + [VIZ_JS_NAME]:
        if not (static / name).exists():
            problems.append(f"static/pyodide/{name} is missing")
    lock = json.loads((static / "pyodide-lock.json").read_text(encoding="utf-8"))
    for name, entry in lock["packages"].items():
        file_name = entry["file_name"]
        if "://" in file_name:
            if name not in from_cdn:
                problems.append(f"{name} would be fetched from {file_name}")
        elif not (static / file_name).exists():
            problems.append(f"{name}: {file_name} is not in static/pyodide")
        elif sha256(static / file_name) != entry["sha256"]:
            problems.append(f"{name}: {file_name} does not match its sha256 in the lock")
    settings = json.loads((out / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = settings["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    if kernel.get("disablePyPIFallback") is not True:
        problems.append("jupyter-lite.json: the kernel may still fall back to PyPI")
    for nb in find_notebooks():
        rel = nb.relative_to(NOTEBOOKS)
        if not (out / "files" / rel).exists():
            problems.append(f"no copy of {rel} in files/")
    return problems


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def main(argv: list[str] | None = None) -> int:
    """Build and check the site; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(OUT), help="output folder (default build/lite)")
    parser.add_argument(
        "--with-pyodide-wheels",
        action="store_true",
        help="download numpy, matplotlib and their compiled dependencies from Pyodide's CDN "
        "now (checked against the sha256 of Pyodide's lock) and serve them from the site",
    )
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    started = time.monotonic()
    for name in PYODIDE_FILES:
        require(PYODIDE_NPM / name, f"Pyodide's {name} (npm package pyodide)")
    require(VIZ_JS, "@viz-js/viz (npm)")
    jupyter = LITE_VENV / "bin" / "jupyter"
    require(jupyter, "the JupyterLite build tools (.venv-lite)")

    source = WORK / "source"  # the lite folder `jupyter lite build` reads
    if source.exists():
        shutil.rmtree(source)
    static = source / "static" / "pyodide"
    static.mkdir(parents=True)
    for name in PYODIDE_FILES[:-1]:
        shutil.copy2(PYODIDE_NPM / name, static / name)
    shutil.copy2(VIZ_JS, static / VIZ_JS_NAME)
    lock, from_cdn = make_lock(static, args.with_pyodide_wheels)
    (static / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n", encoding="utf-8")
    (source / "jupyter-lite.json").write_text(json.dumps(lite_config(), indent=2) + "\n")
    contents = WORK / "notebooks"
    stage_notebooks(contents)
    (contents / ABOUT_NAME).write_text(about_site(lock, from_cdn), encoding="utf-8")

    if out.exists():
        shutil.rmtree(out)
    command = [
        str(jupyter),
        "lite",
        "build",
        "--lite-dir",
        str(source),
        "--contents",
        str(contents),
        "--output-dir",
        str(out),
        "--no-sourcemaps",
        "--no-unused-shared-packages",
    ]
    done = subprocess.run(command, cwd=WORK, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
        print("build_lite: jupyter lite build failed (output above)", file=sys.stderr)
        return done.returncode
    patch_config(out)
    problems = check(out, from_cdn)
    where = "from Pyodide's CDN at run time" if from_cdn else "none: all served by the site"
    print(
        f"lite: {size_mb(out):.1f} MB (Pyodide and wheels {size_mb(out / 'static'):.1f} MB) "
        f"in {time.monotonic() - started:.1f} s -> {out}/index.html\n"
        f"lite: {len(lock['packages'])} packages in the lock; compiled wheels "
        f"{where}{': ' + ', '.join(from_cdn) if from_cdn else ''}"
    )
    for problem in problems:
        print(f"build_lite: ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
