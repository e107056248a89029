"""The TensorFlow 2 backend: one static graph per root API method (``tf.function`` with input signatures from
the spaces — the placeholders of the paper), traced once; calls go straight to the compiled graph."""

from rlworkbench.backends.tf.backend import TFBackend

__all__ = ["TFBackend"]
