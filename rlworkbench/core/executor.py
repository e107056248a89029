"""Executors: the boundary between NumPy (the caller's world) and a built graph (the backend's world).

The base class checks and converts inputs against the API method's input spaces once per call, hands them
to the backend's entry function and converts outputs back. Each backend makes the entry functions; for
PyTorch they call the user's API method directly (the fast path), for TensorFlow a compiled graph.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from rlworkbench import nest
from rlworkbench.core.records import Record
from rlworkbench.drawable import pretty_with_draw_hint
from rlworkbench.errors import BuildError, ConfigError, SpaceError
from rlworkbench.spaces import BoxSpace, ContainerSpace, Space, TextBox

if TYPE_CHECKING:
    from rlworkbench.core.backend import Backend
    from rlworkbench.core.component import Component
    from rlworkbench.core.export import ExportPlan
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.core.records import ApiCall

Call = tuple[str, object]
EXECUTE_FORMS = ("execute('api', *args, **kwargs) or execute(('api', args), ('other_api', args), ...) with the "
                 "name of a built API method; args: the one input, or a list of them")
T = TypeVar("T")


class Executor(abc.ABC):
    """Runs API methods of a built component graph: ``execute("api", *args)`` → NumPy outputs."""

    _repr_pretty_ = pretty_with_draw_hint  # in IPython: repr plus how to get the picture

    def __init__(self, graph: ComponentGraph, backend: Backend):
        self.graph = graph
        self.root = graph.root
        self.backend = backend
        self._entries: dict[tuple[str, str, bool], Callable[..., object]] = {}
        self._root_entries: dict[bool, dict[str, Callable[..., object]]] = {True: {}, False: {}}
        for name in graph.root_inputs:
            for as_numpy in (True, False):
                entry = self._make_entry(self.root, name, as_numpy)
                self._entries[(self.root.path, name, as_numpy)] = self._root_entries[as_numpy][name] = entry
        self.api = ApiNamespace(self)

    # ----- backend hooks ----------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _make_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., object]:
        """A function taking the API method's arguments (NumPy or tensors), returning its outputs."""

    # ----- running ----------------------------------------------------------------------------------------------
    def execute(self, *calls: object, as_numpy: bool = True, **kwargs: object) -> Any:
        """``execute("api", *args, **kwargs)`` runs one root API method (keyword-only inputs by name);
        ``execute(("a", args), ("b", args))`` runs several and returns their outputs as a list (``args``: a list for
        several parameters, else the one value, which may be a tuple for a Tuple space — as in
        ``ComponentTest.test``). ``as_numpy=False`` returns backend tensors.

        Anything else (``execute(123)``, ``execute(None)``, ``execute(("api",))``, keyword inputs after ``(name,
        args)`` pairs) is a :class:`BuildError` showing these two forms, as an unknown API method name is."""
        if calls and isinstance(calls[0], str):
            entry = self._root_entries[as_numpy].get(calls[0])
            if entry is None:
                raise BuildError("no such built API method", component=self.root.path, api_method=calls[0],
                                 expected=sorted(self.graph.root_inputs))
            return entry(*calls[1:], **kwargs)
        for call in calls:
            if not (isinstance(call, (tuple, list)) and len(call) == 2 and isinstance(call[0], str)):
                raise self._malformed_call(call)
        if kwargs:
            raise self._malformed_call(f"keyword inputs {sorted(kwargs)} with (name, args) pairs")
        return self._execute_many([(name, *_as_args(args)) for name, args in calls], as_numpy)

    def _malformed_call(self, got: object) -> BuildError:
        text = repr(got)
        return BuildError("execute takes an API method name and its inputs, or (name, args) pairs",
                          component=self.root.path, expected=EXECUTE_FORMS,
                          got=text if len(text) <= 200 else f"{text[:200]}...")

    def _execute_many(self, calls: list[tuple[str, tuple, dict]], as_numpy: bool) -> list[object]:
        """Several root API calls; backends that can fuse them into one graph call override this."""
        return [self.execute(name, *args, as_numpy=as_numpy, **kwargs) for name, args, kwargs in calls]

    def call(self, component: Component | str, api_name: str, *args: object, as_numpy: bool = True,
             **kwargs: object) -> Any:
        """Runs an API method of any built sub-component (a sub-graph), with the spaces it was built with."""
        target = component if not isinstance(component, str) else self._component(component)
        key = (target.path, api_name, as_numpy)
        if key not in self._entries:
            if not target.built or not self.graph.calls_of(target, api_name):
                raise BuildError("this API method was not built in this graph", component=target.path,
                                 api_method=api_name)
            self._entries[key] = self._make_entry(target, api_name, as_numpy)
        return self._entries[key](*args, **kwargs)

    def _component(self, path: str) -> Component:
        try:
            return self.graph.component(path)
        except KeyError:
            paths = [c.relative_path(self.root) for c in self.graph.components if c is not self.root]
            raise BuildError("no such component in this graph", component=path, expected=paths) from None

    def get_weights(self, trainable_only: bool = False) -> dict[str, np.ndarray]:
        return self.root.get_weights(trainable_only)

    def set_weights(self, weights: dict[str, object], strict: bool = True) -> None:
        self.root.set_weights(weights, strict)

    def summary(self) -> str:
        return self.graph.summary()

    # ----- exporting --------------------------------------------------------------------------------------------
    export_formats: tuple[str, ...] = ()  # the model formats :meth:`export` writes on this backend, default first

    def export(self, api_methods: str | Sequence[str], path: str | Path, format: str | None = None, *,
               input_names: Sequence[str] | None = None, output_name: str = "outputs",
               metadata: Mapping[str, object] | None = None) -> Path:
        """Writes a root API method — or a chain of them, each one's output the next one's only input — as a
        standalone model at ``path`` in ``format`` (one of :attr:`export_formats`; ``None``: the first), plus a
        JSON sidecar ``<path>.json`` with the format and the input and output spaces. Returns ``path``.

        The model takes one tensor per leaf of the first method's parameter spaces (named by parameter, or by
        ``input_names``, and key path) and gives one per leaf of the last method's output (named
        ``output_name``); batch/time ranks are dynamic axes. The model holds the current weights; ``metadata``
        (JSON-able) goes into the sidecar. An unsupported format raises a ConfigError listing the supported ones.
        """
        from rlworkbench.core.export import ExportPlan, check_format

        chosen = check_format(format, self.export_formats, self.backend.name)
        plan = ExportPlan(self.graph, api_methods, input_names=input_names, output_name=output_name)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._export(plan, path, chosen)
        plan.write_sidecar(chosen, self.backend.name, path, metadata)
        return path

    def _export(self, plan: ExportPlan, path: Path, format: str) -> None:
        """Writes the model of ``plan`` (``plan(*inputs)`` runs it on backend tensors); backends override."""
        raise ConfigError(f"the {self.backend.name} backend cannot export models", argument="format",
                          expected=list(self.export_formats), got=format)

    # ----- graphs for TensorBoard -------------------------------------------------------------------------------
    def graph_def(self, api_name: str, component: Component | str | None = None) -> bytes:
        """The backend graph of an API method (of the root, or of ``component``) as a serialized TensorBoard
        ``GraphDef``, components as name scopes (:func:`rlworkbench.execution.tensorboard.write_graph` writes it).
        Backends that can draw their graphs override this."""
        raise ConfigError(f"the {self.backend.name} backend cannot draw graphs for TensorBoard",
                          component=self.root.path, api_method=api_name)

    # ----- helpers for backends ------------------------------------------------------------------------------
    def input_converters(self, component: Component, api_name: str,
                         to_backend: Callable[[np.ndarray, Space], object]) -> list[Callable[[object], object]]:
        """One checking converter per parameter of the API method's first call (constants are left as they are);
        the inputs the method names ``checked`` get their numbers checked too (see :func:`~.decorators.api`)."""
        call = self.graph.calls_of(component, api_name)[0]
        converters: list[Callable[[object], object]] = []
        for param, value in call.inputs.items():
            if isinstance(value, Record):
                context = {"component": component.path, "api_method": api_name, "argument": param}
                space = value.space
                converter = input_converter(space, to_backend, self.backend_tensor_type, context)
                if param in call.spec.checked and space is not None:
                    converter = _values_checked(space, converter, self.backend_tensor_type, context)
                converters.append(converter)
            else:
                converters.append(_identity)
        return converters

    def output_converter(self, component: Component, api_name: str,
                         to_numpy: Callable[[Any], object]) -> Callable[[Any], object]:
        outputs = self.graph.calls_of(component, api_name)[0].outputs
        if isinstance(outputs, Record) and not isinstance(outputs.space, ContainerSpace):
            return to_numpy
        if outputs is None:
            return _identity
        return lambda value: nest.map_structure(to_numpy, value)

    backend_tensor_type: type | tuple[type, ...] = ()


