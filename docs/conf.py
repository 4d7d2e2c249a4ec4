"""Sphinx configuration for the course website: `make site` (scripts/build_site.py).

The site is built from the notebooks' stored outputs (nothing is executed), offline: the theme
ships its own files and MathJax and the CJK font come from vendor/node_modules
(scripts/setup_classroom.sh). build_site.py copies this folder and the notebooks into
build/site-src/ and builds from there.

The repository the site links to (GitHub button, Binder) is, first found: the environment
variable COURSE_REPOSITORY ("owner/name"), GITHUB_REPOSITORY (set by GitHub Actions), the
GitHub remote `origin` of this clone, or the one setting the Colab links use too: `Repository`
under `[project.urls]` in pyproject.toml. COURSE_BRANCH sets the branch (default: main).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "Cutting the Graph"
author = "The Cutting the Graph authors"
copyright = "the Cutting the Graph authors"  # noqa: A001 (Sphinx's name for it)

extensions = ["myst_nb", "course_alt_text"]
exclude_patterns = ["_build", "slides_template", "speaker_notes", "**/.ipynb_checkpoints"]

# Stored outputs only: the notebooks are checked by nbval, not re-run for the site.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
# Notebook cells tagged raises-exception store their error on purpose.
nb_output_stderr = "show"
# A viz picture's output also holds a text/html <img> of it with its words as alt, for
# JupyterLab, whose SVG and PNG renderers give no alt (minigrad/viz/alt_text.py html_picture).
# myst-nb ranks text/html first: the site draws the SVG (or a plot's PNG) itself, as before,
# with its alt from course_alt_text (lower numbers win; text/html is 30).
nb_mime_priority_overrides = [("html", "image/svg+xml", 25), ("html", "image/png", 26)]


def course_repository() -> str | None:
    """The "owner/name" of the course's GitHub repository, or None (see the module docstring)."""
    for name in ("COURSE_REPOSITORY", "GITHUB_REPOSITORY"):
        if os.environ.get(name):
            return os.environ[name].strip()
    try:
        url = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=os.environ.get("COURSE_REPO_DIR", HERE),
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        url = ""
    match = re.search(r"github\.com[:/]([\w.-]+/[\w.-]+?)(?:\.git)?/?$", url)
    if match:
        return match.group(1)
    pyproject = Path(os.environ.get("COURSE_REPO_DIR", HERE.parent)) / "pyproject.toml"
    if not pyproject.exists():
        return None
    urls = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"].get("urls", {})
    match = re.search(r"github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?$", urls.get("Repository", ""))
    return match.group(1) if match else None


repository = course_repository()
branch = os.environ.get("COURSE_BRANCH", "main")

html_theme = "sphinx_book_theme"
html_title = "Cutting the Graph"
html_static_path = ["_static"]
html_css_files = ["course_site.css", "fonts/noto-sans-sc/400.css"]
html_js_files = ["course_site.js"]
html_theme_options = {
    "path_to_docs": "",
    "show_toc_level": 2,
    "use_download_button": True,
}
if repository:
    html_theme_options |= {
        "repository_url": f"https://github.com/{repository}",
        "repository_branch": branch,
        "use_repository_button": True,
        # Launch buttons on every lesson. Other launchers (Colab, JupyterLite) go here too:
        # sphinx-book-theme reads "colab_url" and "jupyterlite_url" from this dictionary.
        "launch_buttons": {
            "binderhub_url": "https://mybinder.org",
            "notebook_interface": "jupyterlab",
        },
    }
html_context = {"binder_repository": repository or "", "binder_branch": branch}
html_last_updated_fmt = None
html_show_sourcelink = False
# The download button offers each lesson's notebook: build_site.py puts the notebook as it is
# in the repository into _sources/ after the build.
html_copy_source = True
html_sourcelink_suffix = ""

# MathJax 3 from the local copy build_site.py puts into _static/mathjax.
mathjax_path = "mathjax/tex-chtml.js"

if repository:
    BINDER_URL = f"https://mybinder.org/v2/gh/{repository}/{branch}?urlpath=lab/tree/notebooks"
    LAUNCH_LINKS = (
        f'<p><a class="binder-launch" href="{BINDER_URL}">'
        '<img src="_static/binder-badge.svg" alt="Launch the course on Binder" height="20">'
        f'</a> · <a href="https://github.com/{repository}">github.com/{repository}</a></p>'
    )
else:
    BINDER_URL = ""
    LAUNCH_LINKS = "<p>(Built without a repository address: set COURSE_REPOSITORY=owner/name.)</p>"


# build_site.py says whether build/slides/ is there to publish with the site.
SLIDES_LINK = (
    '<a href="slides/index.html">all decks</a>'
    if os.environ.get("COURSE_SLIDES")
    else "built with `make slides`, not included in this build"
)


def _fill_placeholders(app: object, docname: str, source: list[str]) -> None:
    """source-read handler: @LAUNCH_LINKS@ in a page becomes this repository's launch links,
    @SLIDES_LINK@ the link to the decks."""
    source[0] = source[0].replace("@LAUNCH_LINKS@", LAUNCH_LINKS)
    source[0] = source[0].replace("@SLIDES_LINK@", SLIDES_LINK)


def setup(app: object) -> None:
    """Sphinx calls this for conf.py itself."""
    app.connect("source-read", _fill_placeholders)  # type: ignore[attr-defined]
