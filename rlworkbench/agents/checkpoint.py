"""Checkpoints on disk: tensors as one NumPy ``.npz`` file, everything else as JSON, written atomically.

A checkpoint directory holds ``agent.json`` (format version, agent type, config, counters, a manifest of the
variables) and the weights file that ``agent.json`` names (``weights-<id>.npz``). A save writes a new weights
file under a temporary name, renames it, then replaces ``agent.json`` the same way (``os.replace``) and only then
deletes older weights files. A crash at any point leaves an ``agent.json`` that names a complete weights file, so
the previous checkpoint stays readable. Reading never unpickles (``allow_pickle=False``).

Integrity: ``agent.json`` carries the SHA-256 of the weights file and a checksum of itself; reading checks both,
the manifest's structure (variables, counters) and that the weights file is a plain ``weights-<16 hex>.npz`` name
inside the directory — a changed byte, a hand-edited manifest or a path pointing elsewhere is a CheckpointError.
OS errors (an unwritable directory) are CheckpointErrors too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import uuid
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rlworkbench.errors import CheckpointError

FORMAT_VERSION = 2  # 2: checksums of the manifest and the weights file
MANIFEST = "agent.json"
WEIGHTS_NAME = re.compile(r"weights-[0-9a-f]{16}\.npz")


def write_checkpoint(directory: str | Path, arrays: Mapping[str, np.ndarray], state: Mapping[str, object]) -> Path:
    """Writes ``arrays`` (name → array) and the JSON-able ``state`` into ``directory``; returns the directory."""
    directory = Path(directory)
    try:
        return _write(directory, arrays, state)
    except OSError as error:
        raise CheckpointError(f"cannot write the checkpoint: {error.strerror or error}", argument="directory",
                              expected="a writable directory", got=str(directory)) from None


def _write(directory: Path, arrays: Mapping[str, np.ndarray], state: Mapping[str, object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    weights_name = f"weights-{uuid.uuid4().hex[:16]}.npz"
    manifest = {"format": FORMAT_VERSION, **state, "weights_file": weights_name,
                "variables": {name: {"shape": list(np.shape(a)), "dtype": np.asarray(a).dtype.str}
                              for name, a in arrays.items()}}
    json.dumps(manifest)  # fails here, before any file is touched, if not JSON-able
    _atomic_write(directory / weights_name, lambda f: np.savez(f, **{k: np.asarray(v) for k, v in arrays.items()}))
    manifest["weights_sha256"] = _file_digest(directory / weights_name)
    manifest["checksum"] = _manifest_digest(manifest)
    text = json.dumps(manifest, indent=1, sort_keys=True)
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
    """``(arrays, state)`` of a checkpoint; a CheckpointError if anything is missing, unreadable, changed or
    inconsistent (checksums, the manifest's structure, the arrays' names, shapes and dtypes)."""
    directory = Path(directory)
    try:
        state = json.loads((directory / MANIFEST).read_text(encoding="utf-8"),
                           parse_constant=_no_constant)
    except FileNotFoundError:
        raise CheckpointError("no checkpoint here", expected=f"a directory with {MANIFEST}",
                              got=str(directory)) from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise CheckpointError(f"unreadable {MANIFEST}: {type(error).__name__}: {error}", got=str(directory)) from None
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION:
        got = repr(state.get("format")) if isinstance(state, dict) else type(state).__name__
        raise CheckpointError("unknown checkpoint format (a checkpoint of another rlworkbench version; format 1 "
                              "had no checksums)", key_path="format", expected=f"format {FORMAT_VERSION}", got=got)
    _check_manifest(state)
    if state["checksum"] != _manifest_digest(state):
        raise CheckpointError(f"{MANIFEST} was changed after it was written (its checksum does not match)",
                              key_path="checksum", expected=state["checksum"], got=_manifest_digest(state))
    weights_file = directory / state["weights_file"]
    try:
        digest = _file_digest(weights_file)
    except OSError as error:
        raise CheckpointError(f"unreadable weights file: {error.strerror or error}", got=str(weights_file)) from None
    if digest != state["weights_sha256"]:
        raise CheckpointError("the weights file was changed after it was written (SHA-256 differs)",
                              key_path="weights_sha256", expected=state["weights_sha256"], got=digest)
    try:
        with np.load(weights_file, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise CheckpointError(f"unreadable weights file: {type(error).__name__}: {error}",
                              got=str(weights_file)) from None
    manifest = state["variables"]
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


def _check_manifest(state: dict[str, object]) -> None:
    """The manifest's structure: a plain weights file name, digests, variables and counters of the right kinds."""
    name = state.get("weights_file")
    if not isinstance(name, str) or not WEIGHTS_NAME.fullmatch(name):
        raise CheckpointError("the weights file must be a plain weights-<16 hex>.npz name in the checkpoint",
                              key_path="weights_file", expected="weights-<16 hex>.npz", got=repr(name))
    for key in ("weights_sha256", "checksum"):
        if not isinstance(state.get(key), str) or len(state[key]) != 64:
            raise CheckpointError("a checksum is missing", key_path=key, expected="a SHA-256 hex digest",
                                  got=repr(state.get(key)))
    variables = state.get("variables")
    if not isinstance(variables, dict):
        raise CheckpointError("the variables manifest must be an object", key_path="variables",
                              expected="{name: {shape, dtype}}", got=type(variables).__name__)
    for key, entry in variables.items():
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if not isinstance(shape, list) or not all(_natural(n) for n in shape) \
                or not isinstance(entry.get("dtype"), str):
            raise CheckpointError("bad variable entry", key_path=f"variables/{key}",
                                  expected="{shape: [int >= 0, ...], dtype: str}", got=repr(entry)[:120])
    counters = state.get("counters", {})
    if not isinstance(counters, dict) or not all(_natural(value) for value in counters.values()):
        raise CheckpointError("counters must be integers >= 0", key_path="counters",
                              expected="{name: int >= 0}", got=repr(counters)[:120])


def _natural(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _manifest_digest(manifest: Mapping[str, object]) -> str:
    body = {key: value for key, value in manifest.items() if key != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
