"""Replica towers: the synchronous multi-device strategy as components in the graph.

:class:`ReplicaTowers` (``root/towers``) holds one :class:`Tower` per device, each holding copies of the
components the root's learning methods train (``towers/tower_1/policy``). Inside a learning method a call of a
replicated component comes here (:mod:`rlworkbench.core.replication`): every batch input is cut into one shard per
tower (uneven shards allowed), each tower runs the call on its shard under its own device, and the outputs are
concatenated in the original batch order — per-item outputs (TD errors → priorities) line up with the batch.

The loss is then computed as before, on the whole batch (so anything that normalises over the batch — PPO's
advantages — sees all of it). Each optimizer of a replicated component sums its replicas' gradients (the loss
is a mean over the batch, so each shard's gradient carries its shard's weight: the sum is the full batch's
gradient), applies it once to the component's own variables and copies them into every tower
(:class:`~rlworkbench.components.optimizers.optimizer.Optimizer`). On TensorFlow all towers are one traced
graph under their device scopes; on PyTorch they run in sequence (asynchronously on CUDA).

The weights are the components' own: tower variables are replicas, left out of ``get_weights`` and checkpoints
(:attr:`~rlworkbench.core.component.Component.holds_replicas`), so a checkpoint loads on any number of devices.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from rlworkbench import nest
from rlworkbench.core import replication
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import BuildError, SpaceError
from rlworkbench.nest import Nested
from rlworkbench.spaces import Space

_CONSTANT = (bool, int, float, str, type(None))


class Tower(Component):
    """One device's replicas: ``call(target, method, *inputs)`` runs ``method`` of the replica named ``target``."""

    def __init__(self, replicas: Sequence[Component], device: str, name: str):
        super().__init__(*replicas, name=name, device=device)

    @api
    def call(self, target: str, method: str, *inputs: Tensor) -> Tensor:
        replica = self.sub_components[target]
        return replication.call_with_inputs(getattr(replica, method), replica.api_methods[method], inputs)


