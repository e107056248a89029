"""Each backend's ``ops`` namespace keeps the contract :class:`rlworkbench.core.ops.Ops`: exactly its op names,
each with its parameters (names, kinds, defaults, in order); and every op of the contract says what it does."""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Mapping

import pytest

from rlworkbench.core.backend import get_backend
from rlworkbench.core.ops import ACTIVATION_NAMES, Ops

FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


def _contract() -> dict[str, object]:
    """The protocol's members by name: methods and properties defined on :class:`Ops` itself."""
    return {name: value for name, value in vars(Ops).items()
            if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))}


CONTRACT = _contract()
METHODS = {name: value for name, value in CONTRACT.items() if inspect.isfunction(value)}


def _params(signature: inspect.Signature) -> list[tuple[str, str, object]]:
    return [(p.name, p.kind.description, p.default) for p in signature.parameters.values()]


def _describe(params: list[tuple[str, str, object]]) -> str:
    def one(name: str, kind: str, default: object) -> str:
        text = f"{name} [{kind}]"
        return text if default is inspect.Parameter.empty else f"{text}={default!r}"

    return "(" + ", ".join(one(*p) for p in params) + ")"


def _default(value: object) -> str:
    return "no default" if value is inspect.Parameter.empty else f"default {value!r}"


def _problems(expected: list[tuple[str, str, object]], actual: list[tuple[str, str, object]]) -> list[str]:
    """What differs between two parameter lists, in words (defaults compare by value and type: 0 is not 0.0)."""
    problems = []
    for index in range(max(len(expected), len(actual))):
        if index >= len(expected):
            problems.append(f"extra parameter {actual[index][0]!r}")
            continue
        if index >= len(actual):
            problems.append(f"missing parameter {expected[index][0]!r}")
            continue
        (name, kind, default), (got_name, got_kind, got_default) = expected[index], actual[index]
        if name != got_name:
            problems.append(f"parameter {index} is named {got_name!r}, contract says {name!r}")
        if kind != got_kind:
            problems.append(f"parameter {name!r} is {got_kind}, contract says {kind}")
        if default != got_default or type(default) is not type(got_default):
            problems.append(f"parameter {name!r} has {_default(got_default)}, contract says {_default(default)}")
    return problems


@pytest.fixture(params=sorted(FRAMEWORKS), scope="module")
def backend_ops(request):
    name = request.param
    if importlib.util.find_spec(FRAMEWORKS[name]) is None:
        pytest.skip(f"{FRAMEWORKS[name]} is not installed")
    return name, get_backend(name).ops


def test_contract_is_not_empty():
    assert len(METHODS) > 50 and "ACTIVATIONS" in CONTRACT


def test_every_op_of_the_contract_says_what_it_computes():
    undocumented = sorted(name for name, member in CONTRACT.items() if not (inspect.getdoc(member) or "").strip())
    assert not undocumented, f"ops without a docstring in rlworkbench.core.ops.Ops: {undocumented}"


def test_backend_offers_exactly_the_ops_of_the_contract(backend_ops):
    name, ops = backend_ops
    offered = set(ops.__all__)
    missing, extra = sorted(set(CONTRACT) - offered), sorted(offered - set(CONTRACT))
    assert not missing and not extra, (
        f"backend '{name}': ops namespace differs from rlworkbench.core.ops.Ops: missing {missing}, extra {extra}")
    assert len(ops.__all__) == len(offered), f"backend '{name}': duplicate names in ops.__all__"


def test_backend_op_signatures_match_the_contract(backend_ops):
    name, ops = backend_ops
    differences = []
    for op, method in sorted(METHODS.items()):
        implementation = getattr(ops, op, None)
        if implementation is None:
            continue  # reported by test_backend_offers_exactly_the_ops_of_the_contract
        if not callable(implementation):
            differences.append(f"  {op}: not callable ({type(implementation).__name__})")
            continue
        expected = _params(inspect.signature(method))[1:]  # without self
        actual = _params(inspect.signature(implementation))
        problems = _problems(expected, actual)
        if problems:
            differences.append(f"  {op}: {'; '.join(problems)}\n      contract {_describe(expected)}"
                               f"\n      backend  {_describe(actual)}")
    assert not differences, f"backend '{name}': op signatures differ from rlworkbench.core.ops.Ops:\n" + "\n".join(
        differences)


def test_backend_activations_match_the_contract(backend_ops):
    name, ops = backend_ops
    activations = ops.ACTIVATIONS
    assert isinstance(activations, Mapping), f"backend '{name}': ACTIVATIONS is a {type(activations).__name__}"
    assert sorted(activations) == sorted(ACTIVATION_NAMES), (
        f"backend '{name}': ACTIVATIONS differ from the contract: missing "
        f"{sorted(set(ACTIVATION_NAMES) - set(activations))}, extra {sorted(set(activations) - set(ACTIVATION_NAMES))}")
    assert all(callable(fn) for fn in activations.values()), f"backend '{name}': ACTIVATIONS holds a non-callable"
    assert ops.activation(None) is activations["linear"], f"backend '{name}': activation(None) is not 'linear'"
