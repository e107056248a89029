"""Agent types by name: ``{"type": "dqn", ...}`` in a config picks the class registered as ``"dqn"``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rlworkbench.errors import ConfigError

if TYPE_CHECKING:
    from rlworkbench.agents.agent import Agent

_AGENTS: dict[str, type[Agent]] = {}


def register_agent(type_name: str) -> Callable[[type[Agent]], type[Agent]]:
    """Class decorator: makes an :class:`Agent` subclass the one a config's ``"type": type_name`` builds."""

    def add(cls: type[Agent]) -> type[Agent]:
        if type_name in _AGENTS and _AGENTS[type_name] is not cls:
            raise ConfigError(f"agent type '{type_name}' registered twice", got=cls.__name__)
        _AGENTS[type_name] = cls
        cls.type_name = type_name
        return cls

    return add


def known_agents() -> list[str]:
    return sorted(_AGENTS)


def agent_class(type_name: Any) -> type[Agent]:
    """The class registered for ``type_name``; a ConfigError listing the known types otherwise."""
    if not isinstance(type_name, str) or type_name not in _AGENTS:
        raise ConfigError("unknown agent type", key_path="type", expected=known_agents(), got=type_name)
    return _AGENTS[type_name]
