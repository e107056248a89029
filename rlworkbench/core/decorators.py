"""``@api`` and ``@graph_fn``: how a component declares what it offers and where its maths lives.

Each decorator turns the function into a descriptor (:class:`ApiMethod`, :class:`GraphFunction`) that keeps the
user's function and a spec. What ``component.name`` gives is decided in one place, :meth:`Declared.__get__`:

- on a built component, the callable the build bound for it — the user's own function, bound to the component
  (wrapped only where the backend must: another device, container options, TensorFlow name scopes). Calling it is
  an ordinary Python call: after a build, ``agent.get_actions`` → executor → root API method → sub-component API
  method → graph function is a chain of plain calls you can step through;
- in a thread that intercepts calls (:mod:`~rlworkbench.core.call_modes`: an assembly recording the component
  graph, a TensorBoard trace), whatever that thread's handler says — other threads are not affected;
- on a component that is not built, a function that raises a :class:`BuildError` saying so.

``@api`` stacked on ``@graph_fn`` declares an API method whose body *is* the graph function (no forwarding
method); the component graph still shows both.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, overload

from rlworkbench.core import call_modes
from rlworkbench.errors import BuildError

if TYPE_CHECKING:
    from rlworkbench.core.component import Component


@dataclass
class GraphFnSpec:
    """What ``@graph_fn`` knows of a function: returns, container handling, variants per backend."""

    name: str
    fn: Callable[..., object]
    returns: int | Callable[[Component], int] = 1
    flatten: bool = False
    split: bool = False
    pass_key: bool = False
    requires_grad: bool = False
    output_spaces: Callable[..., object] | None = None
    variants: dict[str, Callable[..., object]] = field(default_factory=dict)

    def num_returns(self, component: Component) -> int:
        return self.returns(component) if callable(self.returns) else int(self.returns)

    def implementation(self, backend_name: str) -> Callable[..., object]:
        """The function for a backend: its own variant where one was written, the shared one otherwise."""
        return self.variants.get(backend_name, self.fn)


@dataclass
class ApiSpec:
    """What ``@api`` knows of a method: its name, parameters and whether it gates variable creation.

    ``params`` are the named inputs in order (positional ones, then keyword-only ones); ``optional`` those whose
    default is ``None`` (an input that may be left out: it needs no space and arrives as ``None``);
    ``var_param`` a ``*args`` parameter. ``graph_fn`` is set when the API method is a graph function itself.
    ``checked``: inputs whose values are checked in full (bounds, NaN) when they come in from outside.
    """

    name: str
    fn: Callable[..., object]
    must_be_complete: bool = True
    graph_fn: GraphFnSpec | None = None
    checked: tuple[str, ...] = ()
    signature: inspect.Signature = field(init=False)
    params: list[str] = field(init=False)
    keyword_only: list[str] = field(init=False)
    optional: set[str] = field(init=False)
    var_param: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.signature = inspect.signature(self.fn)
        parameters = list(self.signature.parameters.values())[1:]  # without self
        if self.graph_fn is not None and self.graph_fn.pass_key:  # the leaf's key is the graph function's, not an input
            parameters = parameters[1:]
            self.signature = self.signature.replace(parameters=[*list(self.signature.parameters.values())[:1],
                                                                *parameters])
        positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.keyword_only = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]
        self.params = positional + self.keyword_only
        self.optional = {p.name for p in parameters if p.default is None}
        var = [p.name for p in parameters if p.kind is p.VAR_POSITIONAL]
        self.var_param = var[0] if var else None
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            raise TypeError(f"API method '{self.name}': **kwargs are not supported; every API input is a record "
                            "with a name")
        unknown = sorted(set(self.checked) - set(self.params))
        if unknown:
            raise TypeError(f"API method '{self.name}': checked names no parameter: {unknown} (it has {self.params})")


class Declared:
    """A declared callable of a component (API method or graph function); see the module docstring."""

    kind = ""  # "api" or "graph_fn"

    def __init__(self, fn: Callable[..., object], spec: ApiSpec | GraphFnSpec):
        self.fn, self.spec, self.name = fn, spec, spec.name
        functools.update_wrapper(self, fn)

    def __get__(self, component: Component | None, owner: type | None = None) -> Any:
        if component is None:
            return self
        if call_modes.active:
            found = call_modes.handled(self, component)
            if found is not None:
                return found
        try:
            return component._built_calls[self]
        except (KeyError, AttributeError):
            return self._not_bound(component)

    def _not_bound(self, component: Component) -> Callable[..., object]:
        """A built component reached through ``super()`` binds the base's function now; an unbuilt one raises."""
        if getattr(component, "_built", False) and component.backend is not None:
            bound = component.backend.bind_call(self, component)
            component._built_calls[self] = bound
            return bound
        what, where = (("API methods", {"api_method": self.name}) if self.kind == "api"
                       else ("graph functions", {"graph_fn": self.name}))

        def not_built(*args: object, **kwargs: object) -> NoReturn:
            raise BuildError(f"this component is not built: build it (ComponentTest, build(...), an agent) before "
                             f"calling its {what}", component=component.path, **where)

        return not_built

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.__qualname__}>"


class GraphFunction(Declared):
    """``@graph_fn``: the user's function plus its :class:`GraphFnSpec`."""

    kind = "graph_fn"
    spec: GraphFnSpec

    def variant(self, backend_name: str) -> Callable[[Callable[..., object]], GraphFunction]:
        """``@name.variant("tf")`` adds a body for one backend, where the maths truly differs."""

        def register(body: Callable[..., object]) -> GraphFunction:
            self.spec.variants[backend_name] = body
            return self

        return register


