"""How much of rlworkbench's typing says nothing: the share of annotations that mention ``Any``, per package.

What is counted (read with ``ast``, nothing imported):

* an **annotation** is each annotated parameter of a ``def`` / ``async def`` (positional, keyword-only, ``*args``,
  ``**kwargs``; an unannotated ``self`` or ``cls`` is no annotation), each return annotation, and each annotated
  assignment (``x: T`` / ``x: T = v``, in modules, classes and functions alike; dataclass fields included);
* it is **Any** when its expression mentions the name ``Any`` (``Any``, ``typing.Any``, ``dict[str, Any]``,
  ``Callable[..., Any]``, a quoted annotation parsed the same way) or mentions an **alias of Any**: a name bound at
  module level anywhere in the package (``X = ...``, ``X: TypeAlias = ...``, ``type X = ...``) to an expression that
  itself mentions ``Any`` or another alias of Any, followed transitively. So ``Tensor = Any`` does not hide an
  ``Any``; a recursive ``Nested = Union[Leaf, Mapping[str, "Nested"], ...]`` is no Any unless ``Leaf`` is.
* a **package** is the first directory under ``rlworkbench/`` (``core``, ``agents`` …); modules directly in
  ``rlworkbench/`` are ``(top)``.

``python scripts/any_share.py`` prints the table; ``--json`` prints the same as JSON; ``--files`` adds the files
with the most Any annotations. ``tests/test_types.py`` holds the share to the ceiling in ``any_share_ceiling.json``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rlworkbench"
CEILING = ROOT / "any_share_ceiling.json"


@dataclass
class Tally:
    annotations: int = 0
    any: int = 0
    by_file: Counter[str] = field(default_factory=Counter)

    @property
    def share(self) -> float:
        return self.any / self.annotations if self.annotations else 0.0


def _literal_free(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` that does not enter ``Literal[...]`` (its strings are values, not forward references)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        if isinstance(current, ast.Subscript) and _last_name(current.value) == "Literal":
            continue
        pending.extend(ast.iter_child_nodes(current))


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def references(node: ast.AST) -> Iterator[tuple[str, ...]]:
    """The dotted names an annotation expression mentions (``("Any",)``, ``("ops", "Tensor")``), including those
    inside string (forward-reference) annotations, not the strings of ``Literal[...]``."""
    for child in _literal_free(node):
        if isinstance(child, ast.Attribute | ast.Name):
            parts: list[str] = []
            current: ast.AST = child
            while isinstance(current, ast.Attribute):
                parts.insert(0, current.attr)
                current = current.value
            if isinstance(current, ast.Name):
                yield (current.id, *parts)
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            try:
                parsed = ast.parse(child.value, mode="eval")
            except SyntaxError:
                continue
            yield from references(parsed)


@dataclass
class Module:
    """What one module binds at top level: possible type aliases and imported names (local name -> dotted)."""

    name: str
    is_package: bool
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, name: str, is_package: bool, tree: ast.Module) -> Module:
        module = cls(name, is_package)
        for statement in ast.walk(tree):  # imports anywhere (``if TYPE_CHECKING:`` blocks included)
            if isinstance(statement, ast.ImportFrom):
                base = module.resolve_relative(statement.module or "", statement.level)
                for alias in statement.names:
                    module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        module.imports[alias.asname] = alias.name
                    else:
                        module.imports[alias.name.split(".")[0]] = alias.name.split(".")[0]
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                    statement.targets[0], ast.Name):
                module.aliases[statement.targets[0].id] = statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                if _is_type_alias(statement.annotation):
                    module.aliases[statement.target.id] = statement.value
            elif type(statement).__name__ == "TypeAlias":  # ``type X = ...`` (Python 3.12+)
                module.aliases[statement.name.id] = statement.value  # type: ignore[attr-defined]
        return module

    def resolve_relative(self, target: str, level: int) -> str:
        if not level:
            return target
        parts = self.name.split(".")
        keep = len(parts) - level + (1 if self.is_package else 0)
        return ".".join(parts[:keep] + ([target] if target else []))


def _is_type_alias(annotation: ast.expr) -> bool:
    return any(ref[-1] == "TypeAlias" for ref in references(annotation))


class AnyResolver:
    """Decides whether a name used in a module is ``Any`` or an alias of it, following imports and aliases
    through the package's modules (a name from outside the package is Any only when it is ``Any`` itself)."""

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.memo: dict[str, bool] = {}

    def dotted_is_any(self, dotted: str, seen: frozenset[str] = frozenset()) -> bool:
        if dotted in self.memo:
            return self.memo[dotted]
        if dotted in seen:
            return False
        seen = seen | {dotted}
        module_name, _, name = dotted.rpartition(".")
        if name == "Any" and module_name in ("typing", "typing_extensions"):
            result = True
        elif module_name in self.modules and name in self.modules[module_name].aliases:
            module = self.modules[module_name]
            result = any(self.name_is_any(module, ref, seen) for ref in references(module.aliases[name]))
        elif module_name in self.modules:
            result = self.name_is_any(self.modules[module_name], (name,), seen)
        else:
            result = False
        self.memo[dotted] = result
        return result

    def name_is_any(self, module: Module, reference: tuple[str, ...], seen: frozenset[str] = frozenset()) -> bool:
        head, *rest = reference
        if head in module.aliases and not rest:
            return self.dotted_is_any(f"{module.name}.{head}", seen)
        if head in module.imports:
            return self.dotted_is_any(".".join((module.imports[head], *rest)), seen)
        if head == "Any" and not rest:
            return True  # not imported here: a builtins-level Any (or a star import) is still typing's
        return False

    def annotation_is_any(self, module: Module, annotation: ast.expr) -> bool:
        return any(self.name_is_any(module, ref) for ref in references(annotation))


