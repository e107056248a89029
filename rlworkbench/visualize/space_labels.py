"""Short, readable space labels for graph edges: ``f32[B,4]``, ``i64[B] ∈[0,2)``, ``{obs: f32[B,4], …}``."""

from __future__ import annotations

from typing import Any

from rlworkbench.spaces import BoxSpace, ContainerSpace, Dict, Space

_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32", "int8": "i8",
           "uint8": "u8", "bool": "bool"}


def space_label(space: Space | None, max_items: int = 4) -> str:
    """A compact one-line label for ``space`` (``?`` where the build has not given it one yet)."""
    if space is None:
        return "?"
    if isinstance(space, ContainerSpace):
        children = space.children()
        opening, closing = ("{", "}") if isinstance(space, Dict) else ("(", ")")
        parts = [(f"{key}: " if isinstance(space, Dict) else "") + space_label(child, max_items)
                 for key, child in children[:max_items]]
        if len(children) > max_items:
            parts.append(f"… +{len(children) - max_items}")
        return opening + ", ".join(parts) + closing
    if isinstance(space, BoxSpace):
        dims = _rank_dims(space) + [str(d) for d in space.shape]
        dtype = str(space.dtype)
        text = f"{_DTYPES.get(dtype, dtype)}[{','.join(dims)}]"
        low, high = getattr(space, "low", None), getattr(space, "high", None)
        if dtype.startswith("int") and isinstance(_scalar(low), int) and isinstance(_scalar(high), int):
            text += f" ∈[{_scalar(low)},{_scalar(high)})"
        return text
    return type(space).__name__


def _rank_dims(space: Space) -> list[str]:
    if not space.has_time_rank:
        return ["B"] if space.has_batch_rank else []
    if not space.has_batch_rank:
        return ["T"]
    return ["T", "B"] if space.time_major else ["B", "T"]


def _scalar(value: object) -> Any:
    """The single value of a bound that is the same everywhere (None for per-element bounds)."""
    if value is None:
        return None
    try:
        import numpy as np

        array = np.asarray(value)
        if array.size == 0 or not np.all(array == array.flat[0]):
            return None
        item = array.flat[0].item()
        return int(item) if np.isfinite(item) and float(item).is_integer() else item
    except (TypeError, ValueError):
        return None


def labelled_spaces(spaces: dict[str, Space | None], max_lines: int = 3) -> list[str]:
    """``name: label`` lines for a mapping of argument names to spaces, at most ``max_lines`` (then ``…``)."""
    lines = [f"{name}: {space_label(space)}" for name, space in spaces.items()]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"… +{len(lines) - max_lines} more"]
    return lines
