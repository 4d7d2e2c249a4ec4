"""MANIFEST.toml, PyTorch's test_autograd.py test by test, against our tests: every entry is in
scope (with its family) or out (with a reason), and every in-scope entry that names a file
names a test function of the same name in it. Needs neither torch nor the network."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

HERE = Path(__file__).parent
FAMILIES = {"api", "hooks"}


def manifest() -> dict[str, dict[str, dict[str, str]]]:
    with (HERE / "MANIFEST.toml").open("rb") as file:
        return tomllib.load(file)


def entries() -> list[tuple[str, str, dict[str, str]]]:
    return [
        (cls, name, entry) for cls, tests in manifest().items() for name, entry in tests.items()
    ]


def files_of(entry: dict) -> list[str]:
    """The test files an entry names: one, or a list where both families wrote a test."""
    named = entry.get("file", [])
    return [named] if isinstance(named, str) else list(named)


def defined_tests(path: Path) -> set[str]:
    """The test functions a test module defines at its top level."""
    tree = ast.parse(path.read_text())
    return {
        n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
    }


def test_every_entry_is_in_scope_or_out_with_a_reason():
    for cls, name, entry in entries():
        where = f"{cls}.{name}"
        assert name.startswith("test_"), where
        assert ("family" in entry) != ("out" in entry), f"{where}: family or out, not both"
        if "out" in entry:
            assert entry["out"].strip(), f"{where}: a reason"
        else:
            assert entry["family"] in FAMILIES, where
            assert set(entry) <= {"family", "file"}, where
            assert all(isinstance(f, str) for f in files_of(entry)), where


def test_every_in_scope_entry_names_an_existing_test():
    for cls, name, entry in entries():
        if "file" not in entry:
            assert entry.get("family") != "api", f"{cls}.{name}: the api family names its file"
            continue
        for file in files_of(entry):
            path = HERE / file
            assert path.is_file(), f"{cls}.{name}: no {file}"
            assert name in defined_tests(path), f"{cls}.{name}: not a test in {file}"


def test_every_test_here_is_in_the_manifest():
    listed = {(file, name) for _, name, entry in entries() for file in files_of(entry)}
    for path in sorted(HERE.glob("test_autograd_*.py")):
        for name in sorted(defined_tests(path)):
            assert (path.name, name) in listed, f"{path.name}::{name} is not in MANIFEST.toml"


def test_the_manifest_covers_the_upstream_file():
    classes = manifest()
    assert "TestAutograd" in classes and "TestAutogradInferenceMode" in classes
    assert len(entries()) >= 500  # upstream's file has about 520 test functions
