"""Where gradients flow: each loss built under a probe that shifts every float input by a trainable variable and
differentiates the loss. Targets, advantages, old log-probabilities and importance weights must get none."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rlworkbench import Component, api, graph_fn
from rlworkbench.components import GAE, DQNLoss, PPOLoss, SACLoss, VTraceLoss
from rlworkbench.spaces import BoolBox, FloatBox, IntBox
from rlworkbench.testing import ComponentTest


class GradientProbe(Component):
    """``gradients(*inputs)``: d loss / d shift for a zero shift added to each float input (test-only)."""

    def __init__(self, loss: Component, api_name: str, names: list[str]):
        super().__init__(loss, name="probe")
        self.loss, self.api_name, self.names, self.count = loss, api_name, names, len(names)

    def create_variables(self, input_spaces: dict) -> None:
        spaces = [input_spaces[f"inputs[{i}]"] for i in range(len(input_spaces))]
        self.shifts = [self.create_variable(f"shift_{i}", space.shape) if isinstance(space, FloatBox) else None
                       for i, space in enumerate(spaces)]

    @api
    def gradients(self, *inputs: Any) -> Any:
        shifted = dict(zip(self.names, self._shift(*inputs)))
        keyword_only = self.loss.api_methods[self.api_name].keyword_only
        outputs = getattr(self.loss, self.api_name)(*[x for name, x in shifted.items() if name not in keyword_only],
                                                    **{name: shifted[name] for name in keyword_only if name in shifted})
        return self._gradients(outputs[0] if isinstance(outputs, tuple) else outputs)

    @graph_fn(returns=lambda self: self.count)
    def _shift(self, *inputs: Any) -> Any:
        return tuple(x if shift is None else x + shift for x, shift in zip(inputs, self.shifts))

    @graph_fn(returns=1, requires_grad=True)
    def _gradients(self, loss: Any) -> Any:
        variables = [s for s in self.shifts if s is not None]
        return [self.ops.reduce_sum(self.ops.abs(g)) for g in self.ops.gradients(loss, variables)]


B = {"add_batch_rank": True}
TB = {"add_batch_rank": True, "add_time_rank": True, "time_major": True}
CASES = {  # loss, API method, [(input name, space)], names that must get gradient
    "dqn": (DQNLoss, "loss",
            [("q_values_s", FloatBox(shape=(3,), **B)), ("actions", IntBox(3, **B)), ("rewards", FloatBox(**B)),
             ("terminals", BoolBox(**B)), ("q_values_sp", FloatBox(shape=(3,), **B)),
             ("target_q_values_sp", FloatBox(shape=(3,), **B)), ("importance_weights", FloatBox(0.5, 1.0, **B))],
            {"q_values_s"}),
    "ppo": (lambda: PPOLoss(value_clip=10.0), "loss",
            [(name, FloatBox(-0.1, 0.0, **B) if "log_probs" in name else FloatBox(**B)) for name in
             ("log_probs", "prev_log_probs", "advantages", "entropies", "values", "value_targets", "prev_values")],
            {"log_probs", "entropies", "values"}),
    "sac_critic": (SACLoss, "critic_loss",
                   [("q_values", FloatBox(shape=(2,), **B)), ("rewards", FloatBox(**B)), ("terminals", BoolBox(**B)),
                    ("next_target_q_values", FloatBox(shape=(2,), **B)), ("next_log_probs", FloatBox(**B)),
                    ("log_alpha", FloatBox())], {"q_values"}),
    "sac_actor": (SACLoss, "actor_loss",
                  [("log_probs", FloatBox(**B)), ("q_values", FloatBox(shape=(2,), **B)), ("log_alpha", FloatBox())],
                  {"log_probs", "q_values"}),
    "sac_temperature": (lambda: SACLoss(target_entropy=-1.0), "temperature_loss",
                        [("log_probs", FloatBox(**B)), ("log_alpha", FloatBox())], {"log_alpha"}),
    "vtrace": (VTraceLoss, "loss",
               [(name, FloatBox(**TB)) for name in ("log_probs", "behaviour_log_probs", "entropies", "rewards",
                                                    "values")]
               + [("bootstrap_values", FloatBox(**B)), ("discounts", FloatBox(0.0, 1.0, **TB))],
               {"log_probs", "entropies", "values"}),
    "gae": (GAE, "calculate",
            [("rewards", FloatBox(**TB)), ("values", FloatBox(**TB)), ("terminals", BoolBox(**TB)),
             ("bootstrap_values", FloatBox(**B))], set()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_reach_only_what_the_loss_trains(backend, case):
    make, api_name, inputs, trained = CASES[case]
    spaces = [space for _, space in inputs]
    probe = GradientProbe(make(), api_name, [name for name, _ in inputs])
    test = ComponentTest(probe, {"inputs": spaces}, backend=backend)
    rng = np.random.default_rng(0)
    values = [space.sample(None if not space.num_extra_ranks else (8, 5) if space.has_time_rank else 8, seed=rng)
              for space in spaces]
    grads = test.test(("gradients", values))
    floats = [name for name, space in inputs if isinstance(space, FloatBox)]
    assert {name for name, grad in zip(floats, grads) if grad > 1e-6} == trained
