"""Sphinx configuration for the course website: `make site` (scripts/build_site.py).

The site is built from the notebooks' stored outputs (nothing is executed), offline: the theme
ships its own files and MathJax comes from vendor/node_modules (scripts/setup_classroom.sh).
build_site.py copies this folder and the notebooks into build/site-src/ and builds from there.
"""

from __future__ import annotations

import os
import sys
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

# GitHub Actions sets GITHUB_REPOSITORY (owner/name); elsewhere COURSE_REPOSITORY can.
repository = os.environ.get("COURSE_REPOSITORY") or os.environ.get(
    "GITHUB_REPOSITORY", "cutting-the-graph/cutting-the-graph"
)
branch = os.environ.get("COURSE_BRANCH", "main")

html_theme = "sphinx_book_theme"
html_title = "Cutting the Graph"
html_static_path = ["_static"]
html_theme_options = {
    "repository_url": f"https://github.com/{repository}",
    "repository_branch": branch,
    "path_to_docs": "",
    "use_repository_button": True,
    "launch_buttons": {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"},
    "show_toc_level": 2,
}
html_context = {"binder_repository": repository, "binder_branch": branch}
html_last_updated_fmt = None
html_show_sourcelink = False
html_copy_source = False

# MathJax 3 from the local copy build_site.py puts into _static/mathjax.
mathjax_path = "mathjax/tex-chtml.js"

BINDER_URL = f"https://mybinder.org/v2/gh/{repository}/{branch}?urlpath=lab/tree/notebooks"


def _fill_placeholders(app: object, docname: str, source: list[str]) -> None:
    """source-read handler: @BINDER_URL@ in a page becomes this repository's Binder link."""
    source[0] = source[0].replace("@BINDER_URL@", BINDER_URL)


def setup(app: object) -> None:
    """Sphinx calls this for conf.py itself."""
    app.connect("source-read", _fill_placeholders)  # type: ignore[attr-defined]
