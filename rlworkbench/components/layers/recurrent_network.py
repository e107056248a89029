"""A recurrent network: layers on every step, one LSTM carrying a state through the steps, layers on its outputs."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.layers.image_layer import ImageLayer
from rlworkbench.components.layers.layer import apply_layers
from rlworkbench.components.layers.lstm import LSTM, StateTensors, state_space
from rlworkbench.components.layers.neural_network import LayerSpecs, NeuralNetwork
from rlworkbench.components.layers.residual import Residual
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Tuple


def is_recurrent_spec(spec: object) -> bool:
    """Whether a network spec (a list of layer specs or components) holds an LSTM layer."""
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (list, tuple)):
        return False
    return any(isinstance(item, LSTM) or (isinstance(item, dict) and item.get("type") == "lstm") for item in spec)


@register("recurrent_network")
class RecurrentNetwork(NeuralNetwork):
    """``RecurrentNetwork([{"type": "dense", "units": 32}, {"type": "lstm", "units": 64}, ...])``: the layers before
    the (one) LSTM run on every step of inputs with batch and time ranks (image layers fold both ranks), the LSTM
    carries its state ``(h, c)`` through the steps, the layers after it (vector layers only: the LSTM's outputs
    are vectors) run on its outputs.

    API: ``apply(inputs)`` (from the zero state, outputs only), ``apply_with_state(inputs, internal_states=None,
    resets=None) -> (outputs, final_state)``, ``unroll(...) -> (outputs, state after every step)`` and
    ``zero_state(inputs)``. ``internal_states`` left out is the zero state; ``resets`` (one bool per step) zeroes
    the state carried into the steps that begin an episode. :attr:`state_space` is the state's space per row.
    """

    def __init__(self, layers: LayerSpecs = (), **kwargs: Any):
        super().__init__(layers, **kwargs)
        where = [index for index, layer in enumerate(self.layers) if isinstance(layer, LSTM)]
        if len(where) != 1:
            raise ConfigError("a recurrent network holds exactly one lstm layer", component=self.name,
                              key_path="layers", expected="one {'type': 'lstm', ...}", got=f"{len(where)} lstm layers")
        at = where[0]
        for index, layer in enumerate(self.layers[at + 1:], start=at + 1):
            if isinstance(layer, (ImageLayer, Residual)):
                raise ConfigError("after the lstm layer only vector layers can follow (its outputs are vectors per "
                                  "step); put image layers before it", component=self.name,
                                  key_path=f"layers/{index}/type", expected="dense (or another vector layer)",
                                  got=type(layer).__name__)
        lstm = self.layers[at]
        assert isinstance(lstm, LSTM)
        self.before, self.lstm, self.after = self.layers[:at], lstm, self.layers[at + 1:]
        self.lstm_index = at

    @property
    def units(self) -> int:
        return self.lstm.units

    @property
    def state_space(self) -> Tuple:
        """``(h, c)``, each ``FloatBox(shape=(units,))`` with a batch rank: the state of one row per sequence."""
        return state_space(self.units)

    @api
    def apply(self, inputs: Tensor) -> Tensor:
        outputs, _ = self.lstm.apply(apply_layers(self.before, inputs))
        return apply_layers(self.after, outputs)

    @api
    def apply_with_state(self, inputs: Tensor, internal_states: StateTensors | None = None,
                         resets: Tensor | None = None) -> tuple[Tensor, StateTensors]:
        """``(outputs, final_state)`` of sequences starting from ``internal_states`` (zeros when left out)."""
        return self._run("apply_with_state", inputs, internal_states, resets)

    @api
    def unroll(self, inputs: Tensor, internal_states: StateTensors | None = None,
               resets: Tensor | None = None) -> tuple[Tensor, StateTensors]:
        """``(outputs, states)``: as :meth:`apply_with_state`, with the state after every step."""
        return self._run("unroll", inputs, internal_states, resets)

    @api
    def zero_state(self, inputs: Tensor) -> StateTensors:
        """``(h, c)`` of zeros for the batch of ``inputs`` (sequences)."""
        return self.lstm.zero_state(apply_layers(self.before, inputs))

    def _run(self, lstm_method: str, inputs: Tensor, internal_states: StateTensors | None,
             resets: Tensor | None) -> tuple[Tensor, StateTensors]:
        features = apply_layers(self.before, inputs)
        if internal_states is None:
            internal_states = self.lstm.zero_state(features)
        call = getattr(self.lstm, lstm_method)
        outputs, state = call(features, internal_states) if resets is None else call(features, internal_states, resets)
        return apply_layers(self.after, outputs), state
