"""Reading graphviz SVG back: clusters by label, node and edge texts, colours."""

from __future__ import annotations

import xml.etree.ElementTree as ET

_NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def clusters(svg: str) -> list[tuple[str, ET.Element]]:
    """Cluster groups with their label's first line (``"memory (PrioritizedReplay)"``), outermost first."""
    found = []
    for group in parse(svg).iter("{http://www.w3.org/2000/svg}g"):
        if "cluster" in group.get("class", "").split():
            texts = [t.text or "" for t in group.findall("svg:text", _NS)]
            if texts:
                found.append((texts[0], group))
    return found


def texts(svg: str, kind: str) -> list[str]:
    """All text lines inside groups of class ``kind`` (``node``, ``edge``, ``cluster``)."""
    lines = []
    for group in parse(svg).iter("{http://www.w3.org/2000/svg}g"):
        if kind in group.get("class", "").split():  # graphviz may add classes ("node rlw-home")
            lines.extend(t.text or "" for t in group.findall("svg:text", _NS))
    return lines


def outline_color(group: ET.Element) -> str:
    shape = group.find("svg:path", _NS)
    if shape is None:
        shape = group.find("svg:polygon", _NS)
    return shape.get("stroke", "") if shape is not None else ""


def fill_color(group: ET.Element) -> str:
    shape = group.find("svg:path", _NS)
    if shape is None:
        shape = group.find("svg:polygon", _NS)
    return shape.get("fill", "") if shape is not None else ""


def cluster_parents(dot_source: str) -> dict[str, str | None]:
    """Each cluster's label -> the label of the cluster it is nested in (from the DOT source's blocks)."""
    parents: dict[str, str | None] = {}
    stack: list[str | None] = []
    for line in dot_source.splitlines():
        stripped = line.strip()
        if stripped.startswith("subgraph cluster_"):
            stack.append(None)
        elif stripped == "}" and stack:
            stack.pop()
        elif stack and stack[-1] is None and ' label="' in f" {stripped}":
            label = stripped.split('label="', 1)[1].split('"', 1)[0].split("\\n")[0]
            stack[-1] = label
            parents[label] = stack[-2] if len(stack) > 1 else None
    return parents
