"""ContainerSplitter: parts of Dict/Tuple inputs by key path; exact sub-spaces out; errors name the key path."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api
from rlworkbench.components import ContainerSplitter, OneHot, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple
from rlworkbench.testing import ComponentTest, assert_nested_close


def observation_space(**ranks) -> Dict:
    return Dict(image=FloatBox(0.0, 1.0, shape=(2, 2)), act=IntBox(3),
                extra=Tuple(FloatBox(shape=(3,)), Dict(mask=BoolBox((2,)), id=IntBox(5, shape=(2,)))), **ranks)


@pytest.mark.parametrize("size, ranks", [(4, {"add_batch_rank": True}),
                                         ((2, 3), {"add_batch_rank": True, "add_time_rank": True})])
def test_split_by_key_paths(backend, size, ranks):
    space = observation_space(**ranks)
    test = ComponentTest(ContainerSplitter("image", "extra/1/id", "act", "extra/0"), input_spaces={"inputs": space},
                         backend=backend)
    x = space.sample(size, seed=1)
    test.test(("split", x), expected_outputs=(x["image"], x["extra"][1]["id"], x["act"], x["extra"][0]))
    assert test.graph.output_space("split") == \
        (space["image"], space["extra"][1]["id"], space["act"], space["extra"][0])


def test_split_one_key_returns_one_value(backend):
    space = observation_space(add_batch_rank=True)
    test = ComponentTest(ContainerSplitter("extra/1/mask"), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(3, seed=2)
    out = test.test(("split", x))
    assert isinstance(out, np.ndarray) and out.dtype == bool
    np.testing.assert_array_equal(out, x["extra"][1]["mask"])
    assert test.graph.output_space("split") == BoolBox((2,), add_batch_rank=True)


def test_split_a_whole_sub_container(backend):
    space = observation_space(add_batch_rank=True)
    test = ComponentTest(ContainerSplitter("extra", "image"), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(2, seed=3)
    extra, image = test.test(("split", x))
    assert_nested_close(extra, x["extra"])
    assert_nested_close(image, x["image"])
    assert test.graph.output_space("split")[0] == space["extra"]


def test_split_tuple_by_index(backend):
    space = Tuple(FloatBox(shape=(2,)), IntBox(4), add_batch_rank=True)
    test = ComponentTest(ContainerSplitter("1", "0"), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(5, seed=4)
    test.test(("split", x), expected_outputs=(x[1], x[0]))
    expected = (IntBox(4, add_batch_rank=True), FloatBox(shape=(2,), add_batch_rank=True))
    assert test.graph.output_space("split") == expected


def test_splitter_from_a_spec_takes_a_list_of_keys(backend):
    splitter = from_spec({"type": "container_splitter", "keys": ["extra/1/id", "act"], "name": "split"})
    space = observation_space(add_batch_rank=True)
    test = ComponentTest(splitter, input_spaces={"inputs": space}, backend=backend)
    x = space.sample(2, seed=6)
    test.test(("split", x), expected_outputs=(x["extra"][1]["id"], x["act"]))


class _SplitOneHot(Component):
    """A splitter feeding a OneHot: needs the split-off IntBox to keep its bounds."""

    def __init__(self) -> None:
        super().__init__(ContainerSplitter("act", "image"), OneHot(), name="split_one_hot")

    @api
    def run(self, inputs):
        act, image = self.sub_components["container_splitter"].split(inputs)
        return self.sub_components["one_hot"].preprocess(act), image


def test_split_then_one_hot(backend):
    space = observation_space(add_batch_rank=True)
    test = ComponentTest(_SplitOneHot(), input_spaces={"inputs": space}, backend=backend)
    x = space.sample(6, seed=5)
    test.test(("run", x), expected_outputs=(np.eye(3, dtype=np.float32)[x["act"]], x["image"]))
    assert test.graph.output_space("run")[0] == FloatBox(0.0, 1.0, shape=(3,), add_batch_rank=True)


@pytest.mark.parametrize("key, where", [("missing", "the top level"), ("extra/1/nope", "extra/1"),
                                        ("extra/7", "extra"), ("image/0", "image")])
def test_split_key_not_in_the_space_names_the_key_path(backend, key, where):
    with pytest.raises(SpaceError) as info:
        ComponentTest(ContainerSplitter("act", key), input_spaces={"inputs": observation_space(add_batch_rank=True)},
                      backend=backend)
    assert info.value.key_path == key and f"'{key}'" in str(info.value)
    assert info.value.component == "container_splitter" and where in str(info.value.expected)


def test_splitter_needs_keys(backend):
    with pytest.raises(ConfigError) as info:
        ContainerSplitter(name="empty_split")
    assert info.value.component == "empty_split"
