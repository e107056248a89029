"""An SVG drawing as HTML for notebooks: inline, at its natural size (100 %), in a box that scrolls.

JupyterLab's stylesheet shrinks every ``svg`` in HTML output to the output's width (``max-width: 100%;
height: auto``): a 2,000 px agent drawing would end up with 5 px labels. The drawing's own ``style`` pins it to its
natural pixel size instead (an element's style beats a stylesheet), and a caption above the box says the zoom
(``100 %``), the size and that the box scrolls. The drawing's title and the drawn component's own API methods
sit at its top-left (see :mod:`~rlworkbench.visualize.render`), which is where the box opens.
"""

from __future__ import annotations

import html
import re

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.DOTALL)
_LENGTH = re.compile(r"^\s*([0-9.]+)\s*(pt|px)?\s*$")
_CAPTION = "font-size:11px;color:#6b7280;margin:2px 0"


def svg_pixels(svg_tag: str) -> tuple[float, float] | None:
    """The natural ``(width, height)`` in CSS pixels of an ``<svg …>`` start tag (graphviz writes points)."""
    sizes = []
    for name in ("width", "height"):
        found = re.search(rf'\s{name}="([^"]*)"', svg_tag)
        length = _LENGTH.match(found.group(1)) if found else None
        if length is None:
            return None
        sizes.append(float(length.group(1)) * (96 / 72 if length.group(2) == "pt" else 1))
    return sizes[0], sizes[1]


def natural_size(svg: str, fit: bool = False) -> str:
    """The SVG with its start tag styled to keep its natural pixel size whatever the page's stylesheet says
    (``fit``: scaled to the width of its box instead, never above its natural size)."""
    start = svg.find("<svg")
    end = svg.find(">", start)
    if start < 0 or end < 0:
        return svg
    tag = svg[start:end]
    size = svg_pixels(tag)
    if size is None:
        return svg
    tag = re.sub(r'\sstyle="[^"]*"', "", tag)
    style = (f"display:block;width:100%;max-width:{size[0]:.0f}px;height:auto" if fit
             else f"display:block;max-width:none;width:{size[0]:.0f}px;height:{size[1]:.0f}px")
    return f'{svg[:start]}{tag} style="{style}"{svg[end:]}'


def scrolling_svg(svg: str, title: str = "", max_height: str = "80vh", fit: bool = False) -> str:
    """The SVG inline at its natural size (100 %) under a caption with the zoom and size, in a box that scrolls
    both ways when the drawing is larger; ``fit``: scaled to the box's width (the caption says so)."""
    body = _PROLOGUE.sub("", svg, count=1)
    start = body.find("<svg")
    size = svg_pixels(body[start:body.find(">", start)]) if start >= 0 else None
    body = natural_size(body, fit)
    caption = "fit to width" if fit else "100 %"
    if size is not None:
        caption += f" · {size[0]:,.0f} &times; {size[1]:,.0f} px" + ("" if fit else " · scroll inside the box")
    style = (f"max-width:100%;max-height:{max_height};overflow:auto;background:white;border:1px solid #e5e7eb;"
             "border-radius:4px")
    return (f'<div class="rlw-graph-caption" data-zoom="{"fit" if fit else 100}" style="{_CAPTION}">{caption}</div>'
            f'<div class="rlw-graph" title="{html.escape(title)}" style="{style}">{body}</div>')
