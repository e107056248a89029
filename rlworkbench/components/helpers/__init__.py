"""Helpers: container splitter and merger."""

from rlworkbench.components.helpers.container_merger import ContainerMerger
from rlworkbench.components.helpers.container_splitter import ContainerSplitter

__all__ = ["ContainerSplitter", "ContainerMerger"]
