"""What the GraphExplorer says about one component: tree labels, API methods with their spaces, variables.

Plain functions over a component and its component graph, returning labels, pandas tables and HTML, so they
are easy to test and to use without widgets.
"""

from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd

from rlworkbench.core.component import Component
from rlworkbench.core.graph import ComponentGraph
from rlworkbench.visualize.space_labels import space_label

INDENT = "\u00a0\u00a0\u00a0"  # non-breaking: a browser keeps it at the start of a <select> option


def tree_options(focus: Component) -> list[tuple[str, str]]:
    """``(label, path)`` per component below ``focus``, depth first, labels indented by depth."""
    options: list[tuple[str, str]] = []

    def visit(component: Component, depth: int) -> None:
        state = "" if component.built else "  ○"
        options.append((f"{INDENT * depth}{component.name} <{type(component).__name__}>{state}", component.path))
        for child in component.sub_components.values():
            visit(child, depth + 1)

    visit(focus, 0)
    return options


def api_table(component: Component, graph: ComponentGraph | None) -> pd.DataFrame:
    """One row per API method: input spaces → output spaces from the graph (``?`` where not known)."""
    rows = []
    for name, spec in component.api_methods.items():
        called = graph is not None and bool(graph.calls_of(component, name))
        if called:
            inputs, outputs = graph.api_spaces(component, name)
            call = graph.calls_of(component, name)[0]
            constants = {p: v for p, v in call.inputs.items() if p not in inputs}
            args = [f"{p}: {space_label(s)}" for p, s in inputs.items()]
            args += [f"{p}={v!r}"[:40] for p, v in constants.items()]
            outs = [f"{p}: {space_label(s)}" for p, s in outputs.items()]
        else:
            args = list(spec.params) + ([f"*{spec.var_param}"] if spec.var_param else [])
            outs = []
        rows.append({"api_method": name, "inputs": ", ".join(args) or "—",
                     "outputs": ", ".join(outs) or ("—" if called else "(not built)"), "built": called})
    return pd.DataFrame(rows, columns=["api_method", "inputs", "outputs", "built"])


def variables_table(component: Component) -> pd.DataFrame:
    """One row per variable of the component and its sub-components: name, shape, dtype, value count, device."""
    rows = []
    for name, variable in component.variables().items():
        shape = tuple(int(d) for d in variable.shape)
        rows.append({"variable": name, "shape": shape, "dtype": short_dtype(variable.dtype),
                     "count": math.prod(shape), "device": short_device(getattr(variable, "device", None))})
    return pd.DataFrame(rows, columns=["variable", "shape", "dtype", "count", "device"])


def short_dtype(dtype: Any) -> str:
    """``float32`` for a torch, TF or NumPy dtype."""
    name = getattr(dtype, "name", None)
    return str(name) if isinstance(name, str) else str(dtype).removeprefix("torch.")


def short_device(device: Any) -> str:
    """``CPU:1`` for TF's ``/job:localhost/.../device:CPU:1``; torch devices as they print."""
    text = str(device or "")
    return text.rsplit("device:", 1)[-1] if "device:" in text else text


def component_summary(component: Component, graph: ComponentGraph | None) -> dict[str, object]:
    """Class, path, devices (configured and resolved), built state and variable totals of a component."""
    variables = variables_table(component)
    return {"class": type(component).__name__, "path": component.path, "device": component.device,
            "resolved_device": component.resolved_device, "built": component.built,
            "backend": graph.backend_name if graph is not None else None,
            "variables": len(variables), "values": int(variables["count"].sum()) if len(variables) else 0}


def details_html(component: Component, graph: ComponentGraph | None) -> str:
    """The details pane: a summary, the API methods table and the variables table (with a total)."""
    info = component_summary(component, graph)
    device = info["resolved_device"] or "—"
    if info["device"] and info["device"] != info["resolved_device"]:
        device += f" (own setting: {info['device']})"
    state = f"built on {info['backend']}" if info["built"] else "not built"
    head = (f"<div class='rlw-details'><b>{_e(info['class'])}</b> <code>{_e(info['path'])}</code><br>"
            f"device: <code>{_e(device)}</code> · {_e(state)}</div>")
    apis = api_table(component, graph).drop(columns=["built"])
    variables = variables_table(component)
    total = f"{info['variables']} variables, {info['values']:,} values (this component and below)"
    var_html = (variables.to_html(index=False, border=0, classes="rlw-table") if len(variables)
                else "<i>no variables</i>")
    return (f"{head}<h4 style='margin:6px 0 2px'>API methods</h4>"
            f"{apis.to_html(index=False, border=0, classes='rlw-table')}"
            f"<h4 style='margin:6px 0 2px'>Variables</h4>{var_html}<div class='rlw-total'>{_e(total)}</div>")


def available_devices(backend_name: str) -> list[str]:
    """Devices a component can be put on with this backend, in the backend's own spelling."""
    from rlworkbench.core.backend import get_backend

    return get_backend(backend_name).available_devices()


def _e(value: object) -> str:
    return html.escape(str(value))
