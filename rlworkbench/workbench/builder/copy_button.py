"""``CopyButton``: a button that copies a text (the builder's config as a Python dict) to the clipboard."""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets


class CopyButton(anywidget.AnyWidget):
    """Copies ``text`` to the browser's clipboard when clicked."""

    _esm = Path(__file__).with_name("copy_button.js")
    _css = (".rlw-copy-button { font-size: 12px; padding: 2px 10px; cursor: pointer; border: 1px solid #cbd5e1;"
            " background: #f8fafc; border-radius: 3px; }")
    text = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Copy as Python dict").tag(sync=True)
