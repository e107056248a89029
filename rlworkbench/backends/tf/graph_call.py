"""The cheapest way into a traced TF graph: run its one concrete function by name as an eager op.

A ``ConcreteFunction`` call spends most of a small call's time in Python around the graph run (binding the
signature, looking for gradient tapes, cancellation scopes, packing outputs): ~170 µs for a CartPole network at
batch 1 here, where the graph run itself takes ~55 µs. :class:`GraphCall` runs the same function definition through
``TFE_Py_Execute`` (what ``tf.function`` does in the end), with the captured variables' handles fixed once, and
packs the outputs with a structure worked out once. It takes the concrete function's own path whenever that path
does more than run the graph: a gradient tape is recording, the call is not eager (inside another trace), an input
is not an eager tensor yet, or the outputs are not plain tensors. Either way the same function definition runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

try:  # TF internals: if a TF release moves them, every call takes the concrete function's public path
    from tensorflow.python import pywrap_tfe
    from tensorflow.python.eager import context as tf_context
    from tensorflow.python.eager import core as tf_core
    from tensorflow.python.eager import record as tf_record
    from tensorflow.python.framework.ops import EagerTensor
except ImportError:  # pragma: no cover - depends on the TF release
    pywrap_tfe = None


def eager_constant(value: np.ndarray) -> tf.Tensor:
    """A NumPy array as an eager tensor on the current device (``tf.constant`` without its argument handling)."""
    if pywrap_tfe is None:  # pragma: no cover - depends on the TF release
        return tf.constant(value)
    return EagerTensor(value, tf_context.context().device_name, None)


class GraphCall:
    """``GraphCall(concrete)(*tensors)`` returns what ``concrete(*tensors)`` returns, faster.

    ``fast`` tells whether the direct path is available for this function (plain tensor outputs, TF internals
    found); ``flat_call(*tensors)`` gives the flat output tensors (for callers that convert them themselves)
    and ``pack(flat)`` the function's output structure around any flat values (tensors or NumPy arrays).
    """

    def __init__(self, concrete: Any):
        self.concrete = concrete
        structure = concrete.structured_outputs
        leaves = [] if structure is None else tf.nest.flatten(structure)
        self.single = isinstance(structure, tf.Tensor)
        self.num_outputs = len(leaves)
        self._structure = structure
        self.fast = pywrap_tfe is not None and all(
            isinstance(leaf, tf.Tensor) and leaf.dtype not in (tf.resource, tf.variant) for leaf in leaves)
        if self.fast:
            atomic = concrete._inference_function
            self._name = atomic.name.decode() if isinstance(atomic.name, bytes) else atomic.name
            self._captures = list(concrete.captured_inputs)
            self._context = tf_context.context()
            self.fast = len(atomic.function_type.flat_outputs) == self.num_outputs

    def _attrs(self) -> tuple:
        options = self._context.function_call_options.as_attrs()
        return tuple(itertools.chain(*options.items()))

    def flat_call(self, *tensors: object) -> list[tf.Tensor]:
        """The output tensors, flat, in ``tf.nest.flatten`` order of the function's outputs."""
        if not self.fast or tf_record.could_possibly_record() or not self._context.executing_eagerly():
            return tf.nest.flatten(self.concrete(*tensors))
        context = self._context
        try:
            return pywrap_tfe.TFE_Py_Execute(context._handle, context.device_name, self._name,
                                             [*tensors, *self._captures], self._attrs(), self.num_outputs)
        except tf_core._NotOkStatusException as error:
            raise tf_core._status_to_exception(error) from None
        except TypeError:  # an input that is no eager tensor yet (strings, a variable): the public path converts it
            return tf.nest.flatten(self.concrete(*tensors))

    def pack(self, flat: list[object]) -> Any:
        """``flat`` values (tensors or NumPy arrays) in the structure of the function's outputs."""
        if self.single:
            return flat[0]
        if self.num_outputs == 0:
            return self._structure
        return tf.nest.pack_sequence_as(self._structure, flat)

    def __call__(self, *tensors: object) -> Any:
        return self.pack(self.flat_call(*tensors))


def output_packer(call: GraphCall, to_numpy: Callable[[Any], Any]) -> Callable[[list[Any]], Any]:
    """Converts a flat output list with ``to_numpy`` and packs it in the function's output structure."""
    if call.single:
        return lambda flat: to_numpy(flat[0])
    return lambda flat: call.pack([to_numpy(tensor) for tensor in flat])
