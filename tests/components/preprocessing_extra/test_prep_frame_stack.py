"""FrameStack: the last n frames in variables, concatenated or on a new axis; reset; nested leaves."""

from __future__ import annotations

import numpy as np
import pytest
from prep_numpy import FrameStackReference

from rlworkbench.components import FrameStack
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest


@pytest.mark.parametrize("add_rank, shape, out_shape", [(False, (4, 4, 1), (4, 4, 3)), (True, (4, 4), (4, 4, 3)),
                                                        (False, (2,), (6,))])
def test_stack_shift_and_reset_against_numpy(backend, add_rank, shape, out_shape):
    space = IntBox(0, 256, shape=shape, dtype="uint8", add_batch_rank=True)
    test = ComponentTest(FrameStack(3, add_rank=add_rank, batch_size=2), {"inputs": space}, backend=backend)
    reference = FrameStackReference(3, add_rank)
    for step in range(6):
        if step == 4:
            assert test.test("reset") is None
            reference.reset()
        x = space.sample(2, seed=step)
        out = test.test(("preprocess", x), expected_outputs=reference(x))
        assert out.dtype == np.uint8
    assert test.graph.output_space("preprocess") == IntBox(0, 256, shape=out_shape, dtype="uint8",
                                                           add_batch_rank=True)


def test_single_frames_and_dict_leaves_keep_their_own_buffers(backend):
    low = np.array([-1.0, 0.0])
    space = Dict(obs=FloatBox(low, low + 2.0), done=BoolBox(()))
    test = ComponentTest(FrameStack(2, add_rank=True), {"inputs": space}, backend=backend)
    references = {key: FrameStackReference(2, True) for key in ("obs", "done")}
    for step in range(3):
        x = space.sample(seed=step)
        test.test(("preprocess", x), expected_outputs={k: references[k](v) for k, v in x.items()})
    assert sorted(test.variable_values()) == ["frames/done", "frames/obs", "fresh/done", "fresh/obs"]
    assert test.graph.output_space("preprocess") == Dict(obs=FloatBox(np.stack([low] * 2, -1),
                                                                      np.stack([low + 2.0] * 2, -1)),
                                                         done=BoolBox((2,)))


def test_errors(backend):
    with pytest.raises(ConfigError) as info:
        FrameStack(0)
    assert info.value.key_path == "num_frames"
    for space, key in ((FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True), None),
                       (Dict(ok=FloatBox(shape=(2,)), scalar=FloatBox()), "scalar")):
        with pytest.raises(SpaceError) as info:
            ComponentTest(FrameStack(4), {"inputs": space}, backend=backend)
        assert info.value.key_path == key and info.value.argument == "inputs"
