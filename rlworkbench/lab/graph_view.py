"""A component graph for the graph viewer, without a kernel: the agent a config describes, built for an env's
spaces in the server's process (kept for the next request), drawn by the library's renderer as SVG, with what
``GraphExplorer`` tells of each component (class, device, variables, API methods and their spaces) for a click on
its cluster. Clusters carry ``id="component-<path>"`` in the SVG."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rlworkbench.errors import BuildError

if TYPE_CHECKING:
    from rlworkbench.agents import Agent
    from rlworkbench.core.component import Component
    from rlworkbench.core.graph import ComponentGraph

CACHE_SIZE = 8
_CACHE: dict[str, Agent | BuildError] = {}
_LOCK = threading.Lock()  # one build at a time: builds change process-wide backend state


def graph_payload(config: Mapping[str, object] | str, env: str, backend: str = "torch", depth: int | None = None,
                  api: str | None = None) -> dict[str, object]:
    """``{"svg", "title", "components": {path: details}, "api_methods", "error", "max_depth"}`` for ``config`` on
    ``env``. A config that does not build is drawn as far as it got, the stuck component in red, with ``error``
    set. ``max_depth`` is how deep the component tree goes below the drawn component (the depths worth offering)."""
    from rlworkbench.visualize.render import graph_svg
    from rlworkbench.visualize.views import view_of

    with _LOCK:
        target = _built(config, env, backend)
        view = view_of(target)
        svg = graph_svg(target, depth=depth, api=api)
        tree = _tree(view.focus)
        components = {component.path: _details(component, view.graph) for component in tree}
    return {"svg": svg, "title": f"{view.focus.path} on {env} ({backend})", "components": components,
            "api_methods": sorted(view.focus.api_methods),
            "error": None if view.error is None else f"{type(view.error).__name__}: {view.error}",
            "max_depth": max(component.path.count("/") for component in tree) - view.focus.path.count("/")}


def _built(config: Mapping[str, object] | str, env: str, backend: str) -> Agent | BuildError:
    """The built agent (or the BuildError with its partial graph) for this config, env and backend."""
    from rlworkbench.agents import Agent
    from rlworkbench.core.backend import get_backend
    from rlworkbench.execution.envs import make_vector_env

    key = json.dumps([config, env, backend], sort_keys=True, default=str)
    if key in _CACHE:
        return _CACHE[key]
    get_backend(backend).limit_threads(1)
    vector_env = make_vector_env(env, 1)
    try:
        agent = Agent.from_env(vector_env, config, backend=backend)
    finally:
        vector_env.close()
    try:
        target: Agent | BuildError = agent.build()
    except BuildError as error:
        if error.graph is None:
            raise
        target = error
    if len(_CACHE) >= CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = target
    return target


def _tree(component: Component) -> list[Component]:
    found = [component]
    for child in component.sub_components.values():
        found += _tree(child)
    return found


def _details(component: Component, graph: ComponentGraph | None) -> dict[str, object]:
    from rlworkbench.workbench.explorer_details import api_table, component_summary

    summary = component_summary(component, graph)
    api = api_table(component, graph)
    return {**summary, "api": api.drop(columns=["built"]).to_dict("records")}
