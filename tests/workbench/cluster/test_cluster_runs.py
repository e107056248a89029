"""Cluster runs through Ray Jobs against a real head on this machine (token auth on): a short DQN job followed to
its end, a stopped job's final checkpoint, a job that fails in the cluster, attaching to a running Ape-X job from a
fresh Run (with a mirrored run directory), a detached and stopped job resumed from the notebook as a new job,
listing runs, the command line, and wrong tokens and addresses."""

from __future__ import annotations

import json
import socket
import time

import pandas as pd
import pytest

from rlworkbench.cli import main
from rlworkbench.errors import ClusterError, ConfigError
from rlworkbench.workbench import Run, list_runs, promote
from tests.workbench.run_helpers import small_dqn, wait_until


def submit(head, tmp_path, prototype=None, **settings):
    return promote(prototype if prototype is not None else small_dqn(), to="ray", address=head.address,
                   auth_token=head.auth_token, logdir=tmp_path, seed=0, **settings)


def test_a_short_dqn_job_is_followed_to_its_end(ray_head, tmp_path):
    run = submit(ray_head, tmp_path, workers=0, timesteps=2000)
    assert run.state in ("starting", "running") and run.target == "ray"
    run.wait(180)
    assert run.state == "finished" and run.timesteps == 2000 and run.error is None
    # the job's own run directory, seen here (shared storage): its tables hold exactly the rows followed live
    assert run.logdir.parent == tmp_path and json.loads((run.logdir / "job.json").read_text())["submission_id"] == \
        run.execution.submission_id
    pd.testing.assert_frame_equal(run.metrics, pd.read_csv(run.logdir / "episodes.csv"), check_dtype=False)
    on_disk = pd.read_csv(run.logdir / "updates.csv")
    assert len(run.updates) == len(on_disk) > 0
    assert run.updates["loss"].to_numpy() == pytest.approx(on_disk["loss"].to_numpy(), nan_ok=True)
    assert run.checkpoint == run.logdir / "checkpoints" / "final"
    assert run.load_agent().timesteps == 2000
    logs = run.logs()
    assert any("Running entrypoint" in line for line in logs)
    assert not any(line.startswith("@rlworkbench") for line in logs)
    assert run.plot().axes[0].lines  # returns drawn from the followed metrics
    widget = run.widget()
    run.view.refresh()
    assert any(child is run.view.log for child in widget.children)  # the log's tail, in the view
    assert "Running entrypoint" in run.view.log.value
    assert run.view.progress.value == 2000 and run.view.progress.bar_style == "success"
    table = list_runs(ray_head.address, auth_token=ray_head.auth_token)
    row = table.set_index("submission_id").loc[run.execution.submission_id]
    assert (row["state"], row["timesteps"], row["total_timesteps"], row["target"]) == ("finished", 2000, 2000, "local")
    assert row["return"] == pytest.approx(run.metrics["return"].tail(100).mean())


def test_stop_lets_the_job_save_its_final_checkpoint(ray_head, tmp_path):
    run = submit(ray_head, tmp_path, workers=0, timesteps=10**7, stop_grace=20)
    wait_until(lambda: run.timesteps > 0, 120, "first metrics")
    run.stop()
    assert run.state == "stopped" and 0 < run.timesteps < 10**7
    assert run.checkpoint == run.logdir / "checkpoints" / "final"
    assert run.load_agent().timesteps == run.timesteps
    run.wait()  # a stopped run is no failure
    table = list_runs(ray_head.address, auth_token=ray_head.auth_token).set_index("submission_id")
    assert table.loc[run.execution.submission_id, "state"] == "stopped"


def test_a_job_that_fails_in_the_cluster_raises_its_error_in_wait(ray_head, tmp_path):
    run = submit(ray_head, tmp_path, env="NoSuchEnv-v0", workers=0)  # the env is the cluster's to know
    with pytest.raises(ConfigError, match="unknown Gymnasium env id") as raised:
        run.wait(120)
    assert raised.value.argument == "env" and run.state == "failed"
    assert any("traceback in the job" in note for note in raised.value.__notes__)


