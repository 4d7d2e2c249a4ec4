"""The course's tools, run from the repository's top folder as ``python -m scripts.<name>``.

``course`` says where the notebooks are and how they run; the others build on it:
``check_notebooks``, ``notebook_pairs``, ``run_notebooks``, ``check_rerun``, ``translations``,
``slides_metadata``, ``build_slides``, ``build_site``, ``student_copies`` and ``lock``.
The Makefile names the command for each job. Modules import each other as ``from scripts
import ...``; none changes ``sys.path`` (tests/tooling/test_scripts_layers.py checks both).
"""
