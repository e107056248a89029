"""``GraphBuilder(prototype)``: compose and edit an agent in a form and watch its component graph, spaces and checks
update live.

One widget, three parts: the **form** of the agent's config (generated from the agent type's JSON schema, see
:mod:`.config_form`), the **live graph** (fitted, zoomable, pannable; see :class:`GraphPane`) and a
**details / probe** area (the explorer's component tree with devices, a :class:`Probe`, export, promote and a
sweep over ticked fields of the config, see :mod:`.sweep_draft`).

The state and the rebuilding are :class:`~.builder_core.BuilderCore`'s (no widgets: usable from scripts and
tests); this class adds the widgets as the core's view (:class:`~.builder_view.BuilderView`), the form's debounce
and the probe. Every change in the form (debounced) is validated: a ConfigError is shown next to the field its JSON
path names and the last good graph stays. Otherwise the agent is made again and built, and the graph redrawn with
what changed since the previous build marked — components added (green), changed (orange), removed (in the
legend), edges whose spaces changed (orange). A failed build draws the partial graph with the stuck component in
red, in view. A code-composed component (no config) opens without the form: the explorer's replace / re-device
actions work and every rebuild is marked the same way.

From code: the core's methods (:meth:`set`, :meth:`apply`, :meth:`set_backend`, :meth:`rebuild`, :meth:`export`,
:meth:`export_code`, :meth:`export_cell`, :meth:`promote`, :meth:`tick` / :meth:`untick`, :meth:`sweep_code`,
:meth:`sweep_cell`, :meth:`sweep`), and :meth:`flush`, :meth:`probe`, :meth:`field`; :attr:`config`,
:attr:`agent`, :attr:`changes`, :attr:`field_errors`, :attr:`error`, :attr:`svg`, :attr:`status`,
:attr:`redraw_seconds`, :attr:`sweep_draft` and :attr:`experiment` hold the state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.workbench.builder.builder_core import NO_ENV, BuilderCore
from rlworkbench.workbench.builder.preload import preload_backends
from rlworkbench.workbench.graph_explorer import GraphExplorer


class GraphBuilder(BuilderCore):
    """Builds ``prototype`` — a shipped config's name, a config dict or JSON path, an agent (built or not) or a
    code-composed Component / Executor — and lets you edit it live.

    ``env``: the Gymnasium id (or env) whose spaces a config is built for (``"CartPole-v1"``; an agent brings its
    own spaces); ``backend``: ``"torch"`` or ``"tf"`` (switchable); ``seed``: the build seed; ``debounce``: seconds
    to wait after a form change before rebuilding (changes made from code apply at once).
    """

    def __init__(self, prototype: object, *, env: object = NO_ENV, backend: str | None = None, seed: int = 0,
                 debounce: float = 0.3, input_spaces: Mapping[str, object] | None = None):
        from rlworkbench.workbench.builder.builder_view import BuilderView

        self.debounce = debounce
        self._pending: Any = None
        self._probe: Any = None
        super().__init__(prototype, env=env, backend=backend, seed=seed, input_spaces=input_spaces)
        self.form = None
        if self.source.config is not None:
            from rlworkbench.workbench.builder.config_form import ConfigForm

            self.form = ConfigForm(self.source.agent_class.schema, self.source.config)
            self.form.observe(self._on_form_change)
        self.explorer = GraphExplorer(core=self.explorer)  # the core's explorer, with its widgets
        self.view = BuilderView(self)

    def field(self, path: str) -> object:
        """The form's input widget at a JSON path (``"policy/dueling"``); see :meth:`ConfigForm.field`."""
        self._require_form("field")
        return self.form.field(path)

    def apply(self) -> bool:
        """Validates the form's config, builds it and redraws with the changes marked; returns whether it built
        (see :meth:`BuilderCore.apply`)."""
        self._cancel_pending()
        return super().apply()

    def probe(self, api: str | None = None, path: str | None = None, **options: object) -> object:
        """A :class:`Probe` on the current graph (shown in the builder's probe tab): an API method of the component
        at ``path`` below the root (default: the one selected in the component tab)."""
        from rlworkbench.workbench.probe import Probe

        if self._probe is not None:
            self._probe.close()
        target = self.explorer.target.agent or self.explorer.target.root
        if path is None:
            selected = self.explorer.selected_component
            path = "" if selected is self.explorer.target.root else selected.relative_path(self.explorer.target.root)
        self._probe = Probe(target, api, path=path or None, executor=self.explorer.executor, **options)
        self.view.show_probe(self._probe)
        return self._probe

    def flush(self) -> None:
        """Applies a form change still waiting for its debounce now."""
        if self._pending is not None:
            self._guarded_apply()

    def close(self) -> None:
        """Closes the widgets and stops listening."""
        self._cancel_pending()
        if self._probe is not None:
            self._probe.close()
        super().close()
        self.view.close()

    # ----- the widgets' side of building ----------------------------------------------------------------------
    def _redraw(self, agent: Agent | None, started: float) -> None:
        if self._probe is not None:  # it probed the previous graph
            self._probe.close()
            self._probe = None
        super()._redraw(agent, started)

    def _on_form_change(self, _: object) -> None:
        if self.view.quiet:
            return
        self._cancel_pending()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop running here (plain Python, tests): apply now
            self._guarded_apply()
            return
        self._pending = loop.call_later(self.debounce, self._guarded_apply)

    def _guarded_apply(self) -> None:
        try:
            self.apply()
        except Exception as error:  # a widget callback: show, never raise into the frontend
            self.show_error(error)

    def _cancel_pending(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _repr_mimebundle_(self, **kwargs: object) -> object:
        preload_backends()  # shown to someone who may switch backends: the others' imports start meanwhile
        return self.view.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        state = "form" if self.form is not None else "code-composed"
        return f"GraphBuilder({self.source.name!r}, {state}, backend={self.backend!r}, builds={self.builds})"
