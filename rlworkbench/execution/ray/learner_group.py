"""The learner of a plan: the agent here (one learner, today's behaviour) or a data-parallel group of ranks there.

A plan's operators talk to ``run.learner`` only: :meth:`Learner.update` / :meth:`Learner.update_with_priorities`
on a batch of ``shares`` equal parts (``execution/ray/learners`` of them), :meth:`Learner.weights_ref` for the
samplers, :meth:`Learner.sync_agent` before the run's agent is saved or evaluated.

:class:`LearnerGroup` runs ``learners`` :class:`~.learner_rank.LearnerRank` actors — plain Ray actors whose process
group the rank sets up itself (``torch.distributed`` / ``MultiWorkerMirroredStrategy``), placed by a placement group
(``learner_placement``: ``"pack"``, ``"spread"``, ``"strict_spread"`` — one rank per node —, ``"strict_pack"``).
Not Ray Train's ``TorchTrainer``/``TensorflowTrainer``: a trainer owns its training loop (one function run to the
end on every worker), while a plan drives its learner one update at a time between samplers, queues and replay
shards, and must read weights and priorities back after each. What travels: each rank's share of the batch
(driver → rank, one object each), the metrics and priorities back, the trainable weights from rank 0 straight
into the object store for the samplers; gradients travel only between ranks, in the all-reduce.

Faults: an update that fails because a rank died (or its collective timed out) restarts the whole group from its
last state snapshot — taken from rank 0 every ``learner_checkpoint_every`` updates — and the run goes on; the
restarts and the updates lost are counted (``learner_restarts``, ``learner_updates_lost`` in the updates table).
After ``max_restarts`` restarts the next failure ends the run with a :class:`~.learner_rank.LearnerGroupError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from rlworkbench import nest
from rlworkbench.errors import BuildError, ConfigError
from rlworkbench.execution.ray.flow_types import Batch
from rlworkbench.execution.ray.learner_rank import LearnerGroupError, LearnerRank, Weights, agent_state
from rlworkbench.nest import Nested

if TYPE_CHECKING:
    from ray import ObjectRef
    from ray.util.placement_group import PlacementGroup

    from rlworkbench.agents import Agent, DQNAgent

PLACEMENTS = {"pack": "PACK", "spread": "SPREAD", "strict_spread": "STRICT_SPREAD", "strict_pack": "STRICT_PACK"}
RANK_COLUMNS = ("rank", "node", "pid", "updates", "update_s", "allreduce_s", "restarts")


class LocalLearner:
    """One learner: the run's agent, in this process."""

    shares = 1
    restarts = updates_lost = 0

    def __init__(self, agent: Agent):
        self.agent = agent

    def update(self, batch: Batch) -> dict[str, float] | None:
        return self.agent.update(batch)

    def update_with_priorities(self, batch: Batch) -> tuple[dict[str, float], np.ndarray] | None:
        return cast("DQNAgent", self.agent).update_with_priorities(batch)  # plans with replay train DQN agents

    def weights_ref(self) -> ObjectRef:
        import ray

        return ray.put(self.agent.get_weights(trainable_only=True))

    def sync_agent(self) -> None:
        """Nothing to do: the agent is the learner."""

    def table(self) -> pd.DataFrame | None:
        return None

    def close(self) -> None:
        """Nothing to end."""


def concatenated(batches: Sequence[Batch]) -> dict[str, Nested[np.ndarray]]:
    """Batches (rollouts of several samplers, replay batches of several shards) as one: every array stacked along
    its first axis — rows, or envs of sequences. The inverse of :func:`split_rows`."""
    if len(batches) == 1:
        return dict(batches[0])
    return {key: nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *[b[key] for b in batches])
            for key in batches[0]}


def split_rows(batch: Batch, shares: int) -> list[dict[str, Nested[np.ndarray]]]:
    """``batch`` cut into ``shares`` equal parts along the first axis of every array (rows, or envs of sequences)."""
    flat: list[object] = nest.leaves(cast("Nested[np.ndarray]", dict(batch)))
    leaves = [leaf for leaf in flat if isinstance(leaf, np.ndarray) and leaf.ndim]
    rows = len(leaves[0]) if leaves else 0
    if not rows or rows % shares or any(len(leaf) != rows for leaf in leaves):
        raise ConfigError("a learner group's batch must split into equal shares, one per rank",
                          key_path="execution/ray/learners", expected=f"rows divisible by {shares}, equal in every "
                          "key", got=sorted({len(leaf) for leaf in leaves}))
    size = rows // shares

    def part(index: int) -> dict[str, Nested[np.ndarray]]:
        return {key: nest.map_structure(lambda leaf: leaf[index * size:(index + 1) * size]
                                        if isinstance(leaf, np.ndarray) and leaf.ndim else leaf, value)
                for key, value in batch.items()}
    return [part(index) for index in range(shares)]


def wants_group(settings: Mapping[str, Any]) -> bool:
    """Whether a run's settings ask for a learner group (``learners`` > 1)."""
    return int(settings["learners"]) > 1


