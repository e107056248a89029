"""Parity of the recurrent parts on torch and TF: a recurrent network (layers, LSTM, layers) and a recurrent
policy with a value head, over sampled sequences with sampled start states and resets."""

from __future__ import annotations

from rlworkbench.components.layers import RecurrentNetwork
from rlworkbench.components.policies import RecurrentPolicy
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Tuple

UNITS = 4
LAYERS = [{"type": "dense", "units": 5, "activation": "tanh"}, {"type": "lstm", "units": UNITS},
          {"type": "dense", "units": 3, "activation": "relu"}]
SEQUENCES = {"add_batch_rank": True, "add_time_rank": True}
STATE = Tuple(FloatBox(shape=(UNITS,)), FloatBox(shape=(UNITS,)), add_batch_rank=True)
SPACES = {"inputs": FloatBox(shape=(2,), **SEQUENCES), "internal_states": STATE, "resets": BoolBox(**SEQUENCES)}


def test_recurrent_network(parity):
    pair = parity(lambda: RecurrentNetwork(LAYERS), SPACES,
                  api_methods=["apply", "apply_with_state", "unroll", "zero_state"])
    assert "lstm_1/recurrent_kernel" in pair.tf.variable_values()


def test_recurrent_policy_with_a_value_head(parity):
    spaces = {"states": SPACES["inputs"], "internal_states": STATE, "resets": SPACES["resets"],
              "actions": IntBox(3, **SEQUENCES)}
    parity(lambda: RecurrentPolicy(LAYERS, IntBox(3), value_units=[4], name="policy"), spaces,
           api_methods=["get_initial_state", "get_deterministic_action", "get_log_probs_entropy_and_values",
                        "get_state_values", "get_step_states"])
