"""``rlworkbench submit CONFIG --address URL`` and ``rlworkbench runs --address URL``: cluster runs from a shell."""

from __future__ import annotations

import argparse
import math
import sys
import time


def _natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return value


def add_parsers(commands: argparse._SubParsersAction) -> None:
    submit = commands.add_parser(
        "submit", help="submit a training run to a Ray cluster as a job",
        description="Submit a run to the Ray cluster whose dashboard is at --address (Ray Jobs): Ape-X, IMPALA or "
                    "synchronous PPO on --workers sampler actors, or with --workers 0 a local worker inside the job. "
                    "Prints the job's id (for `rlworkbench runs` and Run.attach); --follow prints its progress "
                    "until it ends and exits 1 if it failed.")
    submit.add_argument("config", help="a JSON config file, or the name of a shipped config (e.g. dqn_cartpole)")
    _add_cluster_arguments(submit)
    submit.add_argument("--env", default="CartPole-v1", help="Gymnasium env id, registered on the cluster")
    submit.add_argument("--backend", default="torch", choices=("torch", "tf"))
    submit.add_argument("--timesteps", type=int, default=10_000)
    submit.add_argument("--workers", type=_natural, default=None,
                        help="sampler actors (default: the config's execution/ray/workers, else 2; 0: local worker)")
    submit.add_argument("--envs-per-worker", type=int, default=None)
    submit.add_argument("--num-envs", type=int, default=1, help="sub-envs of a local worker (--workers 0)")
    submit.add_argument("--seed", type=int, default=None)
    submit.add_argument("--checkpoint-every", type=int, default=None, metavar="N")
    submit.add_argument("--logdir", default="runs", help="this machine's runs folder (a mirror goes here)")
    submit.add_argument("--cluster-logdir", default=None, help="where the job writes its run directory")
    submit.add_argument("--follow", action="store_true", help="print progress until the job ends")

    runs = commands.add_parser("runs", help="list the rlworkbench jobs of a Ray cluster",
                               description="One line per rlworkbench job on the cluster at --address: id, config, "
                                           "state, timesteps, recent return, start time.")
    _add_cluster_arguments(runs)


def _add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--address", required=True, help="the cluster's Ray Jobs address, http(s)://head:8265")
    parser.add_argument("--auth-token", default=None,
                        help="the cluster's token (default: RAY_AUTH_TOKEN or ~/.ray/auth_token)")


def submit(args: argparse.Namespace) -> int:
    """Submits (and with ``--follow`` follows) the run; returns the exit status."""
    from rlworkbench.workbench import promote

    optional = {"workers": args.workers, "envs_per_worker": args.envs_per_worker, "seed": args.seed,
                "checkpoint_every": args.checkpoint_every, "cluster_logdir": args.cluster_logdir}
    run = promote(args.config, to="ray", address=args.address, auth_token=args.auth_token, env=args.env,
                  backend=args.backend, timesteps=args.timesteps, num_envs=args.num_envs, logdir=args.logdir,
                  **{key: value for key, value in optional.items() if value is not None})
    print(f"submitted {run.execution.submission_id}", flush=True)
    if not args.follow:
        run.detach()
        return 0
    try:
        while not run.execution.join(2.0):
            print(_progress_line(run), flush=True)
        print(_progress_line(run), flush=True)
        if run.error is not None:
            print(f"rlworkbench submit: the job failed: {type(run.error).__name__}: {run.error}", file=sys.stderr)
            return 1
        print(f"run directory: {run.logdir}\nfinal checkpoint: {run.checkpoint or run.execution.cluster_checkpoint}")
        return 0
    finally:
        run.execution.close()


def runs(args: argparse.Namespace) -> int:
    import pandas as pd

    from rlworkbench.workbench.cluster.listing import list_runs

    table = list_runs(args.address, auth_token=args.auth_token)
    with pd.option_context("display.width", 200, "display.max_columns", None, "display.max_colwidth", 70):
        print(table.to_string(index=False) if len(table) else "no rlworkbench runs on this cluster")
    return 0


def _progress_line(run: object) -> str:
    snapshot = run.snapshot()  # type: ignore[attr-defined]
    recent = snapshot.recent_mean_return
    return (f"{time.strftime('%H:%M:%S')} {run.state:>8} {snapshot.timesteps:>10,} / {run.total_timesteps:,} "  # type: ignore[attr-defined]
            f"steps · {snapshot.num_episodes:,} episodes · return {'n/a' if math.isnan(recent) else f'{recent:.1f}'}")
