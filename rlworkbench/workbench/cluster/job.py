"""The program a cluster job runs: ``python -m rlworkbench.workbench.cluster.job <job package or spec.json>``.

It reads the job package (:mod:`.job_package`), starts the run with the same targets as the notebook — ``"ray"``
(Ape-X, IMPALA or synchronous PPO on the cluster the job runs in) or ``"local"`` (a worker in the job's process,
``workers=0``), or goes on with an earlier job's run directory (``resume``) — and reports on its log as records
(:mod:`.records`): ``start``, a ``tick`` about every second, ``end``. SIGTERM (what ``ray job stop`` sends) asks the
run to stop: it saves its final checkpoint and the job exits 0 within the stop grace the submitter gave Ray. Exit
status 1: the run failed (the ``end`` record holds the error), 2: the command line was wrong.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import numpy as np

from rlworkbench.workbench.cluster.job_package import JOB_FILE, read_job_package
from rlworkbench.workbench.cluster.records import encode_error, record_line

TICK_SECONDS = 1.0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m rlworkbench.workbench.cluster.job <rlworkbench_job_<id> package | spec.json>",
              file=sys.stderr)
        return 2
    stop_asked = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop_asked.set())
    return run_job(args[0], stop_asked)


def run_job(where: str | Path, stop_asked: threading.Event, out: IO[str] | None = None,
            tick_seconds: float = TICK_SECONDS) -> int:
    """Runs the job described at ``where`` until it ends or ``stop_asked`` is set; its records go to ``out``
    (stdout). Returns the exit status."""
    stream = out if out is not None else sys.stdout

    def emit(kind: str, **fields: object) -> None:
        print(record_line(kind, **fields), file=stream, flush=True)

    try:
        spec, weights = read_job_package(where)
        run = _start_run(spec, weights)
    except BaseException as error:  # a bad spec, config, env or setting: the job fails at once, saying why
        emit("end", state="failed", timesteps=0, checkpoint=None, error=encode_error(error))
        return 1
    run_dir = run.logdir.resolve()
    (run_dir / JOB_FILE).write_text(json.dumps({"submission_id": spec.get("submission_id"), "target": run.target,
                                                "started": time.time()}))
    emit("start", run_dir=str(run_dir), target=run.target, name=spec["name"], config=spec["config"],
         settings=spec["settings"], options=spec.get("options", {}), total_timesteps=run.total_timesteps)
    ticks = _Ticks(run, emit)
    stopping = False
    while not run.execution.join(tick_seconds):
        if stop_asked.is_set() and not stopping:
            run.stop(wait=False)
            stopping = True
        ticks.send()
    ticks.send()
    error = run.error
    emit("end", state=run.state, timesteps=run.timesteps, checkpoint=_path_or_none(run.checkpoint),
         error=None if error is None else encode_error(error))
    return 1 if error is not None else 0


def _start_run(spec: dict[str, Any], weights: dict[str, np.ndarray] | None) -> Any:
    """The run the spec describes, started (from a config, or an agent carrying the shipped weights)."""
    from rlworkbench.workbench.run import Run
    from rlworkbench.workbench.run_spec import make_spec
    from rlworkbench.workbench.targets import get_target

    settings = dict(spec["settings"])
    if spec.get("resume"):  # the run directory of an earlier job, from its newest complete checkpoint
        from rlworkbench.workbench.resume import resume_spec

        target, run_spec = resume_spec(spec["resume"], None, spec["target"], timesteps=settings["timesteps"],
                                       progress=False, **spec.get("options", {}))
        return Run(get_target(target)(run_spec), run_spec, target=target)
    logdir = Path(spec["logdir"]).expanduser()
    prototype: object = spec["config"]
    if weights is not None:
        prototype = _agent_with_weights(spec["config"], settings, weights)
    target = spec["target"]
    run_spec = make_spec(prototype, **settings, logdir=logdir, progress=False, **spec.get("options", {}))
    run_spec.name = spec["name"]
    run_spec.context.target = target  # in run.json: a resumed job goes on with the same target
    return Run(get_target(target)(run_spec), run_spec, target=target)


def _agent_with_weights(config: dict[str, object], settings: dict[str, Any], weights: dict[str, np.ndarray]) -> Any:
    """An agent made from ``config`` for the run's env and given the prototype's weights (its memory stays new)."""
    from rlworkbench.agents import Agent
    from rlworkbench.execution.envs import make_vector_env

    env = make_vector_env(settings["env"], 1)
    try:
        agent = Agent.from_env(env, config, backend=settings["backend"], seed=settings.get("seed")).build()
    finally:
        env.close()
    agent.set_weights(weights, strict=False)
    return agent


class _Ticks:
    """Sends a ``tick`` record: counters and what the tables gained since the last one."""

    def __init__(self, run: Any, emit: Any):
        self.run, self.emit = run, emit
        self.episodes_sent = self.updates_sent = 0

    def send(self) -> None:
        run = self.run
        snapshot = run.snapshot()
        episodes = snapshot.episodes.iloc[self.episodes_sent:]
        updates = snapshot.updates.iloc[self.updates_sent:]
        self.episodes_sent += len(episodes)
        self.updates_sent += len(updates)
        workers, shards, learners = run.workers, run.shards, run.learners
        self.emit("tick", state=run.state, timesteps=snapshot.timesteps, wall_time=snapshot.wall_time,
                  steps_per_second=snapshot.steps_per_second, checkpoint=_path_or_none(run.checkpoint),
                  episodes=episodes.to_dict("split")["data"], updates=updates.to_dict("records"),
                  workers=None if workers is None else workers.to_dict("records"),
                  shards=None if shards is None else shards.to_dict("records"),
                  learners=None if learners is None else learners.to_dict("records"))


def _path_or_none(path: Path | None) -> str | None:
    return None if path is None else str(Path(path).resolve())


if __name__ == "__main__":
    sys.exit(main())
