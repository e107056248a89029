"""The registry: components from JSON-style specs, helpful errors, stable names; every type builds and runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlworkbench.components import (
    Clip,
    Dense,
    NeuralNetwork,
    from_spec,
    from_specs,
    known_types,
    register,
    registry,
)
from rlworkbench.core import Component
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

BATCH_FLOATS = FloatBox(-2.0, 2.0, shape=(4,), add_batch_rank=True)

# type -> (spec, input spaces, API method): one buildable example per registered type
EXAMPLES = {
    "dense": ({"type": "dense", "units": 3, "activation": "relu"}, {"inputs": BATCH_FLOATS}, "apply"),
    "neural_network": ({"type": "neural_network", "layers": [{"type": "dense", "units": 3}]},
                       {"inputs": BATCH_FLOATS}, "apply"),
    "clip": ({"type": "clip", "low": -1.0, "high": 1.0}, {"inputs": BATCH_FLOATS}, "preprocess"),
    "multiply": ({"type": "multiply", "factor": 2.0}, {"inputs": BATCH_FLOATS}, "preprocess"),
    "divide": ({"type": "divide", "divisor": 2.0}, {"inputs": BATCH_FLOATS}, "preprocess"),
    "reshape": ({"type": "reshape", "shape": [2, 2]}, {"inputs": BATCH_FLOATS}, "preprocess"),
    "flatten": ({"type": "flatten"}, {"inputs": IntBox(3, shape=(2,), add_batch_rank=True)}, "preprocess"),
    "one_hot": ({"type": "one_hot"}, {"inputs": IntBox(3, shape=(2,), add_batch_rank=True)}, "preprocess"),
    "preprocessor_stack": ({"type": "preprocessor_stack", "preprocessors": [{"type": "clip", "low": 0, "high": 1}]},
                           {"inputs": BATCH_FLOATS}, "preprocess"),
    "container_splitter": ({"type": "container_splitter", "keys": ["b/0", "a"]},
                           {"inputs": Dict(a=FloatBox(shape=(4,)), b=Tuple(IntBox(2), FloatBox()),
                                           add_batch_rank=True)}, "split"),
    "container_merger": ({"type": "container_merger", "keys": ["x", "y"]},
                         {"inputs": [BATCH_FLOATS, BATCH_FLOATS]}, "merge"),
    "greedy_action_selector": ({"type": "greedy_action_selector"}, {"values": BATCH_FLOATS}, "select"),
}


def test_every_registered_type_has_an_example(backend):
    assert set(EXAMPLES) <= set(known_types())
    assert known_types() == sorted(known_types())


@pytest.mark.parametrize("type_name", sorted(EXAMPLES))
def test_every_type_builds_from_a_json_spec_and_runs(backend, type_name):
    spec, spaces, api_name = EXAMPLES[type_name]
    component = from_spec(json.loads(json.dumps(spec)))
    assert type(component).type_name == type_name
    test = ComponentTest(component, input_spaces=spaces, backend=backend)
    args = [space.sample(3, seed=1) for space in spaces["inputs"]] if type_name == "container_merger" else \
        next(iter(spaces.values())).sample(3, seed=1)
    out = test.test((api_name, args))
    out_space = test.graph.output_space(api_name)
    if isinstance(out_space, tuple):  # several return values, one space each
        assert len(out) == len(out_space) and all(space.contains(o) for space, o in zip(out_space, out))
    else:
        assert out_space.contains(out)


def test_unknown_type_lists_the_known_types(backend):
    with pytest.raises(ConfigError) as info:
        from_spec({"type": "no_such_layer", "units": 4})
    error = info.value
    assert error.got == "no_such_layer" and error.expected == known_types()
    assert "'no_such_layer'" in str(error) and all(name in str(error) for name in known_types())


@pytest.mark.parametrize("spec, mentions", [
    ({"type": "dense", "unitz": 3}, "unitz"),
    ({"type": "dense", "units": 3, "bogus": 1}, "bogus"),
    ({"type": "clip", "low": 0.0}, "high"),
], ids=["misspelt", "unexpected", "missing"])
def test_bad_arguments_are_config_errors(backend, spec, mentions):
    with pytest.raises(ConfigError) as info:
        from_spec(spec)
    assert f"'{spec['type']}'" in str(info.value) and mentions in str(info.value)


@pytest.mark.parametrize("spec", [{"units": 3}, "dense", ["dense", 3]], ids=["no-type", "string", "list"])
def test_specs_must_be_dicts_with_a_type(backend, spec):
    with pytest.raises(ConfigError, match="'type'"):
        from_spec(spec)


def test_bad_name_in_a_spec_is_a_config_error(backend):
    with pytest.raises(ConfigError):
        from_spec({"type": "dense", "units": 2, "name": "has space"})


def test_from_spec_passes_components_through_and_fills_defaults(backend):
    dense = Dense(3)
    assert from_spec(dense) is dense
    assert from_spec({"type": "dense"}, units=5).units == 5
    assert from_spec({"type": "dense", "units": 2}, units=5).units == 2  # the spec wins over defaults


def test_from_specs_names_unnamed_specs_by_type_and_index(backend):
    components = from_specs([{"type": "clip", "low": 0, "high": 1}, Clip(0, 2, name="mine"),
                             {"type": "multiply", "factor": 2, "name": "double"}, {"type": "multiply", "factor": 3}])
    assert [c.name for c in components] == ["clip_0", "mine", "double", "multiply_3"]
    again = from_specs([{"type": "clip", "low": 0, "high": 1}])
    assert again[0].name == "clip_0"  # stable: names depend on the list, not on what was built before


def test_register_refuses_a_second_class_for_a_name(backend, monkeypatch):
    monkeypatch.setattr(registry, "_TYPES", dict(registry._TYPES))

    @register("test_identity")
    class Identity(Component):
        pass

    assert register("test_identity")(Identity) is Identity  # the same class again is fine
    assert "test_identity" in known_types() and isinstance(from_spec({"type": "test_identity"}), Identity)
    with pytest.raises(ConfigError):
        @register("test_identity")
        class Other(Component):
            pass

    with pytest.raises(ConfigError):
        register("dense")(Identity)


def test_spec_built_network_equals_object_built_network(backend):
    space = {"inputs": FloatBox(shape=(4,), add_batch_rank=True)}
    from_json = ComponentTest(from_spec(json.loads('{"type": "neural_network", "layers": [{"type": "dense", '
                                                   '"units": 3, "activation": "tanh"}]}')),
                              input_spaces=space, backend=backend, seed=5)
    from_objects = ComponentTest(NeuralNetwork([Dense(3, activation="tanh", name="dense_0")]),
                                 input_spaces=space, backend=backend, seed=5)
    weights = from_json.variable_values()
    assert sorted(weights) == ["dense_0/bias", "dense_0/kernel"]
    for name, value in weights.items():
        np.testing.assert_array_equal(value, from_objects.variable_values(name))
    x = space["inputs"].sample(4, seed=6)
    from_objects.test(("apply", x), expected_outputs=from_json.test(("apply", x)))
