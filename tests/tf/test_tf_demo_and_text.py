"""The demo runs on TF (and agrees with torch for the same seed); strings pass through TF graph functions."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.demo import run
from rlworkbench.spaces import Dict, FloatBox, TextBox


def test_demo_runs_on_tf(capsys):
    result = run("CartPole-v1", "tf", seed=0, steps=5)
    assert result["graph"].backend_name == "tf"
    assert result["actions"].shape == (8,) and result["actions"].dtype == np.int64
    assert set(result["actions"].tolist()) <= {0, 1}
    assert result["q_values"].shape == (8, 2) and result["q_values"].dtype == np.float32
    assert 1 <= result["steps"] <= 5
    printed = capsys.readouterr().out
    assert "[tf]" in printed and "sub-graph" in printed


def test_demo_agrees_across_backends_for_one_seed(capsys):
    on_tf, on_torch = run("CartPole-v1", "tf", seed=3, steps=3), run("CartPole-v1", "torch", seed=3, steps=3)
    np.testing.assert_allclose(on_tf["q_values"], on_torch["q_values"], atol=1e-5)
    np.testing.assert_array_equal(on_tf["actions"], on_torch["actions"])


class Echo(Component):
    @api
    def echo(self, x):
        return self._echo(x)

    @graph_fn
    def _echo(self, x):
        return self.ops.identity(x)


@pytest.mark.parametrize("space, size", [(TextBox(add_batch_rank=True), 3),
                                         (TextBox((2,), add_batch_rank=True, add_time_rank=True), (2, 4))])
def test_strings_pass_through_a_graph_function(space, size):
    executor = build(Echo(), {"x": space}, backend="tf")
    value = space.sample(size, seed=1)
    value.flat[0] = "wörld ✓"  # non-ASCII survives the bytes round trip
    out = executor.execute("echo", value)
    assert out.dtype == object and out.shape == value.shape
    assert all(type(s) is str for s in out.flat)
    assert out.tolist() == value.tolist()
    assert executor.graph.output_space("echo") == space


def test_plain_lists_of_strings_are_accepted():
    executor = build(Echo(), {"x": TextBox(add_batch_rank=True)}, backend="tf")
    assert executor.execute("echo", ["a", "bc", ""]).tolist() == ["a", "bc", ""]


def test_strings_inside_containers():
    space = Dict(text=TextBox(add_batch_rank=True), value=FloatBox(shape=(2,), add_batch_rank=True))
    executor = build(Echo(), {"x": space}, backend="tf")
    value = space.sample(4, seed=2)
    out = executor.execute("echo", value)
    assert [type(s) for s in out["text"]] == [str] * 4 and out["text"].tolist() == value["text"].tolist()
    np.testing.assert_array_equal(out["value"], value["value"])


def test_strings_on_both_backends_agree():
    space = TextBox(add_batch_rank=True)
    value = space.sample(5, seed=4)
    outs = [build(Echo(), {"x": space}, backend=b).execute("echo", value) for b in ("torch", "tf")]
    assert outs[0].tolist() == outs[1].tolist() == value.tolist()


def test_a_single_unbatched_string():
    executor = build(Echo(), {"x": TextBox()}, backend="tf")
    out = executor.execute("echo", "héllo")
    assert type(out) is np.ndarray and out.shape == () and out.dtype == object
    assert type(out.item()) is str and out.item() == "héllo"
