"""An SVG drawing as HTML for notebooks: inline, at its natural size, in a box that scrolls."""

from __future__ import annotations

import html
import re

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.DOTALL)


def scrolling_svg(svg: str, title: str = "", max_height: str = "80vh") -> str:
    """The SVG inline, at its natural size, in a box that scrolls both ways when the drawing is larger."""
    body = _PROLOGUE.sub("", svg, count=1)
    style = (f"max-width:100%;max-height:{max_height};overflow:auto;background:white;border:1px solid #e5e7eb;"
             "border-radius:4px")
    return f'<div class="rlw-graph" title="{html.escape(title)}" style="{style}">{body}</div>'
