"""Which registered component types have a torch/TF parity case here.

Types covered below must stay registered (a rename must update this map). Types registered after this suite was
written show up as an XFAIL naming them (pytest's ``-ra`` summary lists it) until they get a case here; make
the check a hard assertion once the library settles.
"""

from __future__ import annotations

import pytest

from rlworkbench.components import known_types

COVERED = {
    "clip": "test_parity_preprocessors.py",
    "container_merger": "test_parity_stacks_and_containers.py",
    "container_splitter": "test_parity_stacks_and_containers.py",
    "dense": "test_parity_dense.py",
    "divide": "test_parity_preprocessors.py",
    "flatten": "test_parity_preprocessors.py",
    "greedy_action_selector": "test_parity_stacks_and_containers.py",
    "multiply": "test_parity_preprocessors.py",
    "neural_network": "test_parity_network.py",
    "one_hot": "test_parity_preprocessors.py",
    "preprocessor_stack": "test_parity_stacks_and_containers.py",
    "reshape": "test_parity_preprocessors.py",
}


def test_covered_types_are_still_registered():
    assert not sorted(set(COVERED) - set(known_types())), "update COVERED: these types are no longer registered"


def test_every_registered_component_has_a_parity_case():
    missing = sorted(set(known_types()) - set(COVERED))
    if missing:
        pytest.xfail(f"registered components without a torch/TF parity case in tests/parity: {missing}")
