"""Optimizer ops on both backends: ``clip_by_global_norm`` against NumPy, same numbers on torch and TF."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402

RNG = np.random.default_rng(3)
TENSORS = [RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(4,)).astype(np.float32)]
NORM = float(np.sqrt(sum(np.sum(t.astype(np.float64) ** 2) for t in TENSORS)))


@pytest.mark.parametrize("clip_norm", [NORM / 4, NORM, NORM * 3], ids=["clipped", "at-the-norm", "unchanged"])
def test_clip_by_global_norm(clip_norm):
    expected = [t * min(1.0, clip_norm / NORM) for t in TENSORS]
    ours = [t.numpy() for t in torch_ops.clip_by_global_norm([torch.as_tensor(t) for t in TENSORS], clip_norm)]
    theirs = [t.numpy() for t in tf_ops.clip_by_global_norm([tf.constant(t) for t in TENSORS], clip_norm)]
    for mine, tfs, reference in zip(ours, theirs, expected):
        np.testing.assert_allclose(mine, reference, rtol=1e-6)
        np.testing.assert_allclose(tfs, mine, rtol=1e-6)
    clipped_norm = np.sqrt(sum(np.sum(t.astype(np.float64) ** 2) for t in ours))
    np.testing.assert_allclose(clipped_norm, min(NORM, clip_norm), rtol=1e-6)


def test_a_given_norm_is_used_as_it_is():
    """The optimizer passes the norm it computed already; the ops scale by it instead of computing it again."""
    norm = NORM * 2  # not the tensors' norm: proves the given one is used
    expected = [t * 0.5 for t in TENSORS]
    ours = torch_ops.clip_by_global_norm([torch.as_tensor(t) for t in TENSORS], NORM, torch.tensor(norm))
    theirs = tf_ops.clip_by_global_norm([tf.constant(t) for t in TENSORS], NORM, tf.constant(norm, tf.float32))
    for mine, tfs, reference in zip(ours, theirs, expected):
        np.testing.assert_allclose(mine.numpy(), reference, rtol=1e-6)
        np.testing.assert_allclose(tfs.numpy(), reference, rtol=1e-6)


@pytest.mark.parametrize("ops, convert", [(torch_ops, torch.as_tensor), (tf_ops, tf.constant)], ids=["torch", "tf"])
def test_group_mean_is_the_identity_outside_a_learner_group(ops, convert):
    """Single learners, samplers and drivers run the graphs they always ran: no membership (or a group of one)
    means no collective — the very tensors come back. Inside a group: tests/execution/ray/test_learner_group.py."""
    from rlworkbench.core import collective

    tensors = [convert(t) for t in TENSORS]
    assert collective.current() is None
    assert all(got is given for got, given in zip(ops.group_mean(tensors), tensors))
    collective.join(0, 1)
    try:
        assert collective.current() is None
        assert all(got is given for got, given in zip(ops.group_mean(tensors), tensors))
    finally:
        collective.leave()
