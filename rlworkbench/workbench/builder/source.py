"""What a GraphBuilder edits: a config (from a shipped name, a dict, a JSON path or an agent) with the agent class
and spaces to build it, or a code-composed component (no config: the graph and the explorer's actions only)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlworkbench.agents.agent import Agent, env_spaces
from rlworkbench.agents.config import config_name, load_config, validate_config
from rlworkbench.agents.protocols import is_agent
from rlworkbench.agents.registry import agent_class
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import ConfigError


@dataclass
class BuilderSource:
    """``config`` (None for a code-composed component), ``agent_class`` and the spaces that build it, ``name``
    for titles and exports, and what was given: an ``agent`` (built first as is) or a ``component``."""

    name: str
    config: dict[str, object] | None = None
    agent_class: type[Agent] | None = None
    state_space: object = None
    action_space: object = None
    agent: Agent | None = None
    component: object = None  # a Component, Executor or config-less agent: explored as it is


def resolve_source(prototype: Any, env: Any) -> BuilderSource:
    """A :class:`BuilderSource` for ``prototype``; ``env`` (a Gymnasium id or env) gives a config's spaces."""
    if isinstance(prototype, (str, Path, Mapping)):
        config = load_config(prototype)
        cls = agent_class(config.get("type"))
        state_space, action_space = _env_spaces(env)
        merged = validate_config(config, cls.schema, cls.defaults)  # the form shows every value, defaults too
        return BuilderSource(config_name(prototype, config), merged, cls, state_space, action_space)
    if isinstance(prototype, Agent) and prototype.config.get("type"):
        return BuilderSource(str(prototype.config["type"]), dict(prototype.config), type(prototype),
                             prototype.state_space, prototype.action_space, agent=prototype)
    if isinstance(prototype, (Component, Executor)) or is_agent(prototype):
        component = prototype.root if is_agent(prototype) else prototype
        name = component.root.name if isinstance(component, Executor) else component.name
        return BuilderSource(name, component=prototype)
    raise ConfigError("the builder opens a shipped config's name, a config dict or JSON path, an agent, or a "
                      "component", argument="prototype", expected="str, Path, dict, Agent or Component",
                      got=type(prototype).__name__)


def _env_spaces(env: Any) -> tuple[Any, Any]:
    if env is None:
        raise ConfigError("a config needs an env for its spaces", argument="env",
                          expected="a Gymnasium id or env", got=None)
    return env_spaces(env)
