"""Which components a drawing folds into one box: everything below ``depth``, and repeated sub-trees.

A sub-tree that repeats an earlier sibling's — same classes, same settings, same structure and variable shapes,
like a target network next to its online network — says nothing new when drawn twice; it is drawn as one box
that names the sibling it repeats. A twin on another device (a replica tower) is drawn in full.
"""

from __future__ import annotations

from rlworkbench.core.component import Component

_NOT_SETTINGS = {"name", "device", "resolved_device", "backend", "ops", "parent", "input_spaces"}


class Folding:
    """Decides, for a drawing of ``focus``, which sub-tree box (if any) stands for each component."""

    def __init__(self, focus: Component, depth: int | None, fold_copies: bool):
        self.focus, self.depth = focus, depth
        self.copy_of: dict[int, Component] = _repeated_subtrees(focus) if fold_copies else {}

    def depth_of(self, component: Component) -> int:
        return component.path.count("/") - self.focus.path.count("/")

    def box_for(self, component: Component) -> Component | None:
        """The component whose box stands for ``component`` (itself included), or None if it is drawn as is."""
        chain: list[Component] = []
        node: Component | None = component
        while node is not None and node is not self.focus:
            chain.append(node)
            node = node.parent
        for node in reversed(chain):  # outermost first
            if id(node) in self.copy_of or (self.depth is not None and self.depth_of(node) > self.depth):
                return node
        return None


def _repeated_subtrees(focus: Component) -> dict[int, Component]:
    """``id(component) -> earlier sibling`` for every component with sub-components that repeats a sibling."""
    repeats: dict[int, Component] = {}
    for parent in focus.walk():
        originals: list[Component] = []
        for child in parent.sub_components.values():
            if not child.sub_components:
                continue
            original = next((o for o in originals if _same(o, child)), None)
            if original is not None:
                repeats[id(child)] = original
            else:
                originals.append(child)
    return repeats


def _same(a: Component, b: Component) -> bool:
    """Same class, sub-component names and variable shapes; equal settings where both have them (a build may
    add settings to the sub-trees it called, and only one of two twins may have been called)."""
    if type(a) is not type(b) or list(a.sub_components) != list(b.sub_components):
        return False
    if (a.resolved_device or a.device) != (b.resolved_device or b.device):
        return False  # a twin on another device (a replica tower) is news: drawn in its own colour
    settings_a, settings_b = _settings(a), _settings(b)
    if any(settings_a[key] != settings_b[key] for key in settings_a.keys() & settings_b.keys()):
        return False
    if a._variables and b._variables and _shapes(a) != _shapes(b):
        return False
    return all(_same(a.sub_components[name], b.sub_components[name]) for name in a.sub_components)


def _settings(component: Component) -> dict[str, object]:
    return {key: value for key, value in vars(component).items()
            if key not in _NOT_SETTINGS and not key.startswith("_") and isinstance(value, (bool, int, float, str))}


def _shapes(component: Component) -> dict[str, tuple]:
    return {name: tuple(getattr(variable, "shape", ())) for name, variable in component._variables.items()}
