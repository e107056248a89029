"""Ape-X-shaped dataflow snapshots built from the real types, for the drawing, live-view, handler and browser tests."""

from __future__ import annotations

from rlworkbench.execution.dataflow import DataflowSnapshot, FlowEdge, FlowNode, bottleneck_of

ERROR = "RuntimeError: the env raised in step()"


def apex_snapshot(samplers: int = 2, shards: int = 2, *, busy: float = 0.9, scale: float = 1.0,
                  restarts: int = 2, wall_time: float = 12.5) -> DataflowSnapshot:
    """Samplers → shards → queue → learner, priorities back to the shards, weights back to the samplers; sampler 1
    restarted ``restarts`` times; rates multiplied by ``scale``; the bottleneck chosen by ``bottleneck_of``
    (the learner's input when ``busy`` >= 0.8, else the slowest sampler's output)."""
    nodes = [FlowNode(f"sampler {i}", "sampler", restarts=restarts if i == 1 else 0,
                      items_per_s=scale * (1200.0 + 10 * i), error=ERROR if i == 1 and restarts else "")
             for i in range(samplers)]
    nodes += [FlowNode(f"shard {j}", "shard", depth=5000 * (j + 1), capacity=50000, items_per_s=scale * 15.0)
              for j in range(shards)]
    nodes += [FlowNode("queue", "queue", depth=12, capacity=16, items_per_s=scale * 30.0),
              FlowNode("learner", "learner", busy=busy, items_per_s=scale * 30.0)]
    edges = [FlowEdge(f"sampler {i}", f"shard {i % shards}", "Transitions", 12000, 4_500_000,
                      scale * (1200.0 + 10 * i), scale * 450_000.0) for i in range(samplers)]
    edges += [FlowEdge(f"shard {j}", "queue", "Batch", 300, 9_000_000, scale * 15.0, scale * 3_000_000.0)
              for j in range(shards)]
    edges += [FlowEdge("queue", "learner", "Batch", 600, 18_000_000, scale * 30.0, scale * 6_000_000.0)]
    edges += [FlowEdge("learner", f"shard {j}", "Priorities", 300, 120_000, scale * 15.0, scale * 6000.0)
              for j in range(shards)]
    edges += [FlowEdge("learner", f"sampler {i}", "Weights", 10, 2_000_000, scale * 0.5, scale * 100_000.0)
              for i in range(samplers)]
    return DataflowSnapshot("apex", wall_time, tuple(nodes), bottleneck_of(tuple(nodes), tuple(edges)),
                            {"updates_per_s": scale * 30.0})
