"""Rows of the builder's widgets that the libraries do not draw: a choice's menu with its label, and a row of
controls that wraps in the builder's side column."""

from __future__ import annotations

import ipywidgets as w


def choice_row(selector: w.Dropdown, title: str | None, optional: bool) -> w.HBox:
    """A choice's menu in a row of its own, labeled like a field (``clip_grad_norm (optional)``) so that the
    menu does not pass for a text box; an untitled choice (a list entry's type) shows the menu alone."""
    if not title:
        return w.HBox([selector])
    text = f"{title} (optional)" if optional else title
    label = w.Label(text, tooltip=f"{text}: pick 'none' to leave it out" if optional else text)
    label.add_class("rlw-choice-label")
    selector.tooltip = text
    return w.HBox([label, selector], layout=w.Layout(width="100%"))


def choice_menu_of(row: w.HBox) -> w.Dropdown:
    """The menu of a :func:`choice_row`."""
    return row.children[-1]


def wrapping() -> w.Layout:
    """The layout of a row of controls that wraps in the side column rather than running out of it."""
    return w.Layout(flex_flow="row wrap", width="100%")
