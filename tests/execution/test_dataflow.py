"""The dataflow figures without Ray: the meter's counts and windowed rates, the bottleneck rule, the JSON file a run
writes for the runs panel."""

from __future__ import annotations

import pytest

from rlworkbench.execution.dataflow import (
    EDGE_COLUMNS,
    NODE_COLUMNS,
    DataflowSnapshot,
    FlowEdge,
    FlowNode,
    bottleneck_of,
    read_dataflow,
)
from rlworkbench.execution.ray.flow_meter import WINDOW, FlowMeter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_meter_counts_flows_and_takes_rates_over_a_recent_window():
    clock = Clock()
    meter = FlowMeter("impala", clock)
    for node, kind in (("sampler 0", "sampler"), ("queue", "queue"), ("learner", "learner")):
        meter.node(node, kind)
    meter.flow("sampler 0", "queue", "Fragment", 1, 1000)
    clock.now += 1.0
    meter.flow("sampler 0", "queue", "Fragment", 1, 1000)
    meter.work("learner", 0.5, produced=2)
    meter.depth("queue", 3, 4)
    meter.restarted("sampler 0", "ValueError: env exploded")
    first = meter.snapshot()
    edge = first.edges[0]
    assert (edge.items, edge.bytes, edge.items_per_s, edge.bytes_per_s) == (2, 2000, 2.0, 2000.0)
    assert first.node("learner").busy == pytest.approx(0.5) and first.node("learner").items_per_s == 2.0
    queue, sampler = first.node("queue"), first.node("sampler 0")
    assert (queue.depth, queue.capacity, sampler.restarts, sampler.error) == (3, 4, 1, "ValueError: env exploded")
    clock.now += WINDOW  # the window slides: the counts at this moment start the next one
    meter.snapshot()
    clock.now += WINDOW
    meter.flow("sampler 0", "queue", "Fragment", 10, 0)
    later = meter.snapshot()
    assert later.edges[0].items == 12
    assert later.edges[0].items_per_s == pytest.approx(10 / WINDOW)  # only what came within the window
    with pytest.raises(KeyError, match="no node 'shard 9'"):
        later.node("shard 9")


def test_a_busy_learner_is_the_bottleneck_else_the_sampler_slowest_while_working():
    samplers = (FlowNode("sampler 0", "sampler", busy=0.3), FlowNode("sampler 1", "sampler", busy=1.0))
    edges = (FlowEdge("sampler 0", "learner", "Fragment", 10, 0, 5.0), FlowEdge("sampler 1", "learner", "Fragment",
                                                                                  10, 0, 5.0))
    idle = bottleneck_of((*samplers, FlowNode("learner", "learner", busy=0.4)), edges)
    assert [edge.bottleneck for edge in idle] == [False, True]  # same rate, but sampler 1 needed all its time
    busy = bottleneck_of((*samplers, FlowNode("learner", "learner", busy=0.95)),
                         (*edges, FlowEdge("queue", "learner", "Fragment", 20, 0, 10.0)))
    assert [edge.source for edge in busy if edge.bottleneck] == ["queue"]
    assert not any(edge.bottleneck for edge in bottleneck_of((), ()))


def test_a_snapshot_round_trips_through_the_run_directory(tmp_path):
    nodes = (FlowNode("sampler 0", "sampler", busy=0.5), FlowNode("learner", "learner", busy=0.2))
    snapshot = DataflowSnapshot("apex", 3.5, nodes, bottleneck_of(nodes, (
        FlowEdge("sampler 0", "learner", "Transitions", 40, 4000, 10.0, 1000.0),)), {"batch_size": 32.0})
    assert read_dataflow(tmp_path) is None
    snapshot.write(tmp_path)
    assert read_dataflow(tmp_path) == snapshot and not list(tmp_path.glob("*.partial"))
    assert snapshot.edges_frame().columns.tolist() == list(EDGE_COLUMNS)
    assert snapshot.nodes_frame().columns.tolist() == list(NODE_COLUMNS)
    assert snapshot.bottleneck is not None and snapshot.bottleneck.source == "sampler 0"
