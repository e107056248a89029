"""Views follow a component tree: ``on_change`` events, ``replace_component``/``remove_component``, latest graph."""

from __future__ import annotations

import pytest
from core_components import STATES
from test_build_cycles import Learner, Loss

from rlworkbench import BuildError, Component, ConfigError, build
from rlworkbench.core.observers import latest_graph


def recorder(component: Component) -> tuple[list[tuple[str, str]], object]:
    events: list[tuple[str, str]] = []
    unsubscribe = component.on_change(lambda event, changed: events.append((event, changed.path)))
    return events, unsubscribe


def test_structure_changes_and_builds_reach_the_listeners_of_every_ancestor():
    learner = Learner(complete=False)
    events, unsubscribe = recorder(learner)
    loss_events, _ = recorder(learner.loss)
    learner.loss.add_components(Component(name="extra"))
    build(learner, {"x": STATES})
    assert events == [("structure", "learner/loss"), ("built", "learner")]
    assert loss_events == [("structure", "learner/loss")]  # a build is reported at the root only
    unsubscribe()
    learner.remove_component("loss")
    assert len(events) == 2


def test_a_failed_build_is_reported_and_its_graph_kept():
    learner = Learner(complete=True)
    events, _ = recorder(learner)
    with pytest.raises(BuildError) as info:
        build(learner, {"x": STATES})
    assert events == [("build_failed", "learner")]
    assert latest_graph(learner.memory) is info.value.graph


def test_replace_component_swaps_in_place_and_detaches_the_old_one():
    learner = Learner(complete=False)
    build(learner, {"x": STATES})
    assert latest_graph(learner.loss) is not None
    old = learner.loss
    events, _ = recorder(learner)
    new = Loss(name="another")
    assert learner.replace_component("loss", new) is old
    assert old.parent is None and new.parent is learner and new.name == "loss"
    assert list(learner.sub_components) == ["memory", "loss"] and learner.find("loss") is new
    assert events == [("structure", "learner")]
    assert latest_graph(new) is None  # the last build did not include it
    assert latest_graph(old) is None


@pytest.mark.parametrize("call, message", [
    (lambda learner: learner.replace_component("nope", Loss()), "no direct sub-component"),
    (lambda learner: learner.replace_component("loss", learner.memory), "detached Component"),
    (lambda learner: learner.replace_component("loss", "a loss"), "detached Component"),
    (lambda learner: learner.remove_component("nope"), "no direct sub-component"),
])
def test_bad_replacements_are_typed_errors_that_change_nothing(call, message):
    learner = Learner(complete=False)
    before = dict(learner.sub_components)
    with pytest.raises(ConfigError, match=message):
        call(learner)
    assert learner.sub_components == before


def test_replacing_repoints_the_parents_attributes_and_the_tree_builds_again():
    from rlworkbench.components import NeuralNetwork
    from rlworkbench.demo import QActor

    actor = QActor(2, hidden=(8,), name="actor")
    build(actor, {"states": STATES})
    old = actor.network
    wider = NeuralNetwork([{"type": "dense", "units": 16}, {"type": "dense", "units": 2}], name="net")
    actor.replace_component("network", wider)
    assert actor.network is wider and not old.built and old.parent is None
    executor = build(actor, {"states": STATES})
    assert executor.execute("get_q_values", STATES.sample(3, seed=0)).shape == (3, 2)
    assert wider.find("dense_0").get_weights()["kernel"].shape == (STATES.shape[0], 16)


def test_containers_holding_the_old_component_hold_the_new_one():
    holder = Component(Loss(name="a"), Loss(name="b"), name="holder")
    a, b = holder.find("a"), holder.find("b")
    holder.parts, holder.pair, holder.by_name = [a, b], (a, b), {"first": a}
    new = Loss()
    holder.replace_component("a", new)
    assert holder.parts == [new, b] and holder.pair == (new, b) and holder.by_name == {"first": new}


def test_a_built_tree_changed_afterwards_draws_its_new_structure():
    from rlworkbench.visualize import graph_svg

    learner = Learner(complete=False)
    build(learner, {"x": STATES})
    learner.replace_component("loss", Loss(name="other"))
    svg = graph_svg(learner)
    assert "not built" in svg and "priorities" in svg
    assert learner.memory.built  # drawing did not touch the built parts
