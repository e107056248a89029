"""Gathers what ``scripts/gpu_check.sh`` measured into one CSV and a short report.

Run ``python -m bench.gpu_report RESULTS_DIR [--csv datasets/benchmarks/gpu.csv] [--report
datasets/benchmarks/gpu_report.md]``: ``RESULTS_DIR`` holds ``cuda_tests.xml`` (pytest's JUnit XML) and the
benchmarks' CSVs (``multi_device.csv``, ``gpu_update.csv``, ``gpu_apex.csv``); every row of the output names its
``check``. The report says which tests passed, failed or were skipped, and the figures that answer the check's
questions (towers on the GPU, ours vs hand-written PyTorch, device syncs per update, Ape-X with a GPU learner).
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("multi_device", "gpu_update", "gpu_apex")


def junit_rows(junit: Path) -> list[dict[str, str]]:
    if not junit.exists():
        return [{"check": "cuda_tests", "test": "(not run)", "outcome": "missing"}]
    rows = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        rows.append({"check": "cuda_tests", "test": f"{case.get('classname')}::{case.get('name')}", "outcome": outcome})
    return rows


def gather(results: Path) -> pd.DataFrame:
    frames = [pd.DataFrame(junit_rows(results / "cuda_tests.xml"))]
    for name in BENCHMARKS:
        path = results / f"{name}.csv"
        frames.append(pd.read_csv(path).assign(check=name) if path.exists()
                      else pd.DataFrame([{"check": name, "outcome": "missing"}]))
    return pd.concat(frames, ignore_index=True)


def report(frame: pd.DataFrame) -> str:
    tests = frame[frame["check"] == "cuda_tests"]
    lines = ["# GPU check", "", f"Tests: {(tests['outcome'] == 'passed').sum()} passed, "
             f"{tests['outcome'].isin(['failure', 'error']).sum()} failed, {(tests['outcome'] == 'skipped').sum()} "
             "skipped.", ""]
    lines += [f"- {row.test}: {row.outcome}" for row in tests.itertuples() if row.outcome != "passed"]
    for name in BENCHMARKS:
        part = frame[frame["check"] == name].dropna(axis=1, how="all")
        lines += ["", f"## {name}", "", part.drop(columns=["check"]).to_string(index=False)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--csv", type=Path, default=ROOT / "datasets" / "benchmarks" / "gpu.csv")
    parser.add_argument("--report", type=Path, default=ROOT / "datasets" / "benchmarks" / "gpu_report.md")
    args = parser.parse_args(argv)
    frame = gather(args.results)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.csv, index=False)
    args.report.write_text(report(frame))
    print(report(frame))
    return frame


if __name__ == "__main__":
    main()
