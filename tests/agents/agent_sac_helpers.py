"""Helpers for the SAC agent tests: small configs and spaces, random transitions, and a NumPy forward pass of the
dense networks (for reference values computed from an agent's weights)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from agent_test_support import with_sections

import rlworkbench.agents.sac  # noqa: F401  (registers "sac": the agents package does not import it yet)
from rlworkbench.agents import Agent, builtin_config
from rlworkbench.spaces import FloatBox, IntBox, Space

STATES = FloatBox(-1.0, 1.0, shape=(3,))
ACTIONS = FloatBox(-2.0, 2.0, shape=(1,))
DISCRETE = IntBox(3)
BATCH_KEYS = ("states", "actions", "rewards", "terminals", "next_states")


def small_config(**sections: Any) -> dict[str, Any]:
    """The Pendulum config with one hidden layer of 16 units, a small memory and batch; ``sections`` update its
    sections (a section with another component ``type``, or a non-dict value, replaces it)."""
    config = copy.deepcopy(builtin_config("sac_pendulum"))
    for part in ("policy", "critic"):
        config[part]["network"] = [{"type": "dense", "units": 16, "activation": "relu"}]
    config["memory"]["capacity"] = 256
    config["update"].update(batch_size=8, learning_starts=16)
    return with_sections(config, sections)


def small_agent(backend: str, seed: int = 3, action_space: Space = ACTIONS, **sections: Any) -> Agent:
    return Agent.from_config(small_config(**sections), state_space=STATES, action_space=action_space,
                             backend=backend, seed=seed).build()


def transitions(count: int, seed: int = 0, terminal_every: int = 0,
                action_space: Space = ACTIONS) -> dict[str, np.ndarray]:
    """``count`` random transitions of STATES and ``action_space`` as a batch dict."""
    rng = np.random.default_rng(seed)
    terminals = np.zeros(count, bool) if not terminal_every else np.arange(count) % terminal_every == 0
    return {"states": STATES.sample(count, seed=rng), "actions": action_space.sample(count, seed=rng),
            "rewards": rng.normal(size=count).astype(np.float32), "terminals": terminals,
            "next_states": STATES.sample(count, seed=rng)}


def observe(agent: Agent, batch: dict[str, np.ndarray]) -> None:
    agent.observe(*(batch[key] for key in BATCH_KEYS))


def mlp(weights: dict[str, np.ndarray], prefix: str, x: np.ndarray, layers: list[str]) -> np.ndarray:
    """The dense layers ``prefix/<layer>`` in order, ReLU between them and a linear last one (float64)."""
    x = np.asarray(x, np.float64)
    for index, layer in enumerate(layers):
        x = x @ weights[f"{prefix}/{layer}/kernel"] + weights[f"{prefix}/{layer}/bias"]
        if index < len(layers) - 1:
            x = np.maximum(x, 0.0)
    return x


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
