"""Soak: an Ape-X run under faults for a long stretch — a random actor killed every minute, the driver killed once and
resumed — against the same run undisturbed, in one bench run.

Run ``python -m bench.soak [--minutes 20] [--kill-every 60] [--out PATH.csv]`` (default
``datasets/benchmarks/soak.csv``). Not a CI test: 2 x ``--minutes`` of machine time.

Both runs are ``promote(<Ape-X bench DQN>, to="ray")`` on CartPole-v1 with 2 samplers of 4 envs and 2 replay shards,
``checkpoint_every`` 30 s (``--checkpoint-every``), in one local Ray session that this process starts; each
run's driver is a process of its own (``python -m bench.soak --driver <spec.json>``) joined to that session, so it
can be SIGKILLed like a notebook kernel that dies. The undisturbed run's driver stops its run after ``--minutes``.
In the disturbed run, every ``--kill-every`` seconds this process SIGKILLs the process of one of the run's actors,
drawn at random from its samplers and shards (found in the GCS actor table by class and job); half-way, it SIGKILLs
the driver itself, waits for its actors to be gone, and starts a new driver with ``promote(resume=<run dir>)`` for
the rest of the time. Reported per run: env ``frames``, learner ``updates``, ``restarts`` (samplers + shards),
replay ``records_lost`` (in killed shards), the driver's ``timesteps_lost`` (between its last checkpoint and its
death) and the final greedy ``return`` (mean of 20 episodes of the final checkpoint); for the disturbed run,
``frames_ratio`` against the undisturbed one (goal >= 0.85) and whether both reach the same solved / not solved
outcome (return >= 475).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bench import common

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "benchmarks" / "soak.csv"
ENV_ID, WORKERS, ENVS, SHARDS, SOLVED = "CartPole-v1", 2, 4, 2, 475.0
RATIO_GOAL = 0.85
VICTIMS = ("ApexSampler", "ReplayShard")


# ----- the driver process ---------------------------------------------------------------------------------------
def drive(spec: dict[str, Any]) -> None:
    """A run's driver (``--driver``): promotes (or resumes) the run and stops it at ``spec["until"]`` (epoch s)."""
    from rlworkbench.workbench import promote

    if spec.get("resume"):
        run = promote(resume=spec["resume"], address=spec["address"])
    else:
        run = promote(spec["config"], to="ray", **spec["settings"])
    while not run.done and time.time() < spec["until"]:
        time.sleep(0.5)
    run.stop()
    run.heartbeat.close()
    if run.error is not None:
        raise run.error


def start_driver(spec: dict[str, Any], folder: Path, name: str) -> subprocess.Popen[bytes]:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(spec))
    log = (folder / f"{name}.log").open("wb")
    env = {**os.environ, "RLWORKBENCH_RUNS_DIR": str(folder / "records")}
    return subprocess.Popen([sys.executable, "-m", "bench.soak", "--driver", str(path)], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, env=env)


# ----- faults ---------------------------------------------------------------------------------------------------
def actors_of(job_id: str | None = None) -> list[dict[str, Any]]:
    """Alive samplers and shards (of ``job_id``; any job but this process's when None) from the GCS actor table."""
    import ray

    mine = ray.get_runtime_context().get_job_id()
    table = ray._private.state.actors(actor_state_name="ALIVE")
    return [actor for actor in table.values() if actor["JobID"] != mine and (job_id is None or actor["JobID"] == job_id)
            and actor.get("ActorClassName", "").split(".")[-1] in VICTIMS]


def kill_random_actor(rng: random.Random) -> str | None:
    """SIGKILLs the process of one random sampler or shard of the run; its class name (None: none alive)."""
    candidates = [actor for actor in actors_of() if actor.get("Pid")]
    if not candidates:
        return None
    victim = rng.choice(candidates)
    try:
        os.kill(int(victim["Pid"]), signal.SIGKILL)
    except ProcessLookupError:
        return None
    return str(victim["ActorClassName"]).split(".")[-1]


