"""A small fault-tolerant manager of Ray actors: requests in flight per actor, health, restarts, state re-sent.

``ray.util.ActorPool`` knows nothing of dead actors; RLlib's ``FaultTolerantActorManager`` is the model for this
one, cut to what the executors need. Each actor gets requests with :meth:`ActorManager.call` (at most
``max_in_flight`` at a time); :meth:`ActorManager.results` waits for whatever finished (``ray.wait``) and returns
:class:`CallResult` values. An actor that died (``ray.kill``, a crashed process) — or, with
``restart_on_error``, one whose request raised — is replaced by ``factory(index)`` and handed the current state
by ``on_restart(index, actor)`` (weights, a fresh env) before it gets new requests; its requests in flight are
dropped and counted. With ``hung_after`` a request under way longer than that many seconds fails with
:class:`ActorHung` and its actor is replaced the same way: a stuck env, a deadlocked actor or a call Ray never
answers costs one actor's restart, not the run. The clock starts once the actor is up (a probe answered): its
start-up — a process, imports, a cluster node's runtime environment — is not counted. After ``max_restarts``
restarts of one actor the next failure raises :class:`ActorFailed` with the error that caused it.

A new Ray actor costs a process start, its imports and its set-up — seconds of CPU, and many more seconds of wall
time on a machine the other actors keep busy. With ``spares`` the manager keeps that many actors made by
``spare()`` ready beside the working ones; a failed actor's place goes to the oldest spare, which ``adopt(index,
actor)`` turns into actor ``index`` (in its warm process), and a new spare starts in the background. A spare that
died while it waited (its process crashed, a node went away) is found by a readiness probe when its turn comes:
it is dropped (counted in ``spares_lost``) and replaced, and the place goes to the next spare or a new actor, so a
dead spare costs no restart of the actor it was meant for.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlworkbench.errors import ConfigError, RLWorkbenchError

SPARE_PROBE_S = 1.0  # a live spare answers a readiness probe in milliseconds; no answer by then: still starting up


class ActorFailed(RLWorkbenchError):
    """An actor failed more often than ``max_restarts`` allows; ``cause`` is the last error."""

    def __init__(self, message: str, cause: BaseException | None = None, **context: object):
        super().__init__(message, **context)
        self.cause = cause


class ActorHung(RLWorkbenchError):
    """A request was under way longer than the manager's ``hung_after`` seconds; its actor is replaced."""


@dataclass
class CallResult:
    """One finished request: ``value``, or ``error`` (the exception as raised in the actor, or its death);
    ``actor`` is the handle that served it (maybe replaced since)."""

    index: int
    method: str
    value: Any = None
    error: BaseException | None = None
    actor: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class _Slot:
    actor: Any
    restarts: int = 0
    in_flight: dict[Any, tuple[str, Any, float]] = field(default_factory=dict)  # ref -> (method, actor, sent at)
    probe: Any = None  # with hung_after: the actor's readiness probe until it answered
    up_since: float = 0.0  # when the probe answered (requests' clocks start there at the earliest)


