"""Components from declarative specs: ``{"type": "dense", "units": 64}`` → ``Dense(units=64)``.

Types are registered by class (``@register("dense")``); a spec never evaluates code. An unknown type fails
with the list of known ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.errors import ConfigError

_TYPES: dict[str, type[Component]] = {}


def register(type_name: str) -> Callable[[type[Component]], type[Component]]:
    def add(cls: type[Component]) -> type[Component]:
        if type_name in _TYPES and _TYPES[type_name] is not cls:
            raise ConfigError(f"component type '{type_name}' registered twice", got=cls.__name__)
        _TYPES[type_name] = cls
        cls.type_name = type_name  # type: ignore[attr-defined]
        return cls

    return add


def known_types() -> list[str]:
    return sorted(_TYPES)


def registered() -> dict[str, type[Component]]:
    """Spec type name → component class, for every registered component."""
    return dict(_TYPES)


def from_specs(specs: Sequence[Component | Mapping[str, Any]]) -> list[Component]:
    """Components from a list of specs; unnamed spec dicts are named ``<type>_<index>`` (stable scopes)."""
    components = []
    for index, spec in enumerate(specs):
        named = {**spec, "name": f"{spec.get('type', 'component')}_{index}"} \
            if isinstance(spec, Mapping) and "name" not in spec else spec
        components.append(from_spec(named))
    return components


def from_spec(spec: Component | Mapping[str, Any], **defaults: Any) -> Component:
    """A component from a spec dict (or the component itself); ``defaults`` fill keys the spec leaves out."""
    if isinstance(spec, Component):
        return spec
    if not isinstance(spec, Mapping) or "type" not in spec:
        raise ConfigError("a component spec is a dict with a 'type' key", expected="{'type': ...}", got=repr(spec))
    kwargs = {**defaults, **{k: v for k, v in spec.items() if k != "type"}}
    type_name = spec["type"]
    if type_name not in _TYPES:
        raise ConfigError(f"unknown component type '{type_name}'", expected=known_types(), got=type_name)
    cls = _TYPES[type_name]
    try:
        return cls(**kwargs)
    except TypeError as error:
        raise ConfigError(f"bad arguments for '{type_name}' ({cls.__name__}): {error}", got=sorted(kwargs)) from None
