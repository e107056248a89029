"""Helpers: container splitter and merger, stacks."""

from rlworkbench.components.helpers.container_merger import ContainerMerger
from rlworkbench.components.helpers.container_splitter import ContainerSplitter
from rlworkbench.components.helpers.stack import Stack

__all__ = ["ContainerMerger", "ContainerSplitter", "Stack"]
