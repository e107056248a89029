"""GraphCall: the executor's direct way into a concrete function gives what the concrete function gives."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from rlworkbench.backends.tf.graph_call import GraphCall, eager_constant, output_packer

SPEC = [tf.TensorSpec([None, 3], tf.float32)]


def concrete_of(fn):
    return tf.function(fn, input_signature=SPEC, autograph=False).get_concrete_function()


@pytest.fixture()
def weight():
    return tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))


def test_the_direct_path_is_taken_and_agrees_with_the_concrete_function(weight):
    concrete = concrete_of(lambda x: {"y": tf.matmul(x, weight), "pair": (tf.reduce_sum(x, -1), x * 2.0)})
    call = GraphCall(concrete)
    assert call.fast  # a TF release that moves the internals it uses shows up here, not as a silent slowdown
    x = eager_constant(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
    ours, theirs = call(x), concrete(x)
    tf.nest.map_structure(lambda a, b: np.testing.assert_array_equal(a.numpy(), b.numpy()), ours, theirs)
    packed = output_packer(call, lambda t: t.numpy())(call.flat_call(x))
    assert isinstance(packed["pair"][1], np.ndarray) and packed["pair"][1].shape == (4, 3)


def test_variables_are_read_at_call_time(weight):
    call = GraphCall(concrete_of(lambda x: tf.matmul(x, weight)))
    x = eager_constant(np.ones((1, 3), np.float32))
    before = call(x).numpy()
    weight.assign(tf.zeros_like(weight))
    np.testing.assert_array_equal(call(x).numpy(), np.zeros_like(before))
    assert before.any()


def test_state_changes_of_a_function_without_outputs_happen(weight):
    def bump(x):
        weight.assign_add(tf.ones_like(weight) * tf.reduce_sum(x))

    call = GraphCall(concrete_of(bump))
    assert call.fast and call(eager_constant(np.ones((2, 3), np.float32))) is None
    np.testing.assert_array_equal(weight.numpy(), np.arange(6).reshape(3, 2) + 6.0)


def test_runtime_errors_are_tensorflow_errors(weight):
    call = GraphCall(concrete_of(lambda x: tf.debugging.assert_all_finite(x, "inputs must be finite")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="inputs must be finite"):
        call(eager_constant(np.full((1, 3), np.nan, np.float32)))


def test_under_a_gradient_tape_the_public_path_keeps_gradients(weight):
    call = GraphCall(concrete_of(lambda x: tf.reduce_sum(tf.matmul(x, weight))))
    with tf.GradientTape() as tape:
        loss = call(eager_constant(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(tape.gradient(loss, weight).numpy(), np.full((3, 2), 2.0))


def test_inputs_that_are_not_eager_tensors_yet_are_converted(weight):
    call = GraphCall(concrete_of(lambda x: tf.matmul(x, weight)))
    np.testing.assert_array_equal(call(tf.Variable(np.ones((1, 3), np.float32))).numpy(), [[6.0, 9.0]])
