"""Device colours: one light fill per device, stable in the order devices are first seen."""

from __future__ import annotations

_FILLS = ("#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#cffafe", "#fee2e2", "#e5e7eb")
DEFAULT_FILL = "#f8fafc"
STUCK_COLOR = "#dc2626"
SELECT_COLOR = "#2563eb"
ADDED_COLOR = "#16a34a"  # a component new since the previous build
RECURRENT_COLOR = "#7c3aed"  # a recurrent state's loop edge
CHANGED_COLOR = "#ea580c"  # a component (or an edge's spaces) changed since the previous build


class DevicePalette:
    """Maps device names to fill colours; ``None`` (no device chosen) gets the neutral fill."""

    def __init__(self) -> None:
        self.colors: dict[str, str] = {}

    def fill(self, device: str | None) -> str:
        if device is None:
            return DEFAULT_FILL
        if device not in self.colors:
            self.colors[device] = _FILLS[len(self.colors) % len(_FILLS)]
        return self.colors[device]
