"""``render_graph``: nested clusters, call edges with spaces, device colours, depth folding, API filtering."""

from __future__ import annotations

import pytest
from graph_svg_helpers import cluster_parents, clusters, fill_color, outline_color, parse, texts

from rlworkbench import Component, ConfigError, api, graph_fn
from rlworkbench.agents import Agent
from rlworkbench.visualize import graph_svg, render_graph
from rlworkbench.visualize.palette import DEFAULT_FILL


@pytest.fixture(scope="module")
def agent():
    """The dueling DQN with prioritized replay: the readability target of the workbench."""
    return Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole", backend="torch", seed=0).build()


def labels(svg: str) -> list[str]:
    return [label for label, _ in clusters(svg) if label != "legend"]


def test_every_component_is_a_cluster_nested_in_its_parent(agent):
    svg = graph_svg(agent, fold_copies=False)
    expected = [f"{c.name} ({type(c).__name__})" for c in agent.root.walk()]
    assert sorted(labels(svg)) == sorted(expected)
    assert len(expected) > 30  # dozens of components, all drawn
    parents = cluster_parents(render_graph(agent, devices=False).source)
    assert parents["memory (PrioritizedReplay)"] == "dqn (DQNGraph)"
    assert parents["sum_tree (SegmentTree)"] == "memory (PrioritizedReplay)"
    assert parents["value_stream (NeuralNetwork)"] == "action_adapter (DuelingActionAdapter)"
    assert parents["dqn (DQNGraph)"] is None


def test_api_methods_and_graph_functions_are_nodes(agent):
    nodes = texts(graph_svg(agent), "node")
    for name in ("act", "update_from_memory", "get_records", "update_records", "sample", "_uniforms",
                 "sample_deterministic", "loss", "step"):
        assert name in nodes
    for name in ("sample", "sample_deterministic", "loss", "step"):  # API methods that are graph functions
        assert nodes.count(name) >= 2, f"{name}: the API method and its graph function are both drawn"


def test_the_drawn_components_own_api_methods_and_callers_mark_where_a_view_opens(agent):
    """Graph panes open on the nodes of class ``rlw-home`` (callers: ``rlw-entry``); the title is at the top left,
    where a scrolled box starts."""
    svg = graph_svg(agent.root.find("policy"))
    home = [group for group in parse(svg).iter("{http://www.w3.org/2000/svg}g")
            if "rlw-home" in group.get("class", "").split()]
    names = {group.find("{http://www.w3.org/2000/svg}text").text for group in home}
    called = {name for name in agent.root.find("policy").api_methods if agent.executor.graph.calls_of(
        agent.root.find("policy"), name)}
    assert names == called and len(home) == len(called)  # the policy's own API methods, no sub-component's
    assert svg.count('class="node rlw&#45;entry"') == len(called)  # their callers: the arrows on the left
    assert "labeljust=l" in render_graph(agent).source


def test_edges_carry_the_spaces_that_flow_once_built(agent):
    edges = "\n".join(texts(graph_svg(agent), "edge"))
    assert "states: f32[B,4]" in edges
    assert "→ i64[B] ∈[0,2)" in edges and "→ output:" not in edges  # a single return value: no name
    assert "time_step: i64[]" in edges and "inf" not in edges
    assert "→ (f32[], f32[], f32[B])" in edges and "→ 0: " not in edges  # a returned tuple, in order
    unbuilt = Agent.from_env("CartPole-v1", "dqn_dueling_per_cartpole", backend="torch")
    unbuilt_edges = "\n".join(texts(graph_svg(unbuilt), "edge"))
    assert "states" in unbuilt_edges and "f32[" not in unbuilt_edges
    assert "not built" in "".join(texts(graph_svg(unbuilt), "graph") or [render_graph(unbuilt).source])


def test_spaces_can_be_left_off(agent):
    assert "f32[" not in "\n".join(texts(graph_svg(agent, spaces=False), "edge"))


def test_depth_folds_subtrees_into_boxes(agent):
    top = graph_svg(agent, depth=0)
    assert labels(top) == ["dqn (DQNGraph)"]
    nodes = "\n".join(texts(top, "node"))
    inside = sum(1 for _ in agent.root.find("policy").walk()) - 1
    assert "policy" in nodes and "(DuelingPolicy)" in nodes and f"+{inside} inside" in nodes
    one = labels(graph_svg(agent, depth=1, fold_copies=False))
    assert set(one) == {"dqn (DQNGraph)"} | {f"{c.name} ({type(c).__name__})" for c in
                                             agent.root.sub_components.values()}
    with pytest.raises(ConfigError, match="depth"):
        render_graph(agent, depth=-1)


