"""Core: components, ``@api`` / ``@graph_fn``, records, assembly, the build and executors (no frameworks)."""

from rlworkbench.core.assembly import assemble
from rlworkbench.core.backend import Backend, get_backend
from rlworkbench.core.builder import OutputSpaceOf, build
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.executor import Executor
from rlworkbench.core.graph import CallEdge, ComponentGraph, Stuck

__all__ = [
           "Backend",
           "CallEdge",
           "Component",
           "ComponentGraph",
           "Executor",
           "OutputSpaceOf",
           "Stuck",
           "api",
           "assemble",
           "build",
           "get_backend",
           "graph_fn",
]
