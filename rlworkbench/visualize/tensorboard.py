"""TensorBoard export of a built agent: per-component variable summaries and the backend graph.

- :func:`write_variable_summaries` — for every component that owns variables, scalars over its floating-point
  variables (``variables/<component path>/norm``, ``…/mean_abs``, ``…/max_abs``) and one histogram per variable,
  tagged ``<component path>/<variable name>`` — the root's path followed by the variable's ``get_weights`` name,
  so tags, scoped weight names and TF name scopes read alike. Written with
  :class:`~rlworkbench.execution.scalar_log.ScalarLog` (TensorBoard's record format, neither torch nor TensorFlow
  imported), which is also what a :class:`~rlworkbench.execution.Worker` with ``summaries_every`` passes in.
- :func:`write_graph` — the graph of a root API method for TensorBoard's graph dashboard, with one name scope per
  component. The executor draws it (``Executor.write_graph``): TF writes its ``tf.function`` graph, PyTorch traces
  the method with ``SummaryWriter.add_graph`` on example inputs sampled from the input spaces.

A target is a built :class:`~rlworkbench.core.component.Component`, an agent (anything with ``.root`` and
``.executor``) or an :class:`~rlworkbench.core.executor.Executor`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import BuildError, ConfigError
from rlworkbench.visualize.views import is_agent

if TYPE_CHECKING:
    from rlworkbench.execution.scalar_log import ScalarLog

STATISTICS = ("norm", "mean_abs", "max_abs")


def variables_root(target: Any) -> Component:
    """The built root component of ``target`` (a built component, an agent or an executor)."""
    if isinstance(target, Executor):
        return target.root
    if isinstance(target, Component):
        if not target.built:
            raise BuildError("variable summaries need a built component", component=target.path)
        return target
    if is_agent(target):
        if target.executor is None:
            raise BuildError("variable summaries need a built agent: call build() first",
                             component=getattr(target.root, "path", None))
        return target.executor.root
    raise ConfigError("cannot find the variables of this", argument="target",
                      expected="a built Component, an Agent or an Executor", got=type(target).__name__)


def variables_by_component(target: Any, trainable_only: bool = False) -> dict[str, dict[str, np.ndarray]]:
    """Variable values grouped by the component that owns them: ``{component path: {variable name: array}}``
    (names as the component itself calls them), components in build order (breadth first), only those owning
    variables."""
    root = variables_root(target)
    weights = root.get_weights(trainable_only)
    owners: dict[int, tuple[Component, str]] = {}
    for component in root.walk():  # breadth first: a variable's owner, the deepest component, comes last
        owners.update({id(v): (component, name) for name, v in component.variables(trainable_only).items()})
    grouped: dict[str, dict[str, np.ndarray]] = {c.path: {} for c in root.walk()}
    for scoped_name, variable in root.variables(trainable_only).items():
        owner, name = owners[id(variable)]
        grouped[owner.path][name] = weights[scoped_name]
    return {path: values for path, values in grouped.items() if values}


def component_statistics(values: dict[str, np.ndarray]) -> dict[str, float] | None:
    """``norm`` (L2 over all elements), ``mean_abs`` and ``max_abs`` of a component's floating-point variables;
    ``None`` when it has none."""
    floats = [np.asarray(v, dtype=np.float64).ravel() for v in values.values() if np.asarray(v).dtype.kind == "f"]
    count = sum(v.size for v in floats)
    if not count:
        return None
    squares = sum(float(np.dot(v, v)) for v in floats)
    abs_sum = sum(float(np.abs(v).sum()) for v in floats)
    abs_max = max(float(np.abs(v).max()) if v.size else 0.0 for v in floats)
    return {"norm": float(np.sqrt(squares)), "mean_abs": abs_sum / count, "max_abs": abs_max}


def write_variable_summaries(target: Any, logdir_or_writer: str | Path | ScalarLog, step: int, *,
                             trainable_only: bool = False, bins: int = 30) -> dict[str, dict[str, float]]:
    """Writes per-component scalars and one histogram per variable of ``target`` at ``step``.

    ``logdir_or_writer``: a directory (a new event file is written there and closed) or an open
    :class:`~rlworkbench.execution.scalar_log.ScalarLog` (written to, not flushed). Numeric and boolean variables
    get histograms (``bins`` buckets; non-finite values left out); floating-point ones count into the component's
    scalars. ``trainable_only`` leaves out optimizer state, memories and counters. Returns the scalars:
    ``{component path: {"norm": …, "mean_abs": …, "max_abs": …}}``.
    """
    grouped = variables_by_component(target, trainable_only)
    own_writer = isinstance(logdir_or_writer, (str, Path))
    if own_writer:
        from rlworkbench.execution.scalar_log import ScalarLog

        writer = ScalarLog(logdir_or_writer)
    else:
        writer = logdir_or_writer
        if not (callable(getattr(writer, "scalar", None)) and callable(getattr(writer, "histogram", None))):
            raise ConfigError("cannot write summaries to this", argument="logdir_or_writer",
                              expected="a directory or a ScalarLog", got=type(writer).__name__)
    written: dict[str, dict[str, float]] = {}
    try:
        for path, values in grouped.items():
            statistics = component_statistics(values)
            if statistics is not None:
                written[path] = statistics
                for key, value in statistics.items():
                    writer.scalar(f"variables/{path}/{key}", value, step)
            for name, value in values.items():
                if np.asarray(value).dtype.kind in "biuf":
                    writer.histogram(f"{path}/{name}", value, step, bins=bins)
    finally:
        if own_writer:
            writer.close()
    return written


def write_graph(target: Any, logdir: str | Path, api_method: str | None = None) -> Path:
    """Writes the backend graph of the root API method ``api_method`` into an event file under ``logdir``, one
    name scope per component; returns ``logdir``.

    ``target``: a built agent or an executor (``build()`` returns it). ``api_method=None`` picks the agent's
    acting method (``acting_api_method``), or the root's only API method. Raises a ConfigError where the backend
    cannot draw graphs, a BuildError where the method cannot be traced.
    """
    executor = _executor_of(target)
    name = api_method if api_method is not None else _default_api_method(target, executor)
    if name not in executor.graph.root_inputs:
        raise BuildError("no such built API method", component=executor.root.path, api_method=name,
                         expected=sorted(executor.graph.root_inputs))
    logdir = Path(logdir)
    logdir.mkdir(parents=True, exist_ok=True)
    executor.write_graph(str(logdir), name)
    return logdir


def _executor_of(target: Any) -> Executor:
    if isinstance(target, Executor):
        return target
    if isinstance(target, Component):
        raise ConfigError("a component has no graph of its own to draw: pass the executor build() returned or "
                          "the agent", argument="target", component=target.path, expected="an Agent or an Executor",
                          got="Component")
    executor = getattr(target, "executor", None)
    if isinstance(executor, Executor):
        return executor
    if is_agent(target):
        raise BuildError("write_graph needs a built agent: call build() first", component=target.root.path)
    raise ConfigError("cannot find a graph to draw in this", argument="target", expected="an Agent or an Executor",
                      got=type(target).__name__)


def _default_api_method(target: Any, executor: Executor) -> str:
    methods = sorted(executor.graph.root_inputs)
    acting = getattr(target, "acting_api_method", None)
    if isinstance(acting, str) and acting in methods:
        return acting
    if len(methods) == 1:
        return methods[0]
    raise ConfigError("which API method's graph? name it", argument="api_method", component=executor.root.path,
                      expected=methods, got=None)
