"""Assembly: call each root API method once with records and write down what calls what.

The result is the :class:`~rlworkbench.core.graph.ComponentGraph` — backend-independent, without shapes. While
an assembly runs, this thread's component calls are intercepted (:mod:`~rlworkbench.core.call_modes`): an API
method call becomes an :class:`ApiCall` (and its body runs, routing records), a graph function call becomes a
:class:`GraphFnCall` (its body does not run). A built tree assembles the same way, so it can be drawn as it is.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rlworkbench import nest
from rlworkbench.core import call_modes, replication
from rlworkbench.core.decorators import ApiMethod, ApiSpec, GraphFnSpec, GraphFunction
from rlworkbench.core.records import ApiCall, GraphFnCall, Record
from rlworkbench.errors import BuildError

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.graph import ComponentGraph

_state = threading.local()


class _Assembly:
    def __init__(self, root: Component):
        self.root = root
        self.api_calls: list[ApiCall] = []
        self.graph_fn_calls: list[GraphFnCall] = []
        self.root_inputs: dict[str, dict[str, Record]] = {}
        self.stack: list[ApiCall] = []


def _active() -> _Assembly | None:
    return getattr(_state, "assembly", None)


def _recorder(descriptor: Any, component: Component) -> Callable[..., Any] | None:
    """The assembly's call handler: records API method and graph function calls."""
    if isinstance(descriptor, ApiMethod):
        return functools.partial(record_api_call, component, descriptor.spec)
    if isinstance(descriptor, GraphFunction):
        return functools.partial(record_graph_fn_call, component, descriptor.spec)
    return None


def assemble(root: Component, api_methods: Iterable[str] | None = None,
             var_arg_arity: dict[str, int] | None = None, optional_given: Iterable[str] = ()) -> ComponentGraph:
    """Calls the root's API methods (all, or those named) with records; returns the component graph.

    ``var_arg_arity`` says how many records a ``*args`` parameter of a root API method receives;
    ``optional_given`` names the optional root parameters that get a record (the others stay ``None``).
    """
    from rlworkbench.core.graph import ComponentGraph

    if _active() is not None:
        raise BuildError("an assembly is already running in this thread", component=root.path)
    if root.parent is not None:
        raise BuildError("only a root component can be built: build the whole composition (and run this one "
                         "with executor.call(...)), or build a copy() of it", component=root.path)
    names = list(api_methods) if api_methods is not None else list(root.api_methods)
    unknown = [n for n in names if n not in root.api_methods]
    if unknown:
        raise BuildError(f"no such API method(s) {unknown}", component=root.path,
                         expected=sorted(root.api_methods), got=unknown)
    given = set(optional_given)
    learning = replication.learning_methods(root)
    run = _Assembly(root)
    _state.assembly = run
    try:
        with call_modes.intercepting(_recorder):
            for name in names:
                spec = root.api_methods[name]
                inputs = {param: Record(label=param) for param in root_params(spec, var_arg_arity or {}, given)}
                run.root_inputs[name] = inputs
                first = len(run.api_calls)
                args, kwargs = _as_call(spec, inputs)
                with replication.learning_call(name in learning):
                    getattr(root, name)(*args, **kwargs)
                for record in inputs.values():
                    record.producer = run.api_calls[first]
    finally:
        _state.assembly = None
    return ComponentGraph(root, run.api_calls, run.graph_fn_calls, run.root_inputs)


def root_params(spec: ApiSpec, var_arg_arity: dict[str, int], optional_given: set[str] | None = None) -> list[str]:
    """Parameter names of a root API method that take a record: the required ones, the optional ones named in
    ``optional_given`` (all of them when it is None), and ``*args`` as ``name[i]`` for the given arity."""
    params = [p for p in spec.params if p not in spec.optional or optional_given is None or p in optional_given]
    if spec.var_param:
        params += [f"{spec.var_param}[{i}]" for i in range(var_arg_arity.get(spec.name, 0))]
    return params


