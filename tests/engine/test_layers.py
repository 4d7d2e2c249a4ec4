"""minigrad's modules form layers: each imports only from the layers below it, with no cycle.

The layers, bottom first (README's "Reading minigrad" follows the same order). A module may
import a module of a lower layer, or a module of its own package (`functions.arith` from
`functions.views`), never one above. Inside minigrad.viz the same holds module by module, in
the order the data flows (VIZ_LAYERS). Every import sits at the top of its module: none inside
a function (an optional third-party package may be the exception, named in LAZY_IMPORTS with
its reason); an import under a module-level `if` (Pyodide's modules, which exist only in
Pyodide) is at the top too. Imports are read with `ast`, so nothing is executed. Imports under
`if TYPE_CHECKING:` are for type checkers only and are not counted.

Control never climbs back up through the back door either (issue 30): no module assigns an
attribute of another minigrad module or installs its own code into another module's object (a
plug-in, as tensor.py once filled in `graph.tensors`), and no method of a lower layer is a
placeholder that a class of a higher layer fills in (a class-level annotation without a value,
or a method that only raises NotImplementedError). Interfaces that each op or mode implements
for itself are the exception, named in INTERFACES with their reason.

minigrad.viz is also kept small enough to read (issue 26): no function over MAX_VIZ_FUNCTION
lines, no module over MAX_VIZ_MODULE lines, no private name (`_name`) imported from another
module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "minigrad"

LAYERS: list[tuple[str, ...]] = [
    ("minigrad.watch", "minigrad._fast"),  # the hook point viz.trace() listens to; speed tricks
    ("minigrad.dtypes", "minigrad._device"),
    ("minigrad._shapes", "minigrad.grad_mode", "minigrad.random", "minigrad._convert"),
    ("minigrad._format", "minigrad._new_tensor"),  # make_tensor: a tensor of a class held
    ("minigrad.versions",),
    ("minigrad.graph",),
    ("minigrad.engine",),
    ("minigrad.functions",),
    ("minigrad.recording",),  # TensorCore: the fields, and the one place an op joins the graph
    ("minigrad.backward_call",),  # what backward() does before the walk
    ("minigrad.methods",),  # the method groups: they call down into recording
    ("minigrad._tensor",),  # Tensor: the learner's story
    ("minigrad.autograd", "minigrad.functional"),
    ("minigrad.creation",),
    ("minigrad.data", "minigrad.nn", "minigrad.optim"),
    ("minigrad.viz",),
    ("minigrad",),  # minigrad/__init__.py: the public names, on top of everything
]
# minigrad.viz, module by module, in the order the data flows (bottom first): a viz module may
# import viz modules of its own layer or of the layers below it, never above.
VIZ_LAYERS: list[tuple[str, ...]] = [
    # no viz imports: type sizes, running `dot` (or Graphviz as wasm in a browser), words
    ("themes", "wasm_render", "dot_program", "words", "doctor_words"),
    ("model",),  # the snapshot: frozen dataclasses
    ("readers", "walk", "doctor_trace"),  # reading minigrad or torch into a snapshot
    (
        "matching",
        "changes",
        "doctor",
    ),  # the facts of a change: matching two snapshots, what changed
    # words (a picture's or a plot's text alternative), and decisions made before drawing
    # (slide_fit: which layout shows a picture largest on a slide)
    ("text", "change_text", "alt_text", "plots", "layout", "options", "slide_fit"),
    ("style", "legend", "dot_graph", "labels", "builder", "render", "pairs"),  # DOT
    ("compare", "doctor_report"),  # before/after: orchestration of the layers above
    ("steps", "frames", "stories"),  # the stepper's steps, frames and ready-made stories
    ("stepper_html",),
    ("stepper_widget",),
    ("stepper",),  # the Stepper object, which shows as HTML or as the widget
    ("",),  # minigrad/viz/__init__.py: the public names
]
# Imports allowed inside a function: (module, imported package) -> why it cannot be at the top.
LAZY_IMPORTS = {
    ("minigrad.viz.stepper_widget", "ipywidgets"): "optional, slow to import, only for a widget",
}
# Methods that only raise NotImplementedError and are meant to be written by every subclass,
# (module, class, method) -> why this is an interface and not a placeholder for a higher layer.
INTERFACES = {
    ("minigrad.graph", "Node", "forward"): "each op's node computes its own output",
    ("minigrad.graph", "Node", "backward"): "each op's node has its own backward formula",
}
MAX_VIZ_FUNCTION = 60
MAX_VIZ_MODULE = 450


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def resolve(current: str, is_package: bool, node: ast.ImportFrom, alias: str) -> str:
    """The minigrad module a `from ... import alias` names (a submodule if there is one)."""
    if node.level:
        base = current.split(".") if is_package else current.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    candidate = f"{target}.{alias}"
    return candidate if candidate in modules() else target


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the import nodes inside `if TYPE_CHECKING:` blocks."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            ids.update(id(child) for child in ast.walk(node))
    return ids


def module_level_nodes(tree: ast.Module) -> set[int]:
    """ids of the statements run when the module is imported: its body, and the bodies of its
    module-level `if`/`try` blocks (never a function's or a class's)."""
    found: set[int] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        found.add(id(node))
        if isinstance(node, (ast.If, ast.Try)):
            statements += node.body + node.orelse
            if isinstance(node, ast.Try):
                statements += node.finalbody
                for handler in node.handlers:
                    statements += handler.body
    return found


def imports_of(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported minigrad module, line, at module level?) for every runtime import."""
    tree = ast.parse(path.read_text())
    skipped = type_checking_nodes(tree)
    top_level = module_level_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                target = resolve(name, path.name == "__init__.py", node, alias.name)
                if target.startswith("minigrad"):
                    found.append((target, node.lineno, id(node) in top_level))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("minigrad"):
                    found.append((alias.name, node.lineno, id(node) in top_level))
    return found


