"""Checkpoints a run goes on from: the schedule's forms (env steps, updates, seconds) and its refusals; a checkpoint
written whole or not at all; the newest complete one chosen, a half-written or corrupted one never."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from rlworkbench.errors import CheckpointError, ConfigError
from rlworkbench.execution.checkpoint_schedule import CheckpointSchedule
from rlworkbench.execution.metrics import MetricsBook
from rlworkbench.execution.progress import Progress
from rlworkbench.execution.resume_points import newest_resume_point, resume_points, save_resume_point
from rlworkbench.execution.train import Checkpointer


@pytest.mark.parametrize(("given", "unit", "amount"), [
    (500, "timesteps", 500), ("2000 timesteps", "timesteps", 2000), ("50 updates", "updates", 50),
    ({"updates": 10}, "updates", 10), ("30 s", "seconds", 30), ("30s", "seconds", 30), ("2 min", "seconds", 120),
    (np.int64(7), "timesteps", 7)])
def test_the_schedule_takes_steps_updates_or_seconds(given, unit, amount):
    schedule = CheckpointSchedule.parse(given)
    assert (schedule.unit, schedule.amount) == (unit, amount)


@pytest.mark.parametrize("given", [0, -5, True, 1.5, "50 epochs", "updates", "0.5 updates", {"updates": 0},
                                   {"updates": 1, "seconds": 2}, [50]])
def test_a_bad_schedule_is_a_config_error_naming_the_setting(given):
    with pytest.raises(ConfigError) as error:
        CheckpointSchedule.parse(given)
    assert error.value.argument == "checkpoint_every" and repr(given) in str(error.value)


def test_the_schedule_falls_on_multiples_and_goes_on_after_a_resume():
    schedule = CheckpointSchedule.parse("10 updates")
    due = [updates for updates in range(1, 41) if schedule.due(timesteps=0, updates=updates)]
    assert due == [10, 20, 30, 40]
    resumed = CheckpointSchedule.parse("10 updates")
    resumed.resume_at(timesteps=0, updates=23)
    assert [u for u in range(23, 41) if resumed.due(timesteps=0, updates=u)] == [30, 40]
    seconds = CheckpointSchedule.parse("0.2 s")
    assert not seconds.due(0, 0)
    time.sleep(0.25)
    assert seconds.due(0, 0) and not seconds.due(0, 0)


class TinyAgent:
    """What a checkpoint needs of an agent: ``save`` (through the real checkpoint writer) — and a way to fail."""

    def __init__(self, fail: bool = False):
        self.fail, self.updates = fail, 3

    def save(self, directory):
        from rlworkbench.agents.checkpoint import write_checkpoint

        if self.fail:
            (__import__("pathlib").Path(directory) / "agent.json").write_text("{half")
            raise OSError("disk full")
        return write_checkpoint(directory, {"w": np.ones(3, np.float32)},
                                {"agent_type": "tiny", "config": {}, "counters": {"updates": self.updates}})


def progress_at(timesteps: int) -> Progress:
    book = MetricsBook(1)
    return Progress(timesteps, 1.0, book.episodes(), book.updates())


def test_a_checkpoint_is_written_whole_or_not_at_all(tmp_path):
    checkpoints = tmp_path / "checkpoints"
    save_resume_point(TinyAgent(), checkpoints / "step_100", progress_at(100))
    with pytest.raises(OSError, match="disk full"):  # killed or failed while writing: nothing under a real name
        save_resume_point(TinyAgent(fail=True), checkpoints / "step_200", progress_at(200))
    assert sorted(path.name for path in checkpoints.iterdir()) == ["step_100"]
    assert newest_resume_point(tmp_path).name == "step_100"
    save_resume_point(TinyAgent(), checkpoints / "final", progress_at(150))
    save_resume_point(TinyAgent(), checkpoints / "final", progress_at(300))  # a resumed run's final replaces it
    assert [(t, p.name) for t, p in resume_points(tmp_path)] == [(300, "final"), (100, "step_100")]


def test_a_corrupted_or_partial_checkpoint_is_never_the_one_resumed(tmp_path):
    checkpoints = tmp_path / "checkpoints"
    save_resume_point(TinyAgent(), checkpoints / "step_100", progress_at(100))
    newest = save_resume_point(TinyAgent(), checkpoints / "step_200", progress_at(200))
    manifest = json.loads((newest / "agent.json").read_text())
    manifest["counters"]["updates"] = 99  # hand-edited after it was written: its checksum no longer matches
    (newest / "agent.json").write_text(json.dumps(manifest))
    (checkpoints / ".partial-step_300-123").mkdir()  # a writer killed mid-way left this
    assert newest_resume_point(tmp_path).name == "step_100"
    (checkpoints / "step_100" / "progress.json").unlink()
    with pytest.raises(CheckpointError) as none_left:
        newest_resume_point(tmp_path)
    assert none_left.value.argument == "resume"


def test_the_checkpointer_saves_progress_on_its_schedule(tmp_path):
    class Source:
        timesteps, elapsed = 0, 1.0
        episodes, updates = MetricsBook(1).episodes(), MetricsBook(1).updates()
        agent = TinyAgent()

    source = Source()
    checkpointer = Checkpointer(source.agent, tmp_path / "checkpoints", "2 updates", progress=lambda: source)
    for updates in range(1, 6):
        source.agent.updates, source.timesteps = updates, updates * 10
        checkpointer(source)
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["step_20", "step_40"]
    assert newest_resume_point(tmp_path).name == "step_40" and checkpointer.last.name == "step_40"
