"""Checkpoints on disk: tensors as one NumPy ``.npz`` file, everything else as JSON, written atomically.

A checkpoint directory holds ``agent.json`` (format version, agent type, config, counters, a manifest of the
variables) and the weights file that ``agent.json`` names (``weights-<id>.npz``). A save writes a new weights
file under a temporary name, renames it, then replaces ``agent.json`` the same way (``os.replace``) and only then
deletes older weights files. A crash at any point leaves an ``agent.json`` that names a complete weights file, so
the previous checkpoint stays readable. Reading never unpickles (``allow_pickle=False``).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench.errors import CheckpointError

FORMAT_VERSION = 1
MANIFEST = "agent.json"


def write_checkpoint(directory: str | Path, arrays: Mapping[str, np.ndarray], state: Mapping[str, Any]) -> Path:
    """Writes ``arrays`` (name → array) and the JSON-able ``state`` into ``directory``; returns the directory."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    weights_name = f"weights-{uuid.uuid4().hex[:16]}.npz"
    manifest = {"format": FORMAT_VERSION, **state, "weights_file": weights_name,
                "variables": {name: {"shape": list(np.shape(a)), "dtype": np.asarray(a).dtype.str}
                              for name, a in arrays.items()}}
    text = json.dumps(manifest, indent=1, sort_keys=True)  # fails here, before any file is touched, if not JSON-able
    _atomic_write(directory / weights_name, lambda f: np.savez(f, **{k: np.asarray(v) for k, v in arrays.items()}))
    try:
        _atomic_write(directory / MANIFEST, lambda f: f.write(text.encode("utf-8")))
    except BaseException:
        (directory / weights_name).unlink(missing_ok=True)
        raise
    _sync_directory(directory)
    for old in [*directory.glob("weights-*.npz"), *directory.glob(".*.tmp")]:  # older saves, crashed saves
        if old.name != weights_name:
            old.unlink(missing_ok=True)
    return directory


def _atomic_write(path: Path, write: Any) -> None:
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(temporary, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _sync_directory(directory: Path) -> None:
    """Makes the renames durable where the platform allows it (POSIX)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def read_checkpoint(directory: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``(arrays, state)`` of a checkpoint; a CheckpointError if anything is missing, unreadable or inconsistent
    (the arrays must match the manifest's names, shapes and dtypes)."""
    directory = Path(directory)
    try:
        state = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError("no checkpoint here", expected=f"a directory with {MANIFEST}",
                              got=str(directory)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"unreadable {MANIFEST}: {error}", got=str(directory)) from None
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION:
        got = state.get("format") if isinstance(state, dict) else type(state).__name__
        raise CheckpointError("unknown checkpoint format", expected=f"format {FORMAT_VERSION}", got=got)
    weights_file = directory / str(state.get("weights_file"))
    try:
        with np.load(weights_file, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise CheckpointError(f"unreadable weights file: {type(error).__name__}: {error}",
                              got=str(weights_file)) from None
    manifest = state.get("variables", {})
    if sorted(manifest) != sorted(arrays):
        raise CheckpointError("the weights file does not hold the variables its manifest lists",
                              expected=sorted(manifest), got=sorted(arrays))
    for name, entry in manifest.items():
        array = arrays[name]
        if list(array.shape) != entry.get("shape") or array.dtype.str != entry.get("dtype"):
            raise CheckpointError("a stored array differs from its manifest entry", key_path=name,
                                  expected=f"{entry.get('shape')} {entry.get('dtype')}",
                                  got=f"{list(array.shape)} {array.dtype.str}")
    return arrays, state
