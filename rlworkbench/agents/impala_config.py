"""The IMPALA config: defaults and the JSON schema every IMPALA config is validated against.

Sections: ``discount``; ``preprocessing`` (stateless preprocessor specs); ``policy`` (as PPO's: ``network``,
``distribution``, ``shared_value_function`` with ``value_units``, else a separate ``value_network``); ``loss``
(``value_weight``, ``entropy_weight`` and v-trace's clipping thresholds ``clip_rho_threshold``,
``clip_pg_rho_threshold``, ``clip_c_threshold``, ``null`` for no clipping; ``clip_ratio``: PPO's clipped
surrogate on v-trace advantages — APPO — instead of the plain policy gradient, ``null`` for IMPALA's);
``optimizer`` (an optimizer spec);
``update`` (``rollout_length``: the length of the sequences one update learns from — a sampler's fragment).
"""

from __future__ import annotations

from rlworkbench.agents.config import OPTIMIZER, POSITIVE_INT, PROBABILITY, component_spec, section, with_execution
from rlworkbench.agents.ppo_config import POLICY_DEFAULTS, POLICY_SCHEMA

DEFAULTS: dict[str, object] = {
    "type": "impala",
    "discount": 0.99,
    "preprocessing": [],
    "policy": POLICY_DEFAULTS,
    "loss": {"value_weight": 0.5, "entropy_weight": 0.01, "clip_rho_threshold": 1.0, "clip_pg_rho_threshold": 1.0,
             "clip_c_threshold": 1.0, "clip_ratio": None},
    "optimizer": {"type": "adam", "learning_rate": 5e-4, "clip_grad_norm": 40.0},
    "update": {"rollout_length": 50},
}

_THRESHOLD = {"type": ["number", "null"], "exclusiveMinimum": 0}

SCHEMA: dict[str, object] = with_execution(section({
    "type": {"const": "impala"},
    "discount": PROBABILITY,
    "preprocessing": {"type": "array", "items": component_spec("preprocessor")},
    "policy": POLICY_SCHEMA,
    "loss": section({
        "value_weight": {"type": "number", "minimum": 0},
        "entropy_weight": {"type": "number", "minimum": 0},
        "clip_rho_threshold": _THRESHOLD,
        "clip_pg_rho_threshold": _THRESHOLD,
        "clip_c_threshold": _THRESHOLD,
        "clip_ratio": _THRESHOLD,
    }),
    "optimizer": OPTIMIZER,
    "update": section({"rollout_length": POSITIVE_INT}),
}))
