"""``rlworkbench graph CONFIG -o graph.svg``: draw an agent's component graph from a config, without a notebook."""

from __future__ import annotations

import argparse
from pathlib import Path

FORMATS = ("svg", "png", "pdf", "dot")


def add_parser(commands: argparse._SubParsersAction) -> None:
    graph = commands.add_parser(
        "graph", help="draw an agent's component graph (SVG, PNG, PDF or DOT)",
        description="Build the agent a config describes for an env's spaces and draw its component graph: "
                    "components as nested clusters coloured by device, API methods and graph functions as nodes, "
                    "calls as edges labelled with their spaces. A build that gets stuck is drawn with the stuck "
                    "component and argument in red (and exits 1).")
    graph.add_argument("config", help="a JSON config file, or the name of a shipped config (e.g. dqn_cartpole)")
    graph.add_argument("-o", "--output", default="graph.svg",
                       help="output file; the format follows its suffix: .svg .png .pdf .dot (default graph.svg)")
    graph.add_argument("--env", default="CartPole-v1", help="Gymnasium env id giving the spaces (default CartPole-v1)")
    graph.add_argument("--backend", default="torch", choices=("torch", "tf"))
    graph.add_argument("--depth", type=int, default=None, help="fold components deeper than this into boxes")
    graph.add_argument("--api", default=None, help="draw only this root API method's dataflow")
    graph.add_argument("--no-spaces", action="store_true", help="no space labels on edges")
    graph.add_argument("--no-devices", action="store_true", help="no device colours or legend")
    graph.add_argument("--no-graph-fns", action="store_true", help="leave graph functions out")


def run(args: argparse.Namespace) -> int:
    """Writes the drawing; returns the exit status (0 drawn from a build, 1 drawn from a stuck build)."""
    import gymnasium

    from rlworkbench.agents import Agent
    from rlworkbench.errors import BuildError, ConfigError
    from rlworkbench.visualize import render_graph

    output = Path(args.output)
    fmt = output.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ConfigError("unknown output format", argument="--output", expected=list(FORMATS), got=output.name)
    try:
        env = gymnasium.make(args.env)
    except gymnasium.error.Error as error:
        raise ConfigError("unknown or unusable Gymnasium env", argument="--env", got=args.env,
                          expected=f"a registered env id ({type(error).__name__}: {error})") from error
    try:
        agent = Agent.from_env(env, args.config, backend=args.backend)
    finally:
        env.close()
    status, target = 0, agent
    try:
        agent.build()
    except BuildError as error:
        if error.graph is None:
            raise
        status, target = 1, error
    dot = render_graph(target, depth=args.depth, api=args.api, spaces=not args.no_spaces,
                       devices=not args.no_devices, graph_fns=not args.no_graph_fns)
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "dot":
        output.write_text(dot.source)
    else:
        output.write_bytes(dot.pipe(format=fmt))
    return status
