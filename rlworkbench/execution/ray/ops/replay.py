"""Prioritised replay across shard actors: samplers store into them (they send their transitions themselves and
report where), the learner replays with requests in flight and sends priorities back to the shard that drew.

A shard that dies is replaced (empty) and every sampler is told the new handles; what it held is counted as
lost. Its row in :meth:`Replay.table` says how full each shard is, as counted from what the samplers sent. With
``save_replay`` a checkpoint holds every shard's memory (:meth:`Replay.save`: ``replay/shard_<i>.npz`` and
``replay/shards.json``) and a resumed run puts it back (:meth:`Replay.restore`).
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from rlworkbench.components.memories.prioritized_replay import acceptable_priorities
from rlworkbench.errors import CheckpointError
from rlworkbench.execution.ray.actor_manager import ActorManager
from rlworkbench.execution.ray.flow_types import ReplayBatch, SampleReport
from rlworkbench.execution.ray.plan_run import LEARNER, PlanRun
from rlworkbench.execution.ray.replay_shard import ReplayShard, transition_space

SHARD_COLUMNS = ("shard", "records", "capacity", "fill", "restarts", "lost")
SLOW_ANSWER_S = 10.0  # a shard's sample takes milliseconds: a request this old means a shard is not answering
RECEIVE_WAIT_S = 10.0  # how long a checkpoint waits for records a sampler reported but its shard has not yet added


def answer(ref: Any) -> int | None:
    """A shard's answer, or None when it died meanwhile (a save goes on without it)."""
    import ray

    try:
        return int(ray.get(ref))
    except ray.exceptions.RayActorError:
        return None


def shard_node(index: int) -> str:
    return f"shard {index}"


