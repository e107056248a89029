"""TensorBoard, all of it: one event writer and what rlworkbench writes with it.

- :class:`EventWriter` — scalars, histograms and graphs into one event file in TensorBoard's own record format,
  without a framework: TensorBoard's ``RecordWriter`` (TFRecord framing, masked CRC32C) and its ``Event`` /
  ``Summary`` protos from ``tensorboard.compat.proto``. (``torch.utils.tensorboard.SummaryWriter`` and
  ``tensorboard.summary.Writer`` open files with ``tensorboard.compat.tf.io.gfile``, which imports TensorFlow
  whenever it is installed: seconds, and a second framework in a torch run.) Scalars are classic ``simple_value``
  summaries, histograms classic ``histo`` summaries (equal-width buckets from ``numpy.histogram``), graphs
  ``Event.graph_def``; :meth:`EventWriter.restart_at` marks where a resumed run goes on. Writing is synchronous
  and buffered; the file is flushed at most every ``flush_secs`` while running and on :meth:`EventWriter.flush`.
  The :class:`~rlworkbench.execution.Worker` writes its scalars with it.
- :func:`write_variable_summaries` — for every component that owns variables, scalars over its floating-point
  variables (``variables/<component path>/norm``, ``…/mean_abs``, ``…/max_abs``) and one histogram per variable,
  tagged ``<component path>/<variable name>``, so tags, scoped weight names and TF name scopes read alike.
- :func:`write_graph` — the graph of a root API method for the graphs dashboard, one name scope per component:
  the executor gives it as a ``GraphDef`` (``Executor.graph_def``: TF its ``tf.function`` graph, PyTorch a trace
  on example inputs sampled from the input spaces).

A target is a built :class:`~rlworkbench.core.component.Component`, an agent or an
:class:`~rlworkbench.core.executor.Executor`.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench.agents.protocols import is_agent
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import BuildError, ConfigError
from rlworkbench.extras import missing_extra

_file_ids = itertools.count()


class EventWriter:
    """Writes scalar and histogram time series (tag, value(s), step) and graphs to one event file under
    ``logdir``."""

    def __init__(self, logdir: str | Path, flush_secs: float = 10.0):
        try:
            from tensorboard.compat.proto import event_pb2, summary_pb2
            from tensorboard.summary.writer.record_writer import RecordWriter
        except ImportError as error:  # a dependency of rlworkbench itself: missing only in a broken install
            raise missing_extra("tensorboard", "TensorBoard logging") from error
        self._event, self._summary, self._histogram = event_pb2.Event, summary_pb2.Summary, summary_pb2.HistogramProto
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_file_ids)}")
        self.path = self.logdir / name
        self._records = RecordWriter(open(self.path, "wb"))  # closed in close()
        self._write(self._event(wall_time=time.time(), file_version="brain.Event:2"))
        self._flush_secs = flush_secs
        self.flush()

    def restart_at(self, step: int) -> None:
        """Marks where a resumed run goes on: TensorBoard drops every point past ``step`` written before this mark
        (what a killed run wrote after the checkpoint it resumes from), so each series goes on as one line. The
        mark is TensorBoard's own purge signal, a ``SessionLog.START`` event at ``step + 1``, written twice: the
        server's loader takes the first START of a run for its beginning and purges at the next (the older loader
        purges at each; a second purge at the same step drops nothing more)."""
        from tensorboard.compat.proto.event_pb2 import SessionLog

        for _ in range(2):
            self._write(self._event(wall_time=time.time(), step=int(step) + 1,
                                    session_log=SessionLog(status=SessionLog.START)))
        self.flush()

    def scalar(self, tag: str, value: float, step: int) -> None:
        summary = self._summary(value=[self._summary.Value(tag=tag, simple_value=float(value))])
        self._write(self._event(wall_time=time.time(), step=int(step), summary=summary))

    def scalars(self, prefix: str, values: dict[str, float], step: int) -> None:
        """``<prefix>/<key>`` per value; a key with a namespace of its own (``observe/skipped``) keeps it."""
        for key, value in values.items():
            self.scalar(key if "/" in key else f"{prefix}/{key}", value, step)

    def histogram(self, tag: str, values: Any, step: int, bins: int = 30) -> None:
        """The distribution of ``values`` (any shape; bools and ints as numbers) in ``bins`` equal-width buckets.
        Non-finite values are left out (``num`` counts the finite ones)."""
        array = np.asarray(values, dtype=np.float64).ravel()
        finite = array[np.isfinite(array)]
        if finite.size:
            counts, edges = np.histogram(finite, bins=bins)
            low, high = float(finite.min()), float(finite.max())
        else:
            counts, edges, low, high = np.zeros(0), np.zeros(1), 0.0, 0.0
        proto = self._histogram(min=low, max=high, num=float(finite.size), sum=float(finite.sum()),
                                sum_squares=float(np.dot(finite, finite)), bucket_limit=edges[1:].tolist(),
                                bucket=counts.astype(np.float64).tolist())
        summary = self._summary(value=[self._summary.Value(tag=tag, histo=proto)])
        self._write(self._event(wall_time=time.time(), step=int(step), summary=summary))

    def graph(self, graph_def: bytes) -> None:
        """A model graph (a serialized ``GraphDef``, as executors' ``graph_def`` give it) for the graphs
        dashboard."""
        self._write(self._event(wall_time=time.time(), graph_def=graph_def))

    def maybe_flush(self) -> None:
        """Flushes when ``flush_secs`` have passed since the last flush (so a live viewer sees the run)."""
        if time.monotonic() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self) -> None:
        if not self._records.closed:
            self._records.flush()
        self._last_flush = time.monotonic()

    def close(self) -> None:
        if not self._records.closed:
            self._records.flush()
            self._records.close()

    def _write(self, event: object) -> None:
        self._records.write(event.SerializeToString())  # type: ignore[attr-defined]


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


def write_variable_summaries(target: Any, logdir_or_writer: str | Path | EventWriter, step: int, *,
                             trainable_only: bool = False, bins: int = 30) -> dict[str, dict[str, float]]:
    """Writes per-component scalars and one histogram per variable of ``target`` at ``step``.

    ``logdir_or_writer``: a directory (a new event file is written there and closed) or an open
    :class:`EventWriter` (written to, not flushed). Numeric and boolean variables
    get histograms (``bins`` buckets; non-finite values left out); floating-point ones count into the component's
    scalars. ``trainable_only`` leaves out optimizer state, memories and counters. Returns the scalars:
    ``{component path: {"norm": …, "mean_abs": …, "max_abs": …}}``.
    """
    grouped = variables_by_component(target, trainable_only)
    own_writer = isinstance(logdir_or_writer, (str, Path))
    if own_writer:
        writer = EventWriter(logdir_or_writer)
    else:
        writer = logdir_or_writer
        if not (callable(getattr(writer, "scalar", None)) and callable(getattr(writer, "histogram", None))):
            raise ConfigError("cannot write summaries to this", argument="logdir_or_writer",
                              expected="a directory or an EventWriter", got=type(writer).__name__)
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


def write_graph(target: Any, logdir: str | Path, api_method: str | None = None,
                component: Component | str | None = None) -> Path:
    """Writes the backend graph of the API method ``api_method`` (of the root, or of ``component``: an object or a
    path below the root, where the backend can) into an event file under ``logdir``, one name scope per component;
    returns ``logdir``.

    ``target``: a built agent or an executor (``build()`` returns it). ``api_method=None`` picks the agent's
    acting method (``acting_api_method``), or the root's only API method. Raises a ConfigError where the backend
    cannot draw graphs, a BuildError where the method cannot be traced.
    """
    executor = _executor_of(target)
    name = api_method if api_method is not None else _default_api_method(target, executor)
    if component is None and name not in executor.graph.root_inputs:
        raise BuildError("no such built API method", component=executor.root.path, api_method=name,
                         expected=sorted(executor.graph.root_inputs))
    definition = executor.graph_def(name, component)
    writer = EventWriter(logdir)
    try:
        writer.graph(definition)
    finally:
        writer.close()
    return Path(logdir)


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
