"""What a notebook widget looks at: a component (or an agent's / executor's root), its latest build, and how to
build it again.

:class:`Target` resolves a Component, Agent or Executor to the component in focus, the component graph of the
latest build that included it and an executor for that build. :meth:`Target.rebuild` builds the whole tree again
(with a device map) from the spaces the last build used, keeps the values of every variable that still exists
with the same shape, and for an agent installs the new executor on it. A failed rebuild is rolled back to the
last good one where possible, so an agent stays usable; the error is raised all the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rlworkbench.agents.protocols import GraphAgent, is_agent
from rlworkbench.core.builder import build
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.core.graph import ComponentGraph
from rlworkbench.core.observers import latest_graph
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Space


class Target:
    """A Component, Agent or Executor as the widgets see it.

    ``input_spaces``, ``backend``, ``seed``: what a (re)build uses; by default the spaces and backend of the latest
    build of the root (an agent's own for an agent). ``executor``: the executor of the component's current build,
    if the caller has it (otherwise one is made from the build's graph when needed). ``path``: look at this
    sub-component (relative to the target's component) instead, e.g. ``Target(agent, path="policy")``.
    """

    def __init__(self, target: Any, input_spaces: Mapping[str, object] | None = None, backend: str | None = None,
                 seed: int | None = None, executor: Executor | None = None, path: str | None = None):
        self.agent: GraphAgent | None = None
        if isinstance(target, Executor):
            executor, target = target, target.root
        if is_agent(target):
            self.agent, self.component = target, target.root
        elif isinstance(target, Component):
            self.component = target
        else:
            raise ConfigError("cannot look at this object", argument="target",
                              expected="a Component, Agent or Executor", got=type(target).__name__)
        if path:
            self.component = self.component.find(path)
        self.explicit_spaces = dict(input_spaces) if input_spaces is not None else None
        self.explicit_backend = backend
        self.seed = seed
        self._executor = executor
        self._saved_weights: dict[str, np.ndarray] = {}  # kept across a failed rebuild (which drops variables)
        self._good: dict[str, Any] | None = None  # device map and backend of the last good build
        self._last: dict[str, Any] = {}  # spaces, API methods and backend of the latest finished root build seen
        self._remember()

    # ----- the current build --------------------------------------------------------------------------------------
    @property
    def root(self) -> Component:
        return self.component.root

    @property
    def graph(self) -> ComponentGraph | None:
        """The graph of the latest build (finished or stuck) that included the component; None if never built or
        the tree changed since."""
        self._remember()
        return latest_graph(self.component)

    def _remember(self) -> None:
        """Keeps what the latest finished build of the root used: a structure change makes the graph forgotten,
        but a rebuild still needs its spaces."""
        graph = latest_graph(self.root)
        if graph is None or graph.root is not self.root or not graph.backend_name or graph.stuck is not None:
            return
        spaces = {param: record.space for inputs in graph.root_inputs.values() for param, record in inputs.items()}
        if all(space is not None for space in spaces.values()):
            self._last = {"spaces": spaces, "api_methods": list(graph.root_inputs), "backend": graph.backend_name}

    @property
    def built(self) -> bool:
        graph = self.graph
        return (graph is not None and graph.stuck is None and graph.backend_name is not None
                and self.component.built)

    @property
    def backend_name(self) -> str:
        from rlworkbench.core.backend import default_backend_name

        graph = self.graph
        if self.explicit_backend:
            return self.explicit_backend
        if graph is not None and graph.backend_name:
            return graph.backend_name
        if self._last:
            return self._last["backend"]
        return (self.agent.backend if self.agent is not None else None) or default_backend_name()

    def executor(self) -> Executor | None:
        """An executor of the current build (the agent's, the one given, or one made from the graph)."""
        graph = self.graph
        if not self.built or graph is None:
            return None
        if self.agent is not None and self.agent.executor is not None and self.agent.executor.graph is graph:
            return self.agent.executor
        if self._executor is None or self._executor.graph is not graph:
            from rlworkbench.core.backend import get_backend

            self._executor = get_backend(graph.backend_name).make_executor(graph)
        return self._executor

    # ----- building again -----------------------------------------------------------------------------------------
    def root_input_spaces(self) -> dict[str, Space]:
        """The spaces a rebuild of the root uses: given ones, the agent's, or those of the latest build."""
        if self.explicit_spaces is not None:
            return dict(self.explicit_spaces)
        if self.agent is not None:
            return dict(self.agent.root_input_spaces())
        self._remember()
        if not self._last:
            raise ConfigError("no input spaces to build with: give input_spaces, or build the root once",
                              component=self.root.path, argument="input_spaces", expected="a mapping of the "
                              "root's API parameters to spaces", got=None)
        return dict(self._last["spaces"])

    def api_methods(self) -> list[str] | None:
        if self.agent is not None:
            return None  # an agent's root builds all its API methods
        self._remember()
        return list(self._last["api_methods"]) if self._last and self.explicit_spaces is None else None

    def rebuild(self, device_map: Mapping[str, str] | None = None) -> Executor:
        """Builds the root again with ``device_map``; variables that still exist with the same shape keep their
        values. Returns the new executor (an agent gets it as ``agent.executor``)."""
        from rlworkbench.core.backend import get_backend
        from rlworkbench.core.builder import resolve_devices

        device_map = dict(device_map or {})
        backend = self.backend_name
        resolve_devices(self.root, device_map, get_backend(backend))  # a bad map fails before anything is reset
        if self.agent is not None and self.agent.executor is None:
            self.agent.build()  # the agent's own first build
        if self.root.built and self.graph is not None and self.graph.backend_name:
            self._good = {"device_map": self._placement(), "backend": self.graph.backend_name}
        weights = self._weights()
        try:
            executor = self._build(device_map, backend)
        except Exception:
            self._roll_back(weights)
            raise
        self._restore(weights)
        self._good = {"device_map": device_map, "backend": backend}
        return executor

    def _build(self, device_map: dict[str, str], backend: str) -> Executor:
        seed = self.seed if self.seed is not None else (getattr(self.agent, "seed", None) or 0)
        executor = build(self.root, self.root_input_spaces(), backend=backend, device_map=device_map, seed=seed,
                         api_methods=self.api_methods())
        self._executor = executor
        if self.agent is not None:
            self.agent.executor, self.agent.api = executor, executor.api
            self.agent.after_build()
        return executor

    def _weights(self) -> dict[str, np.ndarray]:
        if self.root.built and self.root.backend is not None:
            self._saved_weights = self.root.get_weights()
        return self._saved_weights

    def _restore(self, weights: dict[str, np.ndarray]) -> int:
        variables = self.root.variables()
        fitting = {name: value for name, value in weights.items()
                   if name in variables and tuple(variables[name].shape) == value.shape}
        if fitting:
            self.root.set_weights(fitting, strict=False)
        if self.agent is not None:
            self.agent.sync_towers()  # replica towers (a multi-device build) continue from the restored weights
        return len(fitting)

    def _placement(self) -> dict[str, str]:
        """The current build's devices as a device map that reproduces them."""
        root = self.root
        return {(c.path if c is root else c.relative_path(root)): c.resolved_device for c in root.walk()
                if c.resolved_device}

    def _roll_back(self, weights: dict[str, np.ndarray]) -> None:
        """After a failed rebuild: the last good build again (same devices and weights), so the component — an
        agent's executor — still works."""
        if self._good is None:
            if self.agent is not None:
                self.agent.executor = None
            return
        try:
            self._build(self._good["device_map"], self._good["backend"])
        except Exception:  # the tree itself does not build (e.g. a replaced component): stay unbuilt
            if self.agent is not None:
                self.agent.executor = None
            return
        self._restore(weights)
