"""Typed errors: context is added outside-in without overwriting, printed for people, kept through pickling."""

from __future__ import annotations

import pickle

import pytest

from rlworkbench import BuildError, ConfigError, RLWorkbenchError, SpaceError


def test_add_context_fills_only_empty_fields():
    error = SpaceError("wrong shape", key_path="obs/image", expected="(?, 3)", got="(2, 4)")
    assert error.add_context(component="agent", api_method="act", argument="states", key_path="x") is error
    assert (error.component, error.api_method, error.argument, error.key_path) == \
        ("agent", "act", "states", "obs/image")
    error.add_context(component="other")
    assert error.component == "agent"
    with pytest.raises(TypeError):
        error.add_context(colour="red")


def test_str_names_the_place_and_expected_against_got():
    error = SpaceError("wrong shape", component="agent", api_method="act", argument="states",
                       key_path="obs/image", expected="(?, 3)", got="(2, 4)")
    assert str(error) == ("[component 'agent', API method 'act', argument 'states', key 'obs/image'] "
                          "wrong shape: expected (?, 3), got (2, 4)")
    assert str(ConfigError("plain")) == "plain"


def test_errors_are_typed():
    assert issubclass(SpaceError, ValueError) and issubclass(ConfigError, ValueError)
    assert all(issubclass(cls, RLWorkbenchError) for cls in (SpaceError, ConfigError, BuildError))


def test_context_survives_pickling():
    error = BuildError("stuck", component="learner/memory", api_method="update", argument="priorities",
                       graph=object())
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is BuildError and str(copy) == str(error)
    assert (copy.component, copy.api_method, copy.argument) == ("learner/memory", "update", "priorities")
