"""A failed build draws its partial graph: the stuck component in red, the missing argument named."""

from __future__ import annotations

import pytest
from core_components import STATES
from graph_svg_helpers import clusters, outline_color, texts
from test_build_cycles import Learner

from rlworkbench import BuildError, Component, ConfigError, api, build
from rlworkbench.visualize import graph_svg


@pytest.fixture
def error() -> BuildError:
    with pytest.raises(BuildError) as info:
        build(Learner(complete=True), {"x": STATES})
    return info.value


def test_the_stuck_component_and_argument_are_highlighted(error):
    svg = graph_svg(error)
    found = dict(clusters(svg))
    assert outline_color(found["memory (Memory)"]) == "#dc2626"
    assert outline_color(found["loss (Loss)"]) != "#dc2626"
    nodes = "\n".join(texts(svg, "node"))
    assert "'priorities'" in nodes and "stuck / error" in nodes
    title = "\n".join(texts(svg, "graph"))
    assert "stuck on torch" in title and "BuildError" in title


def test_the_stuck_argument_points_at_its_api_method(error):
    from rlworkbench.visualize import render_graph

    source = render_graph(error).source
    missing = next(line for line in source.splitlines() if "no space for" in line).split()[0]
    update = next(line for line in source.splitlines() if "label=update " in line).split()[0]
    assert f"{missing} -> {update}" in source and "#dc2626" in source


def test_spaces_that_arrived_before_the_stop_are_drawn(error):
    assert "x: f32[B,3]" in "\n".join(texts(graph_svg(error), "edge"))


def test_a_missing_root_input_is_drawn_at_the_root():
    with pytest.raises(BuildError) as info:
        build(Learner(complete=False), {})
    svg = graph_svg(info.value)
    assert outline_color(dict(clusters(svg))["learner (Learner)"]) == "#dc2626"
    assert "'x'" in "\n".join(texts(svg, "node"))


def test_an_error_without_a_graph_cannot_be_drawn():
    with pytest.raises(ConfigError, match="no component graph"):
        graph_svg(BuildError("made by hand", component="a"))


class Branchy(Component):
    """Branches on a value inside an API method: assembly (records, no data) cannot call it."""

    @api
    def apply(self, x):
        return x if x else -x


def test_structure_only_when_the_root_cannot_be_assembled():
    svg = graph_svg(Branchy(name="branchy"))
    assert "not assembled" in "\n".join(texts(svg, "graph"))
    assert "apply" in texts(svg, "node")
