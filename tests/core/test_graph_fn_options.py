"""Graph function options: declared output spaces, flatten / split / pass_key on containers, *args."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.spaces import Dict, FloatBox, IntBox, Tuple

OBS = Dict(image=FloatBox(shape=(2, 2)), vec=FloatBox(shape=(3,)), add_batch_rank=True)
PAIR = Tuple(FloatBox(shape=(2,)), FloatBox(shape=(3,)), add_batch_rank=True)


class Containers(Component):
    """Each API method uses one container option; ``seen`` records what the graph function received."""

    def __init__(self):
        super().__init__(name="containers")
        self.seen: dict[str, list] = {"flat": [], "split": [], "keys": []}

    @api
    def flat(self, x):
        return self._flat(x)

    @api
    def split(self, x, y):
        return self._split(x, y)

    @api
    def keyed(self, x):
        return self._keyed(x)

    @api
    def flat_two(self, x):
        return self._flat_two(x)

    @graph_fn(flatten=True)
    def _flat(self, x):
        self.seen["flat"].append(sorted(x))
        return {key: value * 2 for key, value in x.items()}

    @graph_fn(split=True)
    def _split(self, x, y):
        self.seen["split"].append(tuple(x.shape[1:]))
        return x + y

    @graph_fn(pass_key=True)
    def _keyed(self, key, x):
        self.seen["keys"].append(key)
        return x * (10.0 if key.endswith("image") or key == "0" else 1.0)

    @graph_fn(flatten=True, returns=2)
    def _flat_two(self, x):
        return {k: v + 1 for k, v in x.items()}, self.ops.reduce_sum(x["vec"], axis=-1)


def build_containers(space, apis=("flat", "split", "keyed")):
    component = Containers()
    apis = list(apis) + (["flat_two"] if space is OBS else [])
    spaces = {"x": space, "y": space} if "split" in apis else {"x": space}
    return component, build(component, spaces, api_methods=apis)


@pytest.mark.parametrize("space", [OBS, PAIR], ids=["dict", "tuple"])
def test_flatten_gives_flat_dicts_and_renests_outputs(space):
    component, executor = build_containers(space)
    assert component.seen["flat"][0] == sorted(space.flatten())
    assert executor.graph.output_space("flat") == space
    value = space.sample(4, seed=1)
    out = executor.execute("flat", value)
    for key, leaf in space.flatten(value).items():
        np.testing.assert_allclose(space.flatten(out)[key], leaf * 2, rtol=1e-6)
    assert type(out) is type(value)


def test_flatten_with_several_returns_renests_each():
    _, executor = build_containers(OBS)
    renested, total = executor.graph.output_space("flat_two")
    assert renested == OBS and total == FloatBox(shape=(), add_batch_rank=True)
    value = OBS.sample(2, seed=0)
    out, summed = executor.execute("flat_two", value)
    np.testing.assert_allclose(out["image"], value["image"] + 1, rtol=1e-6)
    np.testing.assert_allclose(summed, value["vec"].sum(-1), rtol=1e-5)


@pytest.mark.parametrize("space", [OBS, PAIR], ids=["dict", "tuple"])
def test_split_calls_once_per_leaf_of_matching_containers(space):
    component, executor = build_containers(space)
    assert executor.graph.output_space("split") == space
    x, y = space.sample(3, seed=1), space.sample(3, seed=2)
    component.seen["split"].clear()
    out = executor.execute("split", x, y)
    assert sorted(component.seen["split"]) == sorted(s.shape for s in space.flatten().values())
    flat_x, flat_y, flat_out = space.flatten(x), space.flatten(y), space.flatten(out)
    for key in flat_x:
        np.testing.assert_allclose(flat_out[key], flat_x[key] + flat_y[key], rtol=1e-6)


@pytest.mark.parametrize(("space", "keys"), [(OBS, ["image", "vec"]), (PAIR, ["0", "1"])], ids=["dict", "tuple"])
def test_pass_key_hands_each_leaf_its_key_path(space, keys):
    component, executor = build_containers(space)
    value = space.sample(2, seed=3)
    component.seen["keys"].clear()
    out = space.flatten(executor.execute("keyed", value))
    assert component.seen["keys"] == keys
    flat = space.flatten(value)
    np.testing.assert_allclose(out[keys[0]], flat[keys[0]] * 10, rtol=1e-6)
    np.testing.assert_allclose(out[keys[1]], flat[keys[1]], rtol=1e-6)


def test_pass_key_on_a_plain_box_passes_an_empty_key():
    component, executor = build_containers(FloatBox(shape=(2,), add_batch_rank=True), apis=["keyed"])
    component.seen["keys"].clear()
    np.testing.assert_allclose(executor.execute("keyed", np.ones((1, 2), np.float32)), [[1.0, 1.0]])
    assert component.seen["keys"] == [""]


class Batcher(Component):
    """``zeros(n)`` makes a batch whose size is an input *value*: a probe cannot tell its space."""

    def __init__(self):
        super().__init__(name="batcher")
        self.calls = 0

    @api
    def zeros(self, n):
        return self._zeros(n)

    @graph_fn(output_spaces=lambda self, n: FloatBox(shape=(3,), add_batch_rank=True))
    def _zeros(self, n):
        self.calls += 1
        return n.new_zeros((int(n), 3)).float()


def test_declared_output_spaces_are_used_without_running_the_function():
    batcher = Batcher()
    executor = build(batcher, {"n": IntBox(1, 10)})
    assert batcher.calls == 0
    assert executor.graph.output_space("zeros") == FloatBox(shape=(3,), add_batch_rank=True)
    assert executor.execute("zeros", 4).shape == (4, 3)
    assert batcher.calls == 1


class Merge(Component):
    @api
    def merge(self, *inputs):
        return self._concat(*inputs)

    @graph_fn
    def _concat(self, *inputs):
        return self.ops.concat(inputs, axis=-1)


def test_var_args_api_methods_take_a_list_of_spaces():
    merge = Merge(name="merge")
    spaces = [FloatBox(shape=(2,), add_batch_rank=True), FloatBox(shape=(3,), add_batch_rank=True)]
    executor = build(merge, {"inputs": spaces})
    assert merge.input_spaces == {"inputs[0]": spaces[0], "inputs[1]": spaces[1]}
    assert executor.graph.output_space("merge") == FloatBox(shape=(5,), add_batch_rank=True)
    out = executor.execute("merge", np.ones((4, 2), np.float32), np.zeros((4, 3), np.float32))
    np.testing.assert_array_equal(out, np.concatenate([np.ones((4, 2)), np.zeros((4, 3))], -1))