class ActorManager:
    """Actors ``factory(0) … factory(count - 1)``; see the module docstring."""

    def __init__(self, factory: Callable[[int], Any], count: int, *, max_in_flight: int = 2, max_restarts: int = 3,
                 restart_on_error: bool = False, on_restart: Callable[[int, Any], None] | None = None,
                 hung_after: float | None = None, spares: int = 0, spare: Callable[[], object] | None = None,
                 adopt: Callable[[int, object], None] | None = None):
        for argument, value, least in (("count", count, 1), ("max_in_flight", max_in_flight, 1),
                                       ("max_restarts", max_restarts, 0), ("spares", spares, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"bad {argument}", argument=argument, expected=f"int >= {least}", got=value)
        if hung_after is not None and (isinstance(hung_after, bool) or not isinstance(hung_after, int | float)
                                       or not hung_after > 0):
            raise ConfigError("bad hung_after", argument="hung_after", expected="seconds > 0 or None", got=hung_after)
        if spares and (spare is None or adopt is None):
            raise ConfigError("spares need a spare() to make them and an adopt() to give them a place",
                              argument="spare" if spare is None else "adopt", expected="a callable", got=None)
        self.factory, self.max_in_flight, self.max_restarts = factory, max_in_flight, max_restarts
        self.restart_on_error, self.on_restart, self.hung_after = restart_on_error, on_restart, hung_after
        self.spare, self.adopt = spare, adopt
        self.slots: list[_Slot] = []
        self.spares: list[object] = []  #: actors ready to take a failed one's place, oldest first
        self.adopted = 0  #: restarts served by a spare
        self.spares_lost = 0  #: spares found dead when their turn came (dropped and replaced)
        self._spare_probes: dict[int, Any] = {}  # id(spare) -> its readiness probe, sent when it was made
        self.dropped = 0  #: requests lost with an actor that died or was restarted
        self.errors: list[CallResult] = []  #: every failed request, in the order seen
        try:
            for index in range(count):
                self.slots.append(self._watched(_Slot(factory(index))))
            if spare is not None:
                for _ in range(spares):
                    self._start_spare()
        except BaseException:  # the actors (and spares) made so far go too
            self.close()
            raise

    # ----- state ------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.slots)

    def actor(self, index: int) -> Any:
        return self.slots[index].actor

    @property
    def restarts(self) -> list[int]:
        """Restarts per actor."""
        return [slot.restarts for slot in self.slots]

    def in_flight(self, index: int | None = None) -> int:
        """Requests under way (of one actor, or of all)."""
        slots = self.slots if index is None else [self.slots[index]]
        return sum(len(slot.in_flight) for slot in slots)

    def waiting(self, index: int | None = None) -> float:
        """Seconds the oldest request under way (of one actor, or of all) has been waiting; 0 if none is."""
        slots = self.slots if index is None else [self.slots[index]]
        sent = [at for slot in slots for _, _, at in slot.in_flight.values()]
        return time.monotonic() - min(sent) if sent else 0.0

    def free(self, index: int) -> bool:
        """Whether the actor may take another request now."""
        return len(self.slots[index].in_flight) < self.max_in_flight

    # ----- requests ---------------------------------------------------------------------------------------------
    def call(self, index: int, method: Callable[..., object], *args: object, **kwargs: object) -> bool:
        """Sends ``actor.method(*args, **kwargs)`` (``method``: the actor class's function, e.g.
        ``Sampler.sample``); False (and nothing sent) if the actor has ``max_in_flight`` requests under way
        already."""
        slot = self.slots[index]
        if len(slot.in_flight) >= self.max_in_flight:
            return False
        name = method.__name__
        slot.in_flight[getattr(slot.actor, name).remote(*args, **kwargs)] = (name, slot.actor, time.monotonic())
        return True

    def call_all(self, method: Callable[..., object], *args: object, **kwargs: object) -> list[int]:
        """:meth:`call` on every actor that is free; returns their indices."""
        return [index for index in range(len(self.slots)) if self.call(index, method, *args, **kwargs)]

    def results(self, timeout: float | None = 0.0, wait_for: int = 1) -> list[CallResult]:
        """Finished requests (waiting up to ``timeout`` seconds for at least ``wait_for`` of them; ``None``: no
        limit). Failed actors — dead ones, hung ones (``hung_after``) and, with ``restart_on_error``, those whose
        request raised — are restarted before this returns."""
        import ray

        owners = {ref: index for index, slot in enumerate(self.slots) for ref in slot.in_flight}
        if not owners:
            return []
        ready, _ = ray.wait(list(owners), num_returns=min(wait_for, len(owners)), timeout=timeout)
        if len(ready) < len(owners):  # collect whatever else is done too
            more, _ = ray.wait([r for r in owners if r not in ready], num_returns=len(owners) - len(ready),
                               timeout=0)
            ready = ready + more
        finished: list[CallResult] = []
        failed: dict[int, BaseException] = {}
        for ref in ready:
            index = owners[ref]
            slot = self.slots[index]
            sent = slot.in_flight.pop(ref, None)
            if sent is None:  # dropped by a restart earlier in this loop
                continue
            method, actor, _ = sent
            try:
                finished.append(CallResult(index, method, value=ray.get(ref), actor=actor))
            except ray.exceptions.RayActorError as error:  # the actor is gone
                result = CallResult(index, method, error=error, actor=actor)
                finished.append(result)
                self.errors.append(result)
                failed[index] = error
            except ray.exceptions.RayTaskError as error:  # the request raised; the actor lives
                cause = error.cause if isinstance(getattr(error, "cause", None), BaseException) else error
                result = CallResult(index, method, error=cause, actor=actor)
                finished.append(result)
                self.errors.append(result)
                if self.restart_on_error:
                    failed[index] = cause
        for index, (result, hung) in self._hung(failed).items():
            finished.append(result)
            self.errors.append(result)
            failed[index] = hung
        for index, cause in failed.items():
            self.restart(index, cause)
        return finished

    # ----- faults -----------------------------------------------------------------------------------------------
    def _watched(self, slot: _Slot) -> _Slot:
        """Sends the slot's actor a readiness probe (with ``hung_after``): its requests' clocks start once it is up."""
        if self.hung_after is not None:
            slot.probe = slot.actor.__ray_ready__.remote()
        return slot

    def _hung(self, failed: dict[int, BaseException]) -> dict[int, tuple[CallResult, ActorHung]]:
        """An :class:`ActorHung` result (and its error) per actor, up and not failed already, whose oldest request
        has been under way for more than ``hung_after`` seconds since it was sent or the actor came up."""
        import ray

        if self.hung_after is None:
            return {}
        now, hung = time.monotonic(), {}
        for index, slot in enumerate(self.slots):
            if slot.probe is not None:
                if not ray.wait([slot.probe], timeout=0)[0]:
                    continue  # still starting up
                slot.probe, slot.up_since = None, now
            overdue = [ref for ref, (_, _, at) in slot.in_flight.items()
                       if now - max(at, slot.up_since) > self.hung_after]
            if overdue and index not in failed:
                method, actor, at = slot.in_flight.pop(min(overdue, key=lambda ref: slot.in_flight[ref][2]))
                seconds = now - max(at, slot.up_since)
                error = ActorHung(f"actor {index}'s {method} request was under way for {seconds:.0f} s "
                                  f"(hung_after: {self.hung_after:g} s)")
                hung[index] = (CallResult(index, method, error=error, actor=actor), error)
        return hung

    def restart(self, index: int, error: BaseException | None = None) -> Any:
        """Replaces actor ``index`` by the oldest live spare (adopted; a new spare starts) or else a new actor (its
        requests in flight are dropped) and hands it the current state; raises :class:`ActorFailed` once it has been
        restarted ``max_restarts`` times already."""
        import ray

        slot = self.slots[index]
        if slot.restarts >= self.max_restarts:
            raise ActorFailed(f"actor {index} failed after {slot.restarts} restarts: "
                              f"{type(error).__name__ if error else 'stopped'}: {error}", cause=error)
        self.dropped += len(slot.in_flight)
        slot.in_flight.clear()
        with contextlib.suppress(Exception):  # it may be dead already
            ray.kill(slot.actor, no_restart=True)
        spare = self._live_spare()
        if spare is not None and self.adopt is not None:
            slot.actor = spare  # (its probe queues behind adopt's call: up once adopted)
            self.adopt(index, slot.actor)
            self.adopted += 1
        else:
            slot.actor = self.factory(index)
        self._watched(slot)
        slot.restarts += 1
        if self.on_restart is not None:
            self.on_restart(index, slot.actor)
        return slot.actor

    def _start_spare(self) -> None:
        """Makes a spare and sends it a readiness probe (read when its turn comes)."""
        assert self.spare is not None
        spare: Any = self.spare()  # (a Ray actor handle)
        self._spare_probes[id(spare)] = spare.__ray_ready__.remote()
        self.spares.append(spare)

    def _live_spare(self) -> Any:
        """The oldest spare not found dead, or None; a new spare starts for each one taken or dropped.

        A spare still starting up (its first probe unanswered) is taken as it is, without a wait. One that was up is
        probed again, for at most :data:`SPARE_PROBE_S` (a live one answers in milliseconds): a death Ray knows of
        drops it; no answer takes it as it is."""
        import ray

        if self.spare is None:
            return None
        for _ in range(len(self.spares)):  # the spares there now, not those started here
            self._start_spare()  # (before one is taken: a spare() that raises leaves the spares as they were)
            spare: Any = self.spares.pop(0)
            probe = self._spare_probes.pop(id(spare), None)
            try:
                if probe is not None and not ray.wait([probe], timeout=0)[0]:
                    return spare  # still starting up
                if probe is not None:
                    ray.get(probe)  # it came up (or it died starting)
                answered, _ = ray.wait([spare.__ray_ready__.remote()], timeout=SPARE_PROBE_S)
                if answered:
                    ray.get(answered[0])
            except ray.exceptions.RayError:  # dead, or unavailable: dropped (and killed, should it live on)
                self.spares_lost += 1
                with contextlib.suppress(Exception):
                    ray.kill(spare, no_restart=True)
                continue
            return spare
        return None

    def close(self) -> None:
        """Kills every actor and spare (their requests in flight are dropped)."""
        import ray

        for slot in self.slots:
            self.dropped += len(slot.in_flight)
            slot.in_flight.clear()
        for actor in [slot.actor for slot in self.slots] + self.spares:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        self.spares, self._spare_probes = [], {}


def wait_for_any(managers: list[ActorManager], timeout: float) -> None:
    """Blocks until a request of any of ``managers`` finished, at most ``timeout`` seconds (at once if none is
    under way); read them with each manager's ``results(timeout=0)``."""
    import ray

    refs = [ref for manager in managers for slot in manager.slots for ref in slot.in_flight]
    if refs:
        ray.wait(refs, num_returns=1, timeout=timeout)
