"""Components, agents, executors, graphs and failed builds display themselves in Jupyter as SVG after nothing more
than ``import rlworkbench`` inside IPython (registered by type name, the renderer imported on the first drawing);
importing ``rlworkbench.visualize`` registers them again (an IPython started later). The SVG comes at its natural
size in a scrolling box with a "100 %" caption. Checked with a real IPython shell's display formatter, the
import-only case in a fresh process."""

from __future__ import annotations

import re
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


FRESH_KERNEL = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()  # as in a Jupyter kernel: IPython runs before the user's imports
import rlworkbench
from rlworkbench.agents import Agent
agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0).build()
drawing_code = [name for name in ("graphviz", "rlworkbench.visualize", "rlworkbench.workbench") if name in sys.modules]
print(drawing_code)
for shown in (agent, agent.root.find("policy"), agent.executor):
    data, _ = shell.display_formatter.format(shown)
    print(sorted(data), data["image/svg+xml"].count('class="cluster"'), data["text/plain"].splitlines()[0][:40])
"""


def test_import_rlworkbench_alone_makes_an_agent_and_a_component_draw_themselves():
    out = subprocess.run([sys.executable, "-c", FRESH_KERNEL], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "[]"  # nothing of the drawing code was imported before the first drawing
    for line, what in zip(out[1:], ("DQNAgent(", "Policy(", "Component graph of 'dqn'")):
        assert line.startswith("['image/svg+xml', 'text/html', 'text/plain']"), line
        assert int(line.split()[3]) >= 2 and what in line, line  # clusters drawn, and the object's own text


def test_an_ipython_started_after_the_import_gets_the_hint_until_visualize_is_imported():
    code = """
import rlworkbench, rlworkbench.agents
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
from rlworkbench.testing.regression import Regression
from rlworkbench.components import SGD
component = Regression(lambda model: SGD(0.1, variables_of=model))
before, _ = shell.display_formatter.format(component)
print(sorted(before), repr(before['text/plain']))
import rlworkbench.visualize
after, _ = shell.display_formatter.format(component)
print(sorted(after))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith("['text/plain']") and "rlworkbench.visualize" in out[0]
    assert "image/svg+xml" in out[1] and "text/html" in out[1]


def test_importing_rlworkbench_imports_no_drawing_code_and_no_framework():
    code = ("import sys\nfrom IPython.core.interactiveshell import InteractiveShell\nInteractiveShell.instance()\n"
            "import rlworkbench, rlworkbench.agents\n"
            "names = ('graphviz', 'rlworkbench.visualize', 'torch', 'tensorflow', 'ray')\n"
            "print([m for m in names if m in sys.modules])")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


def test_jupyter_gets_the_svg_at_natural_size_in_a_scrolling_box(shell):
    from rlworkbench.visualize import render_graph

    learner = Learner(complete=False)
    for bundle in (shown(shell, learner), render_graph(learner)._repr_mimebundle_()):
        html = bundle["text/html"]
        caption, box = html.split('<div class="rlw-graph" ')
        assert caption.startswith('<div class="rlw-graph-caption" data-zoom="100"') and ">100 % · " in caption
        assert "overflow:auto" in box and "<?xml" not in box and "<!DOCTYPE" not in box and 'class="cluster"' in box
        # pinned to its natural size: JupyterLab's `svg {max-width: 100%}` must not shrink it to the page width
        width_pt = float(re.search(r'<svg width="([0-9.]+)pt"', box).group(1))
        style = re.search(r'<svg[^>]*style="([^"]*)"', box).group(1)
        assert "max-width:none" in style and f"width:{width_pt * 4 / 3:.0f}px" in style
        assert f"{width_pt * 4 / 3:,.0f} &times; " in caption
        assert bundle["image/svg+xml"].lstrip().startswith("<?xml")


def test_a_fitted_drawing_says_so():
    from rlworkbench.visualize.scrolling_svg import scrolling_svg

    html = scrolling_svg('<svg width="300pt" height="150pt" viewBox="0 0 300 150"></svg>', fit=True)
    assert 'data-zoom="fit"' in html and "fit to width · 400 &times; 200 px" in html
    assert 'style="display:block;width:100%;max-width:400px;height:auto"' in html
    assert scrolling_svg('<svg width="100%"></svg>').count("<svg") == 1  # a size it cannot read: left as it is