def layer_of(name: str) -> int:
    best, best_length = None, -1
    for index, layer in enumerate(LAYERS):
        for prefix in layer:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{name} is in no layer: add it to LAYERS"
    return best


def unit_of(name: str) -> str:
    """The layer entry a module belongs to (`minigrad.functions` for functions.arith)."""
    return max(
        (p for layer in LAYERS for p in layer if name == p or name.startswith(p + ".")), key=len
    )


def test_every_module_is_in_a_layer():
    for name in modules():
        layer_of(name)


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_imports_a_layer_above_it(name):
    own = layer_of(name)
    for target, line, _ in imports_of(name, modules()[name]):
        if target == "minigrad" and name != "minigrad":
            raise AssertionError(f"{name}:{line} imports the top package `minigrad`")
        if unit_of(target) == unit_of(name):
            continue  # inside one package (checked for cycles below)
        assert layer_of(target) < own, (
            f"{name}:{line} imports {target}, which is not in a lower layer"
        )


def test_no_import_cycle():
    # module-level imports; the few imports inside functions are counted in the next test
    graph = {
        name: {target for target, _, top in imports_of(name, path) if top and target != name}
        for name, path in modules().items()
    }
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if target.startswith(name + "."):
                continue  # a package's __init__ importing its own submodules is no cycle
            if state.get(target) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*path, name, target]))
            if state.get(target) is None and target in graph:
                visit(target, [*path, name])
        state[name] = 2

    for name in sorted(graph):
        if state.get(name) is None:
            visit(name, [])


