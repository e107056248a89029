"""Imports point one way: spaces → core → backends, components → agents → execution → visualize → workbench (and
the command line). An AST walk over every module of the package, lazy imports inside functions included, finds
each ``rlworkbench`` import; none may point to a higher layer, and no modules may import each other in a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rlworkbench"

LAYERS: list[set[str]] = [
    {"errors", "nest", "drawable", "extras"},  # what everything may use: typed errors, nested structures, the draw
    # hint, the optional parts' MissingExtra
    {"spaces"},
    {"core"},
    {"backends", "components", "testing"},
    {"agents"},
    {"execution"},
    {"visualize"},
    {"workbench"},
    {"cli", "demo", "lab", "__init__"},
]
SAME_LAYER_EXCEPTIONS: dict[str, set[str]] = {  # within a layer, packages import nothing of each other but these
    "errors": {"drawable"},
    "extras": {"errors"},
    "testing": {"components"},  # the optimizer test root builds library components
    "cli": {"demo", "__init__"},
    "demo": {"__init__"},
}


def module_name(path: Path) -> str:
    if not path.is_relative_to(PACKAGE):
        return path.stem
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_key(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def layer_of(module: str) -> int:
    key = layer_key(module)
    for index, names in enumerate(LAYERS):
        if key in names:
            return index
    raise AssertionError(f"{module}: its package '{key}' has no layer in tests/test_layers.py")


def imports_of(path: Path, modules: set[str] | None = None) -> list[tuple[int, str, bool]]:
    """``(line, module, at_run_time)`` of every rlworkbench import in the file, at any depth (functions included);
    ``at_run_time`` is False for imports under ``if TYPE_CHECKING:``. ``from package import module`` names the
    module (when ``modules`` knows it)."""
    found = []
    package = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(child) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node.test)
                   for statement in node.body for child in ast.walk(statement)}
    for node in ast.walk(tree):
        runtime = id(node) not in typing_only
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, runtime) for alias in node.names
                      if alias.name.split(".")[0] == "rlworkbench"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "rlworkbench":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.append((node.lineno, submodule if modules and submodule in modules else target, runtime))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def all_imports() -> dict[str, list[tuple[int, str, bool]]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imports_of(path, modules) for path in paths}


def test_every_module_has_a_layer():
    for module in all_imports():
        layer_of(module)


def test_no_module_imports_from_a_higher_layer():
    upward = []
    for module, imports in all_imports().items():
        own, key = layer_of(module), layer_key(module)
        for line, target, _ in imports:
            target_key = layer_key(target)
            if target_key == key:
                continue
            if layer_of(target) > own or (layer_of(target) == own
                                          and target_key not in SAME_LAYER_EXCEPTIONS.get(key, set())):
                upward.append(f"{module}:{line} imports {target}")
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_no_import_cycles_between_modules():
    modules = all_imports()
    edges = {module: sorted({target for _, target, runtime in imports
                             if runtime and target in modules and target != module})
             for module, imports in modules.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in edges[module]:
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target] if target in path else [module, target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in modules:
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles[:10])


def test_the_layer_check_sees_lazy_and_typing_imports(tmp_path):
    """The walk finds an import inside a function body (the kind that hides a cycle from Python itself) and tells
    imports for type checkers apart."""
    source = tmp_path / "probe.py"
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from rlworkbench.core import Component\n"
                      "def f():\n    from rlworkbench.workbench import promote\n    import rlworkbench.visualize\n")
    found = sorted((target, runtime) for _, target, runtime in imports_of(source))
    assert found == [("rlworkbench.core", False), ("rlworkbench.visualize", True), ("rlworkbench.workbench", True)]
