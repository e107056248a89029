"""The DQN config: defaults and the JSON schema every DQN config is validated against.

Sections: ``discount``; ``preprocessing`` (preprocessor specs; stateless ones only, see :class:`DQNAgent`);
``policy`` (``network``: layer specs before the Q head; ``dueling`` with ``value_units`` / ``advantage_units``);
``loss`` (``double_q``, ``n_step``, ``huber_loss``, ``huber_delta``); ``memory`` (``replay_memory`` or
``prioritized_replay`` with ``alpha``, ``beta`` and ``priority_epsilon``); ``exploration`` (``epsilon``: a number
or a decay spec over env steps); ``optimizer`` (an optimizer spec, e.g. Adam with ``clip_grad_norm``);
``update`` (``batch_size``, ``learning_starts`` env steps before learning, then ``gradient_steps`` updates every
``update_interval`` env steps); ``target`` (``sync_interval`` updates between syncs of ``tau``: 1 is a hard copy,
less a Polyak average).
"""

from __future__ import annotations

from rlworkbench.agents.config import (
    OFF_POLICY_UPDATE,
    OPTIMIZER,
    POSITIVE_INT,
    PROBABILITY,
    TARGET_SYNC,
    UNITS,
    component_spec,
    section,
    with_execution,
)

DEFAULTS: dict[str, object] = {
    "type": "dqn",
    "discount": 0.99,
    "preprocessing": [],
    "policy": {"network": [{"type": "dense", "units": 64, "activation": "relu"},
                           {"type": "dense", "units": 64, "activation": "relu"}],
               "dueling": False, "value_units": [], "advantage_units": []},
    "loss": {"double_q": True, "n_step": 1, "huber_loss": True, "huber_delta": 1.0},
    "memory": {"type": "replay_memory", "capacity": 100000},
    "exploration": {"epsilon": {"type": "linear_decay", "from_value": 1.0, "to_value": 0.05,
                                "end_time_step": 10000}},
    "optimizer": {"type": "adam", "learning_rate": 1e-3, "clip_grad_norm": 10.0},
    "update": {"batch_size": 64, "learning_starts": 1000, "update_interval": 4, "gradient_steps": 1},
    "target": {"sync_interval": 100, "tau": 1.0},
}



SCHEMA: dict[str, object] = with_execution(section({
    "type": {"const": "dqn"},
    "discount": PROBABILITY,
    "preprocessing": {"type": "array", "items": component_spec("preprocessor")},
    "policy": section({
        "network": {"type": "array", "minItems": 1, "items": component_spec("layer")},
        "dueling": {"type": "boolean"},
        "value_units": UNITS,
        "advantage_units": UNITS,
    }),
    "loss": section({
        "double_q": {"type": "boolean"},
        "n_step": POSITIVE_INT,
        "huber_loss": {"type": "boolean"},
        "huber_delta": {"type": "number", "exclusiveMinimum": 0},
    }),
    "memory": component_spec(
        types=["replay_memory", "prioritized_replay"], extra=("priority_epsilon",), required=["type", "capacity"],
        properties={"capacity": POSITIVE_INT, "alpha": {"type": "number", "minimum": 0},
                    "beta": {"type": "number", "minimum": 0},
                    "priority_epsilon": {"type": "number", "exclusiveMinimum": 0}}),
    "exploration": section({
        "epsilon": {"anyOf": [PROBABILITY, component_spec("time_dependent_parameter")]},
    }),
    "optimizer": OPTIMIZER,
    "update": OFF_POLICY_UPDATE,
    "target": TARGET_SYNC,
}))