def _identity(value: T) -> T:
    return value


def _as_args(args: object) -> tuple[tuple, dict]:
    return (tuple(args) if isinstance(args, list) else (args,)), {}


class EntryArguments:
    """How an entry takes an API call's inputs: positionally in the method's order (``*args`` items in place),
    keyword-only ones by name; inputs that were constants in the graph (an optional one left as ``None``) may be
    left out and keep their recorded value."""

    def __init__(self, component: Component, call: ApiCall):
        spec = call.spec
        self.names = list(call.inputs)
        self.keyword_only = [name for name in self.names if name in spec.keyword_only]
        self.positional = [name for name in self.names if name not in spec.keyword_only]
        self.recorded = {name: value for name, value in call.inputs.items() if not isinstance(value, Record)}
        self.plain = not self.keyword_only and not self.recorded  # every input a record, none by name
        self.where = {"component": component.path, "api_method": spec.name}

    def values(self, args: tuple, kwargs: dict[str, object]) -> list[object]:
        """One value per input, in :attr:`names` order."""
        if len(args) > len(self.positional):
            raise SpaceError(f"wrong number of arguments: it takes {self.positional} positionally"
                             + (f" and {self.keyword_only} by name" if self.keyword_only else ""),
                             expected=len(self.positional), got=len(args), **self.where)
        given = dict(zip(self.positional, args))
        for name, value in kwargs.items():
            if name not in self.names or name in given:
                raise SpaceError("unknown or repeated argument", argument=name, expected=self.names,
                                 got=sorted(kwargs), **self.where)
            given[name] = value
        missing = [name for name in self.names if name not in given and name not in self.recorded]
        if missing:
            required = len(self.names) - len(self.recorded)
            raise SpaceError(f"wrong number of arguments: missing {missing}", expected=required,
                             got=required - len(missing), **self.where)
        return [given[name] if name in given else self.recorded[name] for name in self.names]


