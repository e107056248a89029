"""The component graph: what assembly found and the build annotated, for people and renderers to read.

Components (path, class, device), their API methods and graph functions, the calls between them and the
records that flow along those calls — with spaces once built. The graph renderer and the notebook widgets
read exactly this object; nothing in it depends on a backend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlworkbench import nest
from rlworkbench.core.records import ApiCall, GraphFnCall, Record
from rlworkbench.drawable import pretty_with_draw_hint

if TYPE_CHECKING:
    from rlworkbench.core.component import Component


@dataclass(frozen=True)
class CallEdge:
    """``caller`` API method of one component calls ``callee`` API method of another (or itself)."""

    caller_path: str
    caller_api: str
    callee_path: str
    callee_api: str


@dataclass(frozen=True)
class Stuck:
    """Where a build stopped: the component, API method and argument whose space never arrived."""

    component: str
    api_method: str
    argument: str


class ComponentGraph:
    """What assembly found (components, API and graph-function calls, the records between them) and the build
    annotated (spaces, devices)."""

    _repr_pretty_ = pretty_with_draw_hint  # in IPython: repr plus how to get the picture

    def __init__(self, root: Component, api_calls: list[ApiCall], graph_fn_calls: list[GraphFnCall],
                 root_inputs: dict[str, dict[str, Record]]):
        self.root = root
        self.api_calls = api_calls
        self.graph_fn_calls = graph_fn_calls
        self.root_inputs = root_inputs
        self.stuck: Stuck | None = None
        self.backend_name: str | None = None
        self._api_calls_by_component: dict[int, list[ApiCall]] = {}
        self._graph_fn_calls_by_component: dict[int, list[GraphFnCall]] = {}
        self._callees: dict[int, list[ApiCall]] = {}
        for call in api_calls:  # indexed once: lookups stay cheap however large the graph
            self._api_calls_by_component.setdefault(id(call.component), []).append(call)
            if call.caller is not None:
                self._callees.setdefault(id(call.caller), []).append(call)
        for fn_call in graph_fn_calls:
            self._graph_fn_calls_by_component.setdefault(id(fn_call.component), []).append(fn_call)

    # ----- reading the structure -----------------------------------------------------------------------------
    @property
    def components(self) -> list[Component]:
        """Every component below the root (root first, breadth first), called or not."""
        return list(self.root.walk())

    def component(self, path: str) -> Component:
        """A component by path, with or without the root's name in front."""
        for component in self.root.walk():
            if path in (component.path, component.relative_path(self.root)):
                return component
        raise KeyError(path)

    def calls_of(self, component: Component, api_name: str | None = None) -> list[ApiCall]:
        calls = self._api_calls_by_component.get(id(component), [])
        return list(calls) if api_name is None else [c for c in calls if c.name == api_name]

    def graph_fn_calls_of(self, component: Component) -> list[GraphFnCall]:
        return list(self._graph_fn_calls_by_component.get(id(component), []))

    @property
    def called_components(self) -> list[Component]:
        return [c for c in self.root.walk() if id(c) in self._api_calls_by_component]

    @property
    def edges(self) -> list[CallEdge]:
        seen: dict[CallEdge, None] = {}
        for call in self.api_calls:
            if call.caller is not None:
                edge = CallEdge(call.caller.component.path, call.caller.name, call.component.path, call.name)
                seen.setdefault(edge, None)
        return list(seen)

    def root_call(self, api_name: str) -> ApiCall:
        for call in self.api_calls:
            if call.caller is None and call.name == api_name:
                return call
        raise KeyError(api_name)

    def subtree(self, call: ApiCall) -> list[ApiCall]:
        """``call`` and every API call made (directly or not) from it."""
        found, index = [call], 0
        while index < len(found):
            found.extend(self._callees.get(id(found[index]), []))
            index += 1
        return found

    def requires_grad(self, api_name: str, component: Component | None = None) -> bool:
        """Whether an API method reaches a graph function that takes gradients."""
        calls = self.calls_of(component, api_name)[:1] if component is not None else [self.root_call(api_name)]
        if not calls:
            return False
        inside = {id(c) for c in self.subtree(calls[0])}
        return any(g.spec.requires_grad for g in self.graph_fn_calls if id(g.api_call) in inside)

    def api_spaces(self, component: Component, api_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Input and output spaces (by parameter / output key path) of an API method's first call."""
        calls = self.calls_of(component, api_name)
        if not calls:
            return {}, {}
        call = calls[0]
        inputs = {p: r.space for p, r in call.input_records().items()}
        outputs = {p: r.space for p, r in call.output_records().items()}
        return inputs, outputs

    def output_space(self, api_name: str) -> Any:
        """The nested output space(s) of a root API method (``None`` where it returns nothing)."""
        return nest.map_structure(lambda leaf: leaf.space if isinstance(leaf, Record) else None,
                                  self.root_call(api_name).outputs)

    # ----- reading it as a person -----------------------------------------------------------------------------
    def summary(self) -> str:
        """A readable tree: components with class, device and variables; API methods with their spaces."""
        lines = [f"Component graph of '{self.root.path}'" + (f" [{self.backend_name}]" if self.backend_name else "")]
        for component in _depth_first(self.root):
            depth = component.path.count("/") - self.root.path.count("/")
            indent = "  " * depth
            params = sum(math.prod(tuple(v.shape)) for v in component._variables.values())
            device = component.resolved_device or component.device or "-"
            state = "" if component.built else "  (not built)"
            lines.append(f"{indent}{component.name} <{type(component).__name__}> device={device} "
                         f"variables={len(component._variables)} ({params:,} values){state}")
            for api_name in component.api_methods:
                inputs, outputs = self.api_spaces(component, api_name)
                if not self.calls_of(component, api_name):
                    continue
                args = ", ".join(f"{p}: {s!r}" for p, s in inputs.items())
                outs = ", ".join(f"{p}: {s!r}" for p, s in outputs.items()) or "None"
                lines.append(f"{indent}  .{api_name}({args}) -> {outs}")
        if self.stuck is not None:
            lines.append(f"STUCK at component '{self.stuck.component}', API method '{self.stuck.api_method}', "
                         f"argument '{self.stuck.argument}'")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"ComponentGraph(root='{self.root.path}', components={len(self.components)}, "
                f"api_calls={len(self.api_calls)}, graph_fn_calls={len(self.graph_fn_calls)})")


def _depth_first(component: Component) -> list[Component]:
    found = [component]
    for child in component.sub_components.values():
        found.extend(_depth_first(child))
    return found
