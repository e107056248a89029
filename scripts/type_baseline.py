"""The type gate's baseline: mypy's errors per file of ``rlworkbench/``, in ``types_baseline.json``.

mypy (settings in ``pyproject.toml``'s ``[tool.mypy]``) is the checker because it is a plain PyPI wheel the lock
pins, so ``make test`` on a fresh machine installs it with everything else; pyright's PyPI wrapper would fetch its
npm package and node at first run. The baseline records how many errors each file has today; it may only shrink:
``tests/test_types.py`` fails when a file has more errors than the baseline says, and asks for this script when a
file has fewer (so the gain is kept).

    .venv/bin/python scripts/type_baseline.py           # compare the tree with the baseline, print the changes
    .venv/bin/python scripts/type_baseline.py --write   # write the baseline from the tree as it is now
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "types_baseline.json"
WRITE_COMMAND = ".venv/bin/python scripts/type_baseline.py --write"


def run_mypy(targets: tuple[str, ...] = ("rlworkbench",), cwd: Path = ROOT) -> list[dict[str, object]]:
    """mypy's diagnostics (``--output json``: file, line, code, message, severity) for ``targets``, read with the
    project's settings and its incremental cache. Raises when mypy itself fails (a crash, a bad setting)."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--output", "json",
               "--no-error-summary", *targets]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):  # 0: clean, 1: type errors found, 2: mypy could not run
        raise RuntimeError(f"mypy failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def errors_per_file(diagnostics: list[dict[str, object]]) -> dict[str, int]:
    """Errors (notes left out) per file, the paths relative to the repository root with forward slashes."""
    counts = Counter(Path(str(d["file"])).as_posix() for d in diagnostics if d.get("severity") == "error")
    return dict(sorted(counts.items()))


def compare(baseline: dict[str, int], current: dict[str, int]) -> tuple[dict[str, tuple[int, int]],
                                                                       dict[str, tuple[int, int]]]:
    """``(grown, shrunk)``: files with more errors than their baseline (a file not in it has 0), and files with
    fewer; each as path -> (baseline, now)."""
    grown = {path: (baseline.get(path, 0), count) for path, count in current.items() if count > baseline.get(path, 0)}
    shrunk = {path: (count, current.get(path, 0)) for path, count in baseline.items() if current.get(path, 0) < count}
    return grown, shrunk


def read_baseline(path: Path = BASELINE) -> dict[str, int]:
    return json.loads(path.read_text())["errors_per_file"] if path.exists() else {}


def write_baseline(current: dict[str, int], path: Path = BASELINE) -> None:
    document = {"about": f"mypy errors per file of rlworkbench/, may only shrink; regenerate: {WRITE_COMMAND}",
                "total": sum(current.values()), "errors_per_file": current}
    path.write_text(json.dumps(document, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write types_baseline.json from the tree")
    args = parser.parse_args(argv)
    current = errors_per_file(run_mypy())
    if args.write:
        write_baseline(current)
        print(f"types_baseline.json: {sum(current.values())} errors in {len(current)} files")
        return 0
    grown, shrunk = compare(read_baseline(), current)
    for label, changes in (("more errors than the baseline", grown), ("fewer errors than the baseline", shrunk)):
        for path, (before, now) in changes.items():
            print(f"{label}: {path} {before} -> {now}")
    print(f"{sum(current.values())} errors now, {sum(read_baseline().values())} in the baseline")
    return 1 if grown else 0


if __name__ == "__main__":
    sys.exit(main())
