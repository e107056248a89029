"""``as_space``: a Space from whatever stands for one — our spaces as they are, Gymnasium spaces converted."""

from __future__ import annotations

from rlworkbench.errors import ConfigError
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
