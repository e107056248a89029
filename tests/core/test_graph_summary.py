"""``graph.summary()``: every component with its class; API methods with their spaces; where a build stuck."""

from __future__ import annotations

from core_components import STATES, Agent

from rlworkbench import build
from rlworkbench.core import assemble


def test_summary_of_a_built_graph():
    root = Agent()
    executor = build(root, {"states": STATES}, seed=0)
    text = executor.summary()
    assert text == executor.graph.summary()
    assert "'agent'" in text.splitlines()[0] and "[torch]" in text.splitlines()[0]
    for name, cls in [("agent", "Agent"), ("net", "Stack"), ("head", "Scale"), ("dense_0", "Linear"),
                      ("dense_1", "Linear")]:
        assert any(line.strip().startswith(f"{name} <{cls}>") for line in text.splitlines()), name
    assert ".act(states: FloatBox((3,), float32)+B) -> output: FloatBox((2,), float32)+B" in text
    assert ".value(states: FloatBox((3,), float32)+B) -> output: FloatBox((), float32)+B" in text
    assert ".apply(x: FloatBox((2,), float32)+B)" in text
    assert "variables=2 (16 values)" in text  # dense_0: 3*4 + 4
    assert "device=cpu" in text and "not built" not in text


def test_summary_is_a_tree():
    text = build(Agent(), {"states": STATES}, seed=0).summary()
    lines = text.splitlines()
    index = {line.strip().split(" ")[0]: i for i, line in enumerate(lines) if " <" in line}
    indent = {name: len(lines[i]) - len(lines[i].lstrip()) for name, i in index.items()}
    assert indent["agent"] < indent["net"] < indent["dense_0"]
    assert indent["net"] == indent["head"]
    assert index["net"] < index["dense_0"] < index["dense_1"]


def test_summary_of_an_assembled_graph_says_not_built():
    text = assemble(Agent()).summary()
    assert text.count("(not built)") == 5
    assert ".act(states: None)" in text
