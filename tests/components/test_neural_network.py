"""NeuralNetwork: a chain of Dense layers against NumPy, stable scoped names from JSON specs, seeds, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlworkbench.components import Dense, NeuralNetwork, known_types
from rlworkbench.core import CallEdge
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

LAYERS_JSON = """[
    {"type": "dense", "units": 8, "activation": "relu"},
    {"type": "dense", "units": 6, "activation": "tanh"},
    {"type": "dense", "units": 2}
]"""

NP_ACTIVATIONS = {None: lambda x: x, "relu": lambda x: np.maximum(x, 0.0), "tanh": np.tanh}


def network_reference(x: np.ndarray, weights: dict[str, np.ndarray], layers: list[tuple[str, str | None]]):
    out = x.astype(np.float64)
    for name, activation in layers:
        out = NP_ACTIVATIONS[activation](out @ weights[f"{name}/kernel"] + weights[f"{name}/bias"])
    return out


def random_biases(test: ComponentTest, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    test.set_variable_values({name: rng.normal(size=value.shape).astype(np.float32)
                              for name, value in test.variable_values().items() if name.endswith("bias")})


@pytest.mark.parametrize("size, ranks", [(5, {"add_batch_rank": True}),
                                         ((2, 3), {"add_batch_rank": True, "add_time_rank": True})])
def test_network_from_json_matches_chained_numpy(backend, size, ranks):
    space = FloatBox(shape=(4,), **ranks)
    test = ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)), input_spaces={"inputs": space}, backend=backend)
    random_biases(test)
    x = space.sample(size, seed=1)
    expected = network_reference(x, test.variable_values(),
                                 [("dense_0", "relu"), ("dense_1", "tanh"), ("dense_2", None)])
    out = test.test(("apply", x), expected_outputs=expected)
    assert out.shape == x.shape[:-1] + (2,)
    assert test.graph.output_space("apply") == FloatBox(shape=(2,), **ranks)


def test_network_from_json_has_stable_scoped_names(backend):
    test = ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)),
                         input_spaces={"inputs": FloatBox(shape=(4,), add_batch_rank=True)}, backend=backend)
    assert list(test.component.sub_components) == ["dense_0", "dense_1", "dense_2"]
    shapes = {name: value.shape for name, value in test.variable_values().items()}
    assert shapes == {"dense_0/kernel": (4, 8), "dense_0/bias": (8,), "dense_1/kernel": (8, 6),
                      "dense_1/bias": (6,), "dense_2/kernel": (6, 2), "dense_2/bias": (2,)}
    assert [c.path for c in test.component.walk()] == \
        ["neural_network", "neural_network/dense_0", "neural_network/dense_1", "neural_network/dense_2"]


def test_network_calls_its_layers_in_order(backend):
    test = ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)),
                         input_spaces={"inputs": FloatBox(shape=(4,), add_batch_rank=True)}, backend=backend)
    assert test.graph.edges == [CallEdge("neural_network", "apply", f"neural_network/dense_{i}", "apply")
                                for i in range(3)]
    inputs, outputs = test.graph.api_spaces(test.component.sub_components["dense_1"], "apply")
    assert inputs == {"inputs": FloatBox(shape=(8,), add_batch_rank=True)}
    assert list(outputs.values()) == [FloatBox(shape=(6,), add_batch_rank=True)]


def test_weights_move_between_networks_built_from_the_same_specs(backend):
    space = FloatBox(shape=(4,), add_batch_rank=True)
    source = ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)), input_spaces={"inputs": space},
                           backend=backend, seed=1)
    target = ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)), input_spaces={"inputs": space},
                           backend=backend, seed=2)
    x = space.sample(3, seed=3)
    assert not np.allclose(source.test(("apply", x)), target.test(("apply", x)))
    target.component.set_weights(source.variable_values())  # strict: every name must match
    target.test(("apply", x), expected_outputs=source.test(("apply", x)))


def test_network_of_layer_objects_and_named_specs(backend):
    layers = [Dense(5, activation="relu", name="hidden"), {"type": "dense", "units": 3, "name": "out"},
              {"type": "dense", "units": 2}]
    space = FloatBox(shape=(4,), add_batch_rank=True)
    test = ComponentTest(NeuralNetwork(layers, name="q_net"), input_spaces={"inputs": space}, backend=backend)
    assert list(test.component.sub_components) == ["hidden", "out", "dense_2"]
    x = space.sample(4, seed=4)
    test.test(("apply", x), expected_outputs=network_reference(
        x, test.variable_values(), [("hidden", "relu"), ("out", None), ("dense_2", None)]))


def test_network_weights_are_reproducible_from_the_seed(backend):
    space = {"inputs": FloatBox(shape=(4,), add_batch_rank=True)}
    specs = [{"type": "dense", "units": 4}, {"type": "dense", "units": 4}]
    first = ComponentTest(NeuralNetwork(specs), input_spaces=space, backend=backend, seed=3).variable_values()
    again = ComponentTest(NeuralNetwork(specs), input_spaces=space, backend=backend, seed=3).variable_values()
    other = ComponentTest(NeuralNetwork(specs), input_spaces=space, backend=backend, seed=4).variable_values()
    assert sorted(first) == sorted(again) == sorted(other)
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert not np.allclose(first["dense_0/kernel"], other["dense_0/kernel"])
    assert not np.allclose(first["dense_0/kernel"], first["dense_1/kernel"])  # same shape, different scope


def test_network_with_unknown_layer_type_lists_known_types(backend):
    with pytest.raises(ConfigError) as info:
        NeuralNetwork([{"type": "dense", "units": 4}, {"type": "convolution", "filters": 3}])
    assert "convolution" in str(info.value) and info.value.expected == known_types()
    assert "dense" in str(info.value)


def test_network_with_duplicate_layer_names_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        NeuralNetwork([Dense(3), Dense(4)])
    assert info.value.component == "neural_network" and info.value.got == "dense"


def test_network_on_int_inputs_names_the_failing_layer(backend):
    with pytest.raises(SpaceError) as info:
        ComponentTest(NeuralNetwork(json.loads(LAYERS_JSON)),
                      input_spaces={"inputs": IntBox(3, shape=(4,), add_batch_rank=True)}, backend=backend)
    assert info.value.component == "neural_network/dense_0"
    assert "neural_network/dense_0" in str(info.value)


@pytest.mark.parametrize("space", [FloatBox(shape=(0,), add_batch_rank=True),
                                   FloatBox(shape=(0, 4), add_batch_rank=True)])
def test_dense_over_a_zero_size_input_names_the_layer_and_the_space(backend, space):
    with pytest.raises(SpaceError) as info:  # it would build and return its bias, whatever the inputs
        ComponentTest(NeuralNetwork([{"type": "dense", "units": 4}]), input_spaces={"inputs": space}, backend=backend)
    error = info.value
    assert (error.component, error.argument, error.got) == ("neural_network/dense_0", "inputs", space)
    assert "zero-size" in str(error)


@pytest.mark.parametrize("units", [0, -1, 2.5, True, "4"])
def test_dense_units_must_be_a_positive_int(units):
    with pytest.raises(ConfigError) as info:
        Dense(units)
    assert (info.value.component, info.value.argument) == ("dense", "units")
