"""The capacity model of ``bench.capacity``: which part bounds an Ape-X run, from per-item costs (no timing)."""

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench.capacity import Costs, predict  # noqa: E402 (after the path fix)


def costs(**changes):
    """A sampler of 1,000 frames/s, a learner of 64 samples per 2 ms (32,000/s), shards of 5 µs per insert and
    20 µs per sample; 16 trained samples per frame, paced; free sync and broadcast."""
    base = {"workload": "test", "sampler_frames_per_s": 1000.0,
            "sampler_cpu_s_per_frame": 1e-3, "sync_s": 0.0, "transition_bytes": 100.0,
            "update_s": 0.002, "traffic_s": 0.0, "put_s": 0.0, "weight_bytes": 1_000_000, "batch_size": 64,
            "ratio": 16.0, "paced": True, "shard_insert_s_per_record": 5e-6, "shard_sample_s_per_record": 20e-6,
            "weight_sync_steps": 400, "broadcast_every": 10, "shards": 2}
    return Costs(**{**base, **changes})


def test_a_paced_run_is_bound_by_its_samplers_until_the_learner_takes_over():
    one = predict(costs(), samplers=1)
    assert one["bottleneck"] == "samplers" and one["frames_per_s"] == pytest.approx(1000.0)
    many = predict(costs(), samplers=16)
    assert many["bottleneck"] == "learner" and many["frames_per_s"] == pytest.approx(32000 / 16)
    assert many["trained_per_s"] == pytest.approx(32000) and many["replay_ratio"] == pytest.approx(16.0)
    assert one["feeds"] == pytest.approx(2.0) and many["learners_for_ratio"] == pytest.approx(8.0)


def test_shards_bound_a_paced_run_when_sampling_costs_them_more_than_the_learner_asks():
    slow_shards = predict(costs(shard_sample_s_per_record=200e-6, update_s=0.0004), samplers=256, shards=1)
    assert slow_shards["bottleneck"] == "shards"
    assert slow_shards["frames_per_s"] == pytest.approx(1 / (5e-6 + 16 * 200e-6))
    assert predict(costs(shard_sample_s_per_record=200e-6, update_s=0.0004), samplers=256, shards=4)[
        "frames_per_s"] == pytest.approx(4 * slow_shards["frames_per_s"])


def test_free_samplers_outrun_the_learner_and_the_achieved_ratio_falls():
    free = predict(costs(paced=False), samplers=64)
    assert free["frames_per_s"] == pytest.approx(64000) and free["trained_per_s"] == pytest.approx(32000)
    assert free["replay_ratio"] == pytest.approx(0.5) and free["bottleneck"] == "learner"
    assert free["frames_bound"] == "samplers"  # the frames themselves come as fast as 64 samplers make them
    assert free["object_store_MB_s"] == pytest.approx(64000 * 100 / 1e6)


def test_shared_cores_bound_everything_on_a_small_machine():
    # per frame: 1 ms of sampling CPU + 16 / 160,000 s learning + 5 µs + 16 x 20 µs in shards = 1.425 ms of CPU
    two_cores = predict(costs(update_s=0.0004), samplers=4, cores=2.0)
    assert two_cores["bottleneck"] == "cores"
    assert two_cores["frames_per_s"] == pytest.approx(2 / (1e-3 + 16 / 160000 + 5e-6 + 16 * 20e-6))
    # a sampler that waits on its env (wall time, not CPU) does not load the cores
    waiting = predict(costs(update_s=0.0004, sampler_frames_per_s=250.0), samplers=4, cores=2.0)
    assert waiting["bottleneck"] == "samplers" and waiting["frames_per_s"] == pytest.approx(1000.0)


def test_weights_are_pulled_no_faster_than_the_learner_publishes_them():
    fast_syncs = predict(costs(paced=False, weight_sync_steps=1), samplers=10)
    publishes = 32000 / 64 / 10
    assert fast_syncs["weights_MB_s"] == pytest.approx(10 * publishes * 1.0)