class ReplicaTowers(Component):
    """One :class:`Tower` per device (``tower_0`` … ``tower_{N-1}``) with copies of ``components``;
    ``forward(target, method, *inputs)`` runs a learning call of a replicated component on the towers (see the
    module docstring). Inputs with a batch rank are cut into ``len(devices)`` shards along the batch axis
    (batch-major); Python constants go to every tower as they are. Outputs must have a batch rank."""

    holds_replicas = True

    def __init__(self, components: Sequence[Component], devices: Sequence[str], name: str = "towers"):
        self.devices = list(devices)
        self.replicated = {component.name: component for component in components}
        self.towers = [Tower([_replica_of(c) for c in components], device, name=f"tower_{index}")
                       for index, device in enumerate(self.devices)]
        super().__init__(*self.towers, name=name)
        self.num_towers = len(self.towers)

    def copies_of(self, component: Component) -> list[Component]:
        """The replicas of ``component`` in every tower (none if it is not replicated here)."""
        if self.replicated.get(component.name) is not component:
            return []
        return [tower.sub_components[component.name] for tower in self.towers]

    @api
    def forward(self, target: str, method: str, *inputs: Tensor) -> Tensor | tuple[Tensor, ...] | None:
        self._batch = None  # set by _split: (rows, shard bounds) of this call's batch
        shards = [(value,) * self.num_towers if isinstance(value, _CONSTANT) else self._shards(value)
                  for value in inputs]
        outputs = []
        for index, tower in enumerate(self.towers):
            self._start_draws(index)
            outputs.append(tower.call(target, method, *[shard[index] for shard in shards]))
            self._end_draws(index)
        first = outputs[0]
        if first is None:
            return None
        if isinstance(first, tuple):
            return tuple(self._concat(*[output[position] for output in outputs]) for position in range(len(first)))
        return self._concat(*outputs)

    def _shards(self, value: Tensor) -> tuple:
        shards = self._split(value)
        return shards if self.num_towers > 1 else (shards,)

    @graph_fn(returns=lambda self: self.num_towers, output_spaces=lambda self, space: _shard_spaces(self, space))  # noqa: PLW0108 (defined below)
    def _split(self, value: Nested[Tensor]) -> Nested[Tensor]:
        container = nest.is_container(value)
        rows = self.ops.dim(nest.leaves(value)[0] if container else value, 0)
        if isinstance(rows, int) and rows < self.num_towers:
            raise SpaceError(f"a batch of {rows} rows cannot be split over {self.num_towers} devices {self.devices}",
                             component=self.path, expected=f">= {self.num_towers} rows", got=rows)
        bounds = [rows * index // self.num_towers for index in range(self.num_towers + 1)]
        self._batch = (rows, bounds)  # for the random draws of the towers' calls that follow
        if self.num_towers == 1:
            return value
        if not container:
            return tuple(value[start:stop] for start, stop in itertools.pairwise(bounds))
        return tuple(nest.map_structure(lambda leaf, start=start, stop=stop: leaf[start:stop], value)
                     for start, stop in itertools.pairwise(bounds))

    @graph_fn(returns=0, output_spaces=lambda self, index: ())
    def _start_draws(self, index: int) -> None:
        """Tower ``index`` draws from where its components' generators stand, for the whole batch, keeping its rows."""
        for replica, source in self.generator_pairs()[index]:
            self.ops.copy_generator_state(replica, source)
        batch = getattr(self, "_batch", None)
        replication.set_draw_rows(None if batch is None else (batch[0], batch[1][index], batch[1][index + 1]))

    @graph_fn(returns=0, output_spaces=lambda self, index: ())
    def _end_draws(self, index: int) -> None:
        """After the last tower the components' generators advance as one whole-batch draw would have moved them."""
        replication.set_draw_rows(None)
        if index == self.num_towers - 1:
            for replica, source in self.generator_pairs()[index]:
                self.ops.copy_generator_state(source, replica)

    def generator_pairs(self) -> list[list[tuple[Any, Any]]]:
        """Per tower: ``(replica's generator, its component's generator)`` for every generator of a replica."""
        if getattr(self, "_pairs", None) is None:
            self._pairs = [[(copy_part._generators[name][0], part._generators[name][0])
                            for component in self.replicated.values()
                            for part, copy_part in zip(component.walk(), tower.sub_components[component.name].walk())
                            for name in part._generators if name in copy_part._generators]
                           for tower in self.towers]
        return self._pairs

    @graph_fn(output_spaces=lambda self, *spaces: _merged_space(self, spaces))
    def _concat(self, *parts: Tensor) -> Tensor:
        if len(parts) == 1:
            return parts[0]
        return nest.map_structure(lambda *leaves: self.ops.concat(list(leaves), 0), *parts)


def _replica_of(component: Component) -> Component:
    replica = component.copy()
    replica.device = None  # the tower's device
    replica.replicated_by = None
    return replica


def _shard_spaces(towers: ReplicaTowers, space: Space) -> Space | tuple[Space, ...]:
    for key, leaf in space.flatten().items():
        if not leaf.has_batch_rank or (leaf.has_time_rank and leaf.time_major):
            raise SpaceError("inputs of replicated calls are split over the towers along a leading batch axis",
                             component=towers.path, key_path=key or None,
                             expected="a batch-major space with a batch rank", got=leaf)
    return space if towers.num_towers == 1 else (space,) * towers.num_towers


def _merged_space(towers: ReplicaTowers, spaces: Sequence[Space]) -> Space:
    space = spaces[0]
    for key, leaf in space.flatten().items():
        if not leaf.has_batch_rank or (leaf.has_time_rank and leaf.time_major):
            raise BuildError("outputs of replicated calls are concatenated along a leading batch axis",
                             component=towers.path, key_path=key or None,
                             expected="a batch-major space with a batch rank", got=leaf)
    return space
