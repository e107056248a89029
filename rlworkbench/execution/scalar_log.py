"""TensorBoard scalars and histograms without a framework: event files in TensorBoard's own record format.

``torch.utils.tensorboard.SummaryWriter`` and ``tensorboard.summary.Writer`` both go through TensorBoard's
``EventFileWriter``, which opens its file with ``tensorboard.compat.tf.io.gfile`` and so imports TensorFlow
whenever it is installed (seconds, and a second framework in a torch run). :class:`ScalarLog` writes the same
file with a plain Python file object: TensorBoard's ``RecordWriter`` (TFRecord framing, masked CRC32C) and its
``Event``/``Summary`` protos from ``tensorboard.compat.proto``, which need neither torch nor TensorFlow.

Scalars are classic ``simple_value`` summaries, which TensorBoard's scalar dashboard shows and an
``EventAccumulator`` lists under ``Scalars``; histograms are classic ``histo`` summaries (``HistogramProto``:
equal-width buckets from ``numpy.histogram``), listed under ``Histograms``. Writing is synchronous and buffered;
only the worker's thread writes; the file is flushed at most every ``flush_secs`` while running and on
:meth:`ScalarLog.flush`.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench.errors import ConfigError

_file_ids = itertools.count()


class ScalarLog:
    """Writes scalar and histogram time series (tag, value(s), step) to one event file under ``logdir``."""

    def __init__(self, logdir: str | Path, flush_secs: float = 10.0):
        try:
            from tensorboard.compat.proto import event_pb2, summary_pb2
            from tensorboard.summary.writer.record_writer import RecordWriter
        except ImportError as error:  # tensorboard comes with the tf extra
            raise ConfigError("TensorBoard logging needs the tensorboard package", argument="logdir",
                              expected="`pip install tensorboard`", got="not installed") from error
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

    def scalar(self, tag: str, value: float, step: int) -> None:
        summary = self._summary(value=[self._summary.Value(tag=tag, simple_value=float(value))])
        self._write(self._event(wall_time=time.time(), step=int(step), summary=summary))

    def scalars(self, prefix: str, values: dict[str, float], step: int) -> None:
        for key, value in values.items():
            self.scalar(f"{prefix}/{key}", value, step)

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
