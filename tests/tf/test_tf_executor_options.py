"""Executor options: ``jit_compile`` (XLA) on TF gives the same outputs; unknown options are ConfigErrors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench import ConfigError, build
from rlworkbench.components import Dense
from rlworkbench.demo import QActor
from rlworkbench.spaces import FloatBox

SPACE = FloatBox(shape=(4,), add_batch_rank=True)


def xla_flag(function) -> bool:
    attr = function.get_concrete_function().function_def.attr.get("_XlaMustCompile")
    return bool(attr is not None and attr.b)


def test_xla_gives_the_same_outputs_as_without():
    plain = build(QActor(3, hidden=(8,), name="actor"), {"states": SPACE}, backend="tf", seed=4)
    xla = build(QActor(3, hidden=(8,), name="actor"), {"states": SPACE}, backend="tf", seed=4,
                executor_options={"jit_compile": True})
    assert xla.jit_compile is True and plain.jit_compile is False
    assert xla_flag(xla.graph_function(xla.root, "get_q_values"))
    assert not xla_flag(plain.graph_function(plain.root, "get_q_values"))
    for size in (1, 7, 300):
        states = SPACE.sample(size, seed=size) * 3.0
        np.testing.assert_allclose(xla.execute("get_q_values", states), plain.execute("get_q_values", states),
                                   atol=1e-5)
        np.testing.assert_array_equal(xla.execute("get_action", states), plain.execute("get_action", states))
    fused = xla.execute(("get_action", states), ("get_q_values", states))
    np.testing.assert_allclose(fused[1], plain.execute("get_q_values", states), atol=1e-5)
    assert xla.graph_function(xla.root, "get_q_values").experimental_get_tracing_count() == 1


def test_jit_compile_false_is_the_default():
    executor = build(Dense(2), {"inputs": SPACE}, backend="tf", executor_options={"jit_compile": False})
    assert executor.jit_compile is False
    assert not xla_flag(executor.graph_function(executor.root, "apply"))


@pytest.mark.parametrize("backend, options", [("tf", {"jit_compile": True, "fast": 1}), ("tf", {"xla": True}),
                                              ("torch", {"jit_compile": True}), ("torch", {"anything": 0})])
def test_unknown_executor_options_are_config_errors(backend, options):
    with pytest.raises(ConfigError) as info:
        build(Dense(2), {"inputs": SPACE}, backend=backend, executor_options=options)
    unknown = sorted(set(options) - ({"jit_compile"} if backend == "tf" else set()))
    assert info.value.got == unknown


def test_torch_takes_no_options_but_an_empty_mapping_is_fine():
    assert build(Dense(2), {"inputs": SPACE}, backend="torch", executor_options={}).backend.name == "torch"
