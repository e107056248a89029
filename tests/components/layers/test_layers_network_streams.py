"""NeuralNetwork with input streams: nested Dict inputs split by key path, streams run, concatenated, trunk."""

from __future__ import annotations

import functools
import json

import layers_numpy as ref
import numpy as np
import pytest

from rlworkbench.components import Dense, Flatten, NeuralNetwork, from_spec
from rlworkbench.core import CallEdge
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

SPEC = """{
  "type": "neural_network",
  "streams": {
    "image": [{"type": "conv2d", "filters": 3, "kernel_size": 3, "strides": 2, "padding": "same", "activation": "relu"},
              {"type": "max_pool2d", "pool_size": 2, "strides": 1},
              {"type": "flatten"}],
    "sensors/vec": [{"type": "dense", "units": 5, "activation": "tanh"}],
    "sensors/flag": [{"type": "flatten"}]
  },
  "layers": [{"type": "dense", "units": 4, "activation": "relu"}, {"type": "dense", "units": 2}]
}"""
RANKS = {"batch": (3, {"add_batch_rank": True}),
         "batch_time": ((2, 3), {"add_batch_rank": True, "add_time_rank": True}),
         "time_major": ((2, 3), {"add_batch_rank": True, "add_time_rank": True, "time_major": True})}


def observations(**ranks) -> Dict:
    return Dict(image=FloatBox(0.0, 1.0, shape=(6, 5, 2)), sensors=Dict(vec=FloatBox(shape=(3,)), flag=IntBox(2)),
                extra=FloatBox(shape=(7,)), **ranks)


@functools.cache
def built(backend: str, ranks: str) -> ComponentTest:
    test = ComponentTest(from_spec(json.loads(SPEC)), {"inputs": observations(**RANKS[ranks][1])}, backend=backend)
    rng = np.random.default_rng(0)
    test.set_variable_values({name: rng.normal(size=value.shape).astype(np.float32)
                              for name, value in test.variable_values().items() if name.endswith("bias")})
    return test


def reference(x: dict, w: dict, extra_ranks: int) -> np.ndarray:
    leading = x["extra"].shape[:extra_ranks]
    image = ref.images(ref.conv2d, x["image"], extra_ranks, w["image/conv2d_0/kernel"], w["image/conv2d_0/bias"],
                       (2, 2), "same")
    image = ref.images(ref.max_pool2d, np.maximum(image, 0.0), extra_ranks, (2, 2), (1, 1), "valid")
    vec = np.tanh(x["sensors"]["vec"] @ w["sensors.vec/dense_0/kernel"] + w["sensors.vec/dense_0/bias"])
    flag = np.eye(2)[x["sensors"]["flag"]]
    merged = np.concatenate([image.reshape(leading + (-1,)), vec, flag], axis=-1)
    hidden = np.maximum(merged @ w["dense_0/kernel"] + w["dense_0/bias"], 0.0)
    return hidden @ w["dense_1/kernel"] + w["dense_1/bias"]


@pytest.mark.parametrize("ranks", list(RANKS))
def test_streams_over_nested_dict_match_numpy(backend, ranks):
    test = built(backend, ranks)
    size, flags = RANKS[ranks]
    space = observations(**flags)
    x = space.sample(size, seed=1)
    test.test(("apply", x), expected_outputs=reference(x, test.variable_values(), space["extra"].num_extra_ranks),
              decimals=4)
    assert test.graph.output_space("apply") == FloatBox(shape=(2,), **flags)


def test_streams_have_stable_names_and_route_through_splitter_and_concat(backend):
    test = built(backend, "batch")
    assert list(test.component.sub_components) == ["dense_0", "dense_1", "splitter", "image", "sensors.vec",
                                                   "sensors.flag", "concat"]
    shapes = {name: value.shape for name, value in test.variable_values().items()}
    assert shapes["image/conv2d_0/kernel"] == (3, 3, 2, 3) and shapes["sensors.vec/dense_0/kernel"] == (3, 5)
    assert shapes["dense_0/kernel"] == (2 * 2 * 3 + 5 + 2, 4)  # image 6x5 -> 3x3 (same, /2) -> 2x2 (pool)
    root = "neural_network"
    edges = set(test.graph.edges)
    assert {CallEdge(root, "apply", f"{root}/splitter", "split"), CallEdge(root, "apply", f"{root}/concat", "apply"),
            CallEdge(root, "apply", f"{root}/image", "apply"), CallEdge(f"{root}/image", "apply",
                                                                        f"{root}/image/flatten_2", "preprocess"),
            CallEdge(root, "apply", f"{root}/dense_1", "apply")} <= edges
    _, outputs = test.graph.api_spaces(test.component.sub_components["concat"], "apply")
    (merged,) = outputs.values()
    assert merged.shape == (19,) and merged.has_batch_rank and not merged.has_time_rank
    np.testing.assert_array_equal([merged.low[-2:], merged.high[-2:]], [[0, 0], [1, 1]])  # the one-hot flag's bounds


def test_one_stream_and_stream_components(backend):
    space = Dict(a=FloatBox(shape=(3,)), b=FloatBox(shape=(2,)), add_batch_rank=True)
    network = NeuralNetwork(streams={"b": NeuralNetwork([Dense(4, name="d")], name="b_net")})
    test = ComponentTest(network, {"inputs": space}, backend=backend)
    x = space.sample(5, seed=2)
    w = test.variable_values()
    assert list(w) == ["b_net/d/kernel", "b_net/d/bias"]
    test.test(("apply", x), expected_outputs=x["b"] @ w["b_net/d/kernel"] + w["b_net/d/bias"])


def test_flatten_inside_a_plain_layer_list(backend):
    space = FloatBox(shape=(4, 4, 1), add_batch_rank=True)
    network = NeuralNetwork([{"type": "max_pool2d", "pool_size": 2}, {"type": "flatten"},
                             {"type": "dense", "units": 3}])
    test = ComponentTest(network, {"inputs": space}, backend=backend)
    x = space.sample(2, seed=3)
    w = test.variable_values()
    pooled = ref.max_pool2d(x, (2, 2), (2, 2)).reshape(2, -1)
    test.test(("apply", x), expected_outputs=pooled @ w["dense_2/kernel"] + w["dense_2/bias"])


def test_stream_key_missing_from_the_inputs_names_the_key_path(backend):
    network = NeuralNetwork(streams={"image": [{"type": "flatten"}], "sensors/speed": []})
    with pytest.raises(SpaceError) as info:
        ComponentTest(network, {"inputs": observations(add_batch_rank=True)}, backend=backend)
    assert (info.value.component, info.value.key_path) == ("neural_network/splitter", "sensors/speed")


def test_stream_outputs_that_do_not_fit_together_name_the_concat_input(backend):
    network = NeuralNetwork(streams={"sensors/vec": [], "image": []})  # the image is not flattened
    with pytest.raises(SpaceError) as info:
        ComponentTest(network, {"inputs": observations(add_batch_rank=True)}, backend=backend)
    assert (info.value.component, info.value.argument) == ("neural_network/concat", "inputs[1]")


@pytest.mark.parametrize("streams, key_path", [([["dense"]], None), ({}, None),
                                               ({"image": {"type": "flatten"}}, "streams/image"),
                                               ({"image": "dense"}, "streams/image"),
                                               ({"image": Flatten()}, "streams/image")])
def test_bad_stream_specs_are_config_errors(backend, streams, key_path):
    with pytest.raises(ConfigError) as info:
        NeuralNetwork(streams=streams)
    assert info.value.component == "neural_network" and info.value.key_path == key_path
    assert info.value.expected is not None
