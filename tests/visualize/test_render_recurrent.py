"""A recurrent state is drawn as a loop: the LSTM's API nodes get an edge back to themselves, labelled with the
state's space, in its own colour; components without a state get none."""

from __future__ import annotations

from graph_svg_helpers import parse

from rlworkbench.agents import Agent
from rlworkbench.visualize.palette import RECURRENT_COLOR
from rlworkbench.visualize.render import graph_svg

_SVG = "{http://www.w3.org/2000/svg}"


def loops(svg: str) -> list[tuple[str, list[str], str]]:
    """``(title, label lines, stroke)`` of every edge drawn as a recurrent loop."""
    found = []
    for group in parse(svg).iter(f"{_SVG}g"):
        if "rlw-recurrent" in group.get("class", "").split():
            title = group.find(f"{_SVG}title").text or ""
            path = group.find(f"{_SVG}path")
            found.append((title, [t.text or "" for t in group.findall(f"{_SVG}text")],
                          path.get("stroke", "") if path is not None else ""))
    return found


def test_the_lstm_state_is_a_loop_labelled_with_its_space():
    agent = Agent.from_env("CartPole-v1", "ppo_lstm_cartpole", backend="torch").build()
    drawn = loops(graph_svg(agent.root))
    assert drawn  # one per API method of the LSTM the build called
    for title, label, stroke in drawn:
        source, target = title.split("->")
        assert source == target  # a loop: the state goes from one step into the next
        assert label == ["state (f32[B,64], f32[B,64])"] and stroke == RECURRENT_COLOR
    assert not loops(graph_svg(Agent.from_env("CartPole-v1", "ppo_cartpole", backend="torch").build().root))
