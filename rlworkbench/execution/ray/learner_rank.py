"""One rank of a data-parallel learner group: a process (a Ray actor's body) holding a full learner agent.

The rank joins its group on the backend's engine — ``torch.distributed`` (gloo on CPU, NCCL when its devices are
CUDA) or ``tf.distribute.MultiWorkerMirroredStrategy``, which sets up TensorFlow's collective runtime for the
group's addresses — then becomes a member (:mod:`rlworkbench.core.collective`) and builds the agent, so that every
optimizer step averages the loss and gradients over the ranks (``ops.group_mean``). Each rank learns from its own
share of a batch; all apply the same step, so weights, optimizer state and counters stay equal on every rank (a
test compares them). The agent crosses the process boundary as config, spaces, NumPy weights and counters.

A group that cannot form — a rank that never arrives, an address nobody answers — is a
:class:`LearnerGroupError` naming the rank and the address after ``timeout`` seconds, never a hang; so is a
collective whose peer died mid-update (the driver restarts the group, :mod:`.learner_group`).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from rlworkbench.core import collective
from rlworkbench.errors import RLWorkbenchError
from rlworkbench.execution.ray.flow_types import Batch

if TYPE_CHECKING:
    from ray import ObjectRef

    from rlworkbench.agents import Agent, DQNAgent
    from rlworkbench.spaces import Space

Weights = dict[str, np.ndarray]


def agent_state(agent: Agent) -> tuple[Weights, dict[str, int]]:
    """Every variable of ``agent`` (optimizer state included) and its counters: what ranks and snapshots hold."""
    from rlworkbench.agents.agent import COUNTERS

    return agent.get_weights(), {name: int(getattr(agent, name)) for name in COUNTERS}


class LearnerGroupError(RLWorkbenchError):
    """A learner group failed to form, or lost a rank: names the rank and the address it waited on."""


def free_address() -> str:
    """``ip:port`` of a port free on this node now (the group's rendezvous or a TF worker's server)."""
    import ray

    ip = ray.util.get_node_ip_address()
    with socket.socket() as probe:
        probe.bind((ip, 0))
        return f"{ip}:{probe.getsockname()[1]}"


class LearnerRank:
    """Rank ``rank`` of ``size`` learners on ``backend`` (see the module docstring)."""

    def __init__(self, rank: int, size: int, backend: str, threads: int = 1):
        from rlworkbench.core.backend import get_backend

        self.rank, self.size, self.backend = int(rank), int(size), backend
        get_backend(backend).limit_threads(threads)
        self.agent: Agent | None = None
        self.address = free_address()
        self.cuda = False  #: NCCL: collectives on the rank's GPU (Ray shows a rank its own GPUs as cuda:0, …)

    # ----- the group ------------------------------------------------------------------------------------------
    def where(self) -> dict[str, object]:
        """This rank's node id, IP, process id and address."""
        import ray

        return {"rank": self.rank, "node_id": ray.get_runtime_context().get_node_id(),
                "ip": ray.util.get_node_ip_address(), "pid": os.getpid(), "address": self.address}

    def join(self, addresses: Sequence[str], timeout: float, cuda: bool = False) -> None:
        """Forms the group with the other ranks at ``addresses`` (rank order; the torch group meets at rank 0's),
        then checks it with one all-reduce. Raises LearnerGroupError after ``timeout`` seconds if the group cannot
        form."""
        rendezvous = addresses[0] if self.backend == "torch" else self.address
        try:
            if self.backend == "torch":
                self._join_torch(addresses[0], timeout, cuda)
            else:
                self._join_tf(addresses, timeout)
            collective.join(self.rank, self.size, timeout)
            self._check_group()
        except LearnerGroupError:
            raise
        except Exception as error:
            collective.leave()
            raise LearnerGroupError(f"learner rank {self.rank} of {self.size} could not form its group within "
                                    f"{timeout:g} s: {type(error).__name__}: {str(error)[:300]}",
                                    argument=f"rank {self.rank}", expected=f"{self.size} ranks meeting at "
                                    f"{rendezvous}", got="no group") from None

    def _join_torch(self, master: str, timeout: float, cuda: bool) -> None:
        from datetime import timedelta

        import torch.distributed as dist

        if cuda:
            import torch

            torch.cuda.set_device(0)
            self.cuda = True
        dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://{master}", rank=self.rank,
                                world_size=self.size, timeout=timedelta(seconds=timeout))

    def _join_tf(self, addresses: Sequence[str], timeout: float) -> None:
        import tensorflow as tf

        cluster = tf.train.ClusterSpec({"worker": list(addresses)})
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(cluster, task_type="worker",
                                                                        task_id=self.rank, rpc_layer="grpc")
        options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout)
        self.strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver,
                                                                  communication_options=options)

    def _check_group(self) -> None:
        """One all-reduce of the rank numbers: every rank must see their mean."""
        from rlworkbench.core.backend import get_backend

        ops = get_backend(self.backend).ops
        (mean,) = ops.group_mean([self._reducible(np.float32(self.rank))])
        expected = (self.size - 1) / 2
        if abs(float(mean) - expected) > 1e-6:
            raise LearnerGroupError("the group's first all-reduce disagrees", argument=f"rank {self.rank}",
                                    expected=expected, got=float(mean))

    # ----- the learner ----------------------------------------------------------------------------------------
    def build(self, config: Mapping[str, object], state_space: Space, action_space: Space, seed: int | None,
              devices: Sequence[str] | None, weights: Weights, counters: Mapping[str, int]) -> None:
        """Builds the rank's agent (on replica towers over ``devices``) and takes the group's state."""
        from rlworkbench.agents import Agent

        agent = Agent.from_config(dict(config), state_space=state_space, action_space=action_space,
                                  backend=self.backend, seed=seed)
        self.agent = agent.build(devices=list(devices) if devices else None)
        self.set_state(weights, counters)

    def devices(self) -> list[str] | None:
        """The devices of this rank's replica towers (None: one device)."""
        return self._agent().devices

    def set_state(self, weights: Weights, counters: Mapping[str, int]) -> None:
        agent = self._agent()
        agent.set_weights(weights)
        for name, value in counters.items():
            setattr(agent, name, int(value))

    def state(self) -> tuple[Weights, dict[str, int]]:
        """Every variable (optimizer state included) and the counters."""
        return agent_state(self._agent())

    def update(self, batch: Batch, timesteps: int) -> tuple[dict[str, float], float]:
        """One update on this rank's share; ``(metrics, all-reduce seconds)``."""
        metrics, _, seconds = self._timed(lambda agent: (agent.update(batch), None), timesteps)
        return metrics, seconds

    def update_with_priorities(self, batch: Batch, timesteps: int) -> tuple[dict[str, float], np.ndarray, float]:
        """One prioritised update on this rank's share; ``(metrics, priorities, all-reduce seconds)``."""
        metrics, priorities, seconds = self._timed(
            lambda agent: cast("DQNAgent", agent).update_with_priorities(batch), timesteps)
        return metrics, np.asarray(priorities), seconds

    def _timed(self, update: Callable[[Agent], tuple[dict[str, float], np.ndarray | None]], timesteps: int
               ) -> tuple[dict[str, float], np.ndarray | None, float]:
        agent = self._agent()
        agent.timesteps = int(timesteps)
        group = collective.current()
        before = group.seconds if group is not None else 0.0
        started = time.perf_counter()
        try:
            metrics, extra = update(agent)
        except RLWorkbenchError:
            raise  # a typed error (a bad batch): the same on every rank
        except Exception as error:  # the engine's (a peer died, a collective timed out): the group is lost
            raise LearnerGroupError(f"learner rank {self.rank} lost its group during an update: "
                                    f"{type(error).__name__}: {str(error)[:300]}", argument=f"rank {self.rank}",
                                    expected=f"{self.size} ranks") from None
        reduce_s = (group.seconds - before) if group is not None else 0.0
        return {**metrics, "update_s": time.perf_counter() - started}, extra, reduce_s

    def weights_ref(self) -> list[ObjectRef]:
        """The trainable weights put into Ray's object store by this rank (one copy, no round trip to the
        driver), wrapped in a list so the reference itself comes back."""
        import ray

        return [ray.put(self._agent().get_weights(trainable_only=True))]

    def time_all_reduce(self, repeats: int = 5, elements: int | None = None) -> float:
        """Median seconds of one all-reduce of ``elements`` float32s (default: as many as the agent's trainable
        weights — one optimizer step's gradients; TensorFlow's collectives run inside traced graphs and cannot be
        timed apart from the update otherwise)."""
        from rlworkbench.core.backend import get_backend

        ops = get_backend(self.backend).ops
        size = elements or sum(value.size for value in self._agent().get_weights(trainable_only=True).values())
        buffer = np.zeros(size, np.float32)
        times = []
        value = self._reducible(buffer)
        for _ in range(repeats):
            started = time.perf_counter()
            ops.group_mean([value])
            times.append(time.perf_counter() - started)
        return float(np.median(times))

    def _reducible(self, value: np.ndarray | np.float32) -> object:
        """``value`` as a tensor the group's all-reduce takes (NCCL: on the rank's GPU)."""
        from rlworkbench.core.backend import get_backend

        tensor = get_backend(self.backend).ops.constant(value)
        return tensor.cuda() if self.cuda else tensor

    def _agent(self) -> Agent:
        if self.agent is None:
            raise LearnerGroupError("the learner rank has no agent yet: build() first", argument=f"rank {self.rank}")
        return self.agent
