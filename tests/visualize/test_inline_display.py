"""Components, agents, executors, graphs and failed builds display themselves in Jupyter as SVG."""

from __future__ import annotations

import subprocess
import sys

import pytest
from core_components import STATES
from test_build_cycles import Learner

from rlworkbench import BuildError, build


def test_component_executor_and_graph_bundles_hold_svg():
    learner = Learner(complete=False)
    unbuilt = learner._repr_mimebundle_()
    assert unbuilt["image/svg+xml"].lstrip().startswith("<?xml") and "not built" in unbuilt["image/svg+xml"]
    executor = build(learner, {"x": STATES})
    for bundle in (learner._repr_mimebundle_(), executor._repr_mimebundle_(), executor.graph._repr_mimebundle_()):
        assert "built on torch" in bundle["image/svg+xml"]
    assert "Component graph of 'learner'" in executor._repr_mimebundle_()["text/plain"]


def test_a_failed_build_displays_its_partial_graph_and_message():
    with pytest.raises(BuildError) as info:
        build(Learner(complete=True), {"x": STATES})
    bundle = info.value._repr_mimebundle_()
    assert "stuck on torch" in bundle["image/svg+xml"]
    assert bundle["text/plain"].startswith("BuildError: [component 'learner/memory'")
    assert BuildError("no graph")._repr_mimebundle_() == {"text/plain": "BuildError: no graph"}


def test_an_agent_displays_its_graph():
    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch")
    assert "dqn (DQNGraph)" in agent._repr_mimebundle_()["image/svg+xml"]


def test_drawing_problems_never_hide_the_object(monkeypatch):
    import rlworkbench.visualize as visualize

    def broken(*_, **__):
        raise RuntimeError("dot exploded")

    monkeypatch.setattr(visualize, "graph_svg", broken)
    bundle = Learner(complete=False)._repr_mimebundle_()
    assert "image/svg+xml" not in bundle and "dot exploded" in bundle["text/plain"]


def test_importing_rlworkbench_does_not_import_graphviz():
    code = "import sys, rlworkbench, rlworkbench.agents; print('graphviz' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_jupyter_gets_the_svg_at_natural_size_in_a_scrolling_box():
    from rlworkbench.visualize import render_graph

    learner = Learner(complete=False)
    for bundle in (learner._repr_mimebundle_(), render_graph(learner)._repr_mimebundle_()):
        html = bundle["text/html"]
        assert html.startswith('<div class="rlw-graph"') and "overflow:auto" in html
        assert "<svg" in html and "<?xml" not in html and "<!DOCTYPE" not in html
        assert 'class="cluster"' in html and bundle["image/svg+xml"].lstrip().startswith("<?xml")
