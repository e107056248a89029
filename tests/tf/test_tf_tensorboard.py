"""``write_graph`` (of a TF executor) writes a TensorBoard event file whose graph nodes are scoped by component path."""

from __future__ import annotations

from pathlib import Path

import tensorflow as tf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rlworkbench.execution.tensorboard import write_graph


def node_names(logdir: Path) -> list[str]:
    accumulator = EventAccumulator(str(logdir))
    accumulator.Reload()
    return [node.name for node in accumulator.Graph().node]


def test_graph_of_a_root_api_method(tf_actor, tmp_path):
    assert write_graph(tf_actor, tmp_path, "get_action") == tmp_path
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 1
    names = node_names(tmp_path)
    for scope in ("actor/preprocessor/clip_0/", "actor/preprocessor/divide_1/", "actor/network/dense_0/",
                  "actor/network/dense_1/", "actor/network/dense_2/", "actor/selector/"):
        assert any(name.startswith(scope) for name in names), scope
    assert not any(name.startswith("actor/actor/") for name in names)
    assert any(name.startswith("actor/network/dense_0/MatMul") for name in names)


def test_event_file_parses_as_a_graph_def(tf_actor, tmp_path):
    write_graph(tf_actor, tmp_path, "get_q_values")
    (event_file,) = tmp_path.glob("events.out.tfevents.*")
    graph_defs = []
    for event in tf.compat.v1.train.summary_iterator(str(event_file)):
        if event.graph_def:
            graph_def = tf.compat.v1.GraphDef()
            graph_def.ParseFromString(event.graph_def)
            graph_defs.append(graph_def)
    assert len(graph_defs) == 1
    names = [node.name for node in graph_defs[0].node]
    assert any(name.startswith("actor/network/dense_2/") for name in names)
    assert not any(name.startswith("actor/selector/") for name in names)  # get_q_values never selects


def test_graph_of_a_sub_component(tf_actor, tmp_path):
    write_graph(tf_actor, tmp_path, "apply", component="network")
    names = node_names(tmp_path)
    assert any(name.startswith("network/dense_1/") for name in names)
    assert not any("preprocessor" in name or "selector" in name for name in names)
