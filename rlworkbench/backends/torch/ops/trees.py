"""Sum-tree ops (prioritized replay's tree): on the CPU tensor's own memory, the kernels compiled with numba (the
``fast`` extra) or, without it, a handful of NumPy calls instead of ~15-25 torch ops of a few µs each
(:func:`~rlworkbench.core.sum_tree_kernels.cpu_kernels`); the ops composition elsewhere (CUDA)."""

from __future__ import annotations

from typing import cast

import numpy as np
import torch
from torch.autograd.graph import increment_version

from rlworkbench.core import ops as contract
from rlworkbench.core import sum_tree_kernels as kernels

Tensor = torch.Tensor


def _ops() -> contract.Ops:  # this module's own namespace (imported when first needed: it imports this module)
    from rlworkbench.backends.torch import ops

    return cast("contract.Ops", ops)


def _contract(*tensors: Tensor) -> list[contract.Tensor]:
    """Torch tensors as the contract's tensor protocol (what they are at run time; mypy reads torch's signatures)."""
    return [cast("contract.Tensor", t) for t in tensors]


def _on_cpu(*tensors: Tensor) -> bool:
    return all(t.is_cpu and not t.requires_grad for t in tensors)


def _written(*tensors: Tensor) -> None:
    """Counts a write through NumPy in each tensor's version, as torch's in-place ops do (the build puts back what
    its sample passes wrote by these versions; autograd checks saved tensors by them)."""
    increment_version(list(tensors))


def tree_sum_set(tree: Tensor, block_minima: Tensor, nodes: Tensor, values: Tensor, distinct: bool = False) -> None:
    if _on_cpu(tree, block_minima, nodes, values):
        kernels.cpu_kernels().sum_set(tree.numpy(), block_minima.numpy(), nodes.numpy(), values.numpy(), distinct)
        _written(tree, block_minima)
    else:
        tree_, minima_, nodes_, values_ = _contract(tree, block_minima, nodes, values)
        kernels.sum_set(_ops(), tree_, minima_, nodes_, values_, distinct)


def tree_prefix_search(tree: Tensor, prefix_sums: Tensor) -> Tensor:
    if _on_cpu(tree, prefix_sums):
        return torch.from_numpy(kernels.cpu_kernels().prefix_search(tree.numpy(), prefix_sums.numpy()))
    tree_, prefix_sums_ = _contract(tree, prefix_sums)
    return cast(Tensor, kernels.prefix_search(_ops(), tree_, prefix_sums_))


def tree_sample(tree: Tensor, block_minima: Tensor, uniforms: Tensor, count: Tensor | int,
                ) -> tuple[Tensor, Tensor, Tensor]:
    if _on_cpu(tree, block_minima, uniforms):
        leaves, values, minimum = kernels.cpu_kernels().sample(tree.numpy(), block_minima.numpy(), uniforms.numpy(),
                                                       int(count))
        return torch.from_numpy(leaves), torch.from_numpy(values), torch.from_numpy(np.asarray(minimum))
    tree_, minima_, uniforms_, count_ = _contract(tree, block_minima, uniforms, torch.as_tensor(count))
    return cast("tuple[Tensor, Tensor, Tensor]", kernels.sample(_ops(), tree_, minima_, uniforms_, count_))


def tree_block_minimum(tree: Tensor, block_minima: Tensor, count: Tensor | int) -> Tensor:
    if _on_cpu(tree, block_minima):
        minimum = kernels.cpu_kernels().block_minimum(tree.numpy(), block_minima.numpy(), int(count))
        return torch.from_numpy(np.asarray(minimum, tree.numpy().dtype))
    tree_, minima_, count_ = _contract(tree, block_minima, torch.as_tensor(count))
    return cast(Tensor, kernels.block_minimum(_ops(), tree_, minima_, count_))


def track_max(largest: Tensor, values: Tensor) -> Tensor:
    if _on_cpu(largest, values):
        tracked = kernels.numpy_track_max(largest.numpy(), values.numpy())
        _written(largest)
        return torch.from_numpy(tracked)
    largest_, values_ = _contract(largest, values)
    return cast(Tensor, kernels.track_max(_ops(), largest_, values_))


__all__ = ["tree_sum_set", "tree_prefix_search", "tree_block_minimum", "tree_sample", "track_max"]
