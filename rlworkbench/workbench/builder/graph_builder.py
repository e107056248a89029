"""``GraphBuilder(prototype)``: compose and edit an agent in a form and watch its component graph, spaces and checks
update live.

One widget, three parts: the **form** of the agent's config (generated from the agent type's JSON schema, see
:mod:`.config_form`), the **live graph** (fitted, zoomable, pannable; see :class:`GraphPane`) and a
**details / probe** area (the explorer's component tree with devices, a :class:`Probe`, export and promote).

Every change in the form (debounced) is validated: a ConfigError is shown next to the field its JSON path names
and the last good graph stays. Otherwise the agent is made again and built, and the graph redrawn with what
changed since the previous build marked — components added (green), changed (orange), removed (in the legend),
edges whose spaces changed (orange). A failed build draws the partial graph with the stuck component in red, in
view. A code-composed component (no config) opens without the form: the explorer's replace / re-device actions
work and every rebuild is marked the same way.

From code: :meth:`set` (a config value by JSON path), :meth:`apply`, :meth:`set_backend`, :meth:`probe`,
:meth:`export`, :meth:`export_cell`, :meth:`promote`; :attr:`config`, :attr:`agent`, :attr:`changes`,
:attr:`field_errors`, :attr:`error`, :attr:`svg`, :attr:`status` and :attr:`redraw_seconds` hold the state.
"""

from __future__ import annotations

import asyncio
import copy
import html
import json
import pprint
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.core.backend import available_backends, default_backend_name
from rlworkbench.core.builder import resolve_devices
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError
from rlworkbench.visualize.graph_diff import GraphChanges, GraphSnapshot, compare, snapshot
from rlworkbench.workbench.builder.form_schema import FORM_LEFT_OUT
from rlworkbench.workbench.builder.source import BuilderSource, resolve_source
from rlworkbench.workbench.explorer_render import error_paths, error_text, graph_svg
from rlworkbench.workbench.graph_explorer import GraphExplorer
from rlworkbench.workbench.run_spec import DEFAULT_ENV

_NO_ENV = object()