class Replay:
    """``run.settings["shards"]`` shards sharing ``replay_capacity`` records (the memory's capacity by default), with
    the memory's ``alpha``/``beta``; ``replay_in_flight`` requests per shard; batches of ``update/batch_size``."""

    def __init__(self, run: PlanRun):
        memory, settings = run.agent.config["memory"], run.settings
        count = settings["shards"]
        self.run = run
        self.capacity = max(int(settings["replay_capacity"] or memory["capacity"]) // count, 1)
        self.alpha, self.beta = float(memory.get("alpha", 0.6)), float(memory.get("beta", 0.4))
        self.batch_size = int(run.agent.config["update"]["batch_size"])
        self.sent = [0] * count  # records sent to each shard since it (re)started, as the samplers reported
        self.lost = [0] * count  # records held by each shard's replaced predecessors, or sent to them
        self.priorities_dropped = 0  # new priorities not sent: NaN, infinite or <= 0 (a diverged update's)
        self.errors: list[str] = []
        self._next = 0
        for index in range(count):
            run.meter.node(shard_node(index), "shard")
        self.manager = ActorManager(self._make, count, max_in_flight=settings["replay_in_flight"],
                                    max_restarts=settings["max_restarts"], on_restart=self._restarted,
                                    hung_after=float(cast("float", settings["hung_after"])))
        run.replay = self
        run.on_close(self.manager.close)

    def actor(self, index: int) -> Any:
        """Shard ``index``'s actor handle (the current one, after restarts)."""
        return self.manager.actor(index)

    def handles(self) -> list[Any]:
        return [self.manager.actor(index) for index in range(len(self.manager))]

    def generations(self) -> list[int]:
        """Each shard's restarts so far: a sampler's report names the one of the handle it sent to."""
        return list(self.manager.restarts)

    # ----- store ------------------------------------------------------------------------------------------------
    def stored(self, report: SampleReport) -> None:
        """Counts what a sampler reported sending (the transitions went straight to the shard); records sent to a
        shard replaced since (the sampler had not yet heard of its successor) count as lost."""
        if report.shard < 0:
            return
        if report.shard_generation != self.manager.restarts[report.shard]:
            self.lost[report.shard] += report.records
            return
        self.sent[report.shard] += report.records

    # ----- replay -----------------------------------------------------------------------------------------------
    def request(self, count: int) -> None:
        """Asks for up to ``count`` batches, one shard after another, from shards holding records."""
        shards = len(self.manager)
        for _ in range(shards):
            if count <= 0:
                return
            index = self._next
            self._next = (index + 1) % shards
            if self.sent[index] and self.manager.call(index, ReplayShard.sample, self.batch_size):
                count -= 1

    def in_flight(self) -> int:
        return self.manager.in_flight()

    def answering(self) -> bool:
        """Whether batches are on their way: requests are under way and none has waited :data:`SLOW_ANSWER_S`
        (a shard starting up, or one that hangs until ``hung_after`` replaces it, is not answering)."""
        return self.manager.in_flight() > 0 and self.manager.waiting() < SLOW_ANSWER_S

    def ready(self, timeout: float = 0.0) -> list[ReplayBatch]:
        """The batches drawn so far (a dead shard's request is noted, not fatal; an empty shard gives none)."""
        batches = []
        for result in self.manager.results(timeout=timeout):
            if not result.ok:  # the manager restarted a dead shard before this: its error is named here
                self.errors.append(f"shard {result.index}: {type(result.error).__name__}")
                self.run.meter.failed(shard_node(result.index), type(result.error).__name__)
                continue
            if result.value is None:
                continue
            records, indices, weights = result.value
            drawn = ReplayBatch(result.index, result.actor, records, np.asarray(indices), np.asarray(weights))
            self.run.meter.flow(shard_node(result.index), LEARNER, "Batch", 1, drawn.bytes)
            batches.append(drawn)
        return batches

    def send_priorities(self, drawn: ReplayBatch, priorities: np.ndarray) -> None:
        """New priorities to the shard that drew ``drawn`` (even if replaced since: then they go nowhere). Those a
        shard would refuse (as float32: NaN, infinite or below the smallest normal > 0; an update the guard refused
        has NaN TD errors) are not sent, so those records keep their old priorities, and are counted
        (``priorities_dropped``)."""
        priorities, indices = np.asarray(priorities, np.float32), drawn.indices  # as the shard checks them
        usable = acceptable_priorities(priorities)
        if not usable.all():
            self.priorities_dropped += int(np.count_nonzero(~usable))
            priorities, indices = priorities[usable], indices[usable]
            if not len(priorities):
                return
        drawn.actor.update_priorities.remote(indices, priorities)
        self.run.meter.flow(LEARNER, shard_node(drawn.shard), "Priorities", len(priorities),
                            int(priorities.nbytes + indices.nbytes))

    # ----- accounting -------------------------------------------------------------------------------------------
    def held(self) -> list[int]:
        return [min(sent, self.capacity) for sent in self.sent]

    def health(self) -> dict[str, float]:
        """Columns of the updates table: records held, records lost, shard restarts, priorities not sent."""
        return {"replay_records": float(sum(self.held())), "replay_lost": float(sum(self.lost)),
                "shard_restarts": float(sum(self.manager.restarts)),
                "priorities_dropped": float(self.priorities_dropped)}

    def table(self) -> pd.DataFrame:
        """One row per shard: ``shard, records, capacity, fill, restarts, lost`` (records held, as counted from
        what the samplers sent; ``lost``: the records its replaced predecessors held)."""
        rows = [(index, count, self.capacity, count / self.capacity, restarts, lost)
                for index, (count, restarts, lost) in enumerate(zip(self.held(), self.manager.restarts, self.lost))]
        return pd.DataFrame(rows, columns=list(SHARD_COLUMNS))

    # ----- checkpoints ------------------------------------------------------------------------------------------
    def save(self, directory: Path) -> int:
        """Every shard's records and priorities into ``<directory>/replay`` (arrays as ``.npz``, never pickled);
        returns the bytes written. It first waits (up to :data:`RECEIVE_WAIT_S`) for the records the samplers
        reported sending: a report reaches the learner before its shard adds them, and a shard can start late.
        What is still missing then is saved without, with a RuntimeWarning, and ``shards.json`` says how many
        (``missing``; null: a shard that did not answer)."""
        import ray

        folder = Path(directory) / "replay"
        folder.mkdir(parents=True, exist_ok=True)
        missing = self.await_reported(RECEIVE_WAIT_S)
        if any(short != 0 for short in missing):
            warnings.warn(f"replay checkpoint in {folder}: after {RECEIVE_WAIT_S:g} s the shards still lack records "
                          f"their samplers reported (per shard: {missing}); saved without them", RuntimeWarning,
                          stacklevel=2)
        states = ray.get([self.manager.actor(index).state.remote() for index in range(len(self.manager))])
        total = 0
        for index, (variables, _added) in enumerate(states):
            np.savez(folder / f"shard_{index}.npz", **variables)
            total += (folder / f"shard_{index}.npz").stat().st_size
        (folder / "shards.json").write_text(json.dumps({
            "shards": len(states), "capacity": self.capacity, "added": [added for _, added in states],
            "sent": self.sent, "missing": missing, "bytes": total}))
        return total

    def await_reported(self, timeout: float) -> list[int | None]:
        """Waits until every shard has received (added or refused) as many records as the samplers reported sending
        it, at most ``timeout`` seconds; returns how many each shard still lacks (all 0: none; None: it did not
        answer). Records carry no ids: a send lost with its sampler is awaited by every later call."""
        import ray

        deadline = time.monotonic() + timeout
        while True:
            asked = [self.manager.actor(index).received.remote() for index in range(len(self.manager))]
            answered, _ = ray.wait(asked, num_returns=len(asked), timeout=max(deadline - time.monotonic(), 1.0))
            received = [answer(ref) if ref in answered else None for ref in asked]
            missing = [None if count is None else max(sent - count, 0) for count, sent in zip(received, self.sent)]
            if all(short == 0 for short in missing) or time.monotonic() >= deadline:
                return missing
            time.sleep(0.05)

    def restore(self, directory: Path) -> bool:
        """Puts back the shards a checkpoint saved (False if it saved none); a CheckpointError if its shards are
        not this run's (another count or capacity)."""
        import ray

        folder = Path(directory) / "replay"
        if not (folder / "shards.json").is_file():
            return False
        about = json.loads((folder / "shards.json").read_text())
        if (about["shards"], about["capacity"]) != (len(self.manager), self.capacity):
            raise CheckpointError("the checkpoint's replay was saved by other shards", key_path="replay",
                                  expected=f"{len(self.manager)} shards of {self.capacity} records",
                                  got=f"{about['shards']} shards of {about['capacity']} records")
        pending = []
        for index in range(len(self.manager)):
            with np.load(folder / f"shard_{index}.npz", allow_pickle=False) as arrays:
                variables = {name: arrays[name] for name in arrays.files}
            pending.append(self.manager.actor(index).load_state.remote(variables, about["added"][index]))
        ray.get(pending)
        # what the shards hold now (more than was reported when fragments in flight arrived, fewer when a wait ran out)
        self.sent = [int(added) for added in about["added"]]
        return True

    # ----- actors -----------------------------------------------------------------------------------------------
    def _make(self, index: int) -> Any:
        import ray

        return ray.remote(num_cpus=0, max_restarts=0)(ReplayShard).remote(
            transition_space(self.run.agent), self.capacity, alpha=self.alpha, beta=self.beta, backend=self.run.backend,
            seed=self.run.seed + 17 * (index + 1))

    def _restarted(self, index: int, actor: Any) -> None:
        from rlworkbench.execution.ray.apex_sampler import ApexSampler

        self.lost[index] += min(self.sent[index], self.capacity)
        self.sent[index] = 0
        self.run.meter.restarted(shard_node(index))
        if self.run.samplers is not None:
            self.run.samplers.each(ApexSampler.set_shards, self.handles(), self.generations())
