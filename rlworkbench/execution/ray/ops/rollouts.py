"""Rollouts from a set of sampler actors: requested in turn or all at once, gathered synchronously or taken as
they finish; failed samplers are restarted (fresh envs, the current weights) and their error kept for the table.
With ``spare_samplers`` that many samplers wait, built, to take a failed one's place at once."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from rlworkbench.execution.ray.actor_manager import ActorManager, CallResult
from rlworkbench.execution.ray.flow_types import Fragment, SampleReport
from rlworkbench.execution.ray.plan_run import LEARNER, sampler_node
from rlworkbench.execution.ray.sampler import Sampler

if TYPE_CHECKING:
    from rlworkbench.execution.ray.plan_run import PlanRun

Output = Fragment | SampleReport


class Rollouts:
    """``workers`` actors of ``sampler_class`` (``run.settings``), each asked for ``steps`` steps per env at a time,
    at most ``in_flight`` requests each; their output flows to ``to`` (a node id; for reports with a ``shard``:
    that shard). ``arguments(index)`` are the sampler class's arguments after the common ones."""

    def __init__(self, run: PlanRun, sampler_class: type[Sampler] = Sampler, *, steps: int, to: str = LEARNER,
                 in_flight: int = 1, arguments: Callable[[int], Sequence[Any]] = lambda index: ()):
        self.run, self.sampler_class, self.steps, self.to = run, sampler_class, int(steps), to
        self.arguments = arguments
        self._next = self._spares_made = 0
        workers, max_restarts, spares = (int(cast("int", run.settings[name]))
                                         for name in ("workers", "max_restarts", "spare_samplers"))
        self.spare_samplers = spares
        for index in range(workers):
            run.meter.node(sampler_node(index), "sampler")
        self.manager = ActorManager(self._make, workers, max_in_flight=in_flight, max_restarts=max_restarts,
                                    restart_on_error=True, on_restart=self._restarted, spares=spares,
                                    hung_after=float(cast("float", run.settings["hung_after"])),
                                    spare=self._make_spare, adopt=self._adopt)
        run.samplers = self
        run.on_close(self.manager.close)

    def __len__(self) -> int:
        return len(self.manager)

    def actor(self, index: int) -> Any:
        """Sampler ``index``'s actor handle (the current one, after restarts)."""
        return self.manager.actor(index)

    # ----- requests ---------------------------------------------------------------------------------------------
    def request(self, index: int) -> bool:
        """Asks sampler ``index`` for a rollout (False: it has its requests under way already)."""
        return self.manager.call(index, self.sampler_class.sample, self.steps)

    def request_free(self) -> int:
        """Asks every sampler that is free; returns how many were asked."""
        return len(self.manager.call_all(self.sampler_class.sample, self.steps))

    def request_in_turn(self, room: int) -> int:
        """Asks at most ``room`` samplers, in turn from where the last round stopped (every one gets asked)."""
        asked, count = 0, len(self.manager)
        for _ in range(count):
            if asked >= room:
                break
            index = self._next
            self._next = (index + 1) % count
            asked += self.request(index)
        return asked

    def in_flight(self, index: int | None = None) -> int:
        return self.manager.in_flight(index)

    def each(self, method: Callable[..., object], *args: object) -> None:
        """Calls ``method`` on every sampler without waiting (e.g. new shard handles)."""
        for index in range(len(self.manager)):
            getattr(self.manager.actor(index), method.__name__).remote(*args)

    def health(self) -> dict[str, float]:
        """Columns of the updates table, with ``spare_samplers``: restarts a spare served, spares found dead."""
        if not self.spare_samplers:
            return {}
        return {"spares_adopted": float(self.manager.adopted), "spares_lost": float(self.manager.spares_lost)}

    # ----- outputs ----------------------------------------------------------------------------------------------
    def ready(self, timeout: float = 0.0) -> list[Output]:
        """What finished (waiting up to ``timeout`` seconds for one), counted; failures noted and dropped."""
        return [output for result in self.manager.results(timeout=timeout) if (output := self._take(result))]

    def gather(self, timeout: float = 300.0) -> list[Output]:
        """One rollout from every sampler, in sampler order: asks all, waits for all; a sampler that fails is
        restarted and asked again, so the result always covers every worker."""
        pending = set(range(len(self.manager)))
        for index in pending:
            self.request(index)
        outputs: dict[int, Output] = {}
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"samplers {sorted(pending)} sent nothing for {timeout:.0f} s")
            for result in self.manager.results(timeout=1.0, wait_for=len(pending)):
                output = self._take(result)
                if output is None:
                    self.request(result.index)
                else:
                    outputs[result.index] = output
                    pending.discard(result.index)
        return [outputs[index] for index in sorted(outputs)]

    def _take(self, result: CallResult) -> Output | None:
        if not result.ok:
            first_line = (str(result.error).strip().splitlines() or [""])[0]
            error = f"{type(result.error).__name__}: {first_line}"
            self.run.stats[result.index].last_error = error
            self.run.meter.restarted(sampler_node(result.index), error)  # the manager replaced it
            return None
        output: Output = result.value
        report = output.report if isinstance(output, Fragment) else output
        self.run.record_sample(report)
        source = sampler_node(report.index)
        if isinstance(output, Fragment):
            self.run.meter.flow(source, self.to, "Fragment", 1, output.bytes)
        elif report.shard >= 0:
            self.run.meter.flow(source, f"shard {report.shard}", "Transitions", report.records, report.bytes)
        return output

    # ----- faults -----------------------------------------------------------------------------------------------
    def _remote_class(self) -> Any:
        import ray

        cpus = float(cast("float", self.run.settings["sampler_cpus"]))
        return ray.remote(num_cpus=cpus, max_restarts=0)(self.sampler_class)

    def _make(self, index: int) -> Any:
        return self._remote_class().remote(*self._sampler_arguments(index))

    def _sampler_arguments(self, index: int) -> tuple[object, ...]:
        """What sampler ``index`` is made from now: its config, fresh envs, the current weights."""
        run = self.run
        restarts = self.manager.restarts[index] + 1 if hasattr(self, "manager") else 0
        seed = run.seed + 1000 * (index + 1) + 7919 * restarts  # a restarted sampler gets fresh envs
        run.meter.flow(LEARNER, sampler_node(index), "Weights", 1, run.weight_bytes)  # it starts with the current ones
        return self._constructor_arguments(index, seed, run.weights)

    def _constructor_arguments(self, index: int, seed: int, weights: object) -> tuple[object, ...]:
        """The sampler class's arguments for sampler ``index`` with ``seed`` and ``weights`` (None: none)."""
        run = self.run
        return (index, run.sampler_config(index), run.env, run.envs_per_worker, run.backend, seed, weights,
                run.version, *self.arguments(index))

    def _make_spare(self) -> Any:
        """A sampler built as sampler 0 but without weights, waiting in its own process for :meth:`_adopt`."""
        self._spares_made += 1
        seed = self.run.seed + 104_729 * self._spares_made
        return self._remote_class().remote(*self._constructor_arguments(0, seed, None))

    def _adopt(self, index: int, actor: Any) -> None:
        """Makes a spare sampler ``index`` (its requests queue behind this)."""
        actor.become.remote(*self._sampler_arguments(index))

    def _restarted(self, index: int, actor: Any) -> None:
        stats = self.run.stats[index]
        stats.version, stats.steps_since_sync = self.run.version, 0  # made with the current weights
