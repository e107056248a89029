"""``@api`` and ``@graph_fn``: how a component declares what it offers and where its maths lives.

Both decorators only attach a spec and a thin wrapper that records the call during assembly. After the build,
the backend puts plain bound functions on each built component instance, which shadow these wrappers: a call
on a built graph runs the user's function directly, with no decorator bookkeeping (the paper's fast path).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlworkbench.core import assembly


@dataclass
class ApiSpec:
    """What ``@api`` knows of a method: its name, parameters and whether it gates variable creation."""

    name: str
    fn: Callable[..., Any]
    must_be_complete: bool = True
    signature: inspect.Signature = field(init=False)
    params: list[str] = field(init=False)
    var_param: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.signature = inspect.signature(self.fn)
        parameters = list(self.signature.parameters.values())[1:]  # without self
        self.params = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = [p.name for p in parameters if p.kind is p.VAR_POSITIONAL]
        self.var_param = var[0] if var else None
        unsupported = [p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
        if unsupported:
            raise TypeError(f"API method '{self.name}': keyword-only parameters {unsupported} are not supported; "
                            "every API input is a record")


@dataclass
class GraphFnSpec:
    """What ``@graph_fn`` knows of a function: returns, container handling, variants per backend."""

    name: str
    fn: Callable[..., Any]
    returns: int | Callable[[Any], int] = 1
    flatten: bool = False
    split: bool = False
    pass_key: bool = False
    requires_grad: bool = False
    output_spaces: Callable[..., Any] | None = None
    variants: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def num_returns(self, component: Any) -> int:
        return self.returns(component) if callable(self.returns) else int(self.returns)

    def implementation(self, backend_name: str) -> Callable[..., Any]:
        """The function for a backend: its own variant where one was written, the shared one otherwise."""
        return self.variants.get(backend_name, self.fn)


def api(fn: Callable[..., Any] | None = None, *, must_be_complete: bool = True, name: str | None = None):
    """Declares an API method: the only way into a component from outside.

    An API method routes: it calls sub-components' API methods and its own graph functions, and returns what
    they return. ``must_be_complete=False`` lets the component create its variables before this method's
    inputs have spaces (for inputs that come back from its own outputs, such as priorities of sampled indices).
    """

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        spec = ApiSpec(name or method.__name__, method, must_be_complete)

        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            return assembly.record_api_call(self, spec, args, kwargs)

        wrapper._rlw_api = spec  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate


def graph_fn(
    fn: Callable[..., Any] | None = None,
    *,
    returns: int | Callable[[Any], int] = 1,
    flatten: bool = False,
    split: bool = False,
    pass_key: bool = False,
    requires_grad: bool = False,
    output_spaces: Callable[..., Any] | None = None,
):
    """Declares a graph function: the only place where backend tensors appear.

    - ``returns``: how many values it returns (an int, or ``lambda component: n``); never inferred.
    - ``flatten``: container arguments arrive as flat ``{key_path: tensor}`` dicts; a returned flat dict with
      the same keys as the first flattened argument is re-nested into that argument's structure.
    - ``split``: called once per leaf of the container arguments (which must share one structure); the
      results are re-nested. ``pass_key`` also hands the leaf's key path as first argument.
    - ``requires_grad``: the function takes gradients, so API methods that reach it run with autograd on.
    - ``output_spaces``: ``fn(component, *input_spaces) -> space(s)``, for outputs whose spaces cannot be read
      off a probe run (e.g. a batch whose size is an input value); the build then does not run the function.

    ``@name.variant("tf")`` adds a backend-specific body where the maths truly differs.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        spec = GraphFnSpec(function.__name__, function, returns, flatten, split or pass_key, pass_key,
                           requires_grad, output_spaces)

        @functools.wraps(function)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            return assembly.record_graph_fn_call(self, spec, args, kwargs)

        def variant(backend_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
            def register(body: Callable[..., Any]) -> Callable[..., Any]:
                spec.variants[backend_name] = body
                return wrapper

            return register

        wrapper._rlw_graph_fn = spec  # type: ignore[attr-defined]
        wrapper.variant = variant  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate
