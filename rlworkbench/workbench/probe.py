"""``Probe(component)``: push inputs through one API method of any component, on either backend, and see what
comes out.

Pick an API method, batch (and time) size and seed; inputs are sampled from the method's input spaces, or taken
from a value you give (text in the box — JSON or a Python literal — or :meth:`Probe.set_inputs` from code); sampled
arguments take the batch and time sizes of the given ones where those agree (a given start state of a recurrent
policy gets sequences sampled for its rows).
*Run* calls it on the chosen backend (see :mod:`rlworkbench.workbench.probe_runner` for how the other backend
gets a weight-synchronised copy) and shows one table of what went in and what came out, a row per leaf: key path,
shape, dtype, min and max, the first rows' values, and value counts as an extra for discrete values (the call time
on the output rows). Errors show as their typed message, with the offending component highlighted in the graph.

From code: :meth:`Probe.run` returns that table as a pandas DataFrame (and raises what the run raised), so a cell
ending in ``probe.run()`` shows the values; :attr:`outputs` and :attr:`inputs` hold the last run's NumPy values.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import pandas as pd

from rlworkbench.core.backend import available_backends
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Space
from rlworkbench.visualize.space_labels import space_label
from rlworkbench.workbench.explorer_render import TABLE_CSS, error_html, error_text, status_html
from rlworkbench.workbench.explorer_target import Target
from rlworkbench.workbench.probe_inputs import given_sizes, make_inputs
from rlworkbench.workbench.probe_runner import ProbeRunner, probe_table

_UNSET = object()


class Probe:
    """Probes a Component (or ``path`` below an Agent's / Executor's root). ``input_spaces`` (by parameter name)
    let it probe a component that is not built (through copies). ``executor``: the executor the component was
    built with, if you have it (saves making one). Runs go to a copy with the component's current weights, so
    probing never changes the component (a memory's records, an optimizer's step); ``in_place=True`` calls the
    component itself on the backend it was built on."""

    def __init__(self, target: object, api: str | None = None, *, path: str | None = None,
                 input_spaces: Mapping[str, Space] | None = None, backend: str | None = None, seed: int = 0,
                 batch_size: int = 4, time_size: int = 3, executor: Executor | None = None, in_place: bool = False):
        self.target = Target(target, executor=executor, path=path)
        if self.target.agent is not None and self.target.agent.executor is None and input_spaces is None:
            raise ConfigError("probing an agent needs it built: call agent.build() first (or give input_spaces)",
                              component=self.target.root.path, argument="target", expected="a built agent",
                              got=repr(self.target.agent))
        self.runner = ProbeRunner(self.target, input_spaces, in_place=in_place)
        self.table: pd.DataFrame | None = None
        self.outputs: object = None
        self.inputs: dict[str, object] | None = None
        self.error: BaseException | None = None
        self.status = self.output_html = self.error_html = ""
        self.runs = 0
        self._timed: set[tuple[str, str, str | None]] = set()  # (api, backend, home backend) already timed once
        self._code_value: object = None
        self._syncing = False
        apis = self.runner.api_methods()
        if not apis:
            raise_no_api(self.component, input_spaces)
        backends = list(available_backends())
        backend = backend or self.runner.home_backend or self.target.backend_name
        if api is not None:
            self.runner._check_api(api)
        _check_choice(backend, backends, "backend", self.component.path)
        self._make_widgets(apis, api or apis[0], backends, backend, seed, batch_size, time_size)
        self._on_api()

    @property
    def component(self) -> Component:
        return self.target.component

    @property
    def api(self) -> str:
        return self.api_menu.value

    # ----- from code ------------------------------------------------------------------------------------------
    def set_inputs(self, value: object) -> None:
        """The user value for the next runs: text (JSON / Python literal) goes into the text box; a mapping of
        argument names to values (or one argument's value) is kept as it is; ``None`` clears both (sampling)."""
        self._code_value = None if isinstance(value, str) else value
        self._syncing = True
        try:
            self.value_box.value = value if isinstance(value, str) else ""
        finally:
            self._syncing = False
        self._describe_arguments()

    def output_spaces(self, api: str | None = None) -> dict[str, Space | None]:
        """The output spaces of ``api`` by key path: the rows a run's table has."""
        return self.runner.output_spaces(api or self.api, self.backend_menu.value)

    def run(self, api: str | None = None, inputs: object = _UNSET, backend: str | None = None,
            batch_size: int | None = None, time_size: int | None = None, seed: int | None = None) -> pd.DataFrame:
        """Runs the API method (arguments override the widget's settings, and are shown in it); returns the table
        of its inputs and outputs (see :func:`~rlworkbench.workbench.probe_runner.probe_table`). Raises what the
        run raised, after showing it."""
        if api is not None:
            self.runner._check_api(api)
        _check_choice(backend, list(self.backend_menu.options), "backend", self.component.path)
        for name, value, low in (("batch_size", batch_size, self.batch_slider.min),
                                 ("time_size", time_size, self.time_slider.min)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
                raise ConfigError("bad probe size", component=self.component.path, argument=name,
                                  expected=f"an int >= {low}", got=repr(value))
        self._syncing = True
        try:
            for widget, value in ((self.api_menu, api), (self.backend_menu, backend), (self.batch_slider, batch_size),
                                  (self.time_slider, time_size), (self.seed_box, seed)):
                if value is not None:
                    widget.value = value
        finally:
            self._syncing = False
        self._on_api()
        given = self._given() if inputs is _UNSET else inputs
        api, backend = self.api, self.backend_menu.value
        where = {"component": self.component.path, "api_method": api}
        try:
            arguments = self.runner.arguments(api)
            values, given_names = make_inputs(arguments, self.batch_slider.value, self.time_slider.value,
                                              self.seed_box.value, given, where)
            spaces = {a.name: a.space for a in arguments if a.space is not None and a.name in given_names}
            sliders = {"batch_size": self.batch_slider.value, "time_size": self.time_slider.value}
            sizes = {name: size for name, size in given_sizes({n: values[n] for n in spaces}, spaces).items()
                     if size != sliders[name]}  # the sizes the sampled ones took from the given ones
            outputs, seconds = self.runner.run(api, values, backend)
        except Exception as error:
            self._show_error(error)
            raise
        self.runs += 1
        self.error, self.error_html, self.error_pane.value = None, "", ""
        self.inputs, self.outputs = values, outputs
        self.table = probe_table(values, arguments, given_names, outputs, seconds)
        self.table.attrs.update(api=api, backend=backend)
        self.output_html = self.table.to_html(index=False, border=0, classes="rlw-table")
        self.output_pane.value = TABLE_CSS + self.output_html
        where_run = ("in place" if backend == self.runner.home_backend and self.runner.in_place
                     else "on a weight-synchronised copy"
                     if self.runner.home_backend else "on a copy built from input_spaces")
        first = (api, backend, self.runner.home_backend) not in self._timed
        self._timed.add((api, backend, self.runner.home_backend))
        self.table.attrs["first_call"] = first
        sampled_some = any(not a.is_constant and a.name not in given_names for a in arguments)
        from_given = ", ".join(f"{name.removesuffix('_size')} {size}" for name, size in sizes.items())
        self._set_status(f"run #{self.runs}: {self.component.path}.{api}() on {backend} ({where_run}) — "
                         f"{int((self.table['side'] == 'output').sum())} output leaves in {seconds * 1000:.2f} ms"
                         + (" (first call: includes one-time setup)" if first else "")
                         + (f"; sampled with {from_given} of the given values" if sizes and sampled_some else ""))
        return self.table

    def close(self) -> None:
        for widget in self._all_widgets:
            widget.close()

    # ----- showing --------------------------------------------------------------------------------------------
    def _show_error(self, error: BaseException) -> None:
        self.error = error
        self.error_html = error_html(error, self.component, fallback=self.component.path)
        self.error_pane.value = self.error_html
        self.output_pane.value = ""
        self._set_status(f"failed — {error_text(error)}", error=True)

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status = text
        self.status_pane.value = status_html(text, error)

    def _given(self) -> object:
        if self._code_value is not None:
            return self._code_value
        text = self.value_box.value
        return text if text.strip() else None

    def _describe_arguments(self) -> None:
        try:
            arguments = self.runner.arguments(self.api)
        except Exception as error:
            self._set_status(error_text(error), error=True)
            return
        spaces = [a.space for a in arguments if not a.is_constant and a.space is not None]
        self.time_slider.disabled = not any(s.has_time_rank for s in spaces)
        labels = ", ".join(f'"{a.name}": {space_label(a.space)}' for a in arguments if not a.is_constant)
        note = "set from code" if self._code_value is not None else "empty: sampled from the input spaces"
        self.value_box.placeholder = f"{note}; or JSON {{{labels}}}"

    # ----- widgets --------------------------------------------------------------------------------------------
    def _make_widgets(self, apis: list[str], api: str, backends: list[str], backend: str, seed: int,
                      batch_size: int, time_size: int) -> None:
        import ipywidgets as w

        self.api_menu = w.Dropdown(options=apis, value=api, description="API")
        self.backend_menu = w.Dropdown(options=backends, value=backend, description="backend",
                                       layout=w.Layout(width="200px"))
        self.batch_slider = w.IntSlider(value=batch_size, min=1, max=256, description="batch")
        self.time_slider = w.IntSlider(value=time_size, min=1, max=64, description="time")
        self.seed_box = w.IntText(value=seed, description="seed", layout=w.Layout(width="180px"))
        self.value_box = w.Textarea(layout=w.Layout(width="100%", height="70px"))
        self.run_button = w.Button(description="Run", icon="play", button_style="primary")
        self.status_pane, self.output_pane, self.error_pane = w.HTML(), w.HTML(), w.HTML()
        self.api_menu.observe(lambda _: None if self._syncing else self._on_api(), names="value")
        self.value_box.observe(self._on_text, names="value")
        self.run_button.on_click(lambda _: self._guarded_run())
        title = w.HTML(f"<b>Probe</b> <code>{html.escape(self.component.path)}</code> "
                       f"{html.escape('<' + type(self.component).__name__ + '>')}")
        controls = w.VBox([title, w.HBox([self.api_menu, self.backend_menu, self.seed_box]),
                           w.HBox([self.batch_slider, self.time_slider]), self.value_box,
                           w.HBox([self.run_button, self.status_pane])])
        self.widget = w.VBox([controls, self.output_pane, self.error_pane])
        self._all_widgets = [self.api_menu, self.backend_menu, self.batch_slider, self.time_slider, self.seed_box,
                             self.value_box, self.run_button, self.status_pane, self.output_pane, self.error_pane,
                             title, controls, self.widget]

    def _on_api(self) -> None:
        self._describe_arguments()

    def _on_text(self, change: dict[str, object]) -> None:
        if not self._syncing and change["new"].strip():
            self._code_value = None  # typing replaces a value set from code
            self._describe_arguments()

    def _guarded_run(self) -> None:
        """The Run button: errors are shown in the widget, never as a traceback in the notebook."""
        try:
            self.run()
        except Exception as error:
            if self.error is not error:
                self._show_error(error)

    def _repr_mimebundle_(self, **kwargs: object) -> object:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"Probe({self.component.path!r}, api={self.api!r})"


def raise_no_api(component: Component, input_spaces: Mapping[str, Space] | None) -> None:

    hint = "build it, or give input_spaces for its API parameters" if not component.built else "none was built"
    raise ConfigError(f"no API method of this component can be probed: {hint}", component=component.path,
                      argument="input_spaces", expected=sorted(component.api_methods),
                      got=sorted(input_spaces or {}))


def _check_choice(value: object, choices: list[str], argument: str, component: str) -> None:
    if value is not None and value not in choices:
        raise ConfigError(f"unknown {argument}", component=component, argument=argument, expected=choices, got=value)
