"""``as_space``: a Space from whatever stands for one — our spaces as they are, Gymnasium spaces converted."""

from __future__ import annotations

from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces.space import Space


def is_gymnasium_space(value: object) -> bool:
    """Whether ``value`` is a Gymnasium space (checked without importing Gymnasium)."""
    return any(klass.__module__.startswith("gymnasium.spaces") and klass.__name__ == "Space"
               for klass in type(value).__mro__)


def as_space(value: object, argument: str = "space", **context: object) -> Space:
    """``value`` if it is a :class:`Space`; a Gymnasium space converted with ``from_gymnasium``; else a ConfigError
    naming ``argument`` (and ``context``: component, key_path, …)."""
    if isinstance(value, Space):
        return value
    if is_gymnasium_space(value):
        from rlworkbench.spaces.gymnasium_spaces import from_gymnasium

        return from_gymnasium(value)
    raise ConfigError("expected a space", argument=argument, expected="an rlworkbench Space or a Gymnasium space",
                      got=type(value).__name__, **context)


def refuse_zero_size(space: Space, argument: str, needs: str, *, component: str | None = None,
                     key_path: str | None = None) -> None:
    """A :class:`SpaceError` naming ``argument`` (and ``component``, ``key_path`` where given) when one value of
    ``space`` holds no number at all — a 0 in a leaf's shape, a container without leaves, or only such leaves.
    ``needs`` says who cannot act on it ("a dense layer"). Components that compute from their inputs (layers with
    weights, policies) call this; those that only move values along (memories, preprocessors, splitters) take
    zero-size spaces."""
    if space.flat_dim == 0:
        raise SpaceError(f"{needs} cannot act on a zero-size space (one value holds no numbers)", argument=argument,
                         expected="a space with at least one element (no 0 in its shape)", got=space,
                         component=component, key_path=key_path)
