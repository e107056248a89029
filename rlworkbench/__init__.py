"""rlworkbench: modular RL computation graphs (after RLgraph) at the centre of a Jupyter research workbench.

Compose components that talk only through declared API methods, build them for PyTorch or TensorFlow from
spaces, and execute them locally or distributed. Importing this package imports no framework.
"""

from rlworkbench.core import Component, ComponentGraph, Executor, api, build, graph_fn
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError, SpaceError

__version__ = "0.1.0"
__all__ = [
           "BuildError",
           "Component",
           "ComponentGraph",
           "ConfigError",
           "Executor",
           "RLWorkbenchError",
           "SpaceError",
           "__version__",
           "api",
           "build",
           "graph_fn",
]
