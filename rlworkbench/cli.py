"""The ``rlworkbench`` command line (argparse): ``rlworkbench demo``."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="rlworkbench", description="rlworkbench command line")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="build a composed component from a Gymnasium env and exercise it")
    demo.add_argument("--env", default="CartPole-v1")
    demo.add_argument("--backend", default="torch")
    demo.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "demo":
        from rlworkbench.demo import run

        run(args.env, args.backend, args.seed)


if __name__ == "__main__":
    main()