def annotations_of(tree: ast.Module) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            params += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            yield from (p.annotation for p in params if p.annotation is not None)
            if node.returns is not None:
                yield node.returns
        elif isinstance(node, ast.AnnAssign):
            if not _is_type_alias(node.annotation):
                yield node.annotation


def package_of(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package).parts
    return parts[0] if len(parts) > 1 else "(top)"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def measure(package: Path = PACKAGE, root: Path = ROOT) -> dict[str, Tally]:
    """Per package (and ``"all"``): how many annotations there are and how many of them mention Any."""
    trees = {path: ast.parse(path.read_text(), filename=str(path)) for path in sorted(package.rglob("*.py"))}
    modules = {module_name(path, root): Module.read(module_name(path, root), path.name == "__init__.py", tree)
               for path, tree in trees.items()}
    resolver = AnyResolver(modules)
    tallies: dict[str, Tally] = {"all": Tally()}
    for path, tree in trees.items():
        module = modules[module_name(path, root)]
        relative = path.relative_to(root).as_posix()
        subpackage = tallies.setdefault(package_of(path, package), Tally())
        for annotation in annotations_of(tree):
            is_any = resolver.annotation_is_any(module, annotation)
            for tally in (subpackage, tallies["all"]):
                tally.annotations += 1
                tally.any += is_any
                tally.by_file[relative] += is_any
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--files", type=int, default=0, metavar="N", help="also list the N files with most Any")
    args = parser.parse_args(argv)
    tallies = measure()
    if args.json:
        print(json.dumps({name: {"annotations": t.annotations, "any": t.any, "share": round(t.share, 4)}
                          for name, t in sorted(tallies.items())}, indent=1))
        return 0
    print(f"{'package':<14}{'annotations':>12}{'Any':>7}{'share':>8}")
    for name, tally in sorted(tallies.items(), key=lambda item: (item[0] == "all", item[0])):
        print(f"{name:<14}{tally.annotations:>12}{tally.any:>7}{tally.share:>8.1%}")
    if CEILING.exists():
        print(f"ceiling: {json.loads(CEILING.read_text())['ceiling']:.1%} (any_share_ceiling.json)")
    for path, count in tallies["all"].by_file.most_common(args.files):
        print(f"  {count:>4}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
