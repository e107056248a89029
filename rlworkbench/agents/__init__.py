"""Agents: a root component assembled from library components, behind the small :class:`Agent` facade.

``Agent.from_config(config, state_space=..., action_space=...)`` picks the agent type from ``config["type"]``
(validated against that type's JSON schema), ``build()`` builds its root on a backend, and then
``get_actions`` / ``observe`` / ``wants_update`` / ``update`` run it; ``save`` / ``load`` write and read
checkpoints. Built-in configs: :func:`builtin_configs`, :func:`builtin_config`. Importing this package imports
no framework.
"""

from rlworkbench.agents.agent import Agent
from rlworkbench.agents.config import builtin_config, builtin_configs, load_config, validate_config
from rlworkbench.agents.dqn import DQNAgent
from rlworkbench.agents.dqn_graph import DQNGraph
from rlworkbench.agents.impala import ImpalaAgent
from rlworkbench.agents.impala_graph import ImpalaGraph
from rlworkbench.agents.ppo import PPOAgent
from rlworkbench.agents.ppo_graph import PPOGraph
from rlworkbench.agents.recurrent_learning import RecurrentImpalaAgent, RecurrentPPOAgent
from rlworkbench.agents.registry import agent_class, known_agents, register_agent
from rlworkbench.agents.sac import SACAgent
from rlworkbench.agents.sac_graph import SACGraph
from rlworkbench.errors import CheckpointError, ConfigError

__all__ = [
    "Agent",
    "CheckpointError",
    "ConfigError",
    "DQNAgent",
    "DQNGraph",
    "ImpalaAgent",
    "ImpalaGraph",
    "PPOAgent",
    "PPOGraph",
    "RecurrentImpalaAgent",
    "RecurrentPPOAgent",
    "SACAgent",
    "SACGraph",
    "agent_class",
    "builtin_config",
    "builtin_configs",
    "known_agents",
    "load_config",
    "register_agent",
    "validate_config",
]
