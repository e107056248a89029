"""The two ``ops`` namespaces: same names, same numbers, same state changes."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
torch = pytest.importorskip("torch")

from rlworkbench.backends.tf import ops as tf_ops  # noqa: E402
from rlworkbench.backends.torch import ops as torch_ops  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4)).astype(np.float32)
P = np.abs(X) + 0.1
IDX = np.array([2, 0, 3], dtype=np.int64)


def _np(value):
    if isinstance(value, (list, tuple)):
        return [_np(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    return np.asarray(value)


def test_both_backends_offer_the_same_operations():
    assert sorted(torch_ops.__all__) == sorted(tf_ops.__all__)
    assert len(torch_ops.__all__) == len(set(torch_ops.__all__))


CASES = {
    "exp": (X,), "log": (P,), "sqrt": (P,), "square": (X,), "abs": (X,), "sign": (X,),
    "minimum": (X, 0.5), "maximum": (X, -0.5), "reduce_max": (X, 1), "reduce_min": (X, 0),
    "reduce_logsumexp": (X,), "softmax": (X,), "log_softmax": (X,), "huber": (X * 3,), "stack": ([X, X], 1),
    "gather": (X, IDX[:2]), "select_by_index": (X, IDX), "expand_dims": (X, 1), "transpose": (X, (1, 0)),
    "tile": (X, (2, 1)), "reverse": (X, 1), "matmul": (X, X.T), "zeros_like": (X,), "ones_like": (X,),
    "global_norm": ([X, P],), "reduce_sum": (X, 1), "reduce_mean": (X, 0), "argmax": (X,), "one_hot": (IDX, 4),
    "clip": (X, -0.3, 0.4), "multiply": (IDX, 0.5), "concat": ([X, P], 0),
}


def _args(args, framework):
    to = torch.as_tensor if framework == "torch" else tf.convert_to_tensor

    def convert(a):
        if isinstance(a, np.ndarray):
            return to(a)
        if isinstance(a, list):
            return [convert(v) for v in a]
        return a

    return [convert(a) for a in args]


@pytest.mark.parametrize("name", sorted(CASES))
def test_operation_gives_the_same_numbers(name):
    args = CASES[name]
    ours = _np(getattr(torch_ops, name)(*_args(args, "torch")))
    theirs = _np(getattr(tf_ops, name)(*_args(args, "tf")))
    np.testing.assert_allclose(np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64),
                               rtol=1e-5, atol=1e-6)


def test_cumsum_and_reverse_cumsum_agree():
    for reverse in (False, True):
        expected = np.cumsum(X[:, ::-1], axis=1)[:, ::-1] if reverse else np.cumsum(X, axis=1)
        np.testing.assert_allclose(_np(torch_ops.cumsum(torch.as_tensor(X), 1, reverse)), expected, rtol=1e-5)
        np.testing.assert_allclose(_np(tf_ops.cumsum(tf.constant(X), 1, reverse)), expected, rtol=1e-5)


def test_state_operations_change_variables_alike():
    torch_var = torch.nn.Parameter(torch.zeros(4, 2))
    tf_var = tf.Variable(np.zeros((4, 2), np.float32))
    rows = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    for ops, var, to in ((torch_ops, torch_var, torch.as_tensor), (tf_ops, tf_var, tf.constant)):
        ops.assign_add(var, 1.0)
        ops.scatter_update(var, to(np.array([3, 0])), to(rows))
        snapshot = ops.read(var)
        ops.assign_sub(var, 0.5)
        assert np.allclose(_np(snapshot), [[3, 4], [1, 1], [1, 1], [1, 2]])
    assert np.allclose(torch_var.detach().numpy(), tf_var.numpy())
    assert torch_var.grad is None


def test_gradients_are_zero_for_unused_variables():
    a, b = torch.nn.Parameter(torch.tensor(2.0)), torch.nn.Parameter(torch.tensor(3.0))
    grads = torch_ops.gradients(a * a * 3.0, [a, b])
    assert [float(g) for g in grads] == [12.0, 0.0]
    va, vb = tf.Variable(2.0), tf.Variable(3.0)

    @tf.function
    def tf_grads():
        return tf_ops.gradients(va * va * 3.0, [va, vb])

    assert [float(g) for g in tf_grads()] == [12.0, 0.0]


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_random_operations_are_seeded_and_distributed(framework):
    if framework == "torch":
        ops, make = torch_ops, lambda s: torch.Generator().manual_seed(s)
    else:
        ops, make = tf_ops, tf.random.Generator.from_seed
    first = _np(ops.random_uniform(make(5), (1000,), -1.0, 3.0))
    again = _np(ops.random_uniform(make(5), (1000,), -1.0, 3.0))
    assert np.array_equal(first, again) and -1.0 <= first.min() and first.max() <= 3.0
    assert abs(first.mean() - 1.0) < 0.15
    normal = _np(ops.random_normal(make(6), (4000,), 2.0, 0.5))
    assert abs(normal.mean() - 2.0) < 0.05 and abs(normal.std() - 0.5) < 0.05
    ints = _np(ops.random_integers(make(7), (4000,), 3, 7))
    assert set(np.unique(ints)) == {3, 4, 5, 6}
    bound = torch.tensor(7) if framework == "torch" else tf.constant(7, tf.int64)  # a tensor bound: a memory's size
    bound_ints = _np(ops.random_integers(make(7), (4000,), 3, bound))
    assert set(np.unique(bound_ints)) == {3, 4, 5, 6}
    logits = np.log(np.array([[0.1, 0.6, 0.3]] * 4000, np.float32))
    to = torch.as_tensor if framework == "torch" else tf.constant
    samples = _np(ops.random_categorical(make(8), to(logits)))
    assert np.allclose(np.bincount(samples, minlength=3) / 4000, [0.1, 0.6, 0.3], atol=0.03)


@pytest.mark.parametrize("low", [0, 3])
def test_torch_integers_under_a_tensor_bound_are_floor_of_uniform_times_span(low):
    """A tensor bound (a memory's size, known at run time) takes the float64 route: ``low + floor(u * (high -
    low))`` of one uniform draw per value, so the draws stay what they were whatever the route's op count."""
    high = torch.tensor(50_000 + low)
    ints = torch_ops.random_integers(torch.Generator().manual_seed(3), (4096,), low, high)
    uniforms = torch.rand((4096,), generator=torch.Generator().manual_seed(3), dtype=torch.float64).numpy()
    assert ints.dtype == torch.int64
    np.testing.assert_array_equal(ints.numpy(), low + np.floor(uniforms * 50_000).astype(np.int64))
    per_row = torch.arange(1, 4097) + low  # a bound per row broadcasts: row i draws from [low, low + i + 1)
    rows = torch_ops.random_integers(torch.Generator().manual_seed(3), (4096,), low, per_row)
    np.testing.assert_array_equal(rows.numpy(), low + np.floor(uniforms * np.arange(1, 4097)).astype(np.int64))
