"""Parity of the demo's QActor: whole graph (both API methods, fused too) and its sub-graphs."""

from __future__ import annotations

import numpy as np

from rlworkbench.demo import QActor
from rlworkbench.spaces import FloatBox


def test_q_actor(parity):
    space = FloatBox(shape=(4,), add_batch_rank=True)
    pair = parity(lambda: QActor(3, hidden=(16, 8), name="actor"), {"states": space})
    assert len(pair.tf.variable_values()) == 6
    states = space.sample(6, seed=3) * 4.0  # some values beyond the clip bounds
    pair.call("preprocessor", "preprocess", states)
    preprocessed, _ = pair.call("actor/preprocessor", "preprocess", states)
    q_values, _ = pair.call("network", "apply", preprocessed)
    pair.call("network/dense_0", "apply", preprocessed)
    pair.call("selector", "select", q_values)
    whole, _ = pair.run("get_q_values", states)
    np.testing.assert_allclose(whole, q_values, atol=1e-6)
    (actions, fused_q), _ = pair.run_fused(("get_action", states), ("get_q_values", states))
    np.testing.assert_array_equal(actions, np.argmax(q_values, axis=-1))
    np.testing.assert_allclose(fused_q, q_values, atol=1e-6)


def test_q_actor_over_time(parity, ranks):
    parity(lambda: QActor(2, hidden=(8,), name="actor"), {"states": FloatBox(shape=(4,), **ranks)})
