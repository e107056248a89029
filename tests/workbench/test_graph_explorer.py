"""GraphExplorer driven from code: tree and details, live redraws, device editing and rebuilds, errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from widget_components import STATES, Broken, Swappable

from rlworkbench import ConfigError, build
from rlworkbench.components import NeuralNetwork
from rlworkbench.demo import QActor
from rlworkbench.visualize.palette import STUCK_COLOR
from rlworkbench.workbench.explorer_render import SELECT_COLOR
from rlworkbench.workbench.graph_explorer import GraphExplorer


@pytest.fixture
def actor():
    actor = QActor(2, hidden=(8,), name="actor")
    build(actor, {"states": STATES}, backend="torch", seed=0)
    return actor


@pytest.fixture
def swappable():
    root = Swappable(name="swappable")
    build(root, {"states": STATES}, backend="torch", seed=0)
    return root


def clusters(svg: str) -> int:
    return svg.count('class="cluster"')


def test_the_tree_lists_every_component_depth_first(actor):
    explorer = GraphExplorer(actor)
    assert [path for _, path in explorer.tree.options] == [
        "actor", "actor/preprocessor", "actor/preprocessor/clip_0", "actor/preprocessor/divide_1", "actor/network",
        "actor/network/dense_0", "actor/network/dense_1", "actor/selector"]
    labels = [label for label, _ in explorer.tree.options]
    assert labels[5].startswith("\u00a0" * 6) and "dense_0 <Dense>" in labels[5]
    assert explorer.svg.startswith("<svg") and clusters(explorer.svg) >= 8
    assert explorer.status == "actor: built on torch"


def test_selecting_shows_spaces_variables_and_counts(actor):
    explorer = GraphExplorer(actor)
    explorer.tree.value = "actor/network/dense_0"  # as a click in the tree does
    assert explorer.selected == "actor/network/dense_0"
    assert "<b>Dense</b>" in explorer.details and "<td>inputs: f32[B,4]</td>" in explorer.details
    assert "<td>output: f32[B,8]</td>" in explorer.details
    assert re.search(r"<td>kernel</td>\s*<td>\(4, 8\)</td>\s*<td>float32</td>\s*<td>32</td>", explorer.details)
    assert "2 variables, 40 values" in explorer.details
    explorer.select("network")
    assert "4 variables, 58 values" in explorer.details  # 4*8 + 8 + 8*2 + 2
    assert "<td>dense_1/kernel</td>" in explorer.details
    explorer.select("actor/selector")
    assert "<td>select</td>" in explorer.details and "i64[B] ∈[0,2)" in explorer.details
    assert "no variables" in explorer.details
    assert SELECT_COLOR in explorer.svg and "selected" in explorer.svg and STUCK_COLOR not in explorer.svg


def test_depth_and_api_filters_redraw(actor):
    explorer = GraphExplorer(actor)
    full = explorer.svg
    explorer.depth_menu.value = 0
    assert "+2 inside" in explorer.svg and clusters(explorer.svg) < clusters(full)
    explorer.depth_menu.value = "all"
    explorer.api_menu.value = "get_q_values"
    assert "dataflow of get_q_values()" in explorer.svg and "selector" not in explorer.svg.split("legend")[0]


def test_a_replaced_component_shows_at_once_and_after_any_rebuild(swappable):
    explorer = GraphExplorer(swappable)
    network = NeuralNetwork([{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "dense", "units": 8}])
    swappable.replace_component("body", network)
    assert explorer.events == [("structure", "swappable")]
    assert "NeuralNetwork" in explorer.svg and "rebuild" in explorer.status
    build(swappable, {"states": STATES}, backend="torch", seed=1)  # a build from elsewhere: the view follows
    assert explorer.events[-1] == ("built", "swappable")
    assert "f32[B,16]" in explorer.svg and "built on torch" in explorer.svg
    explorer.select("body/dense_0")
    assert "(4, 16)" in explorer.details
    head_weights = swappable.find("head").get_weights()
    explorer.rebuild_button.click()  # the explorer's own rebuild keeps the weights of what is unchanged
    assert explorer.builds == 1 and explorer.status.startswith("rebuilt on torch")
    np.testing.assert_array_equal(swappable.find("head").get_weights()["kernel"], head_weights["kernel"])
    states = STATES.sample(3, seed=0)
    assert explorer.executor.execute("get_action", states).shape == (3,)
    explorer.close()
    swappable.replace_component("body", NeuralNetwork([{"type": "dense", "units": 8}]))
    assert len(explorer.events) == 3  # closed: no longer listening


def test_a_failed_rebuild_shows_the_component_in_red_and_a_fixed_one_recovers_the_weights(swappable):
    explorer = GraphExplorer(swappable)
    head = swappable.find("head").get_weights()
    swappable.replace_component("body", Broken())
    explorer.rebuild_button.click()  # the button shows the error, never raises
    assert "BuildError" in explorer.status and "broken on purpose" in explorer.status
    assert "swappable/body" in explorer.error_pane.value and STUCK_COLOR in explorer.error_pane.value
    with pytest.raises(Exception, match="broken on purpose"):
        explorer.rebuild()
    swappable.replace_component("body", NeuralNetwork([{"type": "dense", "units": 8}]))
    explorer.rebuild()
    assert explorer.error_pane.value == "" and explorer.status.startswith("rebuilt")
    np.testing.assert_array_equal(swappable.find("head").get_weights()["kernel"], head["kernel"])


def test_a_bad_device_map_is_a_typed_error_and_the_build_survives(actor):
    explorer = GraphExplorer(actor, device_map={"nothing/here": "cpu"})
    with pytest.raises(ConfigError, match="match no component"):
        explorer.rebuild()
    assert "ConfigError" in explorer.status
    assert explorer.executor.execute("get_action", STATES.sample(2, seed=0)).shape == (2,)


def test_a_build_failing_on_its_device_is_rolled_back_to_the_last_good_one(actor):
    import torch

    if torch.cuda.is_available():
        pytest.skip("needs a machine without CUDA, where a cuda device fails to build")
    explorer = GraphExplorer(actor)
    weights = actor.get_weights()
    explorer.device_map["network/dense_1"] = "cuda:0"  # set_device refuses it: a map edited by hand
    explorer.rebuild_button.click()
    assert "rebuild failed" in explorer.status and "network/dense_1" in explorer.error_pane.value
    assert actor.built and actor.network.layers[1].resolved_device == "cpu"  # the last good build, weights kept
    states = STATES.sample(2, seed=0)
    np.testing.assert_allclose(explorer.executor.execute("get_q_values", states),
                               build(QActor(2, hidden=(8,), name="actor"), {"states": STATES}, seed=0)
                               .execute("get_q_values", states), atol=1e-6)
    for name, value in actor.get_weights().items():
        np.testing.assert_array_equal(value, weights[name])


def test_an_unbuilt_component_builds_from_the_given_spaces():
    explorer = GraphExplorer(Swappable(name="fresh"), input_spaces={"states": STATES}, backend="torch", seed=0)
    assert explorer.status == "fresh: not built" and "○" in explorer.tree.options[1][0]
    explorer.rebuild_button.click()
    assert explorer.status.startswith("rebuilt on torch") and explorer.component.built
    explorer.select("head")
    assert "<td>inputs: f32[B,8]</td>" in explorer.details


def test_device_editing_on_torch_keeps_weights_and_maps_the_component(actor):
    explorer = GraphExplorer(actor)
    assert explorer.device_menu.options[:2] == ("(inherit)", "cpu")
    weights = actor.get_weights()
    explorer.select("network")
    explorer.device_menu.value = "cpu"  # as choosing it in the dropdown does
    assert explorer.device_map == {"network": "cpu"} and "rebuild to apply" in explorer.status
    explorer.rebuild()
    assert actor.network.resolved_device == "cpu" and explorer.device_menu.value == "cpu"
    for name, value in actor.get_weights().items():
        np.testing.assert_array_equal(value, weights[name])
    explorer.set_device("network", None)
    assert explorer.device_map == {}


def test_device_editing_on_tf_with_two_logical_cpus_moves_the_component_and_recolours_it():
    script = Path(__file__).with_name("widget_tf_devices.py")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, env=env,
                            check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["options"] == ["(inherit)", "/CPU:0", "/CPU:1"] and report["device_map"] == {"network": "/CPU:1"}
    assert report["status"].startswith("rebuilt on tf")
    assert {path for path, device in report["resolved"].items() if device == "/CPU:1"} == {
        "actor/network", "actor/network/dense_0", "actor/network/dense_1"}
    assert set(report["variables"].values()) == {"CPU:1"}
    assert len(report["fills_before"]) == 1 and len(report["fills_after"]) == 2  # a second device colour
    assert not report["label_before"] and report["label_after"] and report["details_device"]
    assert report["same_q"]  # same weights, other device


def test_an_agent_gets_the_rebuilt_executor():
    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0).build()
    explorer = GraphExplorer(agent)
    before, weights = agent.executor, agent.get_weights()
    explorer.set_device("policy", "cpu")
    explorer.rebuild()
    assert agent.executor is not before and agent.executor is explorer.executor
    for name, value in agent.get_weights().items():
        np.testing.assert_array_equal(value, weights[name])
    assert agent.get_actions(np.zeros((2, 4), np.float32), explore=False).shape == (2,)


def test_it_displays_as_a_widget(actor):
    bundle = GraphExplorer(actor)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


@pytest.mark.parametrize("device, message", [("cuda:7", "no such device"), ("banana!", "device")])
def test_an_unknown_device_is_a_typed_error_that_leaves_the_map_alone(device, message, actor):
    explorer = GraphExplorer(actor)
    with pytest.raises(ConfigError, match=message) as info:
        explorer.set_device("network", device)
    assert info.value.argument == "device" and "cpu" in str(info.value.expected)
    assert explorer.device_map == {}


def test_selecting_brings_the_component_into_view_in_the_navigable_pane(actor):
    explorer = GraphExplorer(actor)
    pane = explorer.graph_pane
    assert pane.svg == explorer.svg and pane.svg.startswith("<svg") and pane.focus == ""
    requests = pane.focus_request
    target = next(c.path for c in explorer.component.walk() if c is not explorer.component)
    explorer.select(target)
    assert pane.focus == target and pane.focus_request == requests + 1
    assert f'id="component&#45;{target}"' in pane.svg or f'id="component-{target}"' in pane.svg


def test_a_failed_rebuild_brings_the_stuck_component_into_view(swappable):
    explorer = GraphExplorer(swappable)
    pane = explorer.graph_pane
    swappable.replace_component("body", Broken())
    requests = pane.focus_request
    explorer.rebuild_button.click()
    assert "rebuild failed" in explorer.status
    assert pane.focus == "swappable/body" and pane.focus_request == requests + 1
    assert 'id="component&#45;swappable/body"' in pane.svg or 'id="component-swappable/body"' in pane.svg
