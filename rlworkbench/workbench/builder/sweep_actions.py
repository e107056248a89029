"""The GraphBuilder's sweep actions — tick fields of its config, read the experiment as code, launch it — kept apart
from the building (a mixin of :class:`~.graph_builder.GraphBuilder`; the state lives in its
:class:`~.sweep_draft.SweepDraft`, the widgets in :mod:`.sweep_tab`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlworkbench.workbench.builder.sweep_draft import SweepDraft


class SweepActions:
    """:meth:`tick`, :meth:`untick`, :meth:`sweep_code`, :meth:`sweep_cell` and :meth:`sweep` of a GraphBuilder."""

    sweep_draft: SweepDraft | None  #: the sweep tab's fields, settings and space (a builder with a form has one)
    experiment: Any  #: the latest Experiment launched from the sweep tab
    backend: str
    view: Any

    def tick(self, path: str, distribution: str | None = None, **entry: object) -> bool:
        """Sweeps the config field at ``path`` (``"optimizer/learning_rate"``) in the sweep tab: ``distribution``
        (``"loguniform"``, ``"uniform"``, ``"randint"``, ``"lograndint"``, ``"choice"``, ``"grid_search"``) and
        ``low`` / ``high`` or ``values`` (a list or ``"32, 64"``), each by default a guess around the current value;
        returns whether the entry checks (else its ConfigError is in ``sweep_draft.errors``, shown at its row)."""
        draft = self._require_sweeps("tick")
        draft.tick(path, distribution, **entry)
        self.view.sweep_changed()
        return path not in draft.errors

    def untick(self, path: str) -> None:
        """Stops sweeping the field at ``path``."""
        self._require_sweeps("untick").untick(path)
        self.view.sweep_changed()

    def sweep_code(self) -> str:
        """The sweep tab's experiment as Python code: the ``space``, the config (:meth:`export_code`) and the
        ``sweep(config, ...)`` call with the tab's settings and the builder's backend."""
        return self._require_sweeps("sweep_code").code(self.export_code(), backend=self.backend)

    def sweep_cell(self) -> str:
        """Puts :meth:`sweep_code` into a new notebook cell below the current one (from a cell you run)."""
        return next_cell(self.sweep_code())

    def sweep(self, **settings: object) -> Any:
        """Launches :func:`~rlworkbench.workbench.experiments.sweep` on the current config with the ticked space and
        the sweep tab's settings (``settings`` over them: ``seeds``, ``trials``, ``budget``, ``logdir``,
        ``report_every`` …; the builder's backend unless given); the Experiment's live widget appears in the tab.
        Refuses (the first ConfigError) while a ticked field has an error."""
        draft = self._require_sweeps("sweep")
        try:
            experiment = draft.launch(self._require_config("sweep"), **{"backend": self.backend, **settings})
        finally:
            self.view.sweep_changed()  # an error the launch found at a ticked field is shown there
        self.experiment = experiment
        self.view.show_experiment(experiment)
        return experiment

    def _require_sweeps(self, what: str) -> SweepDraft:
        self._require_form(what)
        assert self.sweep_draft is not None  # (made with the form)
        return self.sweep_draft

    if TYPE_CHECKING:  # GraphBuilder's
        def export_code(self) -> str: ...

        def _require_form(self, what: str) -> Any: ...

        def _require_config(self, what: str) -> dict[str, object]: ...


def next_cell(code: str) -> str:
    """Puts ``code`` into a new notebook cell below the current one (when run in IPython); returns it."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.set_next_input(code, replace=False)
    return code


def env_id(env: Any) -> str | None:
    """A Gymnasium id for a sweep's runs (they make their env in other processes): ``env`` or its spec's id."""
    return env if isinstance(env, str) else getattr(getattr(env, "spec", None), "id", None)
