"""scripts/gpu_check.sh without a GPU: its dry run lists the steps and imports everything they run (and runs the
GPU benchmark's own code on the CPU); bench.gpu_report turns real JUnit XML and benchmark CSVs into gpu.csv and the
report, naming what is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import gpu_report, gpu_update  # noqa: E402 (after the path fix)


def test_the_dry_run_lists_every_step_and_imports_what_they_run(tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_check.sh"), "--dry-run"], capture_output=True,
                          text=True, timeout=600, check=False,
                          env={**os.environ, "PYTHON": sys.executable, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for step in ("cuda_tests", "multi_device", "gpu_update", "gpu_apex"):
        assert f"step {step}" in done.stdout
    assert "import rlworkbench.execution.ray: ok" in done.stdout and "gpu_check --dry-run: ok" in done.stdout
    assert (tmp_path / "gpu_update_dry.csv").exists()


def test_the_report_gathers_tests_and_figures(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n\ndef test_ok():\n    pass\n\n@pytest.mark.skip(reason='needs a GPU')\ndef test_gpu():\n"
        "    pass\n\ndef test_broken():\n    assert False\n")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                    str(tmp_path / "test_sample.py"), f"--junitxml={results / 'cuda_tests.xml'}"],
                   cwd=tmp_path, capture_output=True, timeout=120, check=False)
    gpu_update.main(["--device", "cpu", "--repeats", "1", "--calls", "2", "--batches", "64", "--quiet",
                     "--out", str(results / "gpu_update.csv")])
    frame = gpu_report.main([str(results), "--csv", str(tmp_path / "gpu.csv"), "--report", str(tmp_path / "r.md")])
    outcomes = frame[frame["check"] == "cuda_tests"].set_index("test")["outcome"]
    assert sorted(outcomes) == ["failure", "passed", "skipped"]
    assert set(frame[frame["check"] == "gpu_update"]["case"]) == {"update", "act"}
    assert frame[frame["check"] == "gpu_apex"]["outcome"].tolist() == ["missing"]
    report = (tmp_path / "r.md").read_text()
    assert "1 passed, 1 failed, 1 skipped" in report and "test_broken: failure" in report
