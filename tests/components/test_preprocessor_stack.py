"""PreprocessorStack: preprocessors from specs or objects, run in order; numbers against NumPy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlworkbench import nest
from rlworkbench.components import Clip, Flatten, OneHot, PreprocessorStack
from rlworkbench.core import CallEdge
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest

STACK_JSON = '[{"type": "clip", "low": -1.0, "high": 1.0}, {"type": "multiply", "factor": 3.0}, ' \
             '{"type": "divide", "divisor": 2.0}]'


@pytest.mark.parametrize("size, ranks", [(4, {"add_batch_rank": True}),
                                         ((2, 3), {"add_batch_rank": True, "add_time_rank": True})])
def test_stack_from_json_on_nested_inputs(backend, size, ranks):
    space = Dict(a=FloatBox(-4.0, 4.0, shape=(3,)), b=Tuple(FloatBox(shape=(2, 2)), FloatBox()), **ranks)
    test = ComponentTest(PreprocessorStack(json.loads(STACK_JSON)), input_spaces={"inputs": space}, backend=backend)
    assert list(test.component.sub_components) == ["clip_0", "multiply_1", "divide_2"]
    x = space.sample(size, seed=1)
    test.test(("preprocess", x), expected_outputs=nest.map_structure(lambda v: np.clip(v, -1.0, 1.0) * 1.5, x))
    out = test.graph.output_space("preprocess")
    assert [(leaf.shape, leaf._rank_key()) for leaf in out.flatten().values()] == \
        [(leaf.shape, leaf._rank_key()) for leaf in space.flatten().values()]
    # clip to [-1, 1], times 3, halved: every leaf in [-1.5, 1.5]
    assert out == space.map(lambda leaf: FloatBox(-1.5, 1.5, shape=leaf.shape).with_ranks_of(leaf))


def test_stack_runs_in_order(backend):
    space = IntBox(4, shape=(2,), add_batch_rank=True)
    test = ComponentTest(PreprocessorStack([OneHot(), Flatten(), {"type": "multiply", "factor": 2.0}]),
                         input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=2)
    test.test(("preprocess", x), expected_outputs=2.0 * np.eye(4, dtype=np.float32)[x].reshape(5, 8))
    assert test.graph.output_space("preprocess") == FloatBox(0.0, 2.0, shape=(8,), add_batch_rank=True)
    assert test.graph.edges == [CallEdge("preprocessor_stack", "preprocess", f"preprocessor_stack/{name}",
                                         "preprocess") for name in ("one_hot", "flatten", "multiply_2")]


def test_empty_stack_is_the_identity(backend):
    space = Dict(a=IntBox(10), b=FloatBox(shape=(2,)), add_batch_rank=True)
    test = ComponentTest(PreprocessorStack([]), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(3, seed=3)
    test.test(("preprocess", x), expected_outputs=x)
    assert test.graph.output_space("preprocess") == space


def test_stack_errors_name_the_inner_component(backend):
    space = FloatBox(shape=(2,), add_batch_rank=True)
    with pytest.raises(SpaceError) as info:
        ComponentTest(PreprocessorStack([Clip(0, 1), {"type": "one_hot"}]), input_spaces={"inputs": space},
                      backend=backend)
    assert info.value.component == "preprocessor_stack/one_hot_1"


@pytest.mark.parametrize("spec", [{"type": "sharpen"}, {"type": "clip", "low": 0.0}, {"factor": 2.0}],
                         ids=["unknown-type", "missing-arg", "no-type"])
def test_stack_with_bad_spec_is_a_config_error(backend, spec):
    with pytest.raises(ConfigError):
        PreprocessorStack([{"type": "clip", "low": 0.0, "high": 1.0}, spec])
