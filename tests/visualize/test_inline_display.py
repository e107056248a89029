"""Components, agents, executors, graphs and failed builds display themselves in Jupyter as SVG — once
``rlworkbench.visualize`` is imported, which registers them with IPython's formatters; before, their plain text
says how to get the picture. Checked with a real IPython shell's display formatter."""

from __future__ import annotations

import subprocess
import sys

import pytest
from core_components import STATES
from test_build_cycles import Learner

from rlworkbench import BuildError, build
from rlworkbench.drawable import DRAW_HINT
from rlworkbench.visualize import register_notebook_display


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    assert register_notebook_display(shell)
    return shell


def shown(shell, target) -> dict[str, str]:
    data, _ = shell.display_formatter.format(target)
    return data


def test_component_executor_and_graph_bundles_hold_svg(shell):
    learner = Learner(complete=False)
    unbuilt = shown(shell, learner)
    assert unbuilt["image/svg+xml"].lstrip().startswith("<?xml") and "not built" in unbuilt["image/svg+xml"]
    executor = build(learner, {"x": STATES})
    for bundle in (shown(shell, learner), shown(shell, executor), shown(shell, executor.graph)):
        assert "built on torch" in bundle["image/svg+xml"]
        assert DRAW_HINT not in bundle["text/plain"]
    assert "Component graph of 'learner'" in shown(shell, executor)["text/plain"]


def test_a_failed_build_displays_its_partial_graph_and_message(shell):
    with pytest.raises(BuildError) as info:
        build(Learner(complete=True), {"x": STATES})
    bundle = shown(shell, info.value)
    assert "stuck on torch" in bundle["image/svg+xml"]
    assert bundle["text/plain"].startswith("BuildError: [component 'learner/memory'")
    assert shown(shell, BuildError("no graph")) == {"text/plain": "BuildError: no graph"}


def test_an_agent_displays_its_graph(shell):
    from rlworkbench.agents import Agent

    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch")
    assert "dqn (DQNGraph)" in shown(shell, agent)["image/svg+xml"]


def test_drawing_problems_never_hide_the_object(shell, monkeypatch):
    from rlworkbench.visualize import render

    def broken(*_, **__):
        raise RuntimeError("dot exploded")

    monkeypatch.setattr(render, "graph_svg", broken)
    bundle = shown(shell, Learner(complete=False))
    assert "image/svg+xml" not in bundle and "dot exploded" in bundle["text/plain"]


def test_before_visualize_is_imported_the_plain_text_says_how_to_get_the_picture():
    code = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
import rlworkbench, rlworkbench.agents
from rlworkbench.testing.regression import Regression
from rlworkbench.components import SGD
component = Regression(lambda model: SGD(0.1, variables_of=model))
before, _ = shell.display_formatter.format(component)
print(sorted(before), 'graphviz' in sys.modules, repr(before['text/plain']))
import rlworkbench.visualize
after, _ = shell.display_formatter.format(component)
print(sorted(after))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith("['text/plain'] False") and "rlworkbench.visualize" in out[0]
    assert "image/svg+xml" in out[1] and "text/html" in out[1]


def test_importing_rlworkbench_does_not_import_graphviz():
    code = "import sys, rlworkbench, rlworkbench.agents; print('graphviz' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_jupyter_gets_the_svg_at_natural_size_in_a_scrolling_box(shell):
    from rlworkbench.visualize import render_graph

    learner = Learner(complete=False)
    for bundle in (shown(shell, learner), render_graph(learner)._repr_mimebundle_()):
        html = bundle["text/html"]
        assert html.startswith('<div class="rlw-graph"') and "overflow:auto" in html
        assert "<svg" in html and "<?xml" not in html and "<!DOCTYPE" not in html
        assert 'class="cluster"' in html and bundle["image/svg+xml"].lstrip().startswith("<?xml")
