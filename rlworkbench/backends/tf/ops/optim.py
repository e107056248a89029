"""Operations for optimizers: gradient norms and clipping, and the update rules as TensorFlow's fused ops.

An update changes the variables and slots in place. Adam and momentum SGD are one fused ``ResourceApply*`` op per
variable (the kernels Keras' optimizers run); Adam's ``epsilon`` is scaled by ``sqrt(1 - beta2**step)`` so the
fused rule (which adds it to ``sqrt(v)``) equals the paper's (which adds it to ``sqrt(v / (1 - beta2**step))``),
as PyTorch computes it. RMSProp has no fused op with that rule (TF's puts the learning rate inside the momentum
and epsilon inside the square root), so it is a few element-wise ops per variable — in one graph either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def global_norm(tensors: Sequence[Tensor]) -> Tensor:
    """``sqrt`` of the sum of the squares of all elements of all ``tensors``."""
    return tf.linalg.global_norm(list(tensors))


def clip_by_global_norm(tensors: Sequence[Tensor], clip_norm: float, norm: Tensor | None = None) -> list[Tensor]:
    """``tensors`` scaled by ``clip_norm / max(global_norm, clip_norm)``: unchanged while their global norm
    (``sqrt`` of the sum of all squares; ``norm`` if given) is at most ``clip_norm``, else scaled down to exactly
    ``clip_norm``."""
    clipped, _ = tf.clip_by_global_norm(list(tensors), clip_norm, use_norm=norm)
    return clipped


def adam_update(variables: Sequence[tf.Variable], grads: Sequence[Tensor], first_moments: Sequence[tf.Variable],
                second_moments: Sequence[tf.Variable], step: Tensor, learning_rate: float, beta1: float,
                beta2: float, epsilon: float) -> None:
    """Adam in place: ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2) g**2``, ``var -= lr (m / (1 -
    beta1**step)) / (sqrt(v / (1 - beta2**step)) + epsilon)``; ``step`` (a float scalar) counts from 1."""
    step = tf.cast(step, tf.float32)
    beta1_power, beta2_power = tf.pow(tf.constant(beta1, tf.float32), step), tf.pow(tf.constant(beta2), step)
    scaled_epsilon = epsilon * tf.sqrt(1.0 - beta2_power)
    for variable, grad, m, v in zip(variables, grads, first_moments, second_moments):
        tf.raw_ops.ResourceApplyAdam(var=variable.handle, m=m.handle, v=v.handle, beta1_power=beta1_power,
                                     beta2_power=beta2_power, lr=tf.constant(learning_rate, tf.float32),
                                     beta1=tf.constant(beta1, tf.float32), beta2=tf.constant(beta2, tf.float32),
                                     epsilon=scaled_epsilon, grad=grad)


def rmsprop_update(variables: Sequence[tf.Variable], grads: Sequence[Tensor], mean_squares: Sequence[tf.Variable],
                   velocities: Sequence[tf.Variable], learning_rate: float, decay: float, momentum: float,
                   epsilon: float) -> None:
    """RMSProp in place: ``ms = decay ms + (1 - decay) g**2``, ``u = g / (sqrt(ms) + epsilon)``; with
    ``velocities`` (momentum) ``vel = momentum vel + u`` and ``var -= lr vel``, else ``var -= lr u``."""
    for index, (variable, grad, square) in enumerate(zip(variables, grads, mean_squares)):
        new_square = square.assign(decay * square + (1.0 - decay) * tf.square(grad))
        update = grad / (tf.sqrt(new_square) + epsilon)
        if velocities:
            update = velocities[index].assign(momentum * velocities[index] + update)
        variable.assign_sub(learning_rate * update)


def sgd_update(variables: Sequence[tf.Variable], grads: Sequence[Tensor], velocities: Sequence[tf.Variable],
               learning_rate: float, momentum: float) -> None:
    """SGD in place: ``var -= lr g``; with ``velocities`` (momentum) ``vel = momentum vel + g``, ``var -= lr vel``."""
    rate = tf.constant(learning_rate, tf.float32)
    for index, (variable, grad) in enumerate(zip(variables, grads)):
        if velocities:
            tf.raw_ops.ResourceApplyMomentum(var=variable.handle, accum=velocities[index].handle, lr=rate,
                                             grad=grad, momentum=tf.constant(momentum, tf.float32))
        else:
            tf.raw_ops.ResourceApplyGradientDescent(var=variable.handle, alpha=rate, delta=grad)


def add_n_on(tensors: Sequence[Tensor], like: tf.Variable) -> Tensor:
    """The sum of same-shaped ``tensors`` (on any devices) on ``like``'s device."""
    with tf.device(like.device):
        return tf.add_n(list(tensors))


def assign_all(variables: Sequence[tf.Variable], values: Sequence[Tensor]) -> None:
    """``variables[i] = values[i]``, each assignment on its variable's device."""
    for variable, value in zip(variables, values):
        with tf.device(variable.device):
            variable.assign(value)


def apply_if_finite(values: Sequence[Tensor], apply: Callable[[], None]) -> Tensor:
    """Runs ``apply()`` (an update's assignments) only if every value (the loss, the gradient norm) is finite —
    a ``tf.cond`` in a traced function; returns whether it ran, as a bool tensor. A non-finite update changes no
    variable."""
    finite = tf.reduce_all(tf.stack([tf.reduce_all(tf.math.is_finite(value)) for value in values]))

    def run() -> Tensor:
        apply()
        return tf.constant(True)

    return tf.cond(finite, run, lambda: tf.constant(False))


__all__ = ["adam_update", "add_n_on", "apply_if_finite", "assign_all", "clip_by_global_norm", "global_norm",
           "rmsprop_update", "sgd_update"]