def test_api_filter_keeps_one_dataflow(agent):
    act = labels(graph_svg(agent, api="act"))
    assert "memory (PrioritizedReplay)" not in act and "optimizer (Adam)" not in act
    assert "exploration (EpsilonGreedy)" in act and "policy (DuelingPolicy)" in act
    update = labels(graph_svg(agent, api="update_from_memory"))
    assert "memory (PrioritizedReplay)" in update and "optimizer (Adam)" in update
    assert "exploration (EpsilonGreedy)" not in update
    with pytest.raises(ConfigError) as info:
        render_graph(agent, api="learn")
    assert info.value.argument == "api" and "update_from_memory" in str(info.value)


class Leaf(Component):
    @api
    def apply(self, x):
        return self._double(x)

    @graph_fn
    def _double(self, x):
        return x * 2.0


class Pair(Component):
    def __init__(self, **kwargs):
        super().__init__(Leaf(name="left"), Leaf(name="right"), **kwargs)

    @api
    def apply(self, x):
        return self.sub_components["right"].apply(self.sub_components["left"].apply(x))


def test_devices_fill_components_and_get_a_legend():
    pair = Pair(name="pair")
    pair.sub_components["left"].device = "cpu:0"
    pair.sub_components["right"].device = "cpu:1"
    svg = graph_svg(pair)
    found = dict(clusters(svg))
    left, right = fill_color(found["left (Leaf)"]), fill_color(found["right (Leaf)"])
    assert left != right and DEFAULT_FILL not in (left, right)
    assert fill_color(found["pair (Pair)"]) == DEFAULT_FILL
    legend = texts(svg, "node")
    assert {"cpu:0", "cpu:1", "default device"} <= set(legend)
    plain = graph_svg(pair, devices=False)
    assert "legend" not in dict(clusters(plain)) and "cpu:0" not in plain


def test_an_agent_changed_after_its_build_draws_the_new_structure_unbuilt():
    from rlworkbench.components import NeuralNetwork

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0).build()
    agent.root.find("policy").replace_component("network", NeuralNetwork([{"type": "dense", "units": 7}]))
    svg = graph_svg(agent)
    assert "not built" in svg and "built on torch" not in svg
    assert sum(label == "dense_0 (Dense)" for label in labels(svg)) >= 1
    assert "f32[" not in "\n".join(texts(svg, "edge"))


def test_a_sub_component_draws_its_part_of_the_latest_build(agent):
    svg = graph_svg(agent.root.find("memory"))
    assert labels(svg)[0] == "memory (PrioritizedReplay)"
    assert "policy (DuelingPolicy)" not in labels(svg)
    assert "f32[B]" in "\n".join(texts(svg, "edge"))  # spaces from the agent's build


def test_highlight_outlines_components_in_red(agent):
    svg = graph_svg(agent, highlight=["dqn/loss"])
    found = dict(clusters(svg))
    assert outline_color(found["loss (DQNLoss)"]) == "#dc2626"
    assert outline_color(found["optimizer (Adam)"]) != "#dc2626"


def test_unknown_targets_are_a_typed_error():
    with pytest.raises(ConfigError, match="cannot draw"):
        render_graph(42)


def test_a_target_network_is_one_box_naming_the_network_it_repeats(agent):
    svg = graph_svg(agent)
    assert "target_policy (DuelingPolicy)" not in labels(svg)
    nodes = "\n".join(texts(svg, "node"))
    assert "same as policy" in nodes
    streams = [label for label in labels(svg) if label.endswith("(NeuralNetwork)")]
    assert len(streams) == 3  # policy's network and both dueling streams: different widths, not repeats
    unfolded = labels(graph_svg(agent, fold_copies=False))
    assert "target_policy (DuelingPolicy)" in unfolded and len(unfolded) > len(labels(svg)) + 10


def test_the_default_drawing_of_a_full_agent_stays_a_readable_size(agent):
    import re

    svg = graph_svg(agent)
    width, height = map(float, re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    # about 33 x 33 inches at 11 pt: scrollable, not a poster (the root's ten API methods — raw-state acting and
    # insert_records that preprocess next states included — each take a place along the edges)
    assert width < 2400 and height < 2400
    cluster_text = "\n".join(texts(svg, "cluster"))
    assert cluster_text.count("@ cpu") == 1  # an inherited device is not repeated on every cluster


def test_the_selected_component_is_outlined_in_blue_and_red_wins_over_it(agent):
    from rlworkbench.visualize.palette import SELECT_COLOR, STUCK_COLOR

    found = dict(clusters(graph_svg(agent, selected="dqn/memory")))
    assert outline_color(found["memory (PrioritizedReplay)"]) == SELECT_COLOR
    assert "selected" in texts(graph_svg(agent, selected="dqn/memory"), "node")
    both = graph_svg(agent, selected="dqn/memory", highlight=["dqn/memory"])
    assert outline_color(dict(clusters(both))["memory (PrioritizedReplay)"]) == STUCK_COLOR
    assert "selected" not in texts(both, "node")
