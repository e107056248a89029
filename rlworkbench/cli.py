"""The ``rlworkbench`` command line (argparse): ``demo``, ``train``, ``resume``, ``graph``; cluster runs: ``submit``,
``runs``."""

from __future__ import annotations

import argparse
import sys


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return value


def _seed(text: str) -> int:
    value = int(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a seed in [0, 2**63), got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlworkbench", description="rlworkbench command line")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="build a composed component from a Gymnasium env and exercise it")
    demo.add_argument("--env", default="CartPole-v1")
    demo.add_argument("--backend", default="torch")
    demo.add_argument("--seed", type=_seed, default=0)

    train = commands.add_parser("train", help="train an agent from a config on a Gymnasium env",
                                description="Train an agent (Agent.from_env(env, config, backend)) with a local "
                                            "worker; TensorBoard scalars, CSV tables and checkpoints go to a new "
                                            "run directory under --logdir.")
    train.add_argument("config", help="a JSON config file, or the name of a shipped config (e.g. dqn_cartpole)")
    train.add_argument("--env", default="CartPole-v1", help="Gymnasium env id (default: CartPole-v1)")
    train.add_argument("--backend", default="torch", choices=("torch", "tf"))
    train.add_argument("--timesteps", type=_positive_int, default=10_000, help="env steps over all sub-envs")
    train.add_argument("--logdir", default="runs", help="parent of the run directory (default: runs/)")
    train.add_argument("--num-envs", type=_positive_int, default=1, help="sub-envs in the vector env")
    train.add_argument("--vector-mode", default="sync", choices=("sync", "async"))
    train.add_argument("--seed", type=_seed, default=None)
    train.add_argument("--checkpoint-every", type=_positive_int, default=None, metavar="N",
                       help="save a checkpoint every N timesteps (a final one is always saved)")
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.add_argument("--threads", type=_positive_int, default=1,
                       help="intra-op threads of the backend (default 1: fastest for small RL batches)")
    resume = commands.add_parser("resume", help="go on with a stopped, failed or orphaned run",
                                 description="Go on with a run started by promote() from its newest complete "
                                             "checkpoint, in the same run directory and runs-panel record, on its "
                                             "target and settings (run.json); waits until it ends.")
    resume.add_argument("run", help="the run directory, or the run's id in the runs panel")
    resume.add_argument("--timesteps", type=_positive_int, default=None,
                        help="the run's total env steps (default: as it was started; more extends a finished run)")
    resume.add_argument("--no-progress", action="store_true", help="no progress bar")
    from rlworkbench.visualize.cli_graph import add_parser as add_graph_parser

    add_graph_parser(commands)
    from rlworkbench.workbench.cluster.cli import add_parsers as add_cluster_parsers

    add_cluster_parsers(commands)
    return parser


def main(argv: list[str] | None = None) -> None:
    """Runs a command; a user's error (a bad config, env, option, path or checkpoint, a cluster that refuses) exits
    2 with one paragraph saying what and where — never a traceback."""
    from rlworkbench.errors import RLWorkbenchError

    parser = build_parser()
    args = parser.parse_args(argv)
    command = {"demo": _demo, "train": _train, "resume": _resume, "graph": _graph, "submit": _cluster,
               "runs": _cluster}[args.command]
    try:
        status = command(args)
    except (RLWorkbenchError, OSError) as error:
        print(f"rlworkbench {args.command}: error: {type(error).__name__}: {error}", file=sys.stderr)
        raise SystemExit(2) from error
    if status:
        raise SystemExit(status)


def _demo(args: argparse.Namespace) -> int:
    from rlworkbench.demo import run

    run(args.env, args.backend, args.seed)
    return 0


def _train(args: argparse.Namespace) -> int:
    from rlworkbench.execution import train

    result = train(args.config, args.env, backend=args.backend, timesteps=args.timesteps, logdir=args.logdir,
                   num_envs=args.num_envs, seed=args.seed, checkpoint_every=args.checkpoint_every,
                   vector_mode=args.vector_mode, progress=not args.no_progress, threads=args.threads)
    print(result.summary_table())
    print(f"run directory: {result.run_dir}")
    print(f"final checkpoint: {result.checkpoint}")
    return 0


def _resume(args: argparse.Namespace) -> int:
    from rlworkbench.workbench import promote

    more = {} if args.timesteps is None else {"timesteps": args.timesteps}
    run = promote(resume=args.run, progress=not args.no_progress, **more)
    print(f"resuming run {run.id} in {run.logdir} from {run.spec.context.resume_from}", flush=True)
    try:
        run.wait()
    except KeyboardInterrupt:  # Ctrl-C: stop with a final checkpoint
        run.stop()
    finally:
        run.heartbeat.close()  # its final record written before this process ends (else it would read orphaned)
    print(f"run {run.id}: {run.state} at {run.timesteps} env steps; checkpoint {run.checkpoint}")
    return 0 if run.state in ("finished", "stopped") else 1


def _cluster(args: argparse.Namespace) -> int:
    from rlworkbench.workbench.cluster import cli

    return cli.submit(args) if args.command == "submit" else cli.runs(args)


def _graph(args: argparse.Namespace) -> int:
    from rlworkbench.visualize.cli_graph import run

    status = run(args)  # 1: a stuck build, drawn
    print(f"{'stuck build drawn' if status else 'graph drawn'}: {args.output}")
    return status


if __name__ == "__main__":
    main()
