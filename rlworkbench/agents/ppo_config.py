"""The PPO config: defaults and the JSON schema every PPO config is validated against.

Sections: ``discount``; ``preprocessing`` (preprocessor specs; stateless ones only, see :class:`PPOAgent`);
``policy`` (``network``: layer specs of the policy body; ``distribution``: ``null`` for the action space's default —
categorical, bernoulli, normal — or a distribution type, or ``{key_path: type}`` for container actions;
``shared_value_function``: a value head of ``value_units`` hidden layers on the policy's body, else a separate
``value_network`` of layer specs — both end in a linear ``Dense(1)``); ``loss`` (``clip_ratio``, ``value_clip``:
``null`` or the clip range of the value loss around the rollout's values, ``entropy_weight``, ``value_weight``,
``gae_lambda``, ``normalize_advantages`` per minibatch); ``optimizer`` (an optimizer spec, e.g. Adam with
``clip_grad_norm``); ``update`` (``rollout_length`` env steps per environment between updates, ``num_epochs``
passes over each rollout in ``num_minibatches`` shuffled minibatches, ``target_kl``: ``null`` or the approximate
KL after which an update stops early; ``sequence_length``: with an ``lstm`` in ``policy/network``, the steps of the
whole sequences minibatches are made of — a divisor of ``rollout_length``, ``null`` for all of it).
"""

from __future__ import annotations

from rlworkbench.agents.config import POSITIVE_INT, PROBABILITY, UNITS, component_spec, section, with_execution
from rlworkbench.components.distributions import Distribution
from rlworkbench.components.registry import registered

POLICY_DEFAULTS: dict[str, object] = {
    "network": [{"type": "dense", "units": 64, "activation": "tanh"},
                {"type": "dense", "units": 64, "activation": "tanh"}],
    "distribution": None, "shared_value_function": False, "value_units": [],
    "value_network": [{"type": "dense", "units": 64, "activation": "tanh"},
                      {"type": "dense", "units": 64, "activation": "tanh"}]}
"""The ``policy`` section of actor-critic agents (PPO, IMPALA)."""

DEFAULTS: dict[str, object] = {
    "type": "ppo",
    "discount": 0.99,
    "preprocessing": [],
    "policy": POLICY_DEFAULTS,
    "loss": {"clip_ratio": 0.2, "value_clip": None, "entropy_weight": 0.0, "value_weight": 0.5,
             "gae_lambda": 0.95, "normalize_advantages": True},
    "optimizer": {"type": "adam", "learning_rate": 3e-4, "clip_grad_norm": 0.5},
    "update": {"rollout_length": 128, "num_epochs": 4, "num_minibatches": 4, "target_kl": None,
               "sequence_length": None},
}


def distribution_types() -> list[str]:
    """Registered distribution types (what ``policy/distribution`` may name)."""
    return sorted(name for name, cls in registered().items() if issubclass(cls, Distribution))


_NON_NEGATIVE = {"type": "number", "minimum": 0}
_POSITIVE_OR_NULL = {"type": ["number", "null"], "exclusiveMinimum": 0}
_LAYERS = {"type": "array", "minItems": 1, "items": component_spec("layer")}

POLICY_SCHEMA: dict[str, object] = section({
    "network": _LAYERS,
    "distribution": {"type": ["null", "string", "object"], "if": {"type": "string"},
                     "then": {"enum": distribution_types()},
                     "additionalProperties": {"enum": distribution_types()}},
    "shared_value_function": {"type": "boolean"},
    "value_units": UNITS,
    "value_network": _LAYERS,
})

SCHEMA: dict[str, object] = with_execution(section({
    "type": {"const": "ppo"},
    "discount": PROBABILITY,
    "preprocessing": {"type": "array", "items": component_spec("preprocessor")},
    "policy": POLICY_SCHEMA,
    "loss": section({
        "clip_ratio": {"type": "number", "exclusiveMinimum": 0},
        "value_clip": _POSITIVE_OR_NULL,
        "entropy_weight": _NON_NEGATIVE,
        "value_weight": _NON_NEGATIVE,
        "gae_lambda": PROBABILITY,
        "normalize_advantages": {"type": "boolean"},
    }),
    "optimizer": component_spec(
        "optimizer", reserved=("variables_of", "name", "device"),
        properties={"learning_rate": {"type": "number", "exclusiveMinimum": 0},
                    "clip_grad_norm": _POSITIVE_OR_NULL, "clip_grad_value": _POSITIVE_OR_NULL}),
    "update": section({
        "rollout_length": POSITIVE_INT,
        "num_epochs": POSITIVE_INT,
        "num_minibatches": POSITIVE_INT,
        "target_kl": _POSITIVE_OR_NULL,
        "sequence_length": {"type": ["integer", "null"], "minimum": 1},
    }),
}))