class ApiMethod(Declared):
    """``@api``: the user's routing method (or a graph function exposed as an API method) plus its :class:`ApiSpec`."""

    kind = "api"
    spec: ApiSpec

    @property
    def graph_function(self) -> GraphFunction | None:
        return self._graph_function

    def variant(self, backend_name: str) -> Callable[[Callable[..., object]], ApiMethod]:
        if self._graph_function is None:
            raise TypeError(f"API method '{self.name}' is no graph function: only graph functions have variants")

        def register(body: Callable[..., object]) -> ApiMethod:
            self._graph_function.variant(backend_name)(body)
            return self

        return register

    _graph_function: GraphFunction | None = None


@overload
def api(fn: Callable[..., object] | GraphFunction, *, must_be_complete: bool = True,
        name: str | None = None, checked: Sequence[str] = ()) -> ApiMethod: ...


@overload
def api(fn: None = None, *, must_be_complete: bool = True, name: str | None = None,
        checked: Sequence[str] = ()) -> Callable[[Callable[..., object] | GraphFunction], ApiMethod]: ...


def api(fn: Callable[..., object] | GraphFunction | None = None, *, must_be_complete: bool = True,
        name: str | None = None, checked: Sequence[str] = (),
        ) -> ApiMethod | Callable[[Callable[..., object] | GraphFunction], ApiMethod]:
    """Declares an API method: the only way into a component from outside.

    An API method routes: it calls sub-components' API methods and its own graph functions, and returns what
    they return. Stacked on ``@graph_fn`` it is that graph function, called from outside. Parameters with a
    ``None`` default are optional inputs (no space needed; they arrive as ``None`` when left out); keyword-only
    parameters (after ``*``) must be passed by name, so two inputs of the same space cannot be swapped unnoticed.
    ``must_be_complete=False`` lets the component create its variables before this method's inputs have spaces
    (for inputs that come back from its own outputs, such as priorities of sampled indices).

    Inputs from outside are checked for their form (dtype, ranks, shape), not their numbers. ``checked`` names
    inputs whose numbers are checked too — bounds and NaN, against the spaces the root was built with — where a bad
    value would corrupt the component's state (an index past the end, a NaN priority in a sum tree): a SpaceError
    before anything is written. Backend tensors passed in are not checked.
    """

    def decorate(target: Callable[..., object] | GraphFunction) -> ApiMethod:
        if isinstance(target, GraphFunction):
            spec = ApiSpec(name or target.name, target.fn, must_be_complete, graph_fn=target.spec,
                           checked=tuple(checked))
            method = ApiMethod(target.fn, spec)
            method._graph_function = target
            return method
        return ApiMethod(target, ApiSpec(name or target.__name__, target, must_be_complete, checked=tuple(checked)))

    return decorate(fn) if fn is not None else decorate


@overload
def graph_fn(
    fn: Callable[..., object],
    *,
    returns: int | Callable[[Any], int] = 1,  # lambda component: n, reading the component's own attributes
    flatten: bool = False,
    split: bool = False,
    pass_key: bool = False,
    requires_grad: bool = False,
    output_spaces: Callable[..., object] | None = None,
) -> GraphFunction: ...


@overload
def graph_fn(
    fn: None = None,
    *,
    returns: int | Callable[[Any], int] = 1,  # lambda component: n, reading the component's own attributes
    flatten: bool = False,
    split: bool = False,
    pass_key: bool = False,
    requires_grad: bool = False,
    output_spaces: Callable[..., object] | None = None,
) -> Callable[[Callable[..., object]], GraphFunction]: ...


def graph_fn(
    fn: Callable[..., object] | None = None,
    *,
    returns: int | Callable[[Any], int] = 1,  # lambda component: n, reading the component's own attributes
    flatten: bool = False,
    split: bool = False,
    pass_key: bool = False,
    requires_grad: bool = False,
    output_spaces: Callable[..., object] | None = None,
) -> GraphFunction | Callable[[Callable[..., object]], GraphFunction]:
    """Declares a graph function: the only place where backend tensors appear.

    - ``returns``: how many values it returns (an int, or ``lambda component: n``); never inferred.
    - ``flatten``: container arguments arrive as flat ``{key_path: tensor}`` dicts; a returned flat dict with
      the same keys as the first flattened argument is re-nested into that argument's structure.
    - ``split``: called once per leaf of the container arguments (which must share one structure); the
      results are re-nested. ``pass_key`` also hands the leaf's key path as first argument.
    - ``requires_grad``: the function takes gradients, so API methods that reach it run with autograd on.
    - ``output_spaces``: ``fn(component, *input_spaces) -> space(s)``, for outputs whose spaces the build cannot
      infer from the inputs' spaces: a batch whose size is an input *value* (sampling ``num_records``), bounds the
      outputs keep (an action space), or state that must not change during the build (an optimizer step). The
      build then does not run the function.

    ``@name.variant("tf")`` adds a backend-specific body where the maths truly differs.
    """

    def decorate(function: Callable[..., object]) -> GraphFunction:
        spec = GraphFnSpec(function.__name__, function, returns, flatten, split or pass_key, pass_key,
                           requires_grad, output_spaces)
        return GraphFunction(function, spec)

    return decorate(fn) if fn is not None else decorate
