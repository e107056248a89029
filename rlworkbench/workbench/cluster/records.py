"""The channel from a cluster job to the notebook: machine-readable lines on the job's log.

A job prints one line per record, ``@rlworkbench {json}``, among its other output; the notebook follows the log
(``tail_job_logs``) and picks these lines out with :func:`parse_line`. Records (``"kind"``):

- ``start``: the run directory on the cluster, the target and the run's spec (name, config, settings);
- ``tick`` (about every second): counters (``timesteps``, ``wall_time``, ``steps_per_second``, ``state``), the
  newest checkpoint, the episodes and updates finished since the last tick (rows as in
  :mod:`rlworkbench.execution.metrics`) and, on Ray, the workers, shards and learner ranks tables;
- ``end``: the final state and, for a failed run, its error (:func:`encode_error`).

Lines are JSON with NaN allowed (an update metric may be NaN); the prefix never starts an ordinary log line.
"""

from __future__ import annotations

import builtins
import json
import traceback
from typing import Any

from rlworkbench import errors

PREFIX = "@rlworkbench "
RAY_STATES = {"PENDING": "starting", "RUNNING": "running", "SUCCEEDED": "finished", "STOPPED": "stopped",
              "FAILED": "failed"}
"""Ray's job status → a run's state (a job's own ``end`` record, when there is one, says more)."""


def record_line(kind: str, **fields: object) -> str:
    """One record as a log line (no newline)."""
    return PREFIX + json.dumps({"kind": kind, **fields}, default=_json_default, separators=(",", ":"))


def parse_line(line: str) -> dict[str, object] | None:
    """The record a log line holds, or None for any other line (a torn or foreign line included)."""
    if not line.startswith(PREFIX):
        return None
    try:
        record = json.loads(line[len(PREFIX):])
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("kind"), str) else None


def encode_error(error: BaseException) -> dict[str, object]:
    """An error as JSON: its type and module, message, rlworkbench context fields and the formatted traceback."""
    encoded: dict[str, object] = {"type": type(error).__name__, "module": type(error).__module__, "text": str(error),
                               "traceback": "".join(traceback.format_exception(error))}
    if isinstance(error, errors.RLWorkbenchError):
        encoded["message"] = error.message
        encoded["fields"] = {key: (value if value is None or isinstance(value, (str, int, float, bool)) else str(value))
                             for key, value in error._context_dict().items()}
    return encoded


def decode_error(encoded: dict[str, object], where: str) -> BaseException:
    """The error a job reported, as the same type where this side has it (rlworkbench's errors and Python's
    built-in ones), else :class:`~rlworkbench.errors.JobFailed`; the job's traceback and ``where`` as notes."""
    name, module, text = str(encoded.get("type")), encoded.get("module"), str(encoded.get("text", ""))
    error: BaseException
    cls = getattr(errors, name, None) if module == errors.__name__ else getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, errors.RLWorkbenchError) and "message" in encoded:
        error = _rlworkbench_error(cls, encoded)
    elif isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(cls, OSError):
        try:
            error = cls(text)
        except Exception:
            error = errors.JobFailed(f"{name}: {text}")
    else:
        error = errors.JobFailed(f"{name}: {text}")
    if encoded.get("traceback"):
        error.add_note(f"traceback in the job {where}:\n{encoded['traceback'].rstrip()}")
    return error


def _rlworkbench_error(cls: type[errors.RLWorkbenchError], encoded: dict[str, object]) -> BaseException:
    fields = dict(encoded.get("fields") or {})
    try:  # a BuildError's partial graph stays on the cluster
        return cls(str(encoded["message"]), **fields)
    except TypeError:
        return errors.JobFailed(f"{cls.__name__}: {encoded.get('text', '')}")


def _json_default(value: object) -> Any:
    """NumPy scalars and arrays, paths and anything else as plain JSON (or its str)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)
