"""Execution: agents acting in Gymnasium vector envs, locally.

- :func:`make_vector_env` — a seeded ``SyncVectorEnv`` / ``AsyncVectorEnv`` of one env id or factory;
- :class:`MaskedCartPole` — CartPole without velocities, for recurrent agents; importing this package registers
  its id :data:`MASKED_CARTPOLE_ID` with Gymnasium (see :mod:`rlworkbench.execution.masked_cartpole`);
- :class:`Worker` — steps a vector env with an agent, hands the agent exactly the true transitions (whatever the
  env's autoreset mode), accounts episodes per sub-env, updates on the agent's schedule, and reports pandas
  tables, TensorBoard scalars and a progress bar; thread-safe :meth:`Worker.snapshot` and :meth:`Worker.stop`;
- :func:`evaluate_greedy` — an agent's greedy policy on a few episodes of a fresh env, learning nothing;
- :func:`train` — what ``rlworkbench train`` does: env + agent from a config, a worker, checkpoints, a summary.

Imports gymnasium, pandas and tqdm; never torch or TensorFlow (TensorBoard's own writer logs the scalars).
"""

from rlworkbench.execution.envs import autoreset_mode_of, make_vector_env
from rlworkbench.execution.masked_cartpole import MASKED_CARTPOLE_ID, MaskedCartPole
from rlworkbench.execution.metrics import EPISODE_COLUMNS, MetricsSnapshot
from rlworkbench.execution.train import TrainResult, train
from rlworkbench.execution.transitions import Step, StepReader
from rlworkbench.execution.worker import Worker, evaluate_greedy

__all__ = [
    "EPISODE_COLUMNS",
    "MASKED_CARTPOLE_ID",
    "MaskedCartPole",
    "MetricsSnapshot",
    "Step",
    "StepReader",
    "TrainResult",
    "Worker",
    "autoreset_mode_of",
    "evaluate_greedy",
    "make_vector_env",
    "train",
]
