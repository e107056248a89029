"""The fields of a config a sweep can vary: its number, integer, boolean and enum leaves, found by walking the config
beside the builder's form schema (:mod:`.form_schema`: component specs already resolved to their type's arguments,
enums and number bounds kept) — each a :class:`SweepField` with its key path (``"policy/network/0/units"``), the
distributions that fit its type and a starting :class:`SweepEntry` around its current value. No widgets here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlworkbench.workbench.builder.form_schema import BOUNDS, JSON_TEXT, option_for

DISTRIBUTIONS = {
    "float": ("loguniform", "uniform", "choice", "grid_search"),
    "integer": ("randint", "lograndint", "choice", "grid_search"),
    "boolean": ("choice", "grid_search"),
    "enum": ("choice", "grid_search"),
}
"""The distributions offered per kind of field, the first one the default (Tune's names; ``randint`` and
``lograndint`` exclude ``high``, as in Tune)."""
RANGES = ("loguniform", "uniform", "randint", "lograndint")  #: distributions with ``low`` and ``high``


@dataclass
class SweepEntry:
    """How one ticked field is swept: a ``distribution`` of :data:`DISTRIBUTIONS` and its ``low`` / ``high`` (the
    ranges) or ``values`` (``choice``, ``grid_search``; a str is text the user typed, read by
    :func:`~.sweep_draft.values_of`)."""

    distribution: str
    low: float | int | None = None
    high: float | int | None = None
    values: list[Any] | str = field(default_factory=list)


@dataclass(frozen=True)
class SweepField:
    """A sweepable leaf of a config: ``path``, ``kind`` (``"float"``, ``"integer"``, ``"boolean"``, ``"enum"``),
    current ``value``, an enum's ``options`` and a number's schema ``bounds`` (``minimum``, ``exclusiveMaximum``
    …)."""

    path: str
    kind: str
    value: Any
    options: tuple[Any, ...] = ()
    bounds: Mapping[str, float] = field(default_factory=dict)

    @property
    def distributions(self) -> tuple[str, ...]:
        return DISTRIBUTIONS[self.kind]

    def default_entry(self) -> SweepEntry:
        """A first guess: around the current value within the schema's bounds (a decade either side of a positive
        float, loguniform; half to double an integer), or every option of a boolean or enum."""
        if self.kind == "boolean":
            return SweepEntry("choice", values=[False, True])
        if self.kind == "enum":
            return SweepEntry("choice", values=list(self.options))
        value = self.value
        if self.kind == "integer":
            low, top = (max(1, value // 2), value * 2) if value >= 1 else (value, value + 1)
            low, top = self._clip(low, top, step=1)
            return SweepEntry("randint", low, top + 1, self._allowed([low, value, top]))
        low, high = (value / 10, value * 10) if value > 0 else (value - 1.0, value + 1.0)
        low, high = (_round(x) for x in self._clip(low, high, step=0))
        distribution = "loguniform" if low > 0 else "uniform"
        return SweepEntry(distribution, low, high, self._allowed([low, float(value), high]))

    def _clip(self, low: float, high: float, step: int) -> tuple[Any, Any]:
        """``low`` and ``high`` moved inside the bounds (an exclusive bound by ``step``; for floats, a low bound
        that is exclusive takes the current value instead)."""
        bounds = self.bounds
        if "minimum" in bounds:
            low = max(low, bounds["minimum"])
        if "exclusiveMinimum" in bounds and low <= bounds["exclusiveMinimum"]:
            low = bounds["exclusiveMinimum"] + step if step else self.value
        if "maximum" in bounds:
            high = min(high, bounds["maximum"])
        if "exclusiveMaximum" in bounds:  # (a float range's samplers never reach its high)
            high = min(high, bounds["exclusiveMaximum"] - step)
        return low, high

    def _allowed(self, values: list[Any]) -> list[Any]:
        """The distinct ``values`` the bounds allow, in order."""
        bounds = self.bounds
        inside = [v for v in values if v >= bounds.get("minimum", -math.inf) and v <= bounds.get("maximum", math.inf)
                  and v > bounds.get("exclusiveMinimum", -math.inf) and v < bounds.get("exclusiveMaximum", math.inf)]
        return list(dict.fromkeys(inside))


def sweep_fields(config: Mapping[str, object], schema: Mapping[str, object]) -> list[SweepField]:
    """The sweepable leaves of ``config``, in its order, walked beside its form ``schema`` (component ``type``
    keys, free strings and JSON-text arguments are left out)."""
    found: list[SweepField] = []

    def visit(value: object, node: Mapping[str, object], path: str) -> None:
        if node.get(JSON_TEXT) or "const" in node:
            return
        if "anyOf" in node:
            options = node["anyOf"]
            enum = _enum_of_choice(value, options)
            if enum is not None:
                found.append(SweepField(path, "enum", value, enum))
                return
            option = option_for(value, options)
            if option is not None:
                visit(value, option, path)
            return
        kind = node.get("type")
        if kind == "object" and isinstance(value, Mapping):
            properties = node.get("properties", {})
            for key, item in value.items():
                if key in properties:
                    visit(item, properties[key], f"{path}/{key}" if path else key)
        elif kind == "array" and isinstance(value, list):
            for index, item in enumerate(value):
                visit(item, node.get("items", {}), f"{path}/{index}" if path else str(index))
        elif "enum" in node:
            found.append(SweepField(path, "enum", value, tuple(node["enum"])))
        elif kind == "boolean" and isinstance(value, bool):
            found.append(SweepField(path, "boolean", value, (False, True)))
        elif kind in ("integer", "number") and isinstance(value, (int, float)) and not isinstance(value, bool):
            is_integer = kind == "integer" and isinstance(value, int)
            found.append(SweepField(path, "integer" if is_integer else "float", value if is_integer else float(value),
                                    bounds=dict(node.get(BOUNDS, {}))))

    visit(config, schema, "")
    return found


def _enum_of_choice(value: object, options: list[Mapping[str, Any]]) -> tuple[Any, ...] | None:
    """An enum that may be null (``activation``: a name or none), as one enum with ``None`` last; else None."""
    enums = [option for option in options if "enum" in option]
    if not enums or any("enum" not in option and option.get("type") != "null" for option in options):
        return None
    values = tuple(v for option in enums for v in option["enum"])
    values += (None,) if len(enums) < len(options) else ()
    return values if value in values else None


def _round(value: float) -> float:
    """Six significant digits (``0.099`` rather than ``0.09899999999999999``)."""
    return float(f"{value:.6g}")
