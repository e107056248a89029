"""``GraphBuilder(prototype)``: compose and edit an agent in a form and watch its component graph, spaces and checks
update live.

One widget, three parts: the **form** of the agent's config (generated from the agent type's JSON schema, see
:mod:`.config_form`), the **live graph** (fitted, zoomable, pannable; see :class:`GraphPane`) and a
**details / probe** area (the explorer's component tree with devices, a :class:`Probe`, export, promote and a
sweep over ticked fields of the config, see :mod:`.sweep_draft`).

Every change in the form (debounced) is validated: a ConfigError is shown next to the field its JSON path names
and the last good graph stays. Otherwise the agent is made again and built, and the graph redrawn with what
changed since the previous build marked — components added (green), changed (orange), removed (in the legend),
edges whose spaces changed (orange). A failed build draws the partial graph with the stuck component in red, in
view. A code-composed component (no config) opens without the form: the explorer's replace / re-device actions
work and every rebuild is marked the same way.

From code: :meth:`set` (a config value by JSON path), :meth:`apply`, :meth:`flush`, :meth:`set_backend`,
:meth:`rebuild`, :meth:`probe`, :meth:`export`, :meth:`export_cell`, :meth:`promote`, :meth:`tick` / :meth:`untick`
(a field to sweep), :meth:`sweep_code`, :meth:`sweep_cell`, :meth:`sweep`; :attr:`config`, :attr:`agent`,
:attr:`changes`, :attr:`field_errors`, :attr:`error`, :attr:`svg`, :attr:`status`, :attr:`redraw_seconds`,
:attr:`sweep_draft` and :attr:`experiment` hold the state.
"""

from __future__ import annotations

import asyncio
import copy
import json
import pprint
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.core.backend import available_backends, default_backend_name
from rlworkbench.core.builder import resolve_devices
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.visualize.graph_diff import GraphChanges, GraphSnapshot, compare, snapshot
from rlworkbench.workbench.builder.export_name import default_export_name, shipped_config_path
from rlworkbench.workbench.builder.form_schema import FORM_LEFT_OUT
from rlworkbench.workbench.builder.preload import paused, preload_backends
from rlworkbench.workbench.builder.source import BuilderSource, resolve_source
from rlworkbench.workbench.builder.sweep_actions import SweepActions, env_id, next_cell
from rlworkbench.workbench.builder.sweep_draft import SweepDraft
from rlworkbench.workbench.explorer_render import error_paths, error_text, status_html
from rlworkbench.workbench.graph_explorer import GraphExplorer
from rlworkbench.workbench.run_spec import DEFAULT_ENV

_NO_ENV = object()


