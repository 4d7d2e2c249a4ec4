"""Every name a docstring in minigrad/ (or README.md's "Reading minigrad" map) puts in backticks
exists: a learner who looks for `call_node` or `SavedOutput` must find it.

What counts as a name, and what is skipped:
- a span in backticks that is a dotted name (`Tensor.register_hook`, `graph.add_to_grad`),
  possibly called or given a value (`backward(inputs=...)`, `retain_graph=True`), is checked:
  each part must be defined somewhere in minigrad (a module or package, class, function,
  method, parameter, assigned name or attribute, field), be Python's own (a builtin, a
  keyword, a dunder), or be listed in TORCH_ONLY with the reason the docstring names it;
  after a module minigrad imports from outside (`np.`, `math.`, `torch.`...), only the first
  part is checked: the rest are that library's names;
- a span that is a file or folder (`tensor.py`, `functions/`, `viz/doctor*.py`) must exist
  (one under `torch/` is a file of torch's);
- any other span is code, not a name, and is skipped: `t[1:]`, `y * 2.0`, `x.grad is None`,
  `_saved_<name>`, `'MulBackward0'`.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "minigrad"

# Names defined outside minigrad that a docstring names on purpose, with the reason. After one
# of these, the rest of a dotted name is that library's business.
OUTSIDE = {
    # torch's own names, where minigrad says what it mirrors
    "torch": "the library minigrad mirrors",
    "BackwardHookFunctionBackward": "torch's node for module backward hooks (nn/hooks.py)",
    "_forward_cls": "torch's link from a Function's node to its class (viz/doctor.py)",
    "CPUGeneratorImplState": "torch's generator state, whose bytes random.py reproduces",
    "random64": "torch's generator call that random.py mirrors",
    "init_genrand": "mt19937's seeding routine, as torch's generator runs it",
    "MT19937": "numpy's bit generator that random.py seeds",
    "random_raw": "numpy's MT19937 method random.py pulls words with",
    "avx_mathfun": "the C header of torch's vectorised exp / log (avx_mathfun.h)",
    # other programs
    "dot": "Graphviz's layout program",
    "pyodide": "the browser's Python (viz/wasm_render.py)",
    "role": 'an SVG attribute (role="img")',
}
# Names a docstring makes up for its own example.
EXAMPLES = {
    "Square": "autograd/function.py's example Function",
    "SquareBackward": "... and its node's name",
    "YourFunction": "the user's Function, in Function's docstring",
    "fake": "viz/doctor.py's example tensor",
    "report": "viz/doctor_report.py's example result",
    "online": "the example module in Module.load_state_dict",
    "F0_result": "a DOT key as viz/model.py makes them",
    "v0": "a version as pictures print it (viz/words.py)",
    "S1": "a storage as pictures name it (viz/words.py)",
}

SPAN = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
CALLED_OR_SET = re.compile(r"(?:\(.*\)|\s*=.*)")
PATH = re.compile(r"[\w*./-]*\w[\w*./-]*(?:\.py|\.md|\.toml|/)")


def defined_names() -> tuple[set[str], set[str]]:
    """(every name defined in minigrad, the outside modules minigrad imports, by local name)."""
    names = {"minigrad"} | {path.stem for path in PACKAGE.rglob("*.py")}
    names |= {path.name for path in PACKAGE.rglob("*") if path.is_dir()}
    outside: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif isinstance(node, ast.Call) and _set_by_name(node):
                names.add(node.args[1].value)  # object.__setattr__(self, "_parameters", ...)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    outside.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    names.add(alias.asname or alias.name)
                    if node.level == 0:  # from numpy.typing import ArrayLike: numpy's name
                        outside.add(alias.asname or alias.name)
    return names, outside - names


def _set_by_name(call: ast.Call) -> bool:
    """`setattr(x, "name", v)` or `object.__setattr__(x, "name", v)`."""
    func = call.func
    named = (isinstance(func, ast.Name) and func.id == "setattr") or (
        isinstance(func, ast.Attribute) and func.attr == "__setattr__"
    )
    return (
        named
        and len(call.args) >= 2
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    )


def docstrings() -> list[tuple[str, str]]:
    """(where, text) for every docstring in minigrad/ and the README's reading map."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                text = ast.get_docstring(node, clean=False)
                if text:
                    name = getattr(node, "name", "module")
                    found.append((f"{path.relative_to(ROOT)}:{name}", text))
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Reading minigrad", 1)[1].split("\n## ", 1)[0]
    section = "\n".join(line for line in section.splitlines() if not line.startswith("```"))
    found.append(("README.md: Reading minigrad", section))
    return found


def path_exists(span: str) -> bool:
    """A file or folder named in a docstring: from the repository's root, from minigrad/, or
    anywhere inside minigrad/ (a module's docstring names its neighbours by their own name)."""
    span = span.rstrip("/")
    if span.startswith("torch/"):
        return True  # a file of torch's own, where minigrad says what it mirrors
    return any(ROOT.glob(span)) or any(PACKAGE.glob(span)) or any(PACKAGE.rglob(span))


def unknown_parts(span: str, names: set[str], outside: set[str]) -> list[str]:
    """The parts of a dotted name defined nowhere (empty: the name is fine)."""
    known = names | set(dir(builtins)) | set(keyword.kwlist) | set(OUTSIDE) | set(EXAMPLES)
    outside = outside | set(OUTSIDE) | set(sys.stdlib_module_names)
    missing = []
    for part in span.split("."):
        if part.startswith("__") and part.endswith("__"):
            continue  # Python's own protocol names (__array__, __init__)
        if part not in known and part not in outside:
            missing.append(part)
        if part in outside:
            break  # the rest are that library's names
    return missing


def problems() -> list[str]:
    names, outside = defined_names()
    found = []
    for where, text in docstrings():
        for span in SPAN.findall(text):
            span = span.strip()
            if PATH.fullmatch(span):
                if not path_exists(span):
                    found.append(f"{where}: no file {span!r}")
                continue
            dotted = DOTTED.match(span)
            if dotted is None or not CALLED_OR_SET.fullmatch(span[dotted.end() :] or "()"):
                continue  # code, not a name
            missing = unknown_parts(dotted.group(), names, outside)
            if missing:
                found.append(f"{where}: `{span}` names {', '.join(missing)}, defined nowhere")
    return found


def test_every_name_in_backticks_exists():
    found = problems()
    assert not found, "\n".join(found)


def test_the_rule_skips_code_and_catches_a_missing_name():
    names, outside = defined_names()
    assert unknown_parts("call_node", names, outside) == ["call_node"]
    assert unknown_parts("SavedOutput", names, outside) == ["SavedOutput"]
    assert unknown_parts("Tensor.register_hook", names, outside) == []
    assert unknown_parts("np.ndarray", names, outside) == []
    for code in ("t[1:]", "y * 2.0", "_saved_<name>"):
        dotted = DOTTED.match(code)
        rest = code[dotted.end() :] if dotted else ""
        assert dotted is None or not CALLED_OR_SET.fullmatch(rest or "()"), code