def _as_call(spec: ApiSpec, inputs: dict[str, object]) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for ``spec`` from values by parameter name (``*args`` as ``name[i]``)."""
    args, kwargs = [], {}
    positional = [p for p in spec.params if p not in spec.keyword_only]
    for index, param in enumerate(positional):
        if param in inputs:
            args.append(inputs[param])
        elif spec.var_param or any(p in inputs for p in positional[index + 1:]):
            args.append(None)  # an optional input left out, before one given
    if spec.var_param:
        args += [value for key, value in inputs.items() if key.startswith(f"{spec.var_param}[")]
    kwargs = {param: inputs[param] for param in spec.keyword_only if param in inputs}
    return args, kwargs


def record_api_call(component: Component, spec: ApiSpec, *args: object, **kwargs: object) -> Any:
    run = _active()
    if run is None:  # another thread's handler reached us: never the case for a built tree
        raise BuildError("this component is not built: build it (ComponentTest, build(...), an agent) before "
                         "calling its API methods", component=component.path, api_method=spec.name)
    if component.root is not run.root:
        raise BuildError("API methods may only be called on sub-components of the graph being assembled; "
                         "add it with add_components()", component=component.path, api_method=spec.name)
    towers = replication.replicas_of(component)
    if towers is not None and replication.learning():  # a learning call of a replicated component: to its towers
        return towers.forward(component.name, spec.name,
                              *replication.positional_inputs(component, spec, args, kwargs))
    caller = run.stack[-1] if run.stack else None
    if caller is not None and caller.component is not component and component.parent is not caller.component:
        raise BuildError(f"'{caller.component.path}' may call API methods only of itself and its direct "
                         "sub-components", component=component.path, api_method=spec.name)
    try:
        bound = spec.signature.bind(component, *args, **kwargs)
    except TypeError as error:
        raise BuildError(f"bad arguments: {error}", component=component.path, api_method=spec.name) from None
    bound.apply_defaults()
    inputs = _named_inputs(spec, bound.arguments)
    for param, value in inputs.items():
        _check_routable(value, component, spec.name, param)
    call = ApiCall(component, spec, caller, inputs)
    run.api_calls.append(call)
    run.stack.append(call)
    try:
        if spec.graph_fn is not None:  # the API method is its graph function
            call.outputs = record_graph_fn_call(component, spec.graph_fn, *bound.args[1:], **bound.kwargs)
        else:
            call.outputs = spec.fn(*bound.args, **bound.kwargs)
    finally:
        run.stack.pop()
    return call.outputs


def _named_inputs(spec: ApiSpec, arguments: dict[str, object]) -> dict[str, object]:
    inputs = {param: arguments[param] for param in spec.params if param not in spec.keyword_only}
    if spec.var_param:
        for index, value in enumerate(arguments.get(spec.var_param, ())):
            inputs[f"{spec.var_param}[{index}]"] = value
    inputs.update({param: arguments[param] for param in spec.keyword_only})
    return inputs


def _check_routable(value: object, component: Component, api_name: str, param: str) -> None:
    if isinstance(value, Record) or not nest.is_container(value):
        return
    if any(isinstance(leaf, Record) for leaf in nest.leaves(value)):
        raise BuildError("records must be passed one per argument, not inside a Python container",
                         component=component.path, api_method=api_name, argument=param)


def record_graph_fn_call(component: Component, spec: GraphFnSpec, *args: object, **kwargs: object) -> Any:
    run = _active()
    if run is None:
        raise BuildError("graph functions run only inside a built graph", component=component.path,
                         graph_fn=spec.name)
    caller = run.stack[-1] if run.stack else None
    if caller is None or caller.component is not component:
        raise BuildError("a graph function may only be called from an API method of its own component",
                         component=component.path, graph_fn=spec.name)
    for index, value in enumerate(list(args) + list(kwargs.values())):
        _check_routable(value, component, caller.name, f"{spec.name}#{index}")
    call = GraphFnCall(component, spec, caller, tuple(args), dict(kwargs))
    count = spec.num_returns(component)
    call.outputs = [Record(producer=call, label=f"{spec.name}:{i}" if count > 1 else spec.name)
                    for i in range(count)]
    run.graph_fn_calls.append(call)
    if count == 0:
        return None
    return call.outputs[0] if count == 1 else tuple(call.outputs)
