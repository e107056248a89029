"""The TensorFlow executor: each root API method is one ``tf.function`` with an input signature from its
spaces, traced once, on its first call (or all at build with ``trace_at_build=True``); ``execute`` of several
API methods runs them in one fused graph call."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from rlworkbench import nest
from rlworkbench.backends.tf.graph_call import GraphCall, eager_constant, output_packer
from rlworkbench.backends.tf.specs import tensor_spec
from rlworkbench.core.executor import EntryArguments, Executor
from rlworkbench.core.records import Record
from rlworkbench.errors import BuildError, RLWorkbenchError

if TYPE_CHECKING:
    from pathlib import Path

    from rlworkbench.core.component import Component
    from rlworkbench.core.export import ExportPlan
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.spaces import Space


def to_numpy(value: object) -> Any:
    """A tensor as a NumPy array (0-d arrays for scalars, as on torch; strings as ``str`` in object arrays)."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        array = np.asarray(value.numpy())  # a scalar tensor's .numpy() is a NumPy scalar (or bytes)
        if array.dtype.kind in "OS":  # tf.string comes back as bytes
            return np.vectorize(lambda b: b.decode() if isinstance(b, bytes) else b, otypes=[object])(array)
        return array
    return value


def _to_constant(value: np.ndarray, space: Space) -> tf.Tensor:
    return eager_constant(value)


class TFExecutor(Executor):
    backend_tensor_type = (tf.Tensor, tf.Variable)

    def __init__(self, graph: ComponentGraph, backend: Any, jit_compile: bool = False, trace_at_build: bool = False):
        self.jit_compile = jit_compile
        self.trace_at_build = trace_at_build
        self._functions: dict[tuple[str, str], Any] = {}
        self._fused: dict[tuple[str, ...], Callable[..., Any]] = {}
        super().__init__(graph, backend)

    def graph_function(self, component: Component, api_name: str) -> Any:
        """The ``tf.function`` of an API method (traced on first use, then reused)."""
        key = (component.path, api_name)
        if key not in self._functions:
            method = getattr(component, api_name)
            call = self.graph.calls_of(component, api_name)[0]
            records = [value for value in call.inputs.values() if isinstance(value, Record)]
            signature = [tensor_spec(record.space) for record in records]
            constants = {i: v for i, v in enumerate(call.inputs.values()) if not isinstance(v, Record)}
            arguments = EntryArguments(component, call)
            split, by_name = len(arguments.positional), arguments.keyword_only

            def run(*tensors: object) -> Any:
                supplied = iter(tensors)
                args = [constants[i] if i in constants else next(supplied) for i in range(len(call.inputs))]
                return method(*args[:split], **dict(zip(by_name, args[split:])))

            function = tf.function(run, input_signature=signature, autograph=False, jit_compile=self.jit_compile)
            try:
                function.get_concrete_function()  # trace now, so errors surface here
            except RLWorkbenchError as error:
                if isinstance(error, BuildError) and error.graph is None:
                    error.graph = self.graph
                error.add_context(component=component.path, api_method=api_name)
                raise
            self._functions[key] = function
        return self._functions[key]

    def _make_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., Any]:
        """Traces on the first call: most runs use a few of an agent's API methods, and each trace costs 0.1-0.4 s
        (the build trace has run every graph function already, so errors in maths and spaces surface there)."""
        if self.trace_at_build:
            return self._traced_entry(component, api_name, as_numpy)
        traced: Callable[..., Any] | None = None

        def entry(*args: object, **kwargs: object) -> Any:
            nonlocal traced
            if traced is None:
                traced = self._traced_entry(component, api_name, as_numpy)
            return traced(*args, **kwargs)

        return entry

    def _traced_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., Any]:
        # the one trace's concrete function, run directly (GraphCall): skips tf.function's per-call signature
        # binding and cache lookup and the concrete function's own Python; the fixed input signature means there
        # is never another trace
        function = GraphCall(self.graph_function(component, api_name).get_concrete_function())
        call = self.graph.calls_of(component, api_name)[0]
        converters = [c for c, v in zip(self.input_converters(component, api_name, _to_constant),
                                        call.inputs.values()) if isinstance(v, Record)]
        arguments = EntryArguments(component, call)
        is_record = [isinstance(v, Record) for v in call.inputs.values()]
        convert_out = output_packer(function, to_numpy) if as_numpy else function.pack
        flat_call = function.flat_call

        if arguments.plain and len(converters) == 1:
            (convert,) = converters

            def entry_one(*args: object, **kwargs: object) -> Any:
                if kwargs or len(args) != 1:
                    args = arguments.values(args, kwargs)
                return convert_out(flat_call(convert(args[0])))

            return entry_one

        def entry(*args: object, **kwargs: object) -> Any:
            values = arguments.values(args, kwargs)
            records = [value for value, record in zip(values, is_record) if record]
            return convert_out(flat_call(*[convert(a) for convert, a in zip(converters, records)]))

        return entry

    def _execute_many(self, calls: list[tuple[str, tuple, dict]], as_numpy: bool) -> list[Any]:
        """All requested API methods in one graph call (the paper batches requested ops into one run)."""
        names = tuple(name for name, _, _ in calls)
        if names not in self._fused:
            self._fused[names] = self._make_fused(names)
        outputs = self._fused[names]([(args, kwargs) for _, args, kwargs in calls])
        return [nest.map_structure(to_numpy, out) for out in outputs] if as_numpy else list(outputs)

    def _make_fused(self, names: tuple[str, ...]) -> Callable[..., Any]:
        parts = []
        for name in names:
            if name not in self.graph.root_inputs:
                raise BuildError("no such built API method", component=self.root.path, api_method=name,
                                 expected=sorted(self.graph.root_inputs))
            call = self.graph.calls_of(self.root, name)[0]
            converters = self.input_converters(self.root, name, _to_constant)
            records = [isinstance(v, Record) for v in call.inputs.values()]
            parts.append((self.graph_function(self.root, name), EntryArguments(self.root, call), converters, records))
        signature = [spec for function, *_ in parts for spec in function.input_signature]

        def fused_graph(*tensors: object) -> list[Any]:
            outputs, offset = [], 0
            for function, *_ in parts:
                count = len(function.input_signature)
                outputs.append(function(*tensors[offset:offset + count]))
                offset += count
            return outputs

        function = tf.function(fused_graph, input_signature=signature, autograph=False, jit_compile=self.jit_compile)
        fused = GraphCall(function.get_concrete_function())

        def run(args_per_call: list[tuple[tuple, dict]]) -> list[Any]:
            """``args_per_call``: one ``(args, kwargs)`` per API method (checked per method, so a call with
            too many arguments cannot shift its extra ones into the next method's)."""
            converted = []
            for (_, arguments, converters, records), (args, kwargs) in zip(parts, args_per_call):
                converted += [convert(a) for convert, a, record in zip(converters, arguments.values(args, kwargs),
                                                                        records) if record]
            return fused(*converted)

        run.function = function  # type: ignore[attr-defined]  # the tf.function, for inspection (tracing count)
        return run

    export_formats = ("saved_model",)

    def _export(self, plan: ExportPlan, path: Path, format: str) -> None:
        from rlworkbench.backends.tf.export import export

        export(self, plan, path, format)

    def graph_def(self, api_name: str, component: Component | str | None = None) -> bytes:
        """The TF graph of an API method as a serialized ``GraphDef`` (each component a name scope)."""
        target = self.root if component is None else (
            component if not isinstance(component, str) else self._component(component))
        concrete = self.graph_function(target, api_name).get_concrete_function()
        return concrete.graph.as_graph_def().SerializeToString()