def wait_for(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


# ----- one run --------------------------------------------------------------------------------------------------
def one_run(folder: Path, name: str, seconds: float, kill_every: float | None, seed: int,
            checkpoint_every: float) -> dict[str, Any]:
    """A run of ``seconds`` (faults when ``kill_every``): its totals from its run directory."""
    import ray

    from bench.apex_vs_rllib import dqn_config

    settings = {"env": ENV_ID, "timesteps": 10**9, "seed": seed, "logdir": str(folder / "runs"), "run_name": name,
                "checkpoint_every": f"{checkpoint_every:g} s", "workers": WORKERS, "envs_per_worker": ENVS,
                "shards": SHARDS, "sampler_cpus": 0, "max_restarts": 10**4,
                "address": ray.get_runtime_context().gcs_address}
    start = time.time()
    spec = {"config": dqn_config(), "settings": settings, "until": start + seconds}
    driver, log = start_driver(spec, folder, f"{name}-driver"), folder / f"{name}-driver.log"
    rng, kills, timesteps_lost = random.Random(seed), [], 0
    run_dir = folder / "runs" / name
    if kill_every is not None:
        driver_killed = False
        next_kill = start + kill_every
        while time.time() < start + seconds:
            if not driver_killed and time.time() >= start + seconds / 2:
                driver.send_signal(signal.SIGKILL)
                driver.wait(30)
                driver_killed = True
                wait_for(lambda: not actors_of(), 60)
                driver = start_driver({"resume": str(run_dir), "address": settings["address"],
                                       "until": start + seconds}, folder, f"{name}-resumed")
                log = folder / f"{name}-resumed.log"
                next_kill = time.time() + kill_every
            elif time.time() >= next_kill:
                kills.append(kill_random_actor(rng))
                next_kill += kill_every
            time.sleep(0.5)
    driver.wait(seconds + 600)
    if driver.returncode:
        raise RuntimeError(f"the {name} driver failed ({log}): {log.read_text()[-2000:]}")
    updates = pd.read_csv(run_dir / "updates.csv")
    about = json.loads((run_dir / "run.json").read_text())
    timesteps_lost = sum(int(part["timesteps_lost"]) for part in about.get("resumes", []))
    last = updates.iloc[-1]
    return {"case": name, "seconds": time.time() - start, "frames": int(last["timesteps_total"]),
            "frames_per_s": float(last["timesteps_total"]) / (time.time() - start), "updates": len(updates),
            "restarts": int(last.get("sampler_restarts", 0) + last.get("shard_restarts", 0)),
            "records_lost": int(last.get("replay_lost", 0)), "actor_kills": sum(k is not None for k in kills),
            "driver_kills": len(about.get("resumes", [])), "timesteps_lost": timesteps_lost,
            "return": greedy_return(run_dir, seed)}


def greedy_return(run_dir: Path, seed: int) -> float:
    """Mean greedy return of the run's final checkpoint over 20 episodes."""
    from rlworkbench.agents import Agent
    from rlworkbench.execution import evaluate_greedy
    from rlworkbench.execution.envs import make_vector_env
    from rlworkbench.spaces import from_gymnasium

    env = make_vector_env(ENV_ID, 1)
    try:
        spaces = from_gymnasium(env.single_observation_space), from_gymnasium(env.single_action_space)
        agent = Agent.from_checkpoint(run_dir / "checkpoints" / "final", state_space=spaces[0],
                                      action_space=spaces[1], backend="torch")
        return float(evaluate_greedy(agent, ENV_ID, 20, seed=seed)["return"].mean())
    finally:
        env.close()


def measure(folder: Path, seconds: float, kill_every: float, seed: int,
            checkpoint_every: float) -> list[dict[str, Any]]:
    calm = one_run(folder, "undisturbed", seconds, None, seed, checkpoint_every)
    hit = one_run(folder, "disturbed", seconds, kill_every, seed, checkpoint_every)
    hit.update(frames_ratio=hit["frames"] / calm["frames"],
               same_outcome=(hit["return"] >= SOLVED) == (calm["return"] >= SOLVED),
               target=f"frames_ratio >= {RATIO_GOAL} and the same solved/not-solved outcome",
               meets_target=bool(hit["frames"] / calm["frames"] >= RATIO_GOAL
                                 and (hit["return"] >= SOLVED) == (calm["return"] >= SOLVED)))
    return [{"benchmark": "soak", **calm}, {"benchmark": "soak", **hit}]


def main(argv: Sequence[str] | None = None) -> Any:
    import tempfile

    from rlworkbench.execution.ray import ensure_ray

    if argv is None and len(sys.argv) == 3 and sys.argv[1] == "--driver":
        return drive(json.loads(Path(sys.argv[2]).read_text()))
    parser = common.arg_parser(__doc__.splitlines()[0], "soak.csv", 1, "(one pair)")
    parser.set_defaults(out=DATASET)
    parser.add_argument("--minutes", type=float, default=20.0, help="minutes per run")
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between actor kills")
    parser.add_argument("--checkpoint-every", type=float, default=30.0, help="seconds between checkpoints")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="keep the run directories and logs here")
    args = parser.parse_args(argv)
    ensure_ray(num_cpus=WORKERS + 1)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="rlworkbench-soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    rows = measure(folder, args.minutes * 60, args.kill_every, args.seed, args.checkpoint_every)
    frame = common.results_frame(rows)
    path = common.write_csv(frame, args.out)
    if not args.quiet:
        common.print_table("Ape-X soak: actors killed every minute, the driver killed once and resumed", frame,
                           [c for c in ("case", "seconds", "frames", "frames_per_s", "updates", "restarts",
                                        "records_lost", "actor_kills", "driver_kills", "timesteps_lost", "return",
                                        "frames_ratio", "same_outcome", "meets_target") if c in frame], path)
    return frame


if __name__ == "__main__":
    main()
