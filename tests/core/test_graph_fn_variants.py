"""``@fn.variant("torch")``: the builder picks the backend's own body where one was written."""

from __future__ import annotations

import numpy as np

from rlworkbench import Component, api, build, graph_fn
from rlworkbench.spaces import FloatBox


class Shared(Component):
    @api
    def run(self, x):
        return self._fn(x)

    @graph_fn
    def _fn(self, x):
        return x * 2.0


class WithVariant(Component):
    @api
    def run(self, x):
        return self._fn(x)

    @graph_fn
    def _fn(self, x):
        raise AssertionError("the shared body must not run on torch")

    @_fn.variant("torch")
    def _fn(self, x):
        return x * 3.0

    @_fn.variant("tf")
    def _fn(self, x):
        raise AssertionError("the tf body must not run on torch")


SPACE = FloatBox(shape=(2,), add_batch_rank=True)


def test_shared_body_without_a_variant():
    out = build(Shared(name="shared"), {"x": SPACE}).execute("run", np.ones((1, 2), np.float32))
    np.testing.assert_allclose(out, [[2.0, 2.0]])


def test_the_torch_variant_is_used_in_build_and_execution():
    spec = WithVariant.graph_fns["_fn"]
    assert set(spec.variants) == {"torch", "tf"}
    assert "_fn" in WithVariant.graph_fns and "_fn" not in WithVariant.api_methods
    executor = build(WithVariant(name="variant"), {"x": SPACE})
    assert executor.graph.output_space("run") == SPACE
    np.testing.assert_allclose(executor.execute("run", np.ones((1, 2), np.float32)), [[3.0, 3.0]])
