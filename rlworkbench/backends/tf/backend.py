"""TensorFlow as a backend: the build is traced once into one graph, variables live outside it (eager)."""

from __future__ import annotations

import contextlib
import re
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from rlworkbench.backends.tf import ops
from rlworkbench.backends.tf.specs import static_shape, zeros_of_pass
from rlworkbench.core import space_inference
from rlworkbench.core.backend import Backend, bind_built_calls
from rlworkbench.core.component import Component
from rlworkbench.core.container_calls import with_container_options
from rlworkbench.core.decorators import ApiMethod, Declared
from rlworkbench.core.records import GraphFnCall
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.spaces import Space

_ENTERED: weakref.WeakKeyDictionary[Component, list[int]] = weakref.WeakKeyDictionary()  # API methods being traced
_TORCH_DEVICE = re.compile(r"^(cpu|cuda|gpu)(?::(\d+))?$", re.IGNORECASE)


class TFBackend(Backend):
    name = "tf"
    ops = ops

    def normalize_device(self, device: str | None) -> str:
        if device is None:
            return "/CPU:0"
        match = _TORCH_DEVICE.match(device)
        if match:
            kind = "CPU" if match.group(1).lower() == "cpu" else "GPU"
            return f"/{kind}:{match.group(2) or 0}"
        spec = tf.DeviceSpec.from_string(device)
        if spec.device_type is None or spec.job is not None:
            return spec.to_string() or device
        return f"/{spec.device_type.upper()}:{spec.device_index or 0}"

    def available_devices(self) -> list[str]:
        names = [d.name for d in tf.config.list_logical_devices() if d.device_type in ("CPU", "GPU")]
        return list(dict.fromkeys(self.normalize_device(name) for name in [None, *names]))

    def device_scope(self, device: str | None) -> contextlib.AbstractContextManager:
        return tf.device(device) if device else contextlib.nullcontext()

    def create_variable(self, component: Component, name: str, value: np.ndarray, trainable: bool,
                        layout: str = "row_major") -> tf.Variable:
        with tf.init_scope(), tf.device(component.resolved_device), tf.name_scope(component.path + "/"):
            return tf.Variable(value, trainable=trainable and value.dtype.kind == "f", name=name)

    def limit_threads(self, count: int) -> None:
        """Takes effect only before TF's runtime starts (TF cannot resize its pools later)."""
        try:
            tf.config.threading.set_intra_op_parallelism_threads(count)
        except RuntimeError:
            pass

    def create_generator(self, component: Component, seed: int) -> tf.random.Generator:
        # scoped like variables: the build trace tracks variables by name, and every generator's is "StateVar"
        with tf.init_scope(), tf.device(component.resolved_device), tf.name_scope(component.path + "/"):
            return tf.random.Generator.from_seed(seed)

    def reseed(self, generator: tf.random.Generator, seed: int) -> None:
        with tf.init_scope():
            generator.reset_from_seed(seed)

    def read(self, variable: tf.Variable) -> np.ndarray:
        with tf.init_scope():
            return variable.numpy().copy()

    def assign(self, variable: tf.Variable, value: np.ndarray) -> None:
        with tf.init_scope():
            variable.assign(value)

    def run_build(self, graph: ComponentGraph, propagate: Callable[[dict[int, Any]], None]) -> None:
        """Traces the whole build once, as one graph (like RLgraph's static build): graph functions see tensors of
        the sample passes' static sizes (:mod:`~rlworkbench.core.space_inference`), gradients between components
        work, and nothing is computed or changed."""
        def trace() -> int:
            propagate({})
            return 0

        tf.compat.v1.wrap_function(trace, [])  # one trace (a tf.function would retrace after variables appear)

    def infer_output_spaces(self, component: Component, call: GraphFnCall, fn: Callable[..., object],
                            samples: dict[int, object]) -> list[Space]:
        """Traces ``fn`` in both sample passes, on inputs of their static sizes (once where the inputs are the
        same in both): unknown dimensions alone could not tell a batch rank from a time rank, a reduction over one
        of them or a flatten of both."""
        return space_inference.spaces_of_sample_passes(component, call, fn, samples, zeros_of_pass, static_shape)

    def bind_call(self, declared: Declared, component: Component) -> Callable[..., Any]:
        """API methods open their component's name scope and device while they are traced (Python runs only
        when tracing, so this costs nothing per call); graph functions name themselves in errors."""
        graph_fn = declared.spec if not isinstance(declared, ApiMethod) else declared.spec.graph_fn
        function = None
        if graph_fn is not None:
            body = with_container_options(graph_fn, graph_fn.implementation("tf"))
            function = _located(body, component, graph_fn.name)
        if isinstance(declared, ApiMethod):
            entered = _ENTERED.setdefault(component, [0])  # shared by the component's API methods
            function = _scoped(function or declared.spec.fn, component, declared.name, entered)
        return types.MethodType(function, component)

    def make_executor(self, graph: ComponentGraph, **options: object) -> Executor:
        from rlworkbench.backends.tf.executor import TFExecutor

        known = ["jit_compile", "trace_at_build"]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ConfigError("unknown TensorFlow executor options", expected=known, got=unknown)
        bind_built_calls(graph, self)
        return TFExecutor(graph, self, **{name: bool(value) for name, value in options.items()})


def _scoped(function: Callable[..., object], component: Component, api_name: str,
            entered: list[int]) -> Callable[..., Any]:
    """``function`` traced inside the component's name scope and device; a call from another API method of the
    same component is already inside them (re-opening the scope would give ``actor/actor/...``). Errors raised
    while tracing learn the component and API method they came through."""
    scope, device = component.name, component.resolved_device  # relative: scopes nest like the components

    def scoped(self: Any, *args: object, **kwargs: object) -> Any:
        if entered[0]:
            return function(self, *args, **kwargs)
        entered[0] += 1
        try:
            with tf.name_scope(scope), tf.device(device):
                return function(self, *args, **kwargs)
        except RLWorkbenchError as error:
            error.add_context(component=component.path, api_method=api_name)
            raise
        finally:
            entered[0] -= 1

    return scoped


def _located(function: Callable[..., object], component: Component, graph_fn_name: str) -> Callable[..., Any]:
    """A graph function whose maths fails while an executor traces it (e.g. one with declared output spaces,
    which the build never ran) raises a :class:`BuildError` naming it, not a bare TensorFlow error."""

    def located(self: Any, *args: object, **kwargs: object) -> Any:
        try:
            return function(self, *args, **kwargs)
        except RLWorkbenchError as error:
            error.add_context(component=component.path, graph_fn=graph_fn_name)
            raise
        except Exception as error:
            raise BuildError(f"graph function failed while tracing: {type(error).__name__}: {error}",
                             component=component.path, graph_fn=graph_fn_name) from error

    return located
