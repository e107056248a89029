"""The PyTorch backend: define-by-run execution with a fast path straight into the user's functions."""

from rlworkbench.backends.torch.backend import TorchBackend

__all__ = ["TorchBackend"]
