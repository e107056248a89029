"""Dense: ``activation(x @ kernel + bias)`` against NumPy, its spaces, variables, seeds and errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import api, graph_fn
from rlworkbench.components import Dense, Layer
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805

NP_ACTIVATIONS = {
    None: lambda x: x,
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "swish": lambda x: x / (1.0 + np.exp(-x)),
}

# (sample size, space ranks): batch only, batch + time, time-major
RANKS = [
    (4, {"add_batch_rank": True}),
    ((3, 5), {"add_batch_rank": True, "add_time_rank": True}),
    ((3, 5), {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]


def dense_reference(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray | None, activation: str | None = None):
    out = x.astype(np.float64) @ kernel.astype(np.float64)
    if bias is not None:
        out = out + bias
    return NP_ACTIVATIONS[activation](out)


@pytest.mark.parametrize("activation", list(NP_ACTIVATIONS))
def test_dense_matches_numpy_for_every_activation(backend, activation):
    space = FloatBox(shape=(3,), add_batch_rank=True)
    test = ComponentTest(Dense(5, activation=activation), input_spaces={"inputs": space}, backend=backend)
    test.set_variable_values({"bias": np.random.default_rng(1).normal(size=(5,)).astype(np.float32)})
    x = space.sample(6, seed=2)
    kernel, bias = test.variable_values("kernel", "bias")
    test.test(("apply", x), expected_outputs=dense_reference(x, kernel, bias, activation))


@pytest.mark.parametrize("size, ranks", RANKS)
def test_dense_over_batch_and_time_ranks(backend, size, ranks):
    space = FloatBox(shape=(3,), **ranks)
    test = ComponentTest(Dense(4, activation="relu", bias_initializer=0.1), input_spaces={"inputs": space},
                         backend=backend)
    x = space.sample(size, seed=3)
    kernel, bias = test.variable_values("kernel", "bias")
    np.testing.assert_allclose(bias, np.full(4, 0.1, np.float32))
    out = test.test(("apply", x), expected_outputs=dense_reference(x, kernel, bias, "relu"))
    assert out.shape == x.shape[:-1] + (4,) and out.dtype == np.float32
    assert test.graph.output_space("apply") == FloatBox(shape=(4,), **ranks)


def test_dense_on_rank_two_core_shape_works_on_last_axis(backend):
    space = FloatBox(shape=(2, 3), add_batch_rank=True)
    test = ComponentTest(Dense(4, activation="tanh"), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=4)
    kernel, bias = test.variable_values("kernel", "bias")
    test.test(("apply", x), expected_outputs=dense_reference(x, kernel, bias, "tanh"))
    assert test.graph.output_space("apply") == FloatBox(shape=(2, 4), add_batch_rank=True)


def test_dense_without_ranks(backend):
    space = FloatBox(shape=(3,))
    test = ComponentTest(Dense(2), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(seed=5)
    kernel, bias = test.variable_values("kernel", "bias")
    out = test.test(("apply", x), expected_outputs=dense_reference(x, kernel, bias))
    assert out.shape == (2,)
    assert test.graph.output_space("apply") == FloatBox(shape=(2,))


def test_dense_variables_names_shapes_and_initializers(backend):
    test = ComponentTest(Dense(6, kernel_initializer="glorot_uniform"),
                         input_spaces={"inputs": FloatBox(shape=(4,), add_batch_rank=True)}, backend=backend)
    weights = test.variable_values()
    assert sorted(weights) == ["bias", "kernel"]
    assert weights["kernel"].shape == (4, 6) and weights["kernel"].dtype == np.float32
    assert weights["bias"].shape == (6,) and not weights["bias"].any()  # zeros by default
    limit = np.sqrt(6.0 / (4 + 6))
    assert np.all(np.abs(weights["kernel"]) <= limit) and np.ptp(weights["kernel"]) > 0


def test_dense_without_bias(backend):
    space = FloatBox(shape=(3,), add_batch_rank=True)
    test = ComponentTest(Dense(2, use_bias=False, kernel_initializer="ones"), input_spaces={"inputs": space},
                         backend=backend)
    assert list(test.variable_values()) == ["kernel"]
    x = space.sample(4, seed=6)
    test.test(("apply", x), expected_outputs=np.repeat(x.sum(axis=-1, keepdims=True), 2, axis=-1))


def test_dense_weights_are_reproducible_from_the_seed(backend):
    space = {"inputs": FloatBox(shape=(3,), add_batch_rank=True)}
    first = ComponentTest(Dense(4), input_spaces=space, backend=backend, seed=7).variable_values("kernel")
    again = ComponentTest(Dense(4), input_spaces=space, backend=backend, seed=7).variable_values("kernel")
    other = ComponentTest(Dense(4), input_spaces=space, backend=backend, seed=8).variable_values("kernel")
    renamed = ComponentTest(Dense(4, name="other"), input_spaces=space, backend=backend, seed=7)
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)
    assert not np.allclose(first, renamed.variable_values("kernel"))  # the scope is part of the seed


def test_dense_set_variable_values_changes_the_outputs(backend):
    space = FloatBox(shape=(2,), add_batch_rank=True)
    test = ComponentTest(Dense(2), input_spaces={"inputs": space}, backend=backend)
    kernel, bias = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.array([0.5, -0.5], np.float32)
    test.set_variable_values({"kernel": kernel, "bias": bias})
    test.test(("apply", np.array([[1.0, 1.0], [0.0, 2.0]], np.float32)),
              expected_outputs=np.array([[4.5, 5.5], [6.5, 7.5]], np.float32))


@pytest.mark.parametrize("space", [IntBox(3, shape=(3,), add_batch_rank=True), BoolBox((3,), add_batch_rank=True),
                                   FloatBox(add_batch_rank=True)], ids=["int", "bool", "rank0"])
def test_dense_rejects_non_float_or_scalar_inputs(backend, space):
    with pytest.raises(SpaceError) as info:
        ComponentTest(Dense(4, name="my_dense"), input_spaces={"inputs": space}, backend=backend)
    assert info.value.component == "my_dense" and "my_dense" in str(info.value)
    assert info.value.argument == "inputs"


def test_dense_rejects_values_of_the_wrong_shape(backend):
    test = ComponentTest(Dense(3), input_spaces={"inputs": FloatBox(shape=(2,), add_batch_rank=True)},
                         backend=backend)
    with pytest.raises(SpaceError) as info:
        test.test(("apply", np.zeros((4, 3), np.float32)))
    assert (info.value.component, info.value.api_method, info.value.argument) == ("dense", "apply", "inputs")


def test_a_layer_is_its_apply_graph_function_and_the_old_hook_is_refused():
    assert Dense.api_methods["apply"].graph_fn is Dense.graph_fns["apply"]

    class Doubled(Layer):
        @api
        @graph_fn
        def apply(self, inputs):
            return inputs * 2.0

    test = ComponentTest(Doubled(), {"inputs": FloatBox(shape=(2,), add_batch_rank=True)})
    test.test(("apply", np.ones((3, 2), np.float32)), expected_outputs=np.full((3, 2), 2.0))
    with pytest.raises(TypeError, match="overrides 'apply'"):
        class Old(Layer):  # the former style: a graph function _apply under Layer.apply
            @graph_fn
            def _apply(self, inputs):
                return inputs