def input_converter(space: Space, to_backend: Callable[[np.ndarray, Space], object],
                    tensor_type: type | tuple[type, ...], context: dict[str, str],
                    key_path: str = "") -> Callable[[object], object]:
    """Checks a value against ``space`` (dtype kind, exact declared ranks, core shape) and converts it.

    Checks are the cheap ones (no bounds scan), so the per-call cost stays small. Backend tensors pass as
    they are.
    """
    if isinstance(space, ContainerSpace):
        return _container_converter(space, to_backend, tensor_type, context, key_path)
    assert isinstance(space, BoxSpace)
    if isinstance(space, TextBox):
        return lambda value: np.asarray(value, dtype=object)
    core, extra, kinds, dtype = space.shape, space.num_extra_ranks, space.dtype_kinds, space.dtype
    rank = len(core) + extra

    def convert(value: object) -> object:
        if not isinstance(value, np.ndarray):
            if isinstance(value, tensor_type):
                return value
            value = np.asarray(value)
        shape = value.shape
        if value.dtype.kind not in kinds or len(shape) != rank or shape[extra:] != core:
            _raise_mismatch(space, value, context, key_path)
        if value.dtype != dtype:
            value = value.astype(dtype)
        return to_backend(value, space)

    return convert


def _values_checked(space: Space, convert: Callable[[object], object], tensor_type: type | tuple[type, ...],
                    context: dict[str, str]) -> Callable[[object], object]:
    """``convert`` after a full check of the value (its numbers too: bounds, NaN); backend tensors pass as they
    are."""

    def checked(value: object) -> object:
        if not isinstance(value, tensor_type):
            _check_in_context(space, value, context)
        return convert(value)

    return checked


def _check_in_context(space: Space, value: object, context: dict[str, str], key_path: str = "") -> None:
    """``space.check(value)``; its SpaceError names the component, API method and argument of ``context``."""
    try:
        space.check(value, key_path)
    except SpaceError as error:
        error.add_context(**context)
        raise


def _raise_mismatch(space: BoxSpace, value: np.ndarray, context: dict[str, str], key_path: str) -> None:
    _check_in_context(space, value, context, key_path)
    expected = space.get_shape(with_batch_rank=True, with_time_rank=True)
    raise SpaceError("value lacks the batch/time ranks the API method was built with", key_path=key_path or None,
                     expected=f"shape {tuple('?' if d is None else d for d in expected)}",
                     got=f"shape {value.shape}", **context)


def _container_converter(space: ContainerSpace, to_backend: Callable[[np.ndarray, Space], object],
                         tensor_type: type | tuple[type, ...], context: dict[str, str],
                         key_path: str) -> Callable[[object], object]:
    children = {key: input_converter(child, to_backend, tensor_type, context, nest.join(key_path, key))
                for key, child in space.children()}
    is_tuple = not hasattr(space, "keys")

    def convert(value: object) -> object:
        try:  # a tuple (list) or a mapping of values: anything else raises TypeError, and check() names it
            if is_tuple:
                items = cast("Sequence[object]", value)
                if len(items) != len(children):
                    raise KeyError(len(items))
                return tuple(children[i](v) for i, v in enumerate(items))
            mapping = cast("Mapping[str, object]", value)
            if set(mapping) != set(children):
                raise KeyError(sorted(set(mapping) ^ set(children)))
            return {key: convert_child(mapping[key]) for key, convert_child in children.items()}
        except (KeyError, TypeError):
            _check_in_context(space, value, context, key_path)
            raise

    return convert


class ApiNamespace:
    """``executor.api.get_action(states)`` — the root's API methods as plain calls (tab-complete, keep their
    docstrings): NumPy in and out, or backend tensors out with ``as_numpy=False``. Each handle is made once, on first
    use, and goes straight to the executor's entry for the method."""

    def __init__(self, executor: Executor):
        self._executor = executor

    def __getattr__(self, name: str) -> Callable[..., Any]:
        executor = self._executor
        if name.startswith("_") or name not in executor.graph.root_inputs:
            raise AttributeError(name)
        numpy_entry, tensor_entry = executor._root_entries[True][name], executor._root_entries[False][name]

        def call(*args: object, as_numpy: bool = True, **kwargs: object) -> Any:
            return (numpy_entry if as_numpy else tensor_entry)(*args, **kwargs)

        call.__name__ = call.__qualname__ = name
        call.__doc__ = executor.root.api_methods[name].fn.__doc__
        self.__dict__[name] = call
        return call

    def __dir__(self) -> list[str]:
        return sorted(self._executor.graph.root_inputs)
