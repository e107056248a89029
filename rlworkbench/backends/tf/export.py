"""Exporting on TensorFlow: a SavedModel (``tf.saved_model.save``).

The :class:`~rlworkbench.core.export.ExportPlan` becomes one ``tf.function`` whose input signature comes from
the input spaces (one named ``TensorSpec`` per leaf, ``None`` for batch/time dimensions), traced once; it returns
a dict of the output leaves by name. A ``tf.Module`` holds that function — as ``__call__``, ``serve`` and the
``serving_default`` signature — and exactly the variables the trace reads, so the SavedModel carries the acting
path's weights and nothing else (no optimizer state, no replay memory).

``loaded = tf.saved_model.load(path); loaded(states)["actions"]`` (or ``loaded.serve(...)``, or
``loaded.signatures["serving_default"](states=...)``) computes what the API method computed at export time.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import tensorflow as tf

from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.export import ExportPlan


class ExportedModel(tf.Module):
    """What the SavedModel holds: the traced function and the variables it reads."""

    def __init__(self, function: Any, variables: list[tf.Variable]):
        super().__init__(name="rlworkbench_export")
        self.model_variables = list(variables)
        self.serve = function

    @property
    def __call__(self) -> Any:  # saved as the function itself, so the loaded object is callable too
        return self.serve


def export(executor: Executor, plan: ExportPlan, path: Path, format: str) -> None:
    """Writes ``plan`` as a SavedModel directory at ``path``."""
    if format != "saved_model":
        raise ConfigError("the tf backend cannot export to this format", argument="format",
                          expected=list(executor.export_formats), got=format)
    where = {"component": plan.root.path, "api_method": " -> ".join(plan.api_methods)}
    signature = [tf.TensorSpec(t.shape, tf.as_dtype(t.space.dtype), name=t.name) for t in plan.inputs]
    names = [t.name for t in plan.outputs]

    def serve(*tensors: object) -> dict[str, object]:
        return dict(zip(names, plan(*tensors)))

    function = tf.function(serve, input_signature=signature, autograph=False)
    try:
        concrete = function.get_concrete_function()
    except RLWorkbenchError as error:
        error.add_context(**where)
        raise
    except Exception as error:
        raise BuildError(f"tracing the API method failed: {type(error).__name__}: {error}", **where) from error
    module = ExportedModel(function, list(concrete.variables))
    tf.saved_model.save(module, str(path), signatures={"serving_default": concrete})
