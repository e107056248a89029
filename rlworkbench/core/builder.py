"""The build: push spaces from the root's API arguments through the component graph.

A component is *input-complete* once every argument of every API method it must build has a space; then its
``create_variables`` runs under its device, and its graph functions run (or are traced) as soon as their inputs
have spaces, giving the spaces of their outputs to the next components. One whose ``create_variables`` reads
other components' variables (``reads_variables_of``: an optimizer, a target network sync) also waits until those
are built. Propagation is driven by a ready queue: each record knows who waits for its space, so a component or
a graph function call is looked at once when its last missing input arrives — the cost grows linearly with the
graph. If the build gets stuck, the :class:`BuildError` names the component, API method and argument whose space
never arrived, and carries the partial graph.

What the build runs leaves nothing behind: variables a sample pass wrote are put back to the values they had
after ``create_variables``, gradients are dropped and random generators reseeded (see :class:`_Restorer`).
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from rlworkbench.core import observers
from rlworkbench.core.assembly import assemble
from rlworkbench.core.backend import Backend, get_backend
from rlworkbench.core.component import Component
from rlworkbench.core.container_calls import with_container_options
from rlworkbench.core.executor import Executor
from rlworkbench.core.graph import ComponentGraph, Stuck
from rlworkbench.core.records import GraphFnCall, Record
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError
from rlworkbench.spaces import Space, as_space


@dataclass(frozen=True)
class OutputSpaceOf:
    """An input space that is the output space of a root API method, known only once the build gets there:
    ``{"preprocessed_states": OutputSpaceOf("preprocess")}`` gives the argument whatever ``preprocess`` returns
    (``index`` picks one output of several; ``add_time_rank`` gives it a time rank too: sequences of it). No side
    build is needed to learn it."""

    api_method: str
    index: int | None = None
    add_time_rank: bool = False


def build(root: Component, input_spaces: Mapping[str, object], backend: str | Backend | None = None,
          device_map: Mapping[str, str] | None = None, seed: int | None = None,
          api_methods: Iterable[str] | None = None, executor_options: Mapping[str, object] | None = None) -> Executor:
    """Assembles and builds ``root``; returns its executor.

    ``input_spaces`` maps the root's API parameter names to spaces (rlworkbench or Gymnasium spaces; a list of
    spaces for a ``*args`` parameter; optional parameters — ``None`` defaults — only when they take a value; an
    :class:`OutputSpaceOf` for a space another root API method computes).
    ``device_map`` maps component paths below the root (glob patterns, e.g. ``"policy/*"``) to devices. ``seed``
    makes variable initial values reproducible (and equal across backends). ``executor_options`` go to the
    backend's executor (e.g. ``{"jit_compile": True}`` for XLA on TensorFlow; ``{"trace_at_build": True}`` traces
    every TF API method during the build instead of at its first call).
    """
    backend = get_backend(backend)
    for component in root.walk():
        component._reset_build_state()
    spaces, arity = _expand_var_args(root, input_spaces)
    try:
        graph = assemble(root, api_methods, arity, optional_given=spaces)
        graph.backend_name = backend.name
        observers.remember_graph(root, graph)
        _check_input_keys(graph, spaces)
        devices = resolve_devices(root, device_map, backend)
        _Build(graph, backend, devices, np.random.SeedSequence(seed).entropy if seed is None else seed).run(spaces)
        executor = backend.make_executor(graph, **dict(executor_options or {}))
    except Exception:
        observers.notify(root, "build_failed")
        raise
    observers.notify(root, "built")
    return executor


def assemble_for(root: Component, input_spaces: Mapping[str, object]) -> ComponentGraph:
    """The component graph ``build(root, input_spaces)`` would assemble (all root API methods), without building:
    for code that reshapes a composition before its build (a device strategy)."""
    spaces, arity = _expand_var_args(root, input_spaces)
    return assemble(root, None, arity, optional_given=spaces)


def _expand_var_args(root: Component, input_spaces: Mapping[str, object],
                     ) -> tuple[dict[str, Space | OutputSpaceOf], dict[str, int]]:
    spaces: dict[str, object] = {}
    arity: dict[str, int] = {}
    for key, value in input_spaces.items():
        if isinstance(value, (list, tuple)) and not isinstance(value, Space):
            for index, space in enumerate(value):
                spaces[f"{key}[{index}]"] = space
        else:
            spaces[key] = value
    for name, spec in root.api_methods.items():
        if spec.var_param:
            indices = [k for k in spaces if k.startswith(f"{spec.var_param}[")]
            arity[name] = len(indices)
    return {key: value if isinstance(value, OutputSpaceOf) else as_space(value, argument=key, component=root.path)
            for key, value in spaces.items()}, arity


def _check_input_keys(graph: ComponentGraph, spaces: dict[str, Space | OutputSpaceOf]) -> None:
    known = {param for inputs in graph.root_inputs.values() for param in inputs}
    unknown = sorted(set(spaces) - known)
    if unknown:
        optional = {p for name in graph.root_inputs for p in graph.root.api_methods[name].params}
        raise BuildError("input spaces given for arguments no root API method has", component=graph.root.path,
                         expected=sorted(known | optional), got=unknown, graph=graph)
    for key, value in spaces.items():
        if isinstance(value, OutputSpaceOf) and value.api_method not in graph.root_inputs:
            raise BuildError("an input space refers to the output of an API method that is not built",
                             component=graph.root.path, argument=key, expected=sorted(graph.root_inputs),
                             got=value.api_method, graph=graph)


def resolve_devices(root: Component, device_map: Mapping[str, str] | None, backend: Backend) -> dict[int, str]:
    """Device per component: the most specific matching ``device_map`` pattern, else the component's own
    ``device``, else its parent's. Patterns match paths below the root; one that matches nothing is an error."""
    patterns = dict(device_map or {})
    used: set[str] = set()
    devices: dict[int, str] = {}
    for component in root.walk():
        relative = component.relative_path(root)
        matches = [p for p in patterns if p == relative or p == component.path
                   or (relative and fnmatch.fnmatchcase(relative, p))]
        if matches:
            best = max(matches, key=lambda p: (p in (relative, component.path), len(p)))
            used.add(best)
            device = patterns[best]
        elif component.device is not None:
            device = component.device
        elif component.parent is not None:
            device = devices[id(component.parent)]
        else:
            device = None
        devices[id(component)] = backend.normalize_device(device)
    unused = sorted(set(patterns) - used)
    if unused:
        paths = [c.relative_path(root) or c.name for c in root.walk()]
        raise ConfigError("device_map entries match no component", component=root.path, expected=paths, got=unused)
    return devices


