"""Naming another component from a config: the object itself, or its path relative to the owner's parent."""

from __future__ import annotations

from rlworkbench.core.component import Component
from rlworkbench.errors import BuildError, ConfigError

ComponentRef = Component | str


def resolve_component(owner: Component, ref: ComponentRef, key: str) -> Component:
    """The component ``ref`` names for ``owner``: a :class:`Component` of the same graph, or a path relative to
    ``owner``'s parent (``"policy/network"``; ``""`` is the parent itself). ``key`` names the config argument
    in errors."""
    if isinstance(ref, Component):
        if ref.root is not owner.root:
            raise BuildError(f"'{ref.path}' is not part of the graph being built", component=owner.path,
                             key_path=key, expected=f"a component below '{owner.root.path}'", got=ref.path)
        return ref
    if not isinstance(ref, str):
        raise ConfigError("a component reference is a component or a path", component=owner.path, key_path=key,
                          expected="Component or str", got=type(ref).__name__)
    if owner.parent is None:
        raise ConfigError("paths are relative to the parent; this component has none", component=owner.path,
                          key_path=key, expected="a sub-component of the component that owns the target", got=ref)
    try:
        return owner.parent.find(ref)
    except ConfigError as error:
        raise ConfigError(f"no component at '{ref}' below '{owner.parent.path}'", component=owner.path, key_path=key,
                          expected=error.expected, got=ref) from None