def learner_group(agent: Agent, settings: Mapping[str, Any]) -> LearnerGroup:
    """The group a run's ``execution/ray`` settings ask for (``learners`` > 1; see :mod:`.settings`)."""
    return LearnerGroup(agent, int(settings["learners"]), devices=settings["devices_per_learner"],
                        cpus=float(settings["learner_cpus"]), placement=str(settings["learner_placement"]),
                        timeout=float(settings["learner_timeout"]),
                        checkpoint_every=int(settings["learner_checkpoint_every"]),
                        max_restarts=int(settings["max_restarts"]))


class LearnerGroup:
    """``size`` learner ranks training ``agent``'s graph data-parallel; ``agent`` (here) is their mirror — its
    update counter follows theirs, its weights are rank 0's after :meth:`sync_agent`. See the module docstring."""

    def __init__(self, agent: Agent, size: int, *, devices: Sequence[str] | None = None, cpus: float = 1.0,
                 placement: str = "pack", timeout: float = 60.0, checkpoint_every: int = 50, max_restarts: int = 3):
        if placement not in PLACEMENTS:
            raise ConfigError("unknown learner placement", key_path="execution/ray/learner_placement",
                              expected=sorted(PLACEMENTS), got=placement)
        self.agent, self.shares, self.devices = agent, int(size), list(devices) if devices else None
        self.cpus, self.placement, self.timeout = float(cpus), placement, float(timeout)
        self.checkpoint_every, self.max_restarts = int(checkpoint_every), int(max_restarts)
        if agent.executor is None:
            raise BuildError("a learner group starts from a built agent (its ranks take its variables)",
                             component=agent.root.path, expected="agent.build() first", got="not built")
        self.backend = agent.backend or agent.executor.backend.name
        self.restarts = self.updates_lost = 0
        self.ranks: list[Any] = []  # Ray's actor handles (ray.remote's overloads type them loosely)
        self.where: list[dict[str, object]] = []
        self.stats = [{"update_s": float("nan"), "allreduce_s": float("nan")} for _ in range(self.shares)]
        self._group: PlacementGroup | None = None
        self._snapshot = agent_state(agent)
        self.start()

    # ----- life -------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Places and starts the ranks, forms their group, builds every rank's agent from the last snapshot."""
        import ray
        from ray.util.placement_group import placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        gpus = sum(device.startswith("cuda") for device in self.devices or [])  # Ray makes them cuda:0, … per rank
        bundles = [{"CPU": self.cpus, **({"GPU": gpus} if gpus else {})} for _ in range(self.shares)]
        self._group = placement_group(bundles, strategy=PLACEMENTS[self.placement])
        try:
            ray.get(self._group.ready(), timeout=self.timeout)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise LearnerGroupError(f"{self.shares} learner ranks could not be placed within {self.timeout:g} s",
                                    key_path="execution/ray/learner_placement", expected=f"{self.shares} bundles "
                                    f"of {self.cpus:g} CPU, {PLACEMENTS[self.placement]}",
                                    got=f"cluster resources {ray.available_resources()}") from None
        remote = ray.remote(LearnerRank)
        self.ranks = [remote.options(num_cpus=self.cpus, num_gpus=gpus, scheduling_strategy=(
            PlacementGroupSchedulingStrategy(self._group, placement_group_bundle_index=rank))).remote(
            rank, self.shares, self.backend) for rank in range(self.shares)]
        self.where = ray.get([rank.where.remote() for rank in self.ranks], timeout=self.timeout + 120)
        addresses = [str(where["address"]) for where in self.where]
        joins = [rank.join.remote(addresses, self.timeout, gpus > 0) for rank in self.ranks]
        ready, waiting = ray.wait(joins, num_returns=len(joins), timeout=self.timeout + 30)
        if waiting:
            missing = [joins.index(ref) for ref in waiting]
            self.close()
            raise LearnerGroupError(f"learner ranks {missing} did not join their group within {self.timeout:g} s",
                                    argument=f"rank {missing[0]}", expected=f"{self.shares} ranks meeting at "
                                    f"{addresses[0]}", got=f"{len(ready)} joined")
        try:
            ray.get(joins)  # a rank's own LearnerGroupError, if its group did not form
            weights, counters = self._snapshot
            shared = ray.put(weights)
            ray.get([rank.build.remote(self.agent.config, self.agent.state_space, self.agent.action_space,
                                       self.agent.seed, self.devices, shared, counters) for rank in self.ranks])
        except ray.exceptions.RayTaskError as error:
            self.close()
            cause = error.as_instanceof_cause()
            raise (cause if isinstance(cause, LearnerGroupError) else error) from None

    def restart(self, error: BaseException) -> None:
        """Ends every rank and starts the group again from the last snapshot (counted); past ``max_restarts``:
        a LearnerGroupError carrying ``error``."""
        self.close()
        if self.restarts >= self.max_restarts:
            raise LearnerGroupError(f"the learner group failed {self.restarts + 1} times (max_restarts="
                                    f"{self.max_restarts}): {type(error).__name__}: {str(error)[:300]}",
                                    key_path="execution/ray/max_restarts") from error
        self.restarts += 1
        weights, counters = self._snapshot
        self.updates_lost += int(self.agent.updates) - counters["updates"]
        self.agent.set_weights(weights)
        self.agent.updates = counters["updates"]  # the agent mirrors the group: back where the snapshot was
        self.start()

    def close(self) -> None:
        import ray
        from ray.util.placement_group import remove_placement_group

        for rank in self.ranks:
            with contextlib.suppress(Exception):
                ray.kill(rank)
        self.ranks = []
        if self._group is not None:
            with contextlib.suppress(Exception):
                remove_placement_group(self._group)
            self._group = None

    # ----- learning ---------------------------------------------------------------------------------------------
    def update(self, batch: Batch) -> dict[str, float] | None:
        """One data-parallel update, each rank on its share of ``batch``: the ranks' metrics averaged (None when a
        rank failed and the group restarted; the batch is dropped)."""
        results = self._on_ranks("update", batch)
        return None if results is None else self._metrics([(metrics, seconds) for metrics, seconds in results])

    def update_with_priorities(self, batch: Batch) -> tuple[dict[str, float], np.ndarray] | None:
        """:meth:`update` for a prioritised batch: also the new priorities of its rows, in the batch's order."""
        results = self._on_ranks("update_with_priorities", batch)
        if results is None:
            return None
        metrics = self._metrics([(metrics, seconds) for metrics, _, seconds in results])
        return metrics, np.concatenate([np.asarray(priorities) for _, priorities, _ in results])

    def _on_ranks(self, method: str, batch: Batch) -> list[Any] | None:
        import ray

        shares = split_rows(batch, self.shares)
        timesteps = int(self.agent.timesteps)
        calls = [getattr(rank, method).remote(share, timesteps) for rank, share in zip(self.ranks, shares)]
        try:
            results = ray.get(calls, timeout=self.timeout * 2 + 60)
        except ray.exceptions.RayTaskError as error:
            cause = error.as_instanceof_cause()
            if not isinstance(cause, LearnerGroupError):
                raise cause from None  # a bad batch or a bug: the same on every rank, no restart helps
            self.restart(cause)
            return None
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as error:
            self.restart(error)
            return None
        self.agent.updates += 1
        if self.agent.updates % self.checkpoint_every == 0:
            self._snapshot = tuple(ray.get(self.ranks[0].state.remote()))
        return results

    def _metrics(self, results: list[tuple[dict[str, float], float]]) -> dict[str, float]:
        for stats, (metrics, seconds) in zip(self.stats, results):
            stats.update(update_s=float(metrics.get("update_s", float("nan"))), allreduce_s=float(seconds))
        names = [name for name in results[0][0] if name != "update_s"]
        merged = {name: float(np.mean([metrics[name] for metrics, _ in results])) for name in names}
        merged["allreduce_s"] = float(np.mean([seconds for _, seconds in results]))
        merged.update(learner_restarts=float(self.restarts), learner_updates_lost=float(self.updates_lost))
        return merged

    # ----- weights and state ------------------------------------------------------------------------------------
    def weights_ref(self) -> ObjectRef:
        """Rank 0's trainable weights in the object store (put there by rank 0)."""
        import ray

        return ray.get(self.ranks[0].weights_ref.remote())[0]

    def sync_agent(self) -> None:
        """The agent here takes rank 0's variables (optimizer state included); its counters stay the run's."""
        import ray

        weights, _ = ray.get(self.ranks[0].state.remote())
        self.agent.set_weights(weights)

    def rank_states(self) -> list[tuple[Weights, dict[str, int]]]:
        """Every rank's variables and counters (to check that they agree)."""
        import ray

        return ray.get([rank.state.remote() for rank in self.ranks])

    # ----- the live view ----------------------------------------------------------------------------------------
    def table(self) -> pd.DataFrame:
        """One row per rank: ``rank, node`` (Ray node id, short), ``pid, updates, update_s`` (its last update's
        seconds, all-reduces included), ``allreduce_s`` (of them in all-reduces; NaN where the backend's
        collectives run inside traced graphs: TensorFlow), ``restarts`` (of the group)."""
        rows = [(rank, str(where.get("node_id", ""))[:8], where.get("pid"), int(self.agent.updates),
                 stats["update_s"], stats["allreduce_s"] if self.backend == "torch" else float("nan"),
                 self.restarts) for rank, (where, stats) in enumerate(zip(self.where, self.stats))]
        return pd.DataFrame(rows, columns=list(RANK_COLUMNS))

    def all_reduce_seconds(self, repeats: int = 5, elements: int | None = None) -> float:
        """Median seconds of one all-reduce of ``elements`` float32s (default: the trainable weights' size), timed
        on the ranks (any backend; the slowest rank's)."""
        import ray

        return float(np.max(ray.get([rank.time_all_reduce.remote(repeats, elements) for rank in self.ranks])))

    def __repr__(self) -> str:
        return f"LearnerGroup({self.shares} ranks, {self.backend}, {self.placement}, restarts={self.restarts})"

