"""Exporting on PyTorch: TorchScript (``torch.jit.trace``) and ONNX (``torch.onnx.export``, torch.export-based).

After a build, a root API method is a plain define-by-run function of the components' variables. An
:class:`ExportModule` registers the variables it reads — found by running it once and watching which tensors
reach a torch function — as parameters and buffers of an ``nn.Module`` whose ``forward`` runs the
:class:`~rlworkbench.core.export.ExportPlan`; tracing that module records the variables as module state (not
baked-in constants). Inputs are the plan's flat tensors in order; the output is one tensor, or a tuple when the
API method gives several leaves.

TorchScript: traced with example inputs sampled from the input spaces, and checked (``check_trace``) against a
second trace at other batch/time sizes, so a size baked into the trace is caught here, not by a user; parameters
in the saved file do not require gradients. ONNX: the torch.export-based exporter (needs ``onnx`` and
``onnxscript``), batch/time dimensions as named dynamic axes, weights inside the one ``.onnx`` file.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import logging
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch.utils import _pytree

from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError

if TYPE_CHECKING:
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.export import ExportPlan

EXAMPLE_SIZES = ((5, 3), (2, 4))  # (batch, time) of the trace's example inputs and of the check's
_CHECK_FAILED = re.compile(r"does not match the corresponding output|nondeterministic nodes")


class ExportModule(torch.nn.Module):
    """``forward(*flat_inputs)`` runs ``plan``; ``variables`` (scoped name → tensor) become its parameters
    (the ``nn.Parameter`` ones) and buffers, under their scoped names with ``/`` as ``__``."""

    def __init__(self, plan: ExportPlan, variables: dict[str, torch.Tensor]):
        super().__init__()
        object.__setattr__(self, "plan", plan)  # a plain attribute: neither traced nor saved
        taken: set[str] = set()
        for name, variable in variables.items():
            attribute = re.sub(r"\W", "_", name.replace("/", "__"))
            while attribute in taken:
                attribute += "_"
            taken.add(attribute)
            if isinstance(variable, torch.nn.Parameter):
                self.register_parameter(attribute, variable)
            else:
                self.register_buffer(attribute, variable)

    def forward(self, *inputs: torch.Tensor) -> Any:
        outputs = self.plan(*inputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def export(executor: Executor, plan: ExportPlan, path: Path, format: str) -> None:
    """Writes ``plan`` as ``format`` (``"torchscript"`` or ``"onnx"``) at ``path``."""
    if format not in ("torchscript", "onnx"):
        raise ConfigError("the torch backend cannot export to this format", argument="format",
                          expected=list(executor.export_formats), got=format)
    where = {"component": plan.root.path, "api_method": " -> ".join(plan.api_methods)}
    device = torch.device(plan.root.resolved_device or "cpu")
    examples, checks = (tuple(torch.as_tensor(value, device=device) for value in plan.example_inputs(b, t, seed))
                        for seed, (b, t) in enumerate(EXAMPLE_SIZES))
    values_before: dict[str, torch.Tensor] = {}
    try:
        try:
            module = ExportModule(plan, _variables_read(plan, examples, values_before)).eval()
        except RLWorkbenchError as error:
            error.add_context(**where)
            raise
        except Exception as error:
            raise BuildError(f"the API method failed on example inputs: {type(error).__name__}: {error}",
                             **where) from error
        if format == "torchscript":
            _torchscript(module, examples, checks, path, where)
        else:
            _onnx(module, plan, examples, path, where)
    finally:  # the example runs must leave no trace in the agent (e.g. a stateful preprocessor's buffers)
        variables = plan.root.variables()
        with torch.no_grad():
            for name, value in values_before.items():
                variables[name].copy_(value)


def _variables_read(plan: ExportPlan, examples: tuple[torch.Tensor, ...],
                    values_before: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The root's variables that the plan passes to torch functions on ``examples``, by scoped name; each one's
    value before it was first touched goes into ``values_before``."""
    variables = plan.root.variables()
    watched = {id(v): name for name, v in variables.items() if isinstance(v, torch.Tensor)}
    seen: set[int] = set()

    class Watch(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            for leaf in _pytree.tree_leaves((args, kwargs)):
                if isinstance(leaf, torch.Tensor) and id(leaf) in watched and id(leaf) not in seen:
                    seen.add(id(leaf))
                    values_before[watched[id(leaf)]] = leaf.detach().clone()  # the mode is off in here
            return func(*args, **kwargs)

    with torch.no_grad(), Watch():
        plan(*examples)
    return {name: variables[name] for key, name in watched.items() if key in seen}


def _torchscript(module: ExportModule, examples: tuple, checks: tuple, path: Path, where: dict[str, str]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.no_grad():
                traced = torch.jit.trace(module, examples, check_trace=True, check_inputs=[checks])
        except Exception as error:
            raise BuildError(f"TorchScript tracing failed: {type(error).__name__}: {_first_lines(error)}",
                             **where) from error
    # the check reports a trace that does not reproduce the function at other sizes only as a warning
    failed = [w for w in caught if issubclass(w.category, torch.jit.TracerWarning) and _CHECK_FAILED.search(
        str(w.message))]
    if failed:
        raise BuildError("the TorchScript trace does not reproduce the API method on inputs of other sizes "
                         "(a size or value baked into the trace, or state the method changes): "
                         f"{_first_lines(failed[0].message, 6)}", **where)
    for w in caught:  # TorchScript is deprecated upstream: exporting to it is what was asked for here
        if not (issubclass(w.category, DeprecationWarning) and "torch.jit" in str(w.message)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*torch\.jit.* is deprecated.*", category=DeprecationWarning)
        # the traced module shares the agent's parameters: save a reloaded copy without requires_grad
        buffer = io.BytesIO()
        torch.jit.save(traced, buffer)
        buffer.seek(0)
        copy = torch.jit.load(buffer)
        for parameter in copy.parameters():
            parameter.requires_grad_(False)
        torch.jit.save(copy, str(path))


def _onnx(module: ExportModule, plan: ExportPlan, examples: tuple, path: Path, where: dict[str, str]) -> None:
    missing = [name for name in ("onnx", "onnxscript") if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError("ONNX export needs packages that are not installed", argument="format",
                          expected=f"pip install {' '.join(missing)}", got="onnx")
    dims: dict[str, object] = {}
    shapes = tuple({axis: dims.setdefault(name, torch.export.Dim(name)) for axis, name in t.dynamic_axes.items()}
                   or None for t in plan.inputs)
    try:
        with _quiet_onnx_exporter():
            torch.onnx.export(module, examples, str(path), input_names=[t.name for t in plan.inputs],
                              output_names=[t.name for t in plan.outputs],
                              dynamic_shapes=(shapes,) if dims else None, dynamo=True, external_data=False,
                              verbose=False)
    except Exception as error:
        raise BuildError(f"ONNX export failed: {type(error).__name__}: {_first_lines(error)}", **where) from error


@contextlib.contextmanager
def _quiet_onnx_exporter() -> Iterator[None]:
    """Silences the exporter's notes that say nothing about this model (optional torchvision ops, axis names
    shared between inputs, pytree deprecations)."""
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*axis name.*will not be used.*")
            warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)
            yield
    finally:
        registration.setLevel(level)


def _first_lines(error: object, count: int = 12) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # the ONNX exporter colours its messages
    return "\n".join(text.strip().splitlines()[:count])
