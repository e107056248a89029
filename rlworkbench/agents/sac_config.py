"""The SAC config: defaults and the JSON schema every SAC config is validated against.

Sections: ``discount``; ``preprocessing`` (preprocessor specs; stateless ones only, see :class:`SACAgent`);
``policy`` (``network``: layer specs before the action head: a squashed normal for a ``FloatBox`` action, a
categorical for ``IntBox(n)``); ``critic`` (``network``: layer specs of each Q-network before its linear head,
``num_critics`` of them, 2 for twin Q); ``temperature`` (``initial_alpha``; ``learn_alpha`` tunes ``log_alpha``
towards ``target_entropy``: a number, or ``"auto"`` — ``-action_dim`` for float actions, ``0.5 * log(n)``, half
the uniform policy's entropy, for ``n`` discrete ones: the ``0.98 * log(n)`` of Christodoulou (2019) leaves the
policy almost no room below uniform, and on CartPole (``n = 2``) alpha then grows without bound); ``memory``
(a ``replay_memory``); ``optimizers`` (``critic``, ``actor`` and ``alpha``: one optimizer spec each); ``update``
(``batch_size``, ``learning_starts`` env steps before learning, then ``gradient_steps`` updates every
``update_interval`` env steps); ``target`` (``sync_interval`` updates between
syncs of the target critics with ``tau``: less than 1 is a Polyak average).
"""

from __future__ import annotations

from rlworkbench.agents.config import (
           OFF_POLICY_UPDATE,
           OPTIMIZER,
           POSITIVE_INT,
           PROBABILITY,
           TARGET_SYNC,
           component_spec,
           section,
           with_execution,
)

_HIDDEN = [{"type": "dense", "units": 256, "activation": "relu"},
           {"type": "dense", "units": 256, "activation": "relu"}]
_ADAM = {"type": "adam", "learning_rate": 3e-4}

DEFAULTS: dict[str, object] = {
    "type": "sac",
    "discount": 0.99,
    "preprocessing": [],
    "policy": {"network": _HIDDEN},
    "critic": {"network": _HIDDEN, "num_critics": 2},
    "temperature": {"initial_alpha": 1.0, "learn_alpha": True, "target_entropy": "auto"},
    "memory": {"type": "replay_memory", "capacity": 100000},
    "optimizers": {"critic": _ADAM, "actor": _ADAM, "alpha": _ADAM},
    "update": {"batch_size": 256, "learning_starts": 1000, "update_interval": 1, "gradient_steps": 1},
    "target": {"sync_interval": 1, "tau": 0.005},
}


_NETWORK = {"type": "array", "minItems": 1, "items": component_spec("layer")}

SCHEMA: dict[str, object] = with_execution(section({
    "type": {"const": "sac"},
    "discount": PROBABILITY,
    "preprocessing": {"type": "array", "items": component_spec("preprocessor")},
    "policy": section({"network": _NETWORK}),
    "critic": section({"network": _NETWORK, "num_critics": {"type": "integer", "minimum": 1, "maximum": 32}}),
    "temperature": section({
        "initial_alpha": {"type": "number", "exclusiveMinimum": 0},
        "learn_alpha": {"type": "boolean"},
        "target_entropy": {"if": {"type": "string"}, "then": {"const": "auto"}, "else": {"type": "number"}},
    }),
    "memory": component_spec(types=["replay_memory"], required=["type", "capacity"],
                             properties={"capacity": POSITIVE_INT}),
    "optimizers": section({"critic": OPTIMIZER, "actor": OPTIMIZER, "alpha": OPTIMIZER}),
    "update": OFF_POLICY_UPDATE,
    "target": TARGET_SYNC,
}))
