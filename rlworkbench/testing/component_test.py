"""``ComponentTest``: a component built alone, as the root of its own graph, on any backend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from rlworkbench.core.builder import build
from rlworkbench.core.component import Component
from rlworkbench.testing.compare import assert_nested_close

if TYPE_CHECKING:
    from rlworkbench.core.graph import ComponentGraph


class ComponentTest:
    """Builds ``component`` from ``input_spaces`` (API parameter name → space) and runs its API methods.

    >>> test = ComponentTest(Dense(4), input_spaces={"inputs": FloatBox((3,), add_batch_rank=True)})
    >>> test.test(("apply", FloatBox((3,), add_batch_rank=True).sample(2)))

    Keyword-only inputs go in a trailing dict: ``test.test(("loss", [q, a, r, t], {"q_values_sp": q2, ...}))``.
    """

    def __init__(self, component: Component, input_spaces: Mapping[str, object], backend: str | None = None,
                 seed: int | None = 10, device_map: Mapping[str, str] | None = None,
                 api_methods: list[str] | None = None):
        self.component = component
        self.seed = seed
        self.executor = build(component, input_spaces, backend=backend, device_map=device_map, seed=seed,
                              api_methods=api_methods)
        self.backend = self.executor.backend.name

    @property
    def graph(self) -> ComponentGraph:
        return self.executor.graph

    def test(self, call: str | tuple[str, object] | tuple[str, object, Mapping[str, object]],
             expected_outputs: object = None,
             decimals: int = 5, as_numpy: bool = True) -> Any:
        """Runs ``("api", args)`` (a list of args for several parameters, else one value; or just ``"api"``), or
        ``("api", args, {"name": value})`` with inputs by name (keyword-only ones must be), compares with
        ``expected_outputs`` when given, and returns the outputs."""
        name, args, *rest = (call, []) if isinstance(call, str) else call
        by_name = dict(rest[0]) if rest else {}
        positional = list(args) if isinstance(args, list) else [args]
        outputs = self.executor.execute(name, *positional, as_numpy=as_numpy, **by_name)
        if expected_outputs is not None:
            assert_nested_close(outputs, expected_outputs, decimals)
        return outputs

    @overload
    def variable_values(self) -> dict[str, np.ndarray]: ...

    @overload
    def variable_values(self, name: str, /) -> np.ndarray: ...

    @overload
    def variable_values(self, first: str, second: str, /, *more: str) -> list[np.ndarray]: ...

    def variable_values(self, *names: str) -> dict[str, np.ndarray] | np.ndarray | list[np.ndarray]:
        """Variable values as NumPy by scoped name: all as a dict, one as an array, several as a list."""
        weights = self.component.get_weights()
        if not names:
            return weights
        values = [weights[name] for name in names]
        return values[0] if len(values) == 1 else values

    def set_variable_values(self, values: Mapping[str, np.ndarray]) -> None:
        self.component.set_weights(values, strict=False)