class GraphBuilder:
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
        agent_backend = getattr(self.source.agent, "backend", None)
        self.backend = backend or agent_backend or default_backend_name()
        self.seed, self.debounce = seed, debounce
        self.config: dict[str, Any] | None = copy.deepcopy(self.source.config)  #: the last config that built
        self.agent: Agent | None = None
        self.changes: GraphChanges | None = None
        self.field_errors: dict[str, str] = {}
        self.error: BaseException | None = None
        self.status = ""
        self.redraw_seconds: float | None = None  #: the latest change → redraw time (validate, build, draw)
        self.builds = 0
        self.run: Any = None  #: the latest Run promoted from the builder
        self._snapshot: GraphSnapshot | None = None
        self._pending: Any = None
        self._quiet = False
        self._probe: Any = None
        from rlworkbench.workbench.builder.builder_view import BuilderView

        self.form = None
        if self.source.config is not None:
            from rlworkbench.workbench.builder.config_form import ConfigForm

            self.form = ConfigForm(self.source.agent_class.schema, self.source.config)
            self.form.observe(self._on_form_change)
            first = self.source.agent or self._make_agent(self.source.config)
            if first.executor is None:
                first.build()
            self.agent = first
            self.explorer = GraphExplorer(first)
            self.backend = first.executor.backend.name
        else:
            self.explorer = GraphExplorer(self.source.component, input_spaces=input_spaces, backend=backend)
        self._unsubscribe = self.explorer.target.root.on_change(self._on_tree_event)
        self._snapshot = self._snap()
        self.view = BuilderView(self)
        self._say(f"{self.source.name}: built on {self.backend}" if self._built() else f"{self.source.name}")

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
        started = time.perf_counter()
        try:
            config = {**form.data, **{k: v for k, v in (self.config or {}).items() if k in FORM_LEFT_OUT}}
            agent = self._make_agent(config)
        except ConfigError as error:
            return self._config_failed(error)
        form.clear_errors()
        self.field_errors = {}
        try:
            agent.build(device_map=self._device_map_for(agent))
        except Exception as error:
            return self._build_failed(error, started, agent.root)
        self.agent, self.config = agent, config
        self._redraw(agent, started)
        return True

    def set_backend(self, backend: str) -> bool:
        """Builds the same config (or component) on ``backend`` (``"torch"``/``"tf"``); returns whether it built."""
        if backend not in available_backends():
            raise ConfigError("unknown backend", argument="backend", expected=list(available_backends()),
                              got=backend)
        self.backend = backend
        self._snapshot = None  # device names differ between backends ('cpu', '/CPU:0'): nothing to compare
        if self.form is not None:
            return self.apply()
        started = time.perf_counter()
        self.explorer.target.explicit_backend = backend
        try:
            self.explorer.rebuild()
        except Exception as error:
            return self._build_failed(error, started, self.explorer.component)
        self.redraw_seconds = time.perf_counter() - started
        return True

    # ----- actions --------------------------------------------------------------------------------------------
    def probe(self, api: str | None = None, **options: Any) -> Any:
        """A :class:`Probe` on the current graph (shown in the builder's probe tab); ``api``: the root API method."""
        from rlworkbench.workbench.probe import Probe

        if self._probe is not None:
            self._probe.close()
        self._probe = Probe(self.explorer.target.agent or self.explorer.component, api,
                            executor=self.explorer.executor, **options)
        self.view.show_probe(self._probe)
        return self._probe

    def export(self, path: str | Path | None = None) -> dict[str, Any]:
        """The config of the current graph (the last one that built) as a dict; with ``path``, also written there
        as a JSON file."""
        config = copy.deepcopy(self._require_config("export"))
        if path is not None:
            Path(path).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return config

    def export_code(self) -> str:
        """The config as Python source: ``config = {...}``."""
        return f"config = {pprint.pformat(self._require_config('export'), sort_dicts=False, width=100)}"

    def export_cell(self) -> str:
        """Puts :meth:`export_code` into a new notebook cell below the current one (from a cell you run)."""
        code = self.export_code()
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            shell.set_next_input(code, replace=False)
        return code

    def promote(self, to: str = "local", **settings: Any) -> Any:
        """Trains the current config with :func:`promote` (``to``: ``"local"``, ``"multi_gpu"``, ``"ray"``; the
        builder's env and backend unless given); the Run's live view appears below the builder."""
        from rlworkbench.workbench.promote import promote

        config = self._require_config("promote")
        if self.env is None and "env" not in settings:
            raise ConfigError("promote needs an env: the builder was opened on an agent without one",
                              argument="env", expected="a Gymnasium id, e.g. promote(env='CartPole-v1')", got=None)
        settings = {"env": self.env, "backend": self.backend, "seed": self.seed, **settings}
        run = promote(copy.deepcopy(config), to=to, **settings)
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
        after = self._snap(agent)
        self.changes = compare(self._snapshot, after, self.explorer.edge_labels)
        self._snapshot = after
        self.error = None
        if agent is not None:
            self.explorer.look_at(agent, changes=self.changes)
            self._unsubscribe()
            self._unsubscribe = agent.root.on_change(self._on_tree_event)
        else:
            self.explorer.changes = self.changes
            self.explorer.refresh(keep_status=True)
        self.builds += 1
        self.redraw_seconds = time.perf_counter() - started
        if self._probe is not None:  # it probed the previous graph
            self._probe.close()
            self._probe = None
        self.view.after_build()
        self._say(f"built on {self.backend} in {self.redraw_seconds:.2f} s · {self.changes.summary()}")

    def _snap(self, agent: Agent | None = None) -> GraphSnapshot | None:
        target = agent or self.agent or self.explorer.component
        try:
            return snapshot(target)
        except RLWorkbenchError:
            return None

    def _built(self) -> bool:
        return self.explorer.target.built

    def _config_failed(self, error: ConfigError) -> bool:
        form = self._require_form("apply")
        marked = form.show_error(error)
        self.error = error
        self.field_errors = {marked or error.key_path or "": str(error)}
        self._say(f"config error — {error_text(error)} (the graph shows the last good config)", error=True)
        return False

    def _build_failed(self, error: BaseException, started: float, tree: Any) -> bool:
        """Draws the tree that failed (its partial graph) with the stuck component in red, brought into view."""
        self.error = error
        stuck = next(iter(error_paths(error)), None)
        try:
            target = error if isinstance(error, BuildError) and error.graph is not None else tree
            svg = graph_svg(target, highlight=[stuck] if stuck else [])
        except Exception:  # the message matters more than the drawing
            svg = self.explorer.svg
        self.explorer.graph_pane.svg = svg
        self.explorer.graph_pane.focus_on(stuck)
        self.redraw_seconds = time.perf_counter() - started
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
        """A rebuild of the shown tree from elsewhere (the explorer's devices, a replaced component): marked too."""
        if event == "built":
            self._redraw(None, time.perf_counter())

    # ----- helpers --------------------------------------------------------------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        self.status = text
        color = "#b91c1c" if error else "#374151"
        self.view.status.value = f"<span class='rlw-builder-status' style='color:{color}'>{html.escape(text)}</span>"

    def _require_form(self, what: str) -> Any:
        if self.form is None:
            raise ConfigError(f"{what} edits a config: this builder shows a code-composed component",
                              argument="prototype", expected="a config or an agent with one",
                              got=type(self.source.component).__name__)
        return self.form

    def _require_config(self, what: str) -> dict[str, Any]:
        if self.config is None:
            raise ConfigError(f"{what} needs a config: this builder shows a code-composed component",
                              argument="prototype", expected="a config or an agent with one",
                              got=type(self.source.component).__name__)
        return self.config

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
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
        if isinstance(node, list) and part.isdigit() and int(part) <= len(node):
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

