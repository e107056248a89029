"""NumPy references for the optimizer tests: the MSE gradients of a Dense model and the update rules, in float64.

The component side is :class:`rlworkbench.testing.regression.Regression` (re-exported here for the tests)."""

from __future__ import annotations

import numpy as np

from rlworkbench.testing.regression import Regression

__all__ = ["ReferenceOptimizer", "Regression", "mse_and_grads"]


def mse_and_grads(kernel: np.ndarray, bias: np.ndarray, x: np.ndarray, y: np.ndarray):
    """Loss and gradients (kernel, bias) of ``mean((x @ kernel + bias - y) ** 2)`` over all leading axes."""
    x2, y2 = x.reshape(-1, x.shape[-1]).astype(np.float64), y.reshape(-1, y.shape[-1]).astype(np.float64)
    error = x2 @ kernel + bias - y2
    g = 2.0 * error / error.size
    return float(np.mean(error ** 2)), [x2.T @ g, g.sum(0)]


class ReferenceOptimizer:
    """The update rules of SGD / Adam / RMSProp (as torch.optim) plus clipping, on a list of arrays."""

    def __init__(self, kind: str, lr: float, clip_grad_norm=None, clip_grad_value=None, **config):
        self.kind, self.lr, self.config = kind, lr, config
        self.clip_norm, self.clip_value = clip_grad_norm, clip_grad_value
        self.state: dict[str, list[np.ndarray]] = {}
        self.t = 0

    def _slot(self, name: str, params: list[np.ndarray]) -> list[np.ndarray]:
        return self.state.setdefault(name, [np.zeros_like(p) for p in params])

    def step(self, params: list[np.ndarray], grads: list[np.ndarray]) -> tuple[list[np.ndarray], float]:
        norm = float(np.sqrt(sum(np.sum(g ** 2) for g in grads)))
        if self.clip_value is not None:
            grads = [np.clip(g, -self.clip_value, self.clip_value) for g in grads]
        if self.clip_norm is not None:
            clipped_norm = np.sqrt(sum(np.sum(g ** 2) for g in grads))
            grads = [g * self.clip_norm / max(clipped_norm, self.clip_norm) for g in grads]
        self.t += 1
        return [p - self.lr * d for p, d in zip(params, getattr(self, self.kind)(params, grads))], norm

    def sgd(self, params, grads):
        momentum = self.config.get("momentum", 0.0)
        if not momentum:
            return grads
        buffers = self._slot("momentum", params)
        for i, g in enumerate(grads):
            buffers[i] = momentum * buffers[i] + g
        return list(buffers)

    def adam(self, params, grads):
        b1, b2, eps = self.config["beta1"], self.config["beta2"], self.config["epsilon"]
        m, v = self._slot("m", params), self._slot("v", params)
        directions = []
        for i, g in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g ** 2
            directions.append((m[i] / (1 - b1 ** self.t)) / (np.sqrt(v[i] / (1 - b2 ** self.t)) + eps))
        return directions

    def rmsprop(self, params, grads):
        decay, momentum, eps = self.config["decay"], self.config["momentum"], self.config["epsilon"]
        ms, buffers = self._slot("mean_square", params), self._slot("momentum", params)
        directions = []
        for i, g in enumerate(grads):
            ms[i] = decay * ms[i] + (1 - decay) * g ** 2
            d = g / (np.sqrt(ms[i]) + eps)
            if momentum:
                buffers[i] = momentum * buffers[i] + d
                d = buffers[i]
            directions.append(d)
        return directions
