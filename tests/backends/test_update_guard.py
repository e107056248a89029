"""The torch update guard: an optimizer step whose loss or gradient is not finite changes nothing, decided on the
device — no update rule or assignment reads a value back to the host (on a GPU that would stall every update)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rlworkbench.backends.torch import ops  # noqa: E402

RULES = ["adam_fused", "adam_foreach", "rmsprop", "sgd"]


def state(rule: str, seed: int = 0) -> dict[str, list]:
    """Variables, gradients and slots for ``rule``; ``adam_foreach`` holds a variable stored column-major beside
    row-major slots, which the fused kernel cannot walk (the ``_foreach`` path runs)."""
    generator = torch.Generator().manual_seed(seed)
    shapes = [(3, 4), (4,)]
    variables = [torch.randn(*shape, generator=generator) for shape in shapes]
    if rule == "adam_foreach":
        variables[0] = variables[0].t().contiguous().t()  # same values, column-major storage
    grads = [torch.randn(*shape, generator=generator) for shape in shapes]
    slots = [[torch.rand(*shape, generator=generator) for shape in shapes] for _ in range(2)]
    return {"variables": variables, "grads": grads, "slots": slots}


def step(rule: str, tensors: dict[str, list], count: float = 3.0) -> None:
    variables, grads, (first, second) = tensors["variables"], tensors["grads"], tensors["slots"]
    if rule.startswith("adam"):
        ops.adam_update(variables, grads, first, second, torch.tensor(count), 0.01, 0.9, 0.999, 1e-8)
    elif rule == "rmsprop":
        ops.rmsprop_update(variables, grads, first, second, 0.01, 0.9, 0.5, 1e-7)
    else:
        ops.sgd_update(variables, grads, first, 0.01, 0.9)


def snapshot(tensors: dict[str, list]) -> list[np.ndarray]:
    return [t.clone().numpy() for t in [*tensors["variables"], *tensors["slots"][0], *tensors["slots"][1]]]


@pytest.fixture
def no_host_reads(monkeypatch):
    """Any tensor → Python value conversion fails (what a device → host read-back takes)."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("a tensor was read back to the host inside the update")

    for name in ("__bool__", "__float__", "__int__", "__index__", "item", "tolist", "numpy"):
        monkeypatch.setattr(torch.Tensor, name, refuse)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("bad", [float("nan"), float("inf")], ids=["nan", "inf"])
def test_a_non_finite_step_changes_no_variable_or_slot(rule, bad):
    tensors = state(rule)
    tensors["grads"][1][2] = bad
    before = snapshot(tensors)
    loss = torch.tensor(bad)
    applied = ops.apply_if_finite([loss, ops.global_norm(tensors["grads"])], lambda: step(rule, tensors))
    assert not bool(applied)
    for old, new in zip(before, snapshot(tensors)):
        np.testing.assert_array_equal(new, old)


@pytest.mark.parametrize("rule", RULES)
def test_a_finite_step_under_the_guard_is_the_plain_step(rule):
    guarded, plain = state(rule), state(rule)
    applied = ops.apply_if_finite([torch.tensor(1.0), ops.global_norm(guarded["grads"])],
                                  lambda: step(rule, guarded))
    step(rule, plain)
    assert bool(applied)
    for mine, reference in zip(snapshot(guarded), snapshot(plain)):
        np.testing.assert_array_equal(mine, reference)
    assert not np.array_equal(snapshot(guarded)[0], snapshot(state(rule))[0])  # it did move


def test_the_foreach_adam_path_agrees_with_the_fused_kernel():
    fused, foreach = state("adam_fused"), state("adam_foreach")
    step("adam_fused", fused)
    step("adam_foreach", foreach)
    for mine, reference in zip(snapshot(foreach), snapshot(fused)):
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("finite", [True, False])
def test_assignments_follow_the_guard(finite):
    counter, target, replica = torch.tensor(5, dtype=torch.int64), torch.zeros(3), torch.zeros(3)
    loss = torch.tensor(1.0 if finite else float("nan"))

    def apply():
        ops.assign_add(counter, 1)
        ops.assign(target, torch.full((3,), float("nan")) if not finite else torch.ones(3))
        ops.assign_all([replica], [target])

    ops.apply_if_finite([loss], apply)
    assert int(counter) == (6 if finite else 5)
    np.testing.assert_array_equal(target.numpy(), np.ones(3) if finite else np.zeros(3))
    np.testing.assert_array_equal(replica.numpy(), target.numpy())


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("finite", [True, False])
def test_the_update_never_reads_a_value_back_to_the_host(rule, finite, no_host_reads):
    tensors = state(rule)
    counter = torch.tensor(0, dtype=torch.int64)
    loss = torch.tensor(0.5 if finite else float("nan"))
    grads = ops.clip_by_global_norm(tensors["grads"], 1.0)
    tensors["grads"] = grads

    def apply():
        step(rule, tensors, count=2.0)
        ops.assign_add(counter, 1)

    ops.apply_if_finite([loss, ops.global_norm(grads)], apply)  # the fixture fails any read-back


def test_matrices_stored_column_major_with_their_gradients_and_slots_take_the_fused_kernel(monkeypatch):
    from rlworkbench.backends.torch.ops import optim

    fused_calls = []

    def recording(params, *args, **kwargs):
        fused_calls.append([tuple(p.shape) for p in params])
        return real(params, *args, **kwargs)

    real = optim._FUSED_ADAM
    if real is None:
        pytest.skip("this torch has no fused Adam kernel")
    monkeypatch.setattr(optim, "_FUSED_ADAM", recording)
    column_major = state("adam_fused")
    for key in ("variables", "grads"):
        column_major[key][0] = column_major[key][0].t().contiguous().t()
    column_major["slots"] = [[slots[0].t().contiguous().t(), slots[1]] for slots in column_major["slots"]]
    step("adam_fused", column_major)
    step("adam_foreach", state("adam_foreach"))  # a column-major variable beside row-major slots: not fused
    assert fused_calls == [[(4, 3), (4,)], [(4,)]]  # the matrix handed over transposed, as the contiguous tensor


def test_the_column_major_test_reads_strides_as_torch_reads_contiguity():
    from rlworkbench.backends.torch.ops.optim import _column_major

    matrices = []
    for shape in [(1, 1), (1, 5), (5, 1), (3, 4), (4, 3), (0, 3), (3, 0)]:
        base = torch.zeros(shape)
        matrices += [base, base.t(), torch.zeros(shape[::-1]).t(), base[:, :1], base[:1],
                     torch.zeros(6, 8)[::2, ::2], torch.zeros(8, 6).t()[:, ::2]]
    assert [_column_major(m) for m in matrices] == [m.t().is_contiguous() for m in matrices]
    assert not _column_major(torch.zeros(3)) and not _column_major(torch.zeros(2, 3, 4))
