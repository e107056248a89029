"""A Ray run's start, as a user who never configured Ray's auth sees it: the live view says what the run is busy with
(``starting Ray … n s``, then ``starting 2 samplers … n s``) until the first samples arrive, and Ray's notice about
token authentication is not printed. In a fresh process (the test session's Ray is up already, started with
``RAY_AUTH_MODE=disabled``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = textwrap.dedent("""
    import json, time
    from rlworkbench.workbench import promote
    from tests.workbench.run_helpers import small_dqn

    run = promote(small_dqn(learning_starts=100), to="ray", timesteps=400, workers=2, envs_per_worker=1,
                  sampler_cpus=0, num_cpus=2, seed=0, logdir={logdir!r})
    view = run.widget(interval=0.1)  # no kernel: the view refreshes all the same
    seen, started = [], time.monotonic()
    while not run.done:
        text = run.view.label.value
        if not seen or seen[-1][1] != text:
            seen.append((round(time.monotonic() - started, 1), text))
        time.sleep(0.05)
    run.wait()
    run.view.refresh()
    seen.append((round(time.monotonic() - started, 1), run.view.label.value))
    print("SEEN" + json.dumps(seen))
""")


@pytest.mark.timeout(300)
def test_a_ray_run_says_how_it_starts_and_keeps_rays_auth_notice_to_itself(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("RAY_AUTH")}
    env.update(HOME=str(tmp_path / "home"), RLWORKBENCH_RUNS_DIR=str(tmp_path / "records"), PYTHONPATH=str(ROOT),
               RAY_USAGE_STATS_ENABLED="0", OMP_NUM_THREADS="1")
    (tmp_path / "home").mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(logdir=str(tmp_path / "runs"))], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=280, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Token authentication" not in output, output[-3000:]
    seen = json.loads(output.split("SEEN", 1)[1].splitlines()[0])
    phases = [text.split(" · ")[1].split(" … ")[0] for _, text in seen if " … " in text]
    assert "starting Ray" in phases and "starting 2 samplers" in phases, seen
    assert phases.index("starting Ray") < phases.index("starting 2 samplers"), seen
    # Samplers report whole fragments: when both land in one wait, the run counts the one past the target too.
    finished = re.search(r"finished · (\d+) / 400 steps", seen[-1][1])
    assert finished and 400 <= int(finished.group(1)) <= 400 + 2 * 50 and " … " not in seen[-1][1], seen
