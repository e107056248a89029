""":class:`TrialTable`: a sortable table of an experiment's trials in the notebook (an anywidget).

Rows are sorted here, in Python, by :attr:`~TrialTable.sort_by` / :attr:`~TrialTable.descending`; a click on a
column header in the page sets those two (a second click on the same column turns the order round), so the order
on screen and :attr:`~TrialTable.rows` always agree. The :attr:`~TrialTable.best` trial's row is highlighted.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anywidget
import pandas as pd
import traitlets

_CSS = """
.rlw-trials { max-height: 22em; overflow: auto; font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.rlw-trials table { border-collapse: collapse; }
.rlw-trials th { position: sticky; top: 0; background: #f1f5f9; cursor: pointer; user-select: none;
  padding: 2px 8px; text-align: right; white-space: nowrap; border-bottom: 1px solid #cbd5e1; }
.rlw-trials th.rlw-sorted { background: #dbeafe; }
.rlw-trials td { padding: 1px 8px; text-align: right; white-space: nowrap; border-bottom: 1px solid #f1f5f9; }
.rlw-trials tr.rlw-best td { background: #fef9c3; font-weight: bold; }
.rlw-trials td.rlw-state-failed { color: #b91c1c; }
.rlw-trials td.rlw-state-running { color: #1d4ed8; }
.rlw-trials td.rlw-state-stopped { color: #a16207; }
"""


class TrialTable(anywidget.AnyWidget):
    """The trials as a table: ``columns`` and ``rows`` (lists of cell texts, sorted), ``best`` (a trial id)."""

    _esm = Path(__file__).with_name("trial_table.js")
    _css = _CSS
    columns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    rows = traitlets.List().tag(sync=True)
    best = traitlets.Unicode("").tag(sync=True)
    sort_by = traitlets.Unicode("").tag(sync=True)
    descending = traitlets.Bool(True).tag(sync=True)

    def __init__(self, **kwargs: object):
        super().__init__(**kwargs)
        self._frame = pd.DataFrame()
        self.observe(lambda _change: self._fill(), names=["sort_by", "descending"])

    def show(self, frame: pd.DataFrame, best: str | None) -> None:
        """Shows ``frame`` (one row per trial, a ``trial`` column) sorted as asked, ``best`` highlighted."""
        self._frame = frame.reset_index(drop=True)
        self.best = best or ""
        self._fill()

    def _fill(self) -> None:
        frame = self._frame
        if self.sort_by in frame.columns and len(frame):
            keys = frame[self.sort_by].map(_sort_key)
            present = keys[keys.map(lambda key: key[0] < 2)]
            present = present.sort_values(ascending=not self.descending, kind="stable")
            frame = frame.loc[[*present.index, *keys.index.difference(present.index, sort=False)]]
        self.columns = [str(column) for column in frame.columns]
        self.rows = [[_cell(value) for value in row] for row in frame.itertuples(index=False, name=None)]


def _sort_key(value: object) -> Any:
    """Numbers by value, everything else by text; ``(2, 0)`` for a missing value (kept last in either order)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value)) if not math.isnan(float(value)) else (2, 0.0)
    return (1, str(value)) if value is not None else (2, 0.0)


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e-2 or abs(value) >= 1e5 else f"{value:,.2f}"
    return str(value)
