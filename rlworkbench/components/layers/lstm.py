"""A long short-term memory (LSTM) layer unrolled over the time rank."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, Space, Tuple, refuse_zero_size

StateTensors = tuple[Tensor, Tensor]


def state_space(units: int) -> Tuple:
    """The space of an LSTM state ``(h, c)`` of ``units`` each, with a batch rank."""
    state = FloatBox(shape=(units,), add_batch_rank=True)
    return Tuple(state, state)


def _state_space(lstm: LSTM, inputs: Space) -> Space:
    return state_space(lstm.units)


def _is_state_space(space: Space, units: int) -> bool:
    parts = [s for _, s in space.children()] if isinstance(space, Tuple) else []
    return len(parts) == 2 and all(isinstance(p, FloatBox) and p.shape == (units,) and p.has_batch_rank
                                   and not p.has_time_rank for p in parts)


@register("lstm")
class LSTM(Component):
    """An LSTM over inputs ``FloatBox(shape=(n,))`` with batch and time ranks (batch- or time-major), ``n > 0``
    (a zero-size input space is a SpaceError).

    Its API methods return ``(outputs, (h, c))``: ``outputs`` is ``h`` of every step (with the input's ranks),
    ``(h, c)`` the final state, each ``FloatBox(shape=(units,))`` with a batch rank (``unroll``: the state after
    every step, with the input's ranks). A composition that only calls ``apply`` needs no space for a state.

    ``resets`` (``BoolBox`` with the input's batch and time ranks, optional) marks the steps that begin a new
    episode: the state carried into such a step is zeroed first (inside the unroll, row by row), so one call can
    run over sequences that cross episode boundaries.

    Per step, with ``z = x @ kernel + h @ recurrent_kernel + bias`` split into gates ``[i, f, g, o]`` (this
    order, ``units`` each, as Keras/TensorFlow): ``c' = sigmoid(f) * c + sigmoid(i) * tanh(g)``,
    ``h' = sigmoid(o) * tanh(c')``. Kernel ``(n, 4 units)``, recurrent kernel ``(units, 4 units)``, bias
    ``(4 units,)`` with the forget gate's part at 1 when ``unit_forget_bias``. Spec: ``{"type": "lstm", "units": 32}``.
    """

    def __init__(self, units: int, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", unit_forget_bias: bool = True, **kwargs: Any):
        kwargs.setdefault("name", "lstm")  # not the class name in snake case
        super().__init__(**kwargs)
        if isinstance(units, bool) or not isinstance(units, Integral) or units < 1:
            raise ConfigError("units must be a positive int", component=self.name, argument="units",
                              expected="int > 0", got=repr(units))
        self.units = int(units)
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.unit_forget_bias = unit_forget_bias

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        space = input_spaces["inputs"]
        if not isinstance(space, FloatBox) or space.rank != 1 or not (space.has_batch_rank and space.has_time_rank):
            raise SpaceError("LSTM needs float vectors with batch and time ranks", argument="inputs",
                             expected="FloatBox(shape=(n,), add_batch_rank=True, add_time_rank=True)", got=space)
        refuse_zero_size(space, "inputs", "an LSTM layer")
        state = input_spaces.get("initial_state")
        if state is not None and not _is_state_space(state, self.units):
            raise SpaceError("initial state must be (h, c)", argument="initial_state",
                             expected=_state_space(self, space), got=state)
        resets = input_spaces.get("resets")
        if resets is not None and not (isinstance(resets, BoolBox) and resets.rank == 0 and resets.has_batch_rank
                                       and resets.has_time_rank and resets.time_major == space.time_major):
            raise SpaceError("resets are one bool per step, with the inputs' batch and time ranks", argument="resets",
                             expected=BoolBox(add_batch_rank=True, add_time_rank=True, time_major=space.time_major),
                             got=resets)
        self.time_major = space.time_major
        units = self.units
        self.kernel = self.create_variable("kernel", (space.shape[0], 4 * units), initializer=self.kernel_initializer)
        self.recurrent_kernel = self.create_variable("recurrent_kernel", (units, 4 * units),
                                                     initializer=self.recurrent_initializer)
        forget = float(self.unit_forget_bias)
        self.bias = self.create_variable("bias", (4 * units,), initializer=np.repeat([0.0, forget, 0.0, 0.0], units))

    @property
    def recurrent_state_space(self) -> Tuple:
        """The state ``(h, c)`` it carries from step to step (drawn as a loop on its API methods)."""
        return state_space(self.units)

    @api
    @graph_fn(returns=2)
    def apply(self, inputs: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """``(outputs, (h, c))`` starting from the zero state."""
        outputs, (h, c) = self._unroll(inputs, self._zeros(inputs), None)
        return self._batch_first(outputs), (h[-1], c[-1])

    @api
    @graph_fn(returns=2)
    def apply_with_state(self, inputs: Tensor, initial_state: StateTensors, resets: Tensor | None = None,
                         ) -> tuple[Tensor, StateTensors]:
        """``(outputs, (h, c))`` starting from ``initial_state = (h, c)``, e.g. the last call's final state; the
        state is zeroed before the steps that ``resets`` marks."""
        outputs, (h, c) = self._unroll(inputs, initial_state, resets)
        return self._batch_first(outputs), (h[-1], c[-1])

    @api
    @graph_fn(returns=2)
    def unroll(self, inputs: Tensor, initial_state: StateTensors,
               resets: Tensor | None = None) -> tuple[Tensor, StateTensors]:
        """``(outputs, (hs, cs))``: as :meth:`apply_with_state`, with the state after every step (the input's
        batch and time ranks) — what a learner needs to go on from any step of a sequence."""
        outputs, (h, c) = self._unroll(inputs, initial_state, resets)
        return self._batch_first(outputs), (self._batch_first(h), self._batch_first(c))

    @api
    @graph_fn
    def zero_state(self, inputs: Tensor) -> tuple[Tensor, Tensor]:
        """``(h, c)`` of zeros for the batch of ``inputs``."""
        return self._zeros(inputs)

    def _zeros(self, inputs: Tensor) -> tuple[Tensor, Tensor]:
        zeros = self.ops.zeros((self.ops.dim(inputs, 1 if self.time_major else 0), self.units))
        return zeros, zeros

    def _unroll(self, inputs: Tensor, initial_state: StateTensors,
                resets: Tensor | None) -> tuple[Tensor, StateTensors]:
        """Time-major ``(outputs, (hs, cs))`` of every step."""
        steps = inputs if self.time_major else self.ops.transpose(inputs, (1, 0, 2))
        if resets is None:
            h, c = self.ops.scan(self._step, steps, tuple(initial_state))
            return h, (h, c)
        resets = resets if self.time_major else self.ops.transpose(resets, (1, 0))
        keep = self.ops.expand_dims(1.0 - self.ops.cast(resets, "float32"), -1)
        h, c = self.ops.scan(self._step_with_reset, self.ops.concat([steps, keep], -1), tuple(initial_state))
        return h, (h, c)

    def _batch_first(self, time_major: Tensor) -> Tensor:
        """A time-major value of every step in the layout of the inputs (batch-major unless time-major)."""
        return time_major if self.time_major else self.ops.transpose(time_major, (1, 0, 2))

    def _step_with_reset(self, state: StateTensors, x_and_keep: Tensor) -> StateTensors:
        keep = x_and_keep[:, -1:]
        h, c = state
        return self._step((h * keep, c * keep), x_and_keep[:, :-1])

    def _step(self, state: StateTensors, x: Tensor) -> StateTensors:
        return self.ops.lstm_cell(x, state, self.kernel, self.recurrent_kernel, self.bias)