def function_level_imports(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import that is not at the top level of its module."""
    tree = ast.parse(path.read_text())
    top_level = module_level_nodes(tree)
    skipped = type_checking_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in top_level or id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("." * node.level + (node.module or ""), node.lineno))
    return found


def test_imports_are_at_the_top_and_none_inside_functions():
    inside_functions = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text())
        seen_code = False
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                seen_code = True
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                assert not seen_code, f"{name}:{node.lineno}: an import below the code"
        inside_functions += [
            f"{name}:{line} imports {module}"
            for module, line in function_level_imports(path)
            if (name, module) not in LAZY_IMPORTS
        ]
    assert inside_functions == [], "imports inside functions: " + "; ".join(inside_functions)


def test_every_lazy_import_is_still_needed():
    found = {
        (name, module)
        for name, path in modules().items()
        for module, _ in function_level_imports(path)
    }
    assert set(LAZY_IMPORTS) <= found, set(LAZY_IMPORTS) - found


# ---- no plug-ins, no placeholders (control goes down only) ---------------------------------


def imported_names(name: str, path: Path, tree: ast.Module) -> tuple[set[str], set[str]]:
    """(local names bound to minigrad modules, local names bound to other minigrad objects)."""
    module_names, object_names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                target = resolve(name, path.name == "__init__.py", node, alias.name)
                if not target.startswith("minigrad"):
                    continue
                local = alias.asname or alias.name
                is_module = target.endswith("." + alias.name) and target in modules()
                (module_names if is_module else object_names).add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("minigrad"):
                    module_names.add(alias.asname or alias.name.split(".")[0])
    return module_names, object_names


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def plug_ins(name: str, path: Path) -> list[str]:
    """Assignments that change another minigrad module from this one: `graph.x = ...`,
    `setattr(graph, ...)`, or this module's own function or class stored into an object
    imported from another module (`tensors.wrap = _wrap`)."""
    tree = ast.parse(path.read_text())
    module_names, object_names = imported_names(name, path, tree)
    own_code = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and root_name(node.args[0]) in module_names
        ):
            found.append(f"{name}:{node.lineno} setattr on another module")
            continue
        else:
            continue
        for target in targets:
            if not isinstance(target, ast.Attribute):
                continue
            root = root_name(target)
            if root in module_names:
                found.append(f"{name}:{node.lineno} assigns {ast.unparse(target)}")
            elif root in object_names and root_name(value) in own_code:
                found.append(f"{name}:{node.lineno} plugs {ast.unparse(value)} into {root}")
    return found


def test_no_module_plugs_code_into_another():
    found = [entry for name, path in modules().items() for entry in plug_ins(name, path)]
    assert found == [], "plug-ins (a lower module's behaviour set from above): " + "; ".join(found)


def is_placeholder(function: object) -> bool:
    """A method whose whole body (after its docstring) raises NotImplementedError."""
    if isinstance(function, property):
        function = function.fget
    if not inspect.isfunction(function):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except OSError:  # made at run time (a dataclass's __init__): no source, not a placeholder
        return False
    body = [
        statement
        for statement in tree.body[0].body
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def minigrad_classes() -> list[type]:
    found = []
    for name in modules():
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and value.__module__ == name
        ]
    return found


def all_subclasses(cls: type) -> list[type]:
    found, stack = [], list(type.__subclasses__(cls))
    while stack:
        sub = stack.pop()
        found.append(sub)
        stack += type.__subclasses__(sub)
    return found


def test_no_method_is_a_placeholder_filled_in_above():
    found = []
    for cls in minigrad_classes():
        own = layer_of(cls.__module__)
        empty_annotations = [
            key for key in vars(cls).get("__annotations__", {}) if key not in vars(cls)
        ]
        placeholders = [
            key
            for key, value in vars(cls).items()
            if is_placeholder(value) and (cls.__module__, cls.__name__, key) not in INTERFACES
        ]
        for sub in all_subclasses(cls):
            if not sub.__module__.startswith("minigrad") or layer_of(sub.__module__) <= own:
                continue
            for key in empty_annotations:
                if callable(vars(sub).get(key)) or isinstance(vars(sub).get(key), property):
                    found.append(f"{cls.__module__}.{cls.__name__}.{key} (annotation only)")
            for key in placeholders:
                if key in vars(sub):
                    found.append(f"{cls.__module__}.{cls.__name__}.{key} (raises)")
    assert sorted(set(found)) == [], "placeholders filled in by a higher layer: " + str(found)


def test_the_interfaces_are_still_there():
    for module, cls, method in INTERFACES:
        assert is_placeholder(vars(vars(importlib.import_module(module))[cls])[method])


# ---- minigrad.viz, module by module ----------------------------------------------------------


def viz_modules() -> dict[str, Path]:
    return {name: path for name, path in modules().items() if layer_of(name) == VIZ}


def viz_layer_of(name: str) -> int:
    short = name.removeprefix("minigrad.viz").removeprefix(".")
    for index, layer in enumerate(VIZ_LAYERS):
        if short in layer:
            return index
    raise AssertionError(f"{name} is in no viz layer: add it to VIZ_LAYERS")


VIZ = next(index for index, layer in enumerate(LAYERS) if layer == ("minigrad.viz",))


def test_every_viz_module_is_in_a_viz_layer():
    for name in viz_modules():
        viz_layer_of(name)


@pytest.mark.parametrize("name", sorted(viz_modules()))
def test_no_viz_module_imports_a_viz_layer_above_it(name):
    own = viz_layer_of(name)
    for target, line, _ in imports_of(name, modules()[name]):
        if target.startswith("minigrad.viz") and target != name:
            assert viz_layer_of(target) <= own, (
                f"{name}:{line} imports {target}, which is in a higher viz layer (VIZ_LAYERS)"
            )


@pytest.mark.parametrize("name", sorted(viz_modules()))
def test_viz_modules_and_functions_are_short(name):
    path = modules()[name]
    text = path.read_text()
    assert text.count("\n") <= MAX_VIZ_MODULE, f"{name}: over {MAX_VIZ_MODULE} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_VIZ_FUNCTION, (
                f"{name}:{node.lineno} {node.name}() is {length} lines (at most {MAX_VIZ_FUNCTION})"
            )


@pytest.mark.parametrize("name", sorted(viz_modules()))
def test_no_viz_module_imports_a_private_name(name):
    for node in ast.walk(ast.parse(modules()[name].read_text())):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            private = [alias.name for alias in node.names if alias.name.startswith("_")]
            assert not private, f"{name}:{node.lineno} imports private {private} from elsewhere"


def test_the_engine_imports_cleanly_from_any_module_first():
    # with no cycle, importing a low module first works (it used to fail for the Tensor module)
    import subprocess
    import sys

    for name in (
        "minigrad._tensor",
        "minigrad.recording",
        "minigrad.graph",
        "minigrad.functions.arith",
    ):
        result = subprocess.run(
            [sys.executable, "-c", f"import {name}"], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr


def test_minigrad_tensor_is_the_factory_as_in_torch():
    # torch.tensor is a function and torch/_tensor.py holds the class: `import torch.tensor`
    # finds no module, and the name stays the function
    import minigrad

    assert callable(minigrad.tensor) and minigrad.tensor.__module__ == "minigrad.creation"
    assert minigrad.Tensor.__module__ == "minigrad._tensor"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("minigrad.tensor")
    assert callable(minigrad.tensor)
