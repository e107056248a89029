"""The small HTML tables and log block of a run's live view, each column header explained in its tooltip.

:data:`COLUMN_HELP` says what every column of the workers and shards tables means (the same words the runs panel's
cards use for their numbers); :func:`tables_html` lays tables side by side, headers with ``title=`` tooltips.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from numbers import Integral, Real

import pandas as pd

COLUMN_HELP: dict[str, str] = {
    "worker": "sampler actor number",
    "env_steps": "env steps this sampler took (all its envs)",
    "env_steps_per_s": "env steps per second of this sampler since the run started",
    "episodes": "episodes this sampler finished",
    "recent_return": "mean return of this sampler's last 20 episodes",
    "restarts": "times the actor was restarted after it died or its env raised",
    "weights_behind": "learner updates the sampler's weights are behind",
    "last_error": "the last error that made the actor restart",
    "shard": "replay shard actor number",
    "records": "transitions held in this shard",
    "capacity": "transitions this shard holds at most",
    "fill": "records / capacity",
    "lost": "records lost when the shard's predecessors were replaced",
    "rank": "learner rank (a data-parallel learner group)",
    "node": "the Ray node the rank runs on (id, short)",
    "pid": "the rank's process id",
    "updates": "updates the learner group made",
    "update_s": "seconds of this rank's last update, all-reduces included",
    "allreduce_s": "seconds of its last update spent in all-reduces (blank on TensorFlow: they run inside the graph)",
}


def column_help(name: str) -> str:
    return COLUMN_HELP.get(name, name)


def table_html(frame: pd.DataFrame) -> str:
    """One table: headers with tooltips, numbers rounded (2 decimals for floats), blanks for missing values."""
    head = "".join(f'<th title="{html.escape(column_help(str(column)), quote=True)}" '
                   f"style='text-align: right; cursor: help'>{html.escape(str(column))}</th>"
                   for column in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td style='text-align: right'>{html.escape(_cell(value))}</td>"
                                    for value in row) + "</tr>" for row in frame.itertuples(index=False))
    return f"<table class='rlwb-live-table'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _cell(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, Real):
        return "" if value is None else str(value)
    if isinstance(value, Integral):
        return f"{value:,}"
    return "" if math.isnan(value) else f"{value:,.2f}"


def tables_html(*frames: pd.DataFrame | None) -> str:
    """The given tables side by side as compact HTML (nothing for ``None`` or empty ones)."""
    parts = [table_html(frame) for frame in frames if frame is not None and not frame.empty]
    if not parts:
        return ""
    cells = "".join(f"<div style='margin-right: 2em'>{part}</div>" for part in parts)
    return f"<div style='display: flex; font-size: 85%; font-family: monospace'>{cells}</div>"


def log_html(lines: Sequence[str]) -> str:
    """Log lines as a small preformatted block (nothing for none)."""
    if not lines:
        return ""
    text = html.escape("\n".join(line[:300] for line in lines))
    return f"<pre style='font-size: 80%; margin: 0; max-height: 10em; overflow: auto'>{text}</pre>"
