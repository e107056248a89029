"""The one dispatch point for backends: the :class:`Backend` interface and the registry that finds one.

Core never imports a framework. A backend is looked up by name (``"torch"``, ``"tf"``) and imported only
then; the default comes from ``RLWORKBENCH_BACKEND`` (``torch`` when unset).
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import importlib.util
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.core import replication
from rlworkbench.core.decorators import ApiMethod, Declared
from rlworkbench.errors import ConfigError
from rlworkbench.extras import missing_extra

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.core.records import GraphFnCall
    from rlworkbench.spaces import Space

BACKEND_ENV_VAR = "RLWORKBENCH_BACKEND"
_REGISTRY: dict[str, str] = {
    "torch": "rlworkbench.backends.torch:TorchBackend",
    "tf": "rlworkbench.backends.tf:TFBackend",
}
_INSTANCES: dict[str, Backend] = {}
FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}  # a backend's framework package (whose extra installs it)


class Backend(abc.ABC):
    """What the builder and executors need from a framework; components see only ``ops``."""

    name: str = ""
    ops: Any = None  # the namespace of tensor operations graph functions call as ``self.ops``

    @abc.abstractmethod
    def normalize_device(self, device: str | None) -> str:
        """The framework's spelling of a device (``None`` is the default device)."""

    def available_devices(self) -> list[str]:
        """The devices components can be put on here, in this backend's spelling (default device first)."""
        return [self.normalize_device(None)]

    def device_scope(self, device: str | None) -> contextlib.AbstractContextManager:
        """Context in which variables and ops land on ``device``."""
        return contextlib.nullcontext()

    def run_build(self, graph: ComponentGraph, propagate: Callable[[dict[int, Any]], None]) -> None:
        """Runs the build's space propagation in whatever context the backend needs.

        ``propagate(samples)`` creates variables and runs graph functions; ``samples`` maps record ids to values.
        It starts empty (values are sampled as needed); a static-graph backend runs it inside one graph, traced
        once.
        """
        propagate({})

    @abc.abstractmethod
    def create_variable(self, component: Component, name: str, value: np.ndarray, trainable: bool,
                        layout: str = "row_major") -> Any:
        """A variable holding ``value``; ``layout`` is a storage hint (see ``Component.create_variable``)."""

    def limit_threads(self, count: int) -> None:  # noqa: B027 - an optional hook: most backends need nothing
        """Caps the framework's intra-op threads (small RL batches run fastest on one thread per process)."""

    @abc.abstractmethod
    def create_generator(self, component: Component, seed: int) -> object:
        """A random generator on the component's device, for the ``ops.random_*`` functions."""

    @abc.abstractmethod
    def reseed(self, generator: Any, seed: int) -> None:
        """Puts a generator back to the state ``seed`` gives it."""

    @abc.abstractmethod
    def read(self, variable: Any) -> np.ndarray:
        """A NumPy copy of a variable's value."""

    @abc.abstractmethod
    def assign(self, variable: Any, value: np.ndarray) -> None: ...

    def layout_of(self, variable: Any) -> str:
        """How a variable is stored: ``"row_major"``, or ``"column_major"`` for a matrix created with that hint
        on a backend that honours it (see ``Component.create_variable``)."""
        return "row_major"

    def variable_version(self, variable: Any) -> int | None:
        """How often ``variable`` was written since it was created (0: never), for backends whose build runs
        graph functions for real; ``None`` where nothing runs during a build (the default)."""
        return None

    def clear_gradients(self, variables: list[object]) -> None:  # noqa: B027 - an optional hook
        """Drops gradients the build's sample passes left on ``variables`` (backends that keep them on variables)."""

    @abc.abstractmethod
    def infer_output_spaces(self, component: Component, call: GraphFnCall, fn: Callable[..., object],
                            samples: dict[int, object]) -> list[Space]:
        """Runs (or traces) a graph function on its input spaces and returns the exact spaces of its outputs
        (see :mod:`rlworkbench.core.space_inference`).

        ``samples`` (record id → the values of both sample passes) feeds each graph function the outputs of the
        ones before it, so a sample pass is one forward pass through the graph (gradients included); the build
        drops it when done.
        """

    @abc.abstractmethod
    def bind_call(self, declared: Declared, component: Component) -> Callable[..., object]:
        """The callable ``component.<declared.name>`` gives once built: the user's function bound to the
        component, wrapped only as the backend must (devices, container options, name scopes)."""

    @abc.abstractmethod
    def make_executor(self, graph: ComponentGraph, **options: object) -> Executor:
        """The executor for the root (the built calls are bound by then: :func:`bind_built_calls`)."""


def bind_built_calls(graph: ComponentGraph, backend: Backend) -> None:
    """Gives each built component its table of bound calls — the one place a build changes what
    ``component.<api method or graph function>`` resolves to (see :mod:`rlworkbench.core.decorators`)."""
    learning = replication.learning_methods(graph.root)
    for component in graph.called_components:
        cls = type(component)
        declared = [getattr(cls, name) for name in dict.fromkeys([*component.api_methods, *component.graph_fns])]
        component._built_calls = {item: backend.bind_call(item, component) for item in declared}
        if replication.replicas_of(component) is not None:  # learning calls go to its replica towers
            for item in declared:
                if isinstance(item, ApiMethod):
                    bound = component._built_calls[item]
                    component._built_calls[item] = replication.dispatching(bound, component, item.spec)
        if component is graph.root:
            for item in declared:
                if item.name in learning:
                    component._built_calls[item] = replication.marking_learning(component._built_calls[item])


def register_backend(name: str, target: str) -> None:
    """Registers ``"package.module:ClassName"`` under ``name`` (imported on first use)."""
    _REGISTRY[name] = target


def default_backend_name() -> str:
    return os.environ.get(BACKEND_ENV_VAR, "torch")


def get_backend(backend: str | Backend | None = None) -> Backend:
    """The backend instance for a name (or the default), importing its framework on first use."""
    if isinstance(backend, Backend):
        return backend
    name = backend or default_backend_name()
    if name not in _REGISTRY:
        raise ConfigError(f"unknown backend '{name}'", expected=sorted(_REGISTRY), got=name)
    if name not in _INSTANCES:
        module_name, class_name = _REGISTRY[name].split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            framework = FRAMEWORKS.get(name, module_name)
            if error.name and error.name.split(".")[0] == framework:
                raise missing_extra(framework, f"backend={name!r}") from error
            raise ConfigError(f"backend '{name}' cannot be imported here: {error}",
                              expected=list(available_backends()), got=name) from error
        _INSTANCES[name] = getattr(module, class_name)()
    return _INSTANCES[name]


def available_backends() -> Iterator[str]:
    """Names of registered backends whose framework and backend module are installed (nothing imported)."""
    for name, target in _REGISTRY.items():
        module_name = target.split(":")[0]
        framework = FRAMEWORKS.get(name, module_name)
        if importlib.util.find_spec(framework) is not None and importlib.util.find_spec(module_name) is not None:
            yield name
