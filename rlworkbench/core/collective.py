"""Membership of this process in a data-parallel learner group (a rank among ``size`` learner processes).

Graph functions average over the group with ``self.ops.group_mean(tensors)``: the mean of every rank's tensors,
elementwise — gradients before an optimizer applies them, batch statistics that must be the group's (PPO's
advantage normalisation, its diagnostics). Outside a group (no membership: every single-process learner, samplers,
the driver) ``group_mean`` returns its inputs unchanged, so one graph serves both. Which engine reduces is the
backend's: ``torch.distributed`` (gloo on CPU, NCCL on CUDA) for PyTorch, TensorFlow's collective ops in the
runtime ``tf.distribute.MultiWorkerMirroredStrategy`` set up for TensorFlow
(:mod:`rlworkbench.execution.ray.learner_rank` joins the process). On TensorFlow the membership must exist before
the agent is built: the collectives are part of the traced graphs.
"""

from __future__ import annotations

from dataclasses import dataclass

GROUP_KEY = 4242  #: TensorFlow's collective group key of a learner group (one group per process)


@dataclass
class Membership:
    """This process is rank ``rank`` of ``size``; collectives give up after ``timeout`` seconds (a dead peer is an
    error, never a hang). ``seconds`` adds up the all-reduces a backend could time (PyTorch's)."""

    rank: int
    size: int
    timeout: float = 60.0
    seconds: float = 0.0
    _instance: int = 0

    def next_instance_key(self) -> int:
        """A new key for one collective op in a traced graph (the same on every rank: they trace alike)."""
        self._instance += 1
        return self._instance

    def timed(self, seconds: float) -> None:
        self.seconds += seconds


_membership: dict[str, Membership] = {}  #: "this process": its membership, when it has one


def join(rank: int, size: int, timeout: float = 60.0) -> Membership:
    """Makes this process rank ``rank`` of a group of ``size`` (called once the backend's group formed)."""
    _membership["this process"] = Membership(int(rank), int(size), float(timeout))
    return _membership["this process"]


def leave() -> None:
    _membership.clear()


def current() -> Membership | None:
    """This process's membership, or None outside a group (or in a group of one)."""
    membership = _membership.get("this process")
    return membership if membership is not None and membership.size > 1 else None
