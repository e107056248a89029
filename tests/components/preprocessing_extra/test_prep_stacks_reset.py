"""Stacks with state: PreprocessorStack.reset() resets its stateful members; DictPreprocessorStack per key."""

from __future__ import annotations

import numpy as np
import pytest
from prep_numpy import GREY_WEIGHTS, FrameStackReference

from rlworkbench.components import DictPreprocessorStack, FrameStack, MeanStdNormalize, PreprocessorStack
from rlworkbench.core import CallEdge
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

IMAGE = IntBox(0, 256, shape=(4, 4, 3), dtype="uint8")


@pytest.mark.parametrize("keep_statistics", [False, True])
def test_stack_reset_resets_frame_stacks_and_normalizers(backend, keep_statistics):
    space = FloatBox(shape=(2,), add_batch_rank=True)
    stack = PreprocessorStack([{"type": "multiply", "factor": 2.0},
                               MeanStdNormalize(reset_statistics=not keep_statistics, name="norm"),
                               FrameStack(2, batch_size=3, name="frames")])
    test = ComponentTest(stack, {"inputs": space}, backend=backend)
    assert [e.callee_path for e in test.graph.edges if e.caller_api == "reset"] == \
        ["preprocessor_stack/norm", "preprocessor_stack/frames"]  # stateless members have no reset
    for step in range(2):
        test.test(("preprocess", space.sample(3, seed=step)))
    test.test("reset")
    assert (test.variable_values("norm/count") == 6) == keep_statistics
    assert test.variable_values("frames/fresh")
    x = space.sample(3, seed=7)
    out = test.test(("preprocess", x))
    np.testing.assert_array_equal(out[:, :2], out[:, 2:])  # the first frame after a reset fills every slot


def test_dict_stack_per_key_with_pass_through(backend):
    space = Dict(image=IMAGE, vector=FloatBox(-1.0, 1.0, shape=(3,)), mask=IntBox(2, shape=(2,)), add_batch_rank=True)
    stack = DictPreprocessorStack({
        "image": [{"type": "grayscale"}, {"type": "normalize"}, {"type": "frame_stack", "num_frames": 2,
                                                                   "add_rank": True, "batch_size": 2}],
        "vector": [{"type": "multiply", "factor": 3.0}],
    })
    test = ComponentTest(stack, {"inputs": space}, backend=backend)
    assert list(test.component.sub_components) == ["image", "vector"]
    frames = FrameStackReference(2, add_rank=True)
    for step in range(4):
        if step == 2:
            test.test("reset")
            frames.reset()
        x = space.sample(2, seed=step)
        grey = (x["image"].astype(np.float64) * GREY_WEIGHTS).sum(-1) / 255.0
        out = test.test(("preprocess", x), expected_outputs={"image": frames(grey), "vector": 3.0 * x["vector"],
                                                               "mask": x["mask"]}, decimals=5)
        assert list(out) == ["image", "vector", "mask"]
    assert test.graph.output_space("preprocess") == Dict(image=FloatBox(0.0, 1.0, shape=(4, 4, 2)),
                                                         vector=FloatBox(-3.0, 3.0, shape=(3,)),
                                                         mask=IntBox(2, shape=(2,)), add_batch_rank=True)
    assert CallEdge("dict_preprocessor_stack", "reset", "dict_preprocessor_stack/image", "reset") in test.graph.edges


def test_dict_stack_time_ranks_and_a_component_per_key(backend):
    space = Dict(a=FloatBox(shape=(2,)), b=FloatBox(shape=(2,)), add_batch_rank=True, add_time_rank=True)
    test = ComponentTest(DictPreprocessorStack({"b": {"type": "clip", "low": 0.0, "high": 0.5}}),
                         {"inputs": space}, backend=backend)
    x = space.sample((2, 3), seed=1)
    test.test(("preprocess", x), expected_outputs={"a": x["a"], "b": np.clip(x["b"], 0.0, 0.5)})
    assert list(test.component.sub_components) == ["b"]


def test_dict_stack_errors(backend):
    with pytest.raises(ConfigError) as info:
        DictPreprocessorStack({})
    assert info.value.key_path == "preprocessors"
    with pytest.raises(ConfigError) as info:
        DictPreprocessorStack({"a": {"type": "dense", "units": 2}})
    assert info.value.key_path == "a"
    with pytest.raises(SpaceError) as info:
        ComponentTest(DictPreprocessorStack({"c": []}), {"inputs": Dict(a=FloatBox(), add_batch_rank=True)},
                      backend=backend)
    assert info.value.key_path == "c" and info.value.component == "dict_preprocessor_stack"
    with pytest.raises(SpaceError) as info:
        ComponentTest(DictPreprocessorStack({"a": []}), {"inputs": FloatBox(add_batch_rank=True)}, backend=backend)
    assert info.value.argument == "inputs" and info.value.expected == "Dict"
