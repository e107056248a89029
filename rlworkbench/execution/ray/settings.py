"""The settings of a run on Ray and which distributed algorithm trains which agent type.

Settings come from the agent config's optional ``execution/ray`` section, overridden by keyword arguments
(``promote(..., to="ray", workers=4)``), merged over :data:`DEFAULTS` and validated by the agents' JSON-schema
machinery, so a bad value is a ConfigError naming ``execution/ray/<key>``:

- ``workers`` sampler actors, each with ``envs_per_worker`` envs, asked for ``fragment_length`` steps per env at a
  time; ``sampler_cpus`` CPUs reserved per sampler (0 lets more actors than CPUs share them);
- ``shards`` replay shards (Ape-X; ``replay_capacity`` records — ``None``: the memory's capacity — split across
  them) and ``replay_in_flight`` sample requests the learner keeps under way per shard;
- ``broadcast_every`` updates between weight broadcasts (one ``ray.put``) and ``weight_sync_steps`` env steps of a
  sampler between its pick-ups of the newest weights (Ape-X, IMPALA; synchronous PPO broadcasts every update);
- ``plan``: the execution plan by name (``None``: the agent type's default; see
  :func:`rlworkbench.execution.ray.plans.plans`);
- ``queue_size`` fragments IMPALA's learner queue holds (samplers wait when it is full); ``passes``: how often
  APPO's learner learns from each fragment;
- ``replay_ratio``: replayed transitions per sampled one for the ``apex_ratio`` plan;
- ``max_updates_owed``: Ape-X samplers wait while the learner is more than this many updates behind the config's
  replay ratio (``update/gradient_steps`` per ``update/update_interval`` env steps) — on a small machine sampling
  outruns learning and a free-running Ape-X learns less from each transition (default 100; ``None``: never, the
  paper's free-running actors);
- ``learners`` data-parallel learner ranks (1: the agent in this process, as always; more: a
  :class:`~.learner_group.LearnerGroup` of Ray actors on ``torch.distributed`` / ``MultiWorkerMirroredStrategy``,
  each update split into equal shares, one per rank), each reserving ``learner_cpus`` CPUs and building its agent on
  replica towers over ``devices_per_learner`` (``["cuda:0", "cuda:1"]``: towers inside each rank); the ranks are
  placed by ``learner_placement`` (``"pack"``, ``"spread"``, ``"strict_spread"``: one per node, ``"strict_pack"``),
  must form their group within ``learner_timeout`` seconds, and restart together from a snapshot of rank 0 taken
  every ``learner_checkpoint_every`` updates when one dies;
- ``save_replay``: Ape-X's checkpoints also hold every shard's records and priorities (``replay/`` in the
  checkpoint), so a resumed run starts with the replay it had; off by default, as it is large: about two
  observations per record (CartPole: ~50 bytes a record; Atari's 84x84x4 uint8 frames: ~56 kB a record, 56 GB
  for a million) — ``replay/shards.json`` in each checkpoint says how many bytes it took;
- ``max_restarts`` restarts of one actor (or of the learner group) before the run fails with the error that killed
  it; ``spare_samplers`` samplers kept built and idle (each reserving ``sampler_cpus``) to take a failed sampler's
  place at once — a new Ray actor takes seconds of CPU to start, far longer on a busy machine — each replaced by a
  new spare in the background (default 0: a failed sampler's replacement starts when it fails); a sampler or shard
  whose request has been under way for ``hung_after`` seconds is taken as hung and replaced like one that died
  (a stuck env, a deadlocked actor, a call Ray never answers; default 300, counted from when the actor is up: its
  start-up is not counted);
- ``num_cpus`` of a local Ray session started for the run (``None``: every CPU here), ``address`` of a cluster to
  join instead (``"auto"``, ``"ray://host:10001"``; ``None`` starts or reuses a local one on 127.0.0.1).
"""

from __future__ import annotations

from collections.abc import Mapping

from rlworkbench.agents.config import RAY_SETTINGS, validate_config
from rlworkbench.errors import ConfigError

DEFAULTS: dict[str, object] = {
    "workers": 2, "envs_per_worker": 4, "fragment_length": 50, "shards": 2, "replay_in_flight": 2,
    "broadcast_every": 10, "weight_sync_steps": 400, "queue_size": 4, "max_updates_owed": 100, "max_restarts": 3,
    "spare_samplers": 0, "hung_after": 300.0,
    "replay_capacity": None, "sampler_cpus": 1.0, "plan": None, "passes": 2, "replay_ratio": 8.0,
    "num_cpus": None, "address": None, "learners": 1, "devices_per_learner": None, "learner_cpus": 1.0,
    "learner_placement": "pack", "learner_timeout": 60.0, "learner_checkpoint_every": 50, "save_replay": False,
}

def ray_settings(config: Mapping[str, object], **overrides: object) -> dict[str, object]:
    """The run's settings: :data:`DEFAULTS` < the config's ``execution/ray`` < ``overrides`` (checked)."""
    unknown = sorted(key for key in overrides if key not in DEFAULTS)
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} for a run on Ray", argument=unknown[0],
                          expected=sorted(DEFAULTS), got=unknown[0])
    given = dict((config.get("execution") or {}).get("ray") or {})
    merged = {**DEFAULTS, **given, **overrides}
    schema = {"type": "object", "properties": {"execution": {"type": "object", "properties": {"ray": {
        "type": "object", "additionalProperties": False, "properties": RAY_SETTINGS}}}}}
    validate_config({"execution": {"ray": merged}}, schema)
    return merged
