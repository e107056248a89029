"""The TensorBoard graph of a root API method on PyTorch (a ``GraphDef``), its components as name scopes.

After a build, components are plain Python objects and an API method is a define-by-run function, so a plain trace
would show one flat list of ``aten`` ops. Here a mirror tree of scope modules — one ``nn.Module`` per component,
its class named after the component's class and registered under the component's name, holding the variables that
component owns and the method reads — stands in for the components while ``SummaryWriter.add_graph`` traces the
method (``torch.utils.tensorboard``'s own converter of a ``torch.jit`` trace): each component's API methods run
through its scope module (a call handler of the tracing thread, see
:mod:`rlworkbench.core.call_modes`), so the tracer records the nesting that TF's name scopes give:
``DQNGraph[dqn]/Policy[policy]/NeuralNetwork[network]/Dense[dense_0]/kernel``.

What is traced is export's :class:`~rlworkbench.core.export.ExportPlan` of the method, on example inputs sampled
from the input spaces. The trace runs on private copies of the variables it touches (:class:`PrivateVariables`):
it changes nothing in the agent, and a run training the same agent in another thread is neither disturbed nor
undone. Writing the event file is :mod:`rlworkbench.execution.tensorboard`'s job.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import torch
from torch.utils import _pytree

from rlworkbench.backends.torch.export import EXAMPLE_SIZES, ExportModule, _first_lines
from rlworkbench.core import call_modes
from rlworkbench.core.decorators import ApiMethod
from rlworkbench.core.export import ExportPlan
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from rlworkbench.backends.torch.executor import TorchExecutor
    from rlworkbench.core.component import Component


class PrivateVariables(torch.overrides.TorchFunctionMode):
    """While active, a torch function that gets one of ``variables`` gets a private copy of it instead, made the
    first time it is touched: whatever the code run inside writes, the originals stay as they are (and another
    thread may keep using them). :attr:`copies` holds the touched ones, by the variables' names."""

    def __init__(self, variables: dict[str, torch.Tensor]):
        super().__init__()
        self.names = {id(v): name for name, v in variables.items() if isinstance(v, torch.Tensor)}
        self.variables = variables
        self.copies: dict[str, torch.Tensor] = {}

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        args, kwargs = _pytree.tree_map(self._private, (args, kwargs or {}))
        return func(*args, **kwargs)

    def _private(self, leaf: Any) -> Any:
        name = self.names.get(id(leaf)) if isinstance(leaf, torch.Tensor) else None
        if name is None:
            return leaf
        if name not in self.copies:  # the mode is off in here: a plain clone (strides, so layouts, are kept)
            copy = leaf.detach().clone()
            self.copies[name] = torch.nn.Parameter(copy, leaf.requires_grad) if isinstance(
                leaf, torch.nn.Parameter) else copy
        return self.copies[name]


class _Scope(ExportModule):
    """A component's stand-in during the trace: calls run through it, so the tracer opens its scope."""

    def forward(self, function: Callable[..., object], *args: object, **kwargs: object) -> Any:  # type: ignore[override]
        return function(*args, **kwargs)


def graph_def(executor: TorchExecutor, api_name: str, component: Component | str | None = None) -> bytes:
    """The serialized ``GraphDef`` of the root API method ``api_name``, traced on example inputs."""
    root = executor.root
    name = component if isinstance(component, str) or component is None else component.path
    if name not in (None, "", root.path):
        raise ConfigError("the torch backend draws graphs of root API methods only", component=name,
                          api_method=api_name, expected=f"component=None (the root '{root.path}')", got=name)
    plan = ExportPlan(executor.graph, [api_name])
    where = {"component": root.path, "api_method": api_name}
    device = torch.device(root.resolved_device or "cpu")
    batch, time = EXAMPLE_SIZES[0]
    examples = tuple(torch.as_tensor(value, device=device) for value in plan.example_inputs(batch, time))
    private = PrivateVariables(root.variables())
    try:
        with torch.no_grad(), private:
            plan(*examples)  # finds (and copies) the variables the method touches
        top, scopes = _scope_modules(plan, private)
    except RLWorkbenchError as error:
        error.add_context(**where)
        raise
    except Exception as error:
        raise BuildError(f"the API method failed on example inputs: {type(error).__name__}: {error}",
                         **where) from error
    return _traced(top, scopes, examples, private, where)


def _scope_modules(plan: ExportPlan, private: PrivateVariables) -> tuple[ExportModule, dict[int, _Scope]]:
    """The traced module (the root's stand-in, running ``plan``) and a scope module per sub-component (by id),
    each holding the private copies of the variables its component owns."""
    root = plan.root
    owners: dict[int, tuple[Component, str]] = {}  # variable id -> (owning component, name there)
    for component in root.walk():  # breadth first: the deepest component, the owner, comes last
        owners.update({id(v): (component, name) for name, v in component.variables().items()})
    owned: dict[int, dict[str, torch.Tensor]] = {}
    for scoped_name, copy in private.copies.items():
        owner, name = owners[id(private.variables[scoped_name])]
        owned.setdefault(id(owner), {})[name] = copy
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
    """Routes this thread's calls of sub-components' API methods through their scope modules (a method calling
    another method of the same component stays in one scope)."""
    active: list[Component] = []

    def handler(declared: Any, component: Component) -> Callable[..., Any] | None:
        bound = component._built_calls.get(declared)
        if not isinstance(declared, ApiMethod) or id(component) not in scopes or bound is None:
            return None
        scope = scopes[id(component)]

        def run(*args: object, **kwargs: object) -> Any:
            if active and active[-1] is component:
                return bound(*args, **kwargs)
            active.append(component)
            try:
                return scope(bound, *args, **kwargs)
            finally:
                active.pop()

        return run

    with call_modes.intercepting(handler):
        yield


def _traced(top: ExportModule, scopes: dict[int, _Scope], examples: tuple, private: PrivateVariables,
            where: dict[str, str]) -> bytes:
    from torch.utils.tensorboard._pytorch_graph import graph

    try:
        with _through_scopes(top.plan.root, scopes), private, warnings.catch_warnings():
            # TorchScript's tracer is deprecated upstream, and values it would bake into a reusable trace do not
            # matter for a picture: tracing is only how the graph is drawn here
            warnings.filterwarnings("ignore", message=r".*torch\.jit.*", category=DeprecationWarning)
            warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
            with contextlib.redirect_stdout(io.StringIO()):  # the converter prints its errors before raising them
                definition, _ = graph(top, examples)
    except Exception as error:
        raise BuildError(f"tracing the graph failed: {type(error).__name__}: {_first_lines(error)}",
                         **where) from error
    return definition.SerializeToString()