class GraphBuilder(SweepActions):
    """Builds ``prototype`` — a shipped config's name, a config dict or JSON path, an agent (built or not) or a
    code-composed Component / Executor — and lets you edit it live.

    ``env``: the Gymnasium id (or env) whose spaces a config is built for (``"CartPole-v1"``; an agent brings its
    own spaces); ``backend``: ``"torch"`` or ``"tf"`` (switchable); ``seed``: the build seed; ``debounce``: seconds
    to wait after a form change before rebuilding (changes made from code apply at once).
    """

    def __init__(self, prototype: Any, *, env: Any = _NO_ENV, backend: str | None = None, seed: int = 0,
                 debounce: float = 0.3, input_spaces: Mapping[str, Any] | None = None):
        self.env = env if env is not _NO_ENV else (None if isinstance(prototype, Agent) else DEFAULT_ENV)
        self.source: BuilderSource = resolve_source(prototype, self.env)  # (an agent brings its own spaces)
        self.backend = backend or getattr(self.source.agent, "backend", None) or default_backend_name()
        self.seed, self.debounce = seed, debounce
        self.config: dict[str, Any] | None = None  #: the last config that built (None: none has yet)
        self.agent: Agent | None = None  #: the agent of that config
        self.changes: GraphChanges | None = None
        self.field_errors: dict[str, str] = {}
        self.error: BaseException | None = None
        self.status = ""
        self.redraw_seconds: float | None = None  #: the latest change → redraw time (validate, build, draw)
        self.builds = 0
        self.run: Any = None  #: the latest Run promoted from the builder
        self.experiment: Any = None  #: the latest Experiment launched from the sweep tab
        self.sweep_draft: SweepDraft | None = None  #: the sweep tab's fields, settings and space (with a form)
        self._snapshot: GraphSnapshot | None = None
        self._pending: Any = None
        self._quiet = self._building = False
        self._probe: Any = None
        self._kept = {k: v for k, v in (self.source.config or {}).items() if k in FORM_LEFT_OUT}
        from rlworkbench.workbench.builder.builder_view import BuilderView

        self.form = None
        first_error: BaseException | None = None
        if self.source.config is not None:
            from rlworkbench.workbench.builder.config_form import ConfigForm

            self.form = ConfigForm(self.source.agent_class.schema, self.source.config)
            self.form.observe(self._on_form_change)
            given = self.source.agent
            first = given if given is not None and (backend is None or backend == given.backend) \
                else self._make_agent(self.source.config)
            try:
                if first.executor is None:
                    first.build()
                self.agent, self.config = first, copy.deepcopy(self.source.config)
                self.backend = first.executor.backend.name
            except Exception as error:  # drawn below, with the stuck component
                first_error = error
            self.explorer = GraphExplorer(first)
            self.sweep_draft = SweepDraft(self.form.schema, self.config, env=env_id(self.env))
        else:
            self.explorer = GraphExplorer(self.source.component, input_spaces=input_spaces, backend=backend)
        self.explorer.after_rebuild = self._after_explorer_rebuild
        self._unsubscribe = self.explorer.target.root.on_change(self._on_tree_event)
        self.view = BuilderView(self)
        if first_error is not None:
            self._build_failed(first_error, time.perf_counter(), first)
        else:
            self._snapshot = self._snap()
            self._say(f"{self.source.name}: built on {self.backend}" if self.explorer.target.built
                      else self.source.name)

    # ----- the state ------------------------------------------------------------------------------------------
    @property
    def svg(self) -> str:
        """The drawing shown in the graph pane (a failed build's partial graph after a BuildError)."""
        return self.explorer.graph_pane.svg

    def field(self, path: str) -> Any:
        """The form's input widget at a JSON path (``"policy/dueling"``); see :meth:`ConfigForm.field`."""
        return self._require_form("field").field(path)

    # ----- changing the config --------------------------------------------------------------------------------
    def set(self, path: str, value: Any) -> bool:
        """Sets the config value at a JSON path (``"update/batch_size"``, ``"policy/network"`` …) in the form and
        applies it at once; returns whether the new config built."""
        form = self._require_form("set")
        config = form.data
        _assign(config, [p for p in path.split("/") if p], copy.deepcopy(value), path)
        self._quiet = True
        try:
            form.data = config
        finally:
            self._quiet = False
        return self.apply()

    def apply(self) -> bool:
        """Validates the form's config, builds it and redraws with the changes marked; returns whether it built.
        A ConfigError is shown at its field and the last good graph stays; a failed build shows its partial
        graph."""
        form = self._require_form("apply")
        self._cancel_pending()
        with self.view.busy.showing(f"building on {self.backend}"), paused(self.backend):
            return self._apply(form)

    def _apply(self, form: Any) -> bool:
        started = time.perf_counter()
        form.clear_errors()
        self.field_errors = {}
        try:
            config = {**form.data, **self._kept}
            agent = self._make_agent(config)
        except ConfigError as error:
            return self._config_failed(error)
        device_map = self._device_map_for(agent)
        try:
            agent.build(device_map=device_map)
        except Exception as error:
            return self._build_failed(error, started, agent)
        self.explorer.device_map = device_map  # entries for components the new tree lacks are gone
        self.agent, self.config = agent, config
        self._require_sweeps("apply").use_config(config)
        self._redraw(agent, started)
        return True

    def set_backend(self, backend: str) -> bool:
        """Builds the same config (or component) on ``backend`` (``"torch"``/``"tf"``); returns whether it built.
        If it does not build, the builder stays on the backend it had."""
        if backend not in available_backends():
            raise ConfigError("unknown backend", argument="backend", expected=list(available_backends()),
                              got=backend)
        previous, snapshot_before = self.backend, self._snapshot
        self.backend = backend
        self._snapshot = None  # device names differ between backends ('cpu', '/CPU:0'): nothing to compare
        with self.view.busy.showing(f"building on {backend}"), paused(backend):
            if self.form is not None:
                built = self.apply()
            else:
                self.explorer.target.explicit_backend = backend
                try:
                    self.rebuild()
                    built = True
                except Exception:  # shown by the explorer and the status line
                    built = False
        if not built:
            self.backend, self._snapshot = previous, snapshot_before
            self.explorer.target.explicit_backend = previous if self.form is None else None
            self.view.after_build()
        return built

    def rebuild(self) -> Any:
        """Builds the shown tree again with the device map picked in the *component* tab (the explorer's
        :meth:`~GraphExplorer.rebuild`, weights kept) and marks what changed; raises what the build raised."""
        with self.view.busy.showing(f"building on {self.backend}"), paused(self.backend):
            return self.explorer.rebuild()

    # ----- actions --------------------------------------------------------------------------------------------
    def probe(self, api: str | None = None, path: str | None = None, **options: Any) -> Any:
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

    def export(self, path: str | Path | None = None) -> dict[str, Any]:
        """The config of the current graph (the last one that built) as a dict; with ``path``, also written there
        as a JSON file (never over a shipped config's file: a ConfigError)."""
        config = copy.deepcopy(self._require_config("export"))
        shipped = None if path is None else shipped_config_path(path)
        if shipped is not None:
            raise ConfigError(f"that file is the shipped config '{shipped}': export the edited config under another "
                              "name", argument="path", expected=f"e.g. {default_export_name(shipped)}", got=str(path))
        if path is not None:
            Path(path).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return config

    def export_code(self) -> str:
        """The config as Python source: ``config = {...}``."""
        return f"config = {pprint.pformat(self._require_config('export'), sort_dicts=False, width=100)}"

    def export_cell(self) -> str:
        """Puts :meth:`export_code` into a new notebook cell below the current one (from a cell you run)."""
        return next_cell(self.export_code())

    def promote(self, to: str = "local", **settings: Any) -> Any:
        """Trains the current config with :func:`promote` (``to``: ``"local"``, ``"multi_gpu"``, ``"ray"``; the
        builder's env and backend unless given; locally, on the devices picked in the component tab); the Run's
        live view appears below the builder."""
        from rlworkbench.workbench.promote import promote

        config = self._require_config("promote")
        if self.env is None and "env" not in settings:
            raise ConfigError("promote needs an env: the builder was opened on an agent without one",
                              argument="env", expected="a Gymnasium id, e.g. promote(env='CartPole-v1')", got=None)
        settings = {"env": self.env, "backend": self.backend, "seed": self.seed, **settings}
        prototype: Any = copy.deepcopy(config)
        if self.explorer.device_map and to == "local":  # the devices picked here: an agent built with them
            prototype = self._make_agent(prototype).build(device_map=dict(self.explorer.device_map))
        run = promote(prototype, to=to, **settings)
        self.run = run
        self.view.show_run(run)
        return run

    def close(self) -> None:
        """Closes the widgets and stops listening."""
        self._cancel_pending()
        self._unsubscribe()
        if self._probe is not None:
            self._probe.close()
        self.explorer.close()
        self.view.close()

    # ----- building -------------------------------------------------------------------------------------------
    def _make_agent(self, config: Mapping[str, Any]) -> Agent:
        source = self.source
        return source.agent_class(config, source.state_space, source.action_space, backend=self.backend,
                                  seed=self.seed)

    def _device_map_for(self, agent: Agent) -> dict[str, str]:
        """The explorer's device map, without entries for components the new tree does not have."""
        from rlworkbench.core.backend import get_backend

        kept = {}
        for key, device in self.explorer.device_map.items():
            try:
                resolve_devices(agent.root, {key: device}, get_backend(self.backend))
            except RLWorkbenchError:
                continue
            kept[key] = device
        return kept

    def _redraw(self, agent: Agent | None, started: float) -> None:
        """Marks what changed since the previous build and shows the new one (``agent``: a new agent from the
        form; None: the shown tree was built again)."""
        after = self._snap(agent)
        self.changes = None if after is None else compare(self._snapshot, after, self.explorer.edge_labels)
        self._snapshot = after
        self.error = None
        if agent is not None:
            self._show(agent, changes=self.changes)
        else:
            self.explorer.changes, self.explorer.highlight = self.changes, []
            self.explorer.refresh(keep_status=True)
        self.builds += 1
        self.redraw_seconds = time.perf_counter() - started
        if self._probe is not None:  # it probed the previous graph
            self._probe.close()
            self._probe = None
        summary = self.changes.summary() if self.changes is not None else "changes not known"
        self._say(f"built on {self.backend} in {self.redraw_seconds:.2f} s · {summary}")
        self.view.after_build()  # (after the status line: the frontend shows it before the tabs' updates)

    def _show(self, target: Any, **marks: Any) -> None:
        """The explorer shows ``target`` (with ``changes`` / ``highlight``); the builder listens to its tree."""
        self.explorer.look_at(target, **marks)
        self._unsubscribe()
        self._unsubscribe = self.explorer.target.root.on_change(self._on_tree_event)

    def _snap(self, agent: Agent | None = None) -> GraphSnapshot | None:
        target = agent or self.explorer.target.agent or self.explorer.component  # the tree being shown
        try:
            return snapshot(target)
        except RLWorkbenchError:
            return None

    def _config_failed(self, error: ConfigError) -> bool:
        form = self._require_form("apply")
        marked = form.show_error(error)
        self.error = error
        self.field_errors = {marked or error.key_path or "": str(error)}
        self._say(f"config error — {error_text(error)} (the graph shows the last good config)", error=True)
        return False

    def _build_failed(self, error: BaseException, started: float, tree: Any) -> bool:
        """Shows the tree that failed — its partial graph, the stuck component in red and in view — in the
        explorer (its tree and details describe it); the last good agent stays :attr:`agent`."""
        self.error = error
        stuck = next(iter(error_paths(error)), None)
        try:
            self._show(tree, highlight=[stuck] if stuck else [])
        except Exception:  # the message matters more than the drawing
            pass
        self.explorer.graph_pane.focus_on(stuck)
        self.redraw_seconds = time.perf_counter() - started
        self.view.after_build()
        self._say(f"build failed — {error_text(error)}", error=True)
        return False

    # ----- form and component events --------------------------------------------------------------------------
    def _on_form_change(self, _: Any) -> None:
        if self._quiet:
            return
        self._cancel_pending()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop running here (plain Python, tests): apply now
            self._guarded_apply()
            return
        self._pending = loop.call_later(self.debounce, self._guarded_apply)

    def flush(self) -> None:
        """Applies a form change still waiting for its debounce now."""
        if self._pending is not None:
            self._guarded_apply()

    def _guarded_apply(self) -> None:
        try:
            self.apply()
        except Exception as error:  # a widget callback: show, never raise into the frontend
            self.show_error(error)

    def show_error(self, error: BaseException) -> None:
        """Shows an error of a widget action in the status line (and keeps it in :attr:`error`)."""
        self.error = error
        self._say(error_text(error), error=True)

    def _cancel_pending(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _on_tree_event(self, event: str, _: Any) -> None:
        """A build of the shown tree from elsewhere (``build(...)`` from code after replacing a component):
        marked too. The explorer's own rebuilds report through :meth:`_after_explorer_rebuild`."""
        if event != "built" or self.explorer.rebuilding:
            return
        try:
            self._redraw(None, time.perf_counter())
        except Exception as error:  # an observer of someone else's build: never fail that build
            self.show_error(error)

    def _after_explorer_rebuild(self, error: BaseException | None) -> None:
        if error is not None:
            self.show_error(error)  # the explorer drew it (rolled back to the last good build)
            return
        try:
            self._redraw(None, time.perf_counter())
        except Exception as draw_error:
            self.show_error(draw_error)

    # ----- helpers --------------------------------------------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        self.status = text
        self.view.status.value = status_html(text, error, "rlw-builder-status")

    def _require_form(self, what: str) -> Any:
        if self.form is None:
            raise ConfigError(f"{what} edits a config: this builder shows a code-composed component",
                              argument="prototype", expected="a config or an agent with one",
                              got=type(self.source.component).__name__)
        return self.form

    def _require_config(self, what: str) -> dict[str, Any]:
        if self.config is None:
            raise ConfigError(f"{what} needs a config that builds: {self.no_config_reason()}", argument="prototype",
                              expected="a config that builds", got=self.source.name)
        return self.config

    def no_config_reason(self) -> str:
        """Why there is no config to export or promote (when :attr:`config` is None)."""
        return ("this builder shows a code-composed component" if self.form is None
                else "no config has built yet: fix the one in the form first")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        preload_backends()  # shown to someone who may switch backends: the others' imports start meanwhile
        return self.view.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        state = "form" if self.form is not None else "code-composed"
        return f"GraphBuilder({self.source.name!r}, {state}, backend={self.backend!r}, builds={self.builds})"


def _assign(config: Any, parts: list[str], value: Any, path: str) -> None:
    """Sets ``value`` at ``parts`` inside ``config`` (list indices as digits; the list's length appends)."""
    if not parts:
        raise ConfigError("set needs a path inside the config", argument="path", expected="e.g. 'policy/dueling'",
                          got=path)
    node = config
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, list) and part.isdigit() and int(part) <= len(node) - (0 if last else 1):
            index = int(part)
            if last:
                node[index:index + 1] = [value]
            else:
                node = node[index]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            elif part in node:
                node = node[part]
            else:
                raise ConfigError("no such key in the config", key_path=path, expected=sorted(node), got=part)
        else:
            raise ConfigError("no such place in the config", key_path=path, expected="a key or list index",
                              got=part)

