"""Replica towers on TensorFlow, on two logical CPUs (configured in a subprocess before TensorFlow starts, see
tf_towers_report.py): 1, 2 and 3 (uneven) towers reach the weights and each update's metrics of one device for
every kind the torch tests train (DQN with PER, PPO with a separate and a shared value network, SAC, discrete
SAC); PER priorities land on the sampled rows; per-item outputs come back in batch order; devices that do not
exist and batches too small for the towers are typed errors; every tower's ops run on its own device inside the one
traced update; the drawn graph and a GraphExplorer fill the two towers in two device colours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from multi_device_helpers import CONFIGS

sys.path.insert(0, str(Path(__file__).parents[1] / "visualize"))
from graph_svg_helpers import clusters, fill_color, parse, texts

SCRIPT = Path(__file__).with_name("tf_towers_report.py")
CASES = [f"{kind} {count}" for kind in sorted(CONFIGS) for count in (1, 2, 3)]


@pytest.fixture(scope="module")
def report() -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False,
                            timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_two_logical_cpus_exist(report):
    assert report["logical"] == ["/device:CPU:0", "/device:CPU:1"]


@pytest.mark.parametrize("case", CASES)
def test_towers_reach_the_weights_and_metrics_of_one_device(report, case):
    found = report["training"][case]
    assert found["tower_names"] == []  # replicas are not the agent's weights
    assert found["difference"] < 1e-5
    metrics, reference = found["metrics"], found["reference_metrics"]
    assert len(metrics) == len(reference) == 6
    for ours, theirs in zip(metrics, reference):
        assert ours.keys() == theirs.keys()
        np.testing.assert_allclose([ours[k] for k in ours], [theirs[k] for k in ours], rtol=1e-5, atol=1e-6)


def test_priorities_land_on_the_sampled_rows(report):
    tree, max_priority = report["priorities"]["memory/sum_tree/tree"], report["priorities"]["memory/max_priority"]
    ours, theirs = np.array(tree["towers"]), np.array(tree["one_device"])
    leaves = theirs[len(theirs) // 2:]  # one leaf per memory row: its priority ** alpha
    assert len(np.unique(np.round(leaves[leaves > 0], 6))) > 5  # priorities the updates wrote, not the initial max
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(max_priority["towers"], max_priority["one_device"], rtol=1e-5)


def test_per_item_outputs_come_back_in_batch_order(report):
    found = report["order"]
    order = np.array(found["permutation"])
    ours, theirs = np.array(found["towers"]), np.array(found["one_device"])
    assert len(np.unique(np.round(theirs, 5))) == 32  # every row its own error: a misplaced row would show
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(found["towers_shuffled"], theirs[order], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(found["one_device_shuffled"], theirs[order], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("case", "key_path", "says"), [
    ("devices=['/CPU:0', '/CPU:7']", "devices/1", "no device '/CPU:7' on this machine for tf"),
    ("devices=['cuda:7']", "devices/0", "no device 'cuda:7' on this machine for tf"),
    ("devices=['/CPU:0', 'nosuch']", "devices/1", "not a device name"),
    ("devices=2", "devices", "first 2 GPUs, and 0 are here"),
    ("devices=0", "devices", "first 0 GPUs"),
])
def test_devices_that_do_not_exist_are_config_errors(report, case, key_path, says):
    error = report["errors"][case]
    assert error["type"] == "ConfigError" and error["key_path"] == key_path and says in error["message"]
    assert "'/CPU:0', '/CPU:1'" in error["expected"]  # what is available here: both logical CPUs


def test_more_devices_than_rows_is_an_error_at_build_and_at_the_call(report):
    at_build, at_update = report["errors"]["build, batch_size 2"], report["errors"]["update, 2 rows"]
    assert at_build["type"] == "ConfigError" and at_build["key_path"] == "devices"
    assert "batch of 2 rows cannot be split over 3 devices" in at_build["message"]
    assert at_update["type"] == "SpaceError" and at_update["argument"] == "batch"
    assert "2 rows cannot be split over 3 devices ['/CPU:0', '/CPU:1', '/CPU:0']" in at_update["message"]
    assert at_update["unchanged"]  # refused before anything changed
    minibatch = report["errors"]["ppo update, minibatches of 1 row"]
    assert minibatch["type"] == "SpaceError" and minibatch["argument"] == "minibatch"
    assert "a batch of 1 rows cannot be split over 3 devices" in minibatch["message"] and minibatch["unchanged"]


def test_a_refused_update_leaves_every_tower_on_the_unchanged_weights(report):
    assert report["refused_step"] == {"unchanged": True, "towers_in_sync": True}


def test_each_tower_runs_on_its_device(report):
    assert report["resolved"] == ["/CPU:0", "/CPU:1"]
    assert report["variables"] and all(index == int(name.split("/")[0][-1]) for name, index in
                                       report["variables"].items())
    assert report["ops"] == {"dqn/towers/tower_0/": [0], "dqn/towers/tower_1/": [1]}


def legend(svg: str) -> dict[str, str]:
    """The legend's device -> fill colour (its boxes are nodes labelled by device)."""
    colours = {}
    for group in parse(svg).iter("{http://www.w3.org/2000/svg}g"):
        text = group.find("{http://www.w3.org/2000/svg}text")
        if group.get("class") == "node" and text is not None and (text.text or "").startswith("/CPU:"):
            colours[text.text] = fill_color(group)
    return colours


def test_the_graph_fills_the_towers_in_two_device_colours(report):
    svg = report["svg"]
    found = dict(clusters(svg))
    tower_0, tower_1 = fill_color(found["tower_0 (Tower)"]), fill_color(found["tower_1 (Tower)"])
    assert tower_0 != tower_1
    assert fill_color(found["towers (ReplicaTowers)"]) == tower_0  # the towers' holder sits on the main device
    assert {"/CPU:0", "/CPU:1"} <= set(texts(svg, "node"))  # the legend names both devices


def test_a_graph_explorer_shows_the_towers_in_their_device_colours(report):
    svg = report["explorer_svg"]
    found = clusters(svg)
    by_label, colours = dict(found), legend(svg)
    assert "legend" in by_label and colours.keys() == {"/CPU:0", "/CPU:1"}
    assert colours["/CPU:0"] != colours["/CPU:1"]
    assert fill_color(by_label["tower_0 (Tower)"]) == colours["/CPU:0"]
    assert fill_color(by_label["tower_1 (Tower)"]) == colours["/CPU:1"]
    # drawn to full depth: tower_1's layers inherit its device, every other layer (tower_0's, the agent's own
    # policy's) is on /CPU:0
    layers = [fill_color(group) for label, group in found if label.endswith("(Dense)")]
    on_tower_1 = sum(name.startswith("tower_1/") for name in report["variables"])
    assert layers.count(colours["/CPU:1"]) == on_tower_1 > 0
    assert layers.count(colours["/CPU:0"]) == len(layers) - on_tower_1 >= 2 * on_tower_1
