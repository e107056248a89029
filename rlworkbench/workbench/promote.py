"""``promote(prototype, to="local", **settings) -> Run``: one call turns a notebook prototype into a training run
that does not block the kernel.

The prototype (an agent, a config dict, a JSON path or a shipped config name) and the settings become a
:class:`~rlworkbench.workbench.run_spec.RunSpec`; the target registered as ``to`` (see
:mod:`rlworkbench.workbench.targets`) starts it and the :class:`~rlworkbench.workbench.run.Run` it returns is
the same whatever the target. ::

    run = promote("dqn_cartpole", env="CartPole-v1", timesteps=20_000, num_envs=4, seed=0)
    run                  # a live progress bar and plot of returns and losses (a cell's value)
    run.metrics.tail()   # episodes so far, a pandas DataFrame; run.updates: the losses
    run.stop()           # or run.wait(); run.logdir, run.checkpoint, run.tensorboard()
    run = run.resume()   # goes on from its newest checkpoint (also promote(resume="runs/<dir>") after a crash)
"""

from __future__ import annotations

from typing import Any

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.resume import resume_spec
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.run_records import new_run_id
from rlworkbench.workbench.run_spec import make_spec
from rlworkbench.workbench.targets import get_target


def promote(prototype: Any = None, to: str | None = None, *, resume: Any = None, **settings: object) -> Run:
    """Starts training ``prototype`` on the target ``to`` (``"local"`` unless said) and returns its :class:`Run`
    at once.

    ``resume=`` a stopped, failed or orphaned run (a :class:`Run`, its run directory or its record id) goes on
    with it instead: same directory and record, from its newest complete checkpoint, on its target and settings
    unless given again (``timesteps=`` extends it; ``prototype`` may be omitted: the run's config is used). See
    :mod:`rlworkbench.workbench.resume`.

    Settings (all targets): ``env`` (Gymnasium id or env factory; required for an agent, ``"CartPole-v1"`` for a
    config), ``timesteps`` (10 000), ``num_envs`` (1), ``vector_mode`` (``"sync"``), ``backend`` (the agent's,
    else ``RLWORKBENCH_BACKEND`` or ``"torch"``), ``seed``, ``logdir`` (``"runs"``: the run directory goes
    under it), ``run_name`` (the run directory's name; default ``<config>-<env>-<backend>-<time>``),
    ``checkpoint_every`` (timesteps), ``summaries_every`` (updates between per-component variable histograms in
    TensorBoard), ``threads`` (1: the backend's intra-op threads, process-wide), ``progress`` (False: also print a
    tqdm bar). A target may take more; an unknown one raises ConfigError.

    ``to="ray"`` with ``address="http(s)://head:8265"`` submits the run to that cluster as a Ray job (see
    :mod:`rlworkbench.workbench.targets.job_target`): ``workers`` (0: a local worker inside the job),
    ``runtime_env``, ``auth_token``, ``cluster_logdir``, ``stop_grace``, ``mirror``, ``ship_code``.

    An agent prototype is trained in place (built first if it is not) — on a cluster, a copy starts from its
    weights. Bad settings, configs and envs raise here; errors during training are raised by ``run.wait()``.
    """
    if resume is not None:
        target, spec = resume_spec(resume, prototype, to, **settings)
    else:
        if prototype is None:
            raise ConfigError("promote() needs something to train", argument="prototype",
                              expected="an agent, a config dict, a JSON config path or a shipped config name "
                                       "(or resume= a run)", got=None)
        target, spec = to or "local", make_spec(prototype, **settings)
        spec.context.target = target
    factory = get_target(target)
    spec.context.run_id = spec.context.run_id or new_run_id()  # in run.json too: a resume keeps it
    return Run(factory(spec), spec, target=target).start()  # (the run's record is published from here on)
