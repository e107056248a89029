"""Which registered component types have a torch/TF parity case here.

Types covered below must stay registered (a rename must update this map). Types registered after this suite was
written show up as an XFAIL naming them (pytest's ``-ra`` summary lists it) until they get a case here; make
the check a hard assertion once the library settles.
"""

from __future__ import annotations

import pytest

from rlworkbench.components import known_types

COVERED = {
    "bernoulli": "test_parity_distributions.py",
    "bernoulli_adapter": "test_parity_policies.py",
    "beta": "test_parity_distributions.py",
    "beta_adapter": "test_parity_policies.py",
    "categorical": "test_parity_distributions.py",
    "categorical_adapter": "test_parity_policies.py",
    "clip": "test_parity_preprocessors.py",
    "constant_parameter": "test_parity_distributions.py",
    "container_merger": "test_parity_stacks_and_containers.py",
    "container_splitter": "test_parity_stacks_and_containers.py",
    "dense": "test_parity_dense.py",
    "divide": "test_parity_preprocessors.py",
    "dueling_action_adapter": "test_parity_policies.py",
    "dueling_policy": "test_parity_policies.py",
    "epsilon_greedy": "test_parity_distributions.py",
    "exponential_decay": "test_parity_distributions.py",
    "flatten": "test_parity_preprocessors.py",
    "gaussian_noise": "test_parity_distributions.py",
    "greedy_action_selector": "test_parity_stacks_and_containers.py",
    "linear_decay": "test_parity_distributions.py",
    "multiply": "test_parity_preprocessors.py",
    "neural_network": "test_parity_network.py",
    "normal": "test_parity_distributions.py",
    "normal_adapter": "test_parity_policies.py",
    "one_hot": "test_parity_preprocessors.py",
    "ornstein_uhlenbeck_noise": "test_parity_policies.py",
    "policy": "test_parity_policies.py",
    "polynomial_decay": "test_parity_distributions.py",
    "preprocessor_stack": "test_parity_stacks_and_containers.py",
    "reshape": "test_parity_preprocessors.py",
    "shared_value_function_policy": "test_parity_policies.py",
    "squashed_normal": "test_parity_distributions.py",
}


def test_covered_types_are_still_registered():
    assert not sorted(set(COVERED) - set(known_types())), "update COVERED: these types are no longer registered"


def test_every_registered_component_has_a_parity_case():
    missing = sorted(set(known_types()) - set(COVERED))
    if missing:
        pytest.xfail(f"registered components without a torch/TF parity case in tests/parity: {missing}")
