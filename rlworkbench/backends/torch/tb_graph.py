"""TensorBoard graphs on PyTorch: a root API method traced with its components as name scopes.

After a build, components are plain Python objects and an API method is a define-by-run function, so a plain trace
would show one flat list of ``aten`` ops. Here a mirror tree of scope modules — one ``nn.Module`` per component,
its class named after the component's class and registered under the component's name, holding the variables that
component owns and the method reads — stands in for the components while ``SummaryWriter.add_graph`` traces the
method: each component's API methods run through its scope module, so the tracer records the nesting that TF's
name scopes give: ``DQNGraph[dqn]/Policy[policy]/NeuralNetwork[network]/Dense[dense_0]/kernel`` (the root's class
and name, then each component's class and name).

What is traced is export's: the :class:`~rlworkbench.core.export.ExportPlan` of the method, its example inputs
sampled from the input spaces and the variables found by running it once (:mod:`rlworkbench.backends.torch.export`);
variables the example runs changed (a memory's insert, a counter) get their values back afterwards.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import torch

from rlworkbench.backends.torch.export import EXAMPLE_SIZES, ExportModule, _first_lines, _variables_read
from rlworkbench.core.export import ExportPlan
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from rlworkbench.backends.torch.executor import TorchExecutor
    from rlworkbench.core.component import Component


class _Scope(ExportModule):
    """A component's stand-in during the trace: calls run through it, so the tracer opens its scope."""

    def forward(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return function(*args, **kwargs)


def write_graph(executor: TorchExecutor, logdir: str, api_name: str, component: Component | str | None = None,
                ) -> str:
    """Traces the root API method ``api_name`` on example inputs and writes its graph under ``logdir``."""
    root = executor.root
    name = component if isinstance(component, str) or component is None else component.path
    if name not in (None, "", root.path):
        raise ConfigError("the torch backend writes graphs of root API methods only", component=name,
                          api_method=api_name, expected=f"component=None (the root '{root.path}')", got=name)
    plan = ExportPlan(executor.graph, [api_name])
    where = {"component": root.path, "api_method": api_name}
    device = torch.device(root.resolved_device or "cpu")
    batch, time = EXAMPLE_SIZES[0]
    examples = tuple(torch.as_tensor(value, device=device) for value in plan.example_inputs(batch, time))
    values_before: dict[str, torch.Tensor] = {}
    try:
        try:
            top, scopes = _scope_modules(plan, _variables_read(plan, examples, values_before))
        except RLWorkbenchError as error:
            error.add_context(**where)
            raise
        except Exception as error:
            raise BuildError(f"the API method failed on example inputs: {type(error).__name__}: {error}",
                             **where) from error
        _trace_into(top, scopes, examples, logdir, where)
    finally:  # the example runs must leave no trace in the agent
        variables = root.variables()
        with torch.no_grad():
            for name, value in values_before.items():
                variables[name].copy_(value)
    return str(logdir)


def _scope_modules(plan: ExportPlan, read: dict[str, torch.Tensor]) -> tuple[ExportModule, dict[int, _Scope]]:
    """The traced module (the root's stand-in, running ``plan``) and a scope module per sub-component (by id),
    each holding the variables in ``read`` that its component owns."""
    root = plan.root
    owners: dict[int, tuple[Component, str]] = {}  # variable id -> (owning component, name there)
    for component in root.walk():  # breadth first: the deepest component, the owner, comes last
        owners.update({id(v): (component, name) for name, v in component.variables().items()})
    owned: dict[int, dict[str, torch.Tensor]] = {}
    for variable in read.values():
        owner, name = owners[id(variable)]
        owned.setdefault(id(owner), {})[name] = variable
    top_class = type(f"{type(root).__name__}[{root.name}]", (ExportModule,), {})  # TensorBoard names it so
    top = top_class(plan, owned.get(id(root), {}))
    modules: dict[int, torch.nn.Module] = {id(root): top}
    scopes: dict[int, _Scope] = {}
    for component in root.walk():
        if component is root:
            continue
        scope = type(type(component).__name__, (_Scope,), {})(plan, owned.get(id(component), {}))
        parent = modules[id(component.parent)]
        attribute = component.name.replace(".", "_")  # the tracer splits scope names at dots
        while hasattr(parent, attribute):
            attribute += "_"
        parent.add_module(attribute, scope)
        modules[id(component)] = scopes[id(component)] = scope
    return top, scopes


@contextlib.contextmanager
def _through_scopes(root: Component, scopes: dict[int, _Scope]) -> Iterator[None]:
    """Routes the API methods of every sub-component through its scope module (a method calling another method
    of the same component stays in one scope); puts the plain functions back afterwards."""
    active: list[Component] = []
    replaced: list[tuple[Component, str, Any]] = []

    def scoped(component: Component, function: Callable[..., Any]) -> Callable[..., Any]:
        scope = scopes[id(component)]

        def run(*args: Any, **kwargs: Any) -> Any:
            if active and active[-1] is component:
                return function(*args, **kwargs)
            active.append(component)
            try:
                return scope(function, *args, **kwargs)
            finally:
                active.pop()

        return run

    try:
        for component in root.walk():
            if component is root:
                continue
            for name in component.api_methods:
                if name in vars(component):  # the fast path's plain function (called components only)
                    function = vars(component)[name]
                    replaced.append((component, name, function))
                    setattr(component, name, scoped(component, function))
        yield
    finally:
        for component, name, function in replaced:
            setattr(component, name, function)


def _trace_into(top: ExportModule, scopes: dict[int, _Scope], examples: tuple, logdir: str,
                where: dict[str, str]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(logdir))
    try:
        with _through_scopes(top.plan.root, scopes), warnings.catch_warnings():
            # TorchScript's tracer is deprecated upstream, and values it would bake into a reusable trace do not
            # matter for a picture: tracing is only how the graph is drawn here
            warnings.filterwarnings("ignore", message=r".*torch\.jit.*", category=DeprecationWarning)
            warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
            with contextlib.redirect_stdout(io.StringIO()):  # add_graph prints its errors before raising them
                writer.add_graph(top, examples)
    except Exception as error:
        raise BuildError(f"tracing the graph failed: {type(error).__name__}: {_first_lines(error)}",
                         **where) from error
    finally:
        writer.close()
