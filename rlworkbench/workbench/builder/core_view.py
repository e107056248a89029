"""What a :class:`~.builder_core.BuilderCore` tells its view, and the view a core has without widgets.

The core calls these when its state changes; :class:`~.builder_view.BuilderView` (GraphBuilder's widgets) shows
each, :class:`HeadlessView` ignores them — so the core builds, marks changes and exports the same either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from rlworkbench.errors import ConfigError


class HeadlessView:
    """A core's view where nothing is shown: the config being edited is the core's ``draft`` alone."""

    def working(self, label: str) -> AbstractContextManager[None]:
        """Shows ``label`` ("building on tf") while the block runs."""
        return contextlib.nullcontext()

    def said(self, text: str, error: bool) -> None:
        """The status line changed to ``text`` (``error``: it reports one)."""

    def after_build(self) -> None:
        """A build (or a failed one) ended: config, backend and export are new."""

    def read_draft(self) -> dict[str, object] | None:
        """The config being edited as the view holds it (a form's), or None to use the core's ``draft``; raises
        ConfigError for a value that does not parse."""
        return None

    def write_draft(self, config: Mapping[str, object]) -> None:
        """The core changed the config being edited (``set``): show ``config``."""

    def mark_error(self, error: ConfigError) -> str | None:
        """Shows ``error`` at its field; returns the JSON path marked (None: no field)."""
        return None

    def clear_errors(self) -> None:
        """Takes the field errors off again."""

    def show_run(self, run: Any) -> None:
        """A run was promoted from the builder."""

    def sweep_changed(self) -> None:
        """The sweep draft changed (a field ticked, its errors)."""

    def show_experiment(self, experiment: Any) -> None:
        """An experiment was launched from the sweep draft."""
