"""Nested structures of dicts and tuples, addressed by stable key paths such as ``"obs/image"``.

Dict keys and tuple indices become path segments joined by ``/``; dicts are walked in insertion order, so a
flattening is stable for a given structure. Used by spaces, the builder and the backends alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeAlias, TypeVar

SEPARATOR = "/"

T = TypeVar("T")
# A leaf of type T, or dicts, tuples and lists of nested structures (what spaces, records and tensors come in).
Nested: TypeAlias = T | Mapping[str, "Nested[T]"] | tuple["Nested[T]", ...] | list["Nested[T]"]
# A value as JSON holds it: what ``json.loads`` gives and ``json.dumps`` takes (records, sidecars, job specs).
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"


def is_container(value: object) -> bool:
    return isinstance(value, (Mapping, tuple, list))


def join(prefix: str, key: object) -> str:
    return f"{prefix}{SEPARATOR}{key}" if prefix else str(key)


def items(structure: Nested[T], prefix: str = "") -> Iterator[tuple[str, T]]:
    """Yields ``(key_path, leaf)`` pairs, depth first, in insertion order."""
    if isinstance(structure, Mapping):
        for key, value in structure.items():
            yield from items(value, join(prefix, key))
    elif isinstance(structure, (tuple, list)):
        for index, value in enumerate(structure):
            yield from items(value, join(prefix, index))
    else:
        yield prefix, structure


def flatten(structure: Nested[T]) -> dict[str, T]:
    """``{key_path: leaf}``; a bare leaf flattens to ``{"": leaf}``."""
    return dict(items(structure))


def leaves(structure: Nested[T]) -> list[T]:
    return [leaf for _, leaf in items(structure)]


def map_structure(fn: Callable[..., object], structure: Any, *others: object) -> Any:
    """Applies ``fn(leaf, *other_leaves)`` leaf by leaf, keeping the structure of ``structure``."""
    if isinstance(structure, Mapping):
        return {k: map_structure(fn, v, *(o[k] for o in others)) for k, v in structure.items()}
    if isinstance(structure, (tuple, list)):
        mapped = [map_structure(fn, v, *(o[i] for o in others)) for i, v in enumerate(structure)]
        return type(structure)(mapped)
    return fn(structure, *others)


def map_with_path(fn: Callable[[str, Any], Any], structure: Any, prefix: str = "") -> Any:
    """Like :func:`map_structure` but ``fn(key_path, leaf)``."""
    if isinstance(structure, Mapping):
        return {k: map_with_path(fn, v, join(prefix, k)) for k, v in structure.items()}
    if isinstance(structure, (tuple, list)):
        return type(structure)(map_with_path(fn, v, join(prefix, i)) for i, v in enumerate(structure))
    return fn(prefix, structure)


def unflatten_as(template: Any, flat: Mapping[str, object]) -> Any:
    """Rebuilds ``template``'s structure with leaves taken from ``flat`` by key path."""
    return map_with_path(lambda path, _: flat[path], template)
