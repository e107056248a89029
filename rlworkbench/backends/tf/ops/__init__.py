"""Tensor operations for graph functions on TensorFlow: ``self.ops.<name>`` in a component.

The other backend offers the same names with the same semantics, so graph functions are written once. Each
module here holds one area (basic, math, state, random, …) and lists its operations in ``__all__``.
"""

from rlworkbench.backends.ops_namespace import collect

__all__ = collect(__name__, globals())