def test_attach_follows_a_running_ape_x_job_from_a_fresh_run(ray_head, tmp_path):
    run = submit(ray_head, tmp_path, workers=1, envs_per_worker=2, shards=1, fragment_length=25, timesteps=10**7)
    wait_until(lambda: len(run.metrics) > 0 and run.workers is not None, 180, "Ape-X episodes")
    seen = run.metrics
    attached = Run.attach(run.execution.submission_id, ray_head.address, auth_token=ray_head.auth_token,
                          logdir=tmp_path / "mirror", mirror=True)
    wait_until(lambda: len(attached.metrics) >= len(seen), 60, "the replayed metrics")
    pd.testing.assert_frame_equal(attached.metrics.iloc[:len(seen)], seen)  # replayed from the first record
    assert attached.spec.config == run.spec.config and attached.total_timesteps == 10**7
    assert attached.workers["worker"].tolist() == [0] and attached.shards is not None
    attached.stop()  # either Run stops the job
    assert attached.state == "stopped"
    run.wait(60)
    assert run.state == "stopped"
    mirror = attached.logdir  # mirror=True: the followed metrics in a local run directory of its own
    assert mirror.parent == tmp_path / "mirror" and mirror != run.logdir
    about = json.loads((mirror / "cluster.json").read_text())
    assert about["submission_id"] == run.execution.submission_id and about["state"] == "stopped"
    assert len(pd.read_csv(mirror / "episodes.csv")) == len(attached.metrics)
    assert list(mirror.glob("events.out.tfevents.*"))
    attached.close()
    run.close()


def test_a_detached_and_stopped_job_is_resumed_from_the_notebook(ray_head, tmp_path, monkeypatch):
    from rlworkbench.workbench.cluster.connection import connect

    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    run = submit(ray_head, tmp_path / "runs", workers=0, timesteps=10**7, checkpoint_every=300, stop_grace=20)
    wait_until(lambda: run.timesteps > 400, 120, "a checkpoint's worth of steps")
    first_job = run.execution.submission_id
    run.detach()  # the notebook lets go; the job goes on until it is stopped
    client = connect(ray_head.address, ray_head.auth_token)
    with pytest.raises(ConfigError, match="still going"):
        promote(resume=run.logdir, address=ray_head.address, auth_token=ray_head.auth_token)
    client.stop_job(first_job)
    wait_until(lambda: str(client.get_job_status(first_job).value) == "STOPPED", 60, "the stopped job")
    final = wait_until(lambda: (path := run.logdir / "checkpoints" / "final" / "progress.json").is_file() and path,
                       30, "the stopped job's final checkpoint")
    stopped_at = json.loads(final.read_text())["timesteps"]
    resumed = promote(resume=run.logdir, address=ray_head.address, auth_token=ray_head.auth_token,
                      timesteps=stopped_at + 500)
    resumed.wait(180)
    job = resumed.execution.submission_id
    assert resumed.state == "finished" and resumed.id == run.id and job.startswith(f"{first_job}-resume-")
    assert resumed.logdir == run.logdir and resumed.timesteps == stopped_at + 500
    updates = resumed.updates  # the job's tables go on from the checkpoint's: followed from its first record
    assert updates["update"].tolist() == list(range(len(updates)))
    assert updates["timesteps_total"].is_monotonic_increasing
    assert (updates["timesteps_total"] <= stopped_at).any() and (updates["timesteps_total"] > stopped_at).any()
    about = json.loads((run.logdir / "run.json").read_text())
    assert about["resumes"][-1]["checkpoint"] == "final" and about["target"] == "local"
    resumed.close()


def test_only_a_cluster_run_can_be_detached(tmp_path):
    run = promote(small_dqn(), timesteps=200, logdir=tmp_path)
    with pytest.raises(ConfigError, match="only a run on a cluster"):
        run.detach()
    run.wait(60)


def test_the_command_line_submits_follows_and_lists(ray_head, tmp_path, capsys):
    cluster = ["--address", ray_head.address, "--auth-token", ray_head.auth_token]
    main(["submit", "dqn_cartpole", *cluster, "--workers", "0", "--timesteps", "500", "--logdir", str(tmp_path),
          "--follow"])
    printed = capsys.readouterr().out
    submission_id = printed.split("submitted ", 1)[1].split()[0]
    assert "finished" in printed and "final checkpoint" in printed
    main(["runs", *cluster])
    assert submission_id in capsys.readouterr().out


def test_a_wrong_token_or_address_is_a_typed_error_within_seconds(ray_head, tmp_path, monkeypatch):
    started = time.monotonic()
    with pytest.raises(ClusterError, match="refuses the token"):
        list_runs(ray_head.address, auth_token="0" * 64)
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ray/auth_token either
    with pytest.raises(ClusterError, match="wants a token"):
        promote("dqn_cartpole", to="ray", address=ray_head.address, workers=0, logdir=tmp_path)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(ClusterError, match="does not answer"):
        promote("dqn_cartpole", to="ray", address=f"http://127.0.0.1:{closed}", workers=0, logdir=tmp_path)
    with pytest.raises(ClusterError, match="no job of this id"):
        Run.attach("rlworkbench-no-such-job", ray_head.address, auth_token=ray_head.auth_token)
    assert time.monotonic() - started < 30
