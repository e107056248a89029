"""The published component catalogue (docs/components.md) lists every registered component and is current."""

from __future__ import annotations

from pathlib import Path

from rlworkbench.components.catalogue import render
from rlworkbench.components.registry import registered

CATALOGUE = Path(__file__).resolve().parents[1] / "docs" / "components.md"


def test_catalogue_is_current():
    assert CATALOGUE.read_text() == render(), \
        "docs/components.md is stale: run `python -m rlworkbench.components.catalogue > docs/components.md`"


def test_catalogue_lists_every_component_with_its_api_methods():
    text = render()
    for type_name, cls in registered().items():
        assert f"### `{type_name}` — {cls.__name__}" in text
        for api_name in cls.api_methods:
            assert f"`{api_name}(" in text
        assert cls.__doc__, f"{cls.__name__} has no docstring for the catalogue"


def test_the_activation_names_configs_accept_are_every_backends():
    from rlworkbench.agents.config import ACTIVATIONS
    from rlworkbench.backends.tf.ops import basic as tf_basic
    from rlworkbench.backends.torch.ops import basic as torch_basic

    assert set(ACTIVATIONS) == set(torch_basic.ACTIVATIONS) == set(tf_basic.ACTIVATIONS)
