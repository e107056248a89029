"""Composition: names, paths, walking and finding sub-components, and what may be built."""

from __future__ import annotations

import pytest
from core_components import STATES, Agent, Linear, Scale

from rlworkbench import BuildError, Component, ConfigError, build
from rlworkbench.core import assemble


def test_default_names_are_snake_case_class_names():
    class PolicyNetwork(Component):
        pass

    assert PolicyNetwork().name == "policy_network"


def test_paths_walk_and_find():
    root = Agent()
    assert [c.path for c in root.walk()] == ["agent", "agent/net", "agent/head", "agent/net/dense_0",
                                             "agent/net/dense_1"]
    assert root.find("net/dense_1") is root.net.layers[1]
    assert root.find("") is root and root.net.find("dense_0") is root.net.layers[0]
    assert root.net.layers[0].relative_path(root) == "net/dense_0"
    assert root.net.layers[0].root is root
    with pytest.raises(ConfigError) as info:
        root.find("net/dense_3")
    assert info.value.component == "agent/net" and info.value.expected == ["dense_0", "dense_1"]
    with pytest.raises(ConfigError):
        root.head.relative_path(root.net)


def test_bad_compositions_are_config_errors():
    with pytest.raises(ConfigError):
        Component(name="has space")
    with pytest.raises(ConfigError):
        Component(Scale(name="same"), Scale(name="same"), name="root")
    shared = Scale(name="shared")
    Component(shared, name="first")
    with pytest.raises(ConfigError) as info:
        Component(shared, name="second")
    assert "first" in str(info.value)
    with pytest.raises(ConfigError):
        Component("not a component", name="root")


def test_only_a_root_can_be_built():
    root = Agent()
    for attempt in (lambda: build(root.net, {"inputs": STATES}), lambda: assemble(root.net)):
        with pytest.raises(BuildError) as info:
            attempt()
        assert info.value.component == "agent/net"
        assert "copy()" in str(info.value)
    build(root.net.copy(), {"inputs": STATES})  # a copy is a root of its own


def test_api_specs_reject_var_keyword_parameters():
    from rlworkbench import api

    with pytest.raises(TypeError, match="kwargs"):
        class Bad(Component):
            @api
            def run(self, x, **options):
                return x


def test_overriding_an_api_method_with_a_plain_attribute_removes_it():
    class NotALayer(Linear):
        apply = None

    assert "apply" not in NotALayer.api_methods and "_dense" in NotALayer.graph_fns
