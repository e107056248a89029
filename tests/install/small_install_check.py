"""Run inside a venv holding only ``rlworkbench[torch]``: the core trains and checkpoints; each missing part is
one MissingExtra naming its extra. Prints one line per check; exits non-zero on the first failure."""

import importlib
import importlib.util
import sys
import tempfile

import gymnasium

import rlworkbench

assert "site-packages" in rlworkbench.__file__, f"not the installed package: {rlworkbench.__file__}"
for absent in ("tensorflow", "ray", "ipywidgets", "graphviz", "jupyterlab", "optuna"):
    assert importlib.util.find_spec(absent) is None, f"{absent} is installed in the small venv"

from rlworkbench.agents.config import load_config  # noqa: E402
from rlworkbench.core.backend import get_backend  # noqa: E402
from rlworkbench.errors import MissingExtra  # noqa: E402
from rlworkbench.execution import train  # noqa: E402
from rlworkbench.execution.train import agent_from_env  # noqa: E402

with tempfile.TemporaryDirectory() as logdir:
    result = train("dqn_cartpole", "CartPole-v1", timesteps=1500, logdir=logdir, num_envs=2, seed=0, progress=False)
    assert len(result.episodes) > 0 and result.checkpoint.exists()
    env = gymnasium.make("CartPole-v1")
    restored = agent_from_env(env, load_config("dqn_cartpole"), backend="torch", seed=1).load(result.checkpoint)
    assert restored is not None
    print(f"trained: {len(result.episodes)} episodes, checkpoint {result.checkpoint.name} loads")

checks = [
    ("tf", "backend='tf'", lambda: get_backend("tf")),
    ("ray", "rlworkbench.execution.ray", lambda: importlib.import_module("rlworkbench.execution.ray")),
    ("jupyter", "rlworkbench.workbench", lambda: importlib.import_module("rlworkbench.workbench")),
    ("jupyter", "rlworkbench.visualize", lambda: importlib.import_module("rlworkbench.visualize")),
]
for extra, what, ask in checks:
    try:
        ask()
    except MissingExtra as error:
        assert f"rlworkbench[{extra}]" in str(error), str(error)
        print(f"{what}: {error}")
    else:
        sys.exit(f"{what} did not raise MissingExtra")
print("small install: ok")
