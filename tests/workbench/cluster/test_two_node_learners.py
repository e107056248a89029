"""A learner group across nodes: a two-node Ray cluster on this machine (a head and a second `ray start` node with
its own CPUs), a synchronous PPO job from the notebook side with two learner ranks placed STRICT_SPREAD — one rank
per node, so the multi-node path (process group over the nodes' addresses) is what runs — followed to its end."""

from __future__ import annotations

import pytest

from rlworkbench.errors import ClusterError
from rlworkbench.workbench import promote
from rlworkbench.workbench.cluster import LocalHead


@pytest.fixture(scope="module")
def two_nodes():
    head = LocalHead(num_cpus=2, multi_node=True).start()
    try:
        head.add_node(num_cpus=2)
        yield head
    finally:
        head.stop()


def test_a_learner_group_spans_two_nodes_in_a_cluster_job(two_nodes, tmp_path):
    nodes = two_nodes._alive_nodes()
    assert len(nodes) == 2
    run = promote("ppo_cartpole", to="ray", address=two_nodes.address, auth_token=two_nodes.auth_token,
                  logdir=tmp_path, seed=0, timesteps=768, workers=2, envs_per_worker=2, sampler_cpus=0,
                  learners=2, learner_cpus=1, learner_placement="strict_spread")
    run.wait(400)
    assert run.state == "finished" and run.error is None and run.timesteps == 768
    ranks = run.learners
    assert ranks["rank"].tolist() == [0, 1] and (ranks["updates"] == 6).all()
    assert sorted(ranks["node"]) == sorted(node[:8] for node in nodes)  # one rank on each node
    updates = run.updates
    assert len(updates) == 6 and (updates["allreduce_s"] > 0).all() and (updates["learner_restarts"] == 0).all()
    assert run.load_agent().updates == 6  # the final checkpoint holds rank 0's weights and the counters


def test_a_single_node_head_refuses_nodes(tmp_path):
    with pytest.raises(ClusterError, match="multi_node=True"):
        LocalHead().add_node()