class _Restorer:
    """Puts back what the build's sample passes changed. Right after a component's ``create_variables`` it notes
    each variable's version (a backend's write counter; None where nothing ever runs during the build); after the
    build, a variable whose version moved gets its initial value again (regenerated from the seed, or a copy taken
    then if ``create_variables`` itself wrote it). Nothing is copied for variables the passes did not touch."""

    def __init__(self, backend: Backend):
        self.backend = backend
        self.noted: list[tuple[Component, str, Any, Any, np.ndarray | None]] = []

    def note(self, component: Component) -> None:
        for name, variable in component._variables.items():
            now = self.backend.variable_version(variable)
            written = bool(now)  # create_variables itself wrote it: keep a copy of what it made
            self.noted.append((component, name, variable, now, self.backend.read(variable) if written else None))

    def restore(self, components: list[Component]) -> None:
        for component, name, variable, noted_version, value in self.noted:
            if noted_version is not None and self.backend.variable_version(variable) != noted_version:
                self.backend.assign(variable, value if value is not None else component._initial_value(name))
        self.backend.clear_gradients([variable for _, _, variable, _, _ in self.noted])
        for component in components:
            for generator, seed in component._generators.values():
                self.backend.reseed(generator, seed)


class _Build:
    def __init__(self, graph: ComponentGraph, backend: Backend, devices: dict[int, str], seed: int):
        self.graph = graph
        self.backend = backend
        self.devices = devices
        self.seed = seed
        self.restorer = _Restorer(backend)
        self.samples: dict[int, object] = {}

    def run(self, spaces: dict[str, Space | OutputSpaceOf]) -> None:
        graph, root = self.graph, self.graph.root
        self.links: list[tuple[Record, Record, bool]] = []  # (root input, the output it takes, add a time rank)
        for api_name, inputs in graph.root_inputs.items():
            for param, record in inputs.items():
                if param not in spaces:
                    graph.stuck = Stuck(root.path, api_name, param)
                    raise BuildError("no input space given for this argument of the root", component=root.path,
                                     api_method=api_name, argument=param, expected="a Space in input_spaces",
                                     got="nothing", graph=graph)
                value = spaces[param]
                if isinstance(value, OutputSpaceOf):
                    self.links.append((record, self._output_record(value, param), value.add_time_rank))
                else:
                    record.space = value
        for component in root.walk():
            component.backend, component.ops = self.backend, self.backend.ops
            component.resolved_device = self.devices[id(component)]
            component._seed = self.seed
        self.backend.run_build(graph, self._propagate)
        called = graph.called_components
        for component in called:
            component.input_spaces = self._known_inputs(component)
        self.restorer.restore(called)

    def _output_record(self, link: OutputSpaceOf, param: str) -> Record:
        outputs = self.graph.root_call(link.api_method).outputs
        chosen = outputs if link.index is None else (
            outputs[link.index] if isinstance(outputs, tuple) and -len(outputs) <= link.index < len(outputs) else None)
        if not isinstance(chosen, Record):
            raise BuildError("an input space refers to an output that is not one value", component=self.graph.root.path,
                             argument=param, expected=f"an output of '{link.api_method}' (index into its outputs "
                             "when it returns several)", got=f"index {link.index} of {outputs!r}", graph=self.graph)
        return chosen

    # ----- propagation ---------------------------------------------------------------------------------------
    def _propagate(self, samples: dict[int, object]) -> None:
        """Creates variables and runs graph functions as spaces arrive, until done or stuck."""
        self.samples = samples
        graph = self.graph
        waiting = graph.called_components
        self.unbuilt = {id(c) for c in waiting}
        missing: dict[int, set[tuple[str, str]]] = {}  # component id -> (api, param) still without a space
        listeners: dict[int, list[Callable[[], None]]] = {}  # record id -> what to tell when its space arrives
        ready_components: deque[Component] = deque()
        ready_calls: deque[GraphFnCall] = deque()
        blocked: list[Component] = []  # input-complete, waiting for variables of others (reads_variables_of)

        def component_gets(component: Component, key: tuple[str, str]) -> Callable[[], None]:
            def arrived() -> None:
                keys = missing[id(component)]
                if key in keys:
                    keys.discard(key)
                    if not keys:
                        ready_components.append(component)
            return arrived

        for component in waiting:
            needed: dict[tuple[str, str], list[Record]] = {}
            for call in graph.calls_of(component):
                if call.spec.must_be_complete:
                    for param, record in call.input_records().items():
                        needed.setdefault((call.name, param), []).append(record)
            keys = {key for key, records in needed.items() if all(r.space is None for r in records)}
            missing[id(component)] = keys
            for key in keys:
                for record in needed[key]:
                    listeners.setdefault(record.id, []).append(component_gets(component, key))
            if not keys:
                ready_components.append(component)

        pending_inputs: dict[int, int] = {}  # graph fn call id -> input records without a space
        for call in graph.graph_fn_calls:
            unknown = [r for r in call.input_records() if r.space is None]
            pending_inputs[id(call)] = len(unknown)
            for record in unknown:
                listeners.setdefault(record.id, []).append(self._call_gets(call, pending_inputs, ready_calls))
        def space_arrived(record: Record) -> None:
            for tell in listeners.pop(record.id, ()):
                tell()

        def linked(target: Record, source: Record, add_time_rank: bool) -> Callable[[], None]:
            def arrived() -> None:
                target.space = source.space.with_time_rank() if add_time_rank else source.space
                space_arrived(target)
            return arrived

        for target, source, add_time_rank in self.links:  # after the listeners on the targets are in place
            if source.space is not None:
                linked(target, source, add_time_rank)()
            else:
                listeners.setdefault(source.id, []).append(linked(target, source, add_time_rank))
        calls_of_component: dict[int, list[GraphFnCall]] = {}
        for call in graph.graph_fn_calls:
            calls_of_component.setdefault(id(call.component), []).append(call)

        done_calls: set[int] = set()
        while ready_components or ready_calls or blocked:
            progressed = False
            while ready_components:
                component = ready_components.popleft()
                if self._unbuilt_sources(component):
                    blocked.append(component)
                    continue
                self._create_variables(component)
                self.unbuilt.discard(id(component))
                progressed = True
                ready_calls.extend(c for c in calls_of_component.get(id(component), []) if not pending_inputs[id(c)])
            still = [c for c in blocked if self._unbuilt_sources(c)]
            if len(still) < len(blocked):
                ready_components.extend(c for c in blocked if c not in still)
                blocked = still
                continue
            while ready_calls:
                call = ready_calls.popleft()
                if id(call) in done_calls or not call.component.built:
                    continue
                self._run_graph_fn(call)
                done_calls.add(id(call))
                progressed = True
                for record in call.outputs:
                    space_arrived(record)
            if not progressed:
                break
        pending = [c for c in graph.graph_fn_calls if id(c) not in done_calls]
        if self.unbuilt or pending:
            self._raise_stuck([c for c in waiting if id(c) in self.unbuilt], pending)

    @staticmethod
    def _call_gets(call: GraphFnCall, pending_inputs: dict[int, int], ready: deque[GraphFnCall]) -> Callable[[], None]:
        def arrived() -> None:
            pending_inputs[id(call)] -= 1
            if not pending_inputs[id(call)] and call.component.built:
                ready.append(call)
        return arrived

    def _missing_inputs(self, component: Component) -> list[tuple[str, str]]:
        needed: dict[tuple[str, str], bool] = {}
        for call in self.graph.calls_of(component):
            if call.spec.must_be_complete:
                for param, record in call.input_records().items():
                    key = (call.name, param)
                    needed[key] = needed.get(key, False) or record.space is not None
        return [key for key, known in needed.items() if not known]

    def _unbuilt_sources(self, component: Component) -> list[Component]:
        """The components named by ``reads_variables_of`` with (called) sub-components still to be built; the
        asking component's own subtree does not count (an optimizer of its parent's variables)."""
        try:
            sources = component.reads_variables_of()
        except RLWorkbenchError as error:
            raise self._located(error, component=component.path) from None
        if not sources:
            return []
        unbuilt = self.unbuilt - {id(c) for c in component.walk()}
        return [source for source in sources if any(id(c) in unbuilt for c in source.walk())]

    def _known_inputs(self, component: Component) -> dict[str, Space]:
        known: dict[str, Space] = {}
        for call in self.graph.calls_of(component):
            for param, record in call.input_records().items():
                if record.space is not None:
                    known.setdefault(param, record.space)
        return known

    def _create_variables(self, component: Component) -> None:
        try:
            with self.backend.device_scope(component.resolved_device):
                component.create_variables(self._known_inputs(component))
        except RLWorkbenchError as error:
            self._located(error, component=component.path)
            raise
        except Exception as error:
            raise BuildError(f"create_variables failed: {type(error).__name__}: {error}", component=component.path,
                             graph=self.graph) from error
        component._built = True
        self.restorer.note(component)

    def _run_graph_fn(self, call: GraphFnCall) -> None:
        component, spec = call.component, call.spec
        count = spec.num_returns(component)
        try:
            if spec.output_spaces is not None:
                in_spaces = [a.space if isinstance(a, Record) else a for a in call.args]
                declared = spec.output_spaces(component, *in_spaces)  # a space, or one per output
                spaces = [cast(Space, declared)] if count == 1 else list(cast("Iterable[Space]", declared))
            else:
                fn = with_container_options(spec, spec.implementation(self.backend.name))
                with self.backend.device_scope(component.resolved_device):
                    spaces = self.backend.infer_output_spaces(component, call, fn, self.samples)
        except RLWorkbenchError as error:
            self._located(error, component=component.path, api_method=call.api_call.name, graph_fn=spec.name)
            raise
        except Exception as error:
            inputs = ", ".join(repr(a.space) if isinstance(a, Record) else repr(a) for a in call.args)
            raise BuildError(f"graph function failed on inputs ({inputs}): {type(error).__name__}: {error}",
                             component=component.path, api_method=call.api_call.name, graph_fn=spec.name,
                             graph=self.graph) from error
        if len(spaces) != count:
            raise BuildError("graph function returned a different number of values than declared",
                             component=component.path, graph_fn=spec.name, expected=count, got=len(spaces),
                             graph=self.graph)
        for record, space in zip(call.outputs, spaces):
            record.space = space

    def _located(self, error: RLWorkbenchError, **context: str) -> RLWorkbenchError:
        """``error`` with where it happened added and, for a BuildError, the partial graph."""
        if isinstance(error, BuildError) and error.graph is None:
            error.graph = self.graph
        return error.add_context(**context)

    # ----- when it gets stuck -----------------------------------------------------------------------------------
    def _raise_stuck(self, waiting: list[Component], pending: list[GraphFnCall]) -> None:
        missing = [(c, api_name, param) for c in waiting for api_name, param in self._missing_inputs(c)]
        if missing:
            # name the cause of a cycle (an input made from the component's own outputs), not a bystander in it
            component, api_name, param = min(missing, key=lambda m: not self._depends_on_itself(*m))
            self.graph.stuck = Stuck(component.path, api_name, param)
            source = self._source_of(component, api_name, param)
            raise BuildError(f"the input space of this argument never arrived{source}; the component cannot "
                             "create its variables (if the value depends on this component's own outputs, "
                             "declare the API method with @api(must_be_complete=False))",
                             component=component.path, api_method=api_name, argument=param, graph=self.graph)
        blocked = [(c, source) for c in waiting for source in self._unbuilt_sources(c)]
        if blocked:
            component, source = blocked[0]
            api_name = self.graph.calls_of(component)[0].name
            self.graph.stuck = Stuck(component.path, api_name, f"variables of {source.path}")
            raise BuildError(f"create_variables needs the variables of '{source.path}', but those wait (directly "
                             "or not) for this component: a cycle", component=component.path, api_method=api_name,
                             graph=self.graph)
        call = pending[0]
        self.graph.stuck = Stuck(call.component.path, call.api_call.name, call.name)
        raise BuildError("graph function inputs never got spaces", component=call.component.path,
                         api_method=call.api_call.name, graph_fn=call.name, graph=self.graph)

    def _depends_on_itself(self, component: Component, api_name: str, param: str) -> bool:
        """Whether an argument's value is made (through any graph functions) from ``component``'s outputs."""
        records = [call.inputs[param] for call in self.graph.calls_of(component, api_name)]
        seen: set[int] = set()
        while records:
            producer = records.pop().producer
            if not isinstance(producer, GraphFnCall) or id(producer) in seen:
                continue
            if producer.component is component:
                return True
            seen.add(id(producer))
            records.extend(producer.input_records())
        return False

    def _source_of(self, component: Component, api_name: str, param: str) -> str:
        for call in self.graph.calls_of(component, api_name):
            producer = call.inputs[param].producer
            if isinstance(producer, GraphFnCall):
                return f" (it comes from graph function '{producer.name}' of '{producer.component.path}', " \
                       "which never ran)"
        return ""
