"""Checkpoints a run can go on from: the agent's checkpoint and the run's progress in one directory, written whole
or not at all.

:func:`save_resume_point` writes both into a hidden sibling (``.partial-<name>-<pid>``) and renames it into place,
so a process killed while it writes leaves the previous checkpoints as they were and no half-written one under a
real name. :func:`newest_resume_point` is the one a run goes on from: the complete checkpoint (agent manifest and
weights checksums verified, progress readable) that got furthest — ``final`` included, so a finished run can be
extended.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from rlworkbench.agents.checkpoint import read_checkpoint
from rlworkbench.agents.protocols import Checkpointing
from rlworkbench.errors import CheckpointError
from rlworkbench.execution.progress import PROGRESS_FILE, HasProgress, has_progress, read_progress, save_progress

PARTIAL_PREFIX = ".partial-"


def save_resume_point(agent: Checkpointing, directory: Path, progress: HasProgress | None = None) -> Path:
    """``agent.save`` and (if given) the run's progress into ``directory``, atomically (see the module docstring);
    an existing directory of that name (``final`` of an earlier part) is replaced. Returns ``directory``."""
    directory = Path(directory)
    partial = directory.with_name(f"{PARTIAL_PREFIX}{directory.name}-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        agent.save(str(partial))
        if progress is not None:
            save_progress(progress, partial)
        if directory.exists():  # aside first: a directory is renamed only onto an empty one
            old = directory.with_name(f"{PARTIAL_PREFIX}old-{directory.name}-{os.getpid()}")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(directory, old)
            os.replace(partial, directory)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(partial, directory)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    with contextlib.suppress(OSError):  # the rename durable where the platform allows it
        descriptor = os.open(directory.parent, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    return directory


def resume_points(run_dir: str | Path) -> list[tuple[int, Path]]:
    """``(timesteps, path)`` of every complete checkpoint with progress under ``<run_dir>/checkpoints``, furthest
    first (a broken or half-written one is skipped)."""
    return [(timesteps, path) for timesteps, path in _candidates(run_dir) if is_complete(path)]


def newest_resume_point(run_dir: str | Path) -> Path:
    """The complete checkpoint of ``run_dir`` that got furthest (checked from the furthest down, so a long run's
    many checkpoints are not all read); a CheckpointError naming the folder if none is."""
    for _, path in _candidates(run_dir):
        if is_complete(path):
            return path
    raise CheckpointError("the run has no complete checkpoint to go on from (it saves one every checkpoint_every, "
                          "and when it stops or finishes)", argument="resume",
                          expected=f"a checkpoint with progress under {Path(run_dir) / 'checkpoints'}", got="none")


def _candidates(run_dir: str | Path) -> list[tuple[int, Path]]:
    """Checkpoints whose progress file says how far they got, furthest first (``final`` before a step of the same
    count); nothing verified yet."""
    folder = Path(run_dir) / "checkpoints"
    found = []
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.name.startswith(".") or not path.is_dir() or not has_progress(path):
            continue
        try:
            timesteps = int(json.loads((path / PROGRESS_FILE).read_text())["timesteps"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found.append((timesteps, path))
    return sorted(found, key=lambda item: (item[0], item[1].name == "final"), reverse=True)


def is_complete(path: Path) -> bool:
    """Whether ``path`` is a whole resume point: the agent's manifest and weights verify (checksums) and the
    progress reads."""
    try:
        read_checkpoint(path)
        read_progress(path)
    except CheckpointError:
        return False
    return True
