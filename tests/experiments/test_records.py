"""The record stream of an experiment and the book that reads it: every record applied once, in order, however
many threads follow the file; a trial rewound to an earlier checkpoint keeps one history; the best trial."""

from __future__ import annotations

import json
import threading

from rlworkbench.workbench.experiments.records import ExperimentBook, FileFollower, RecordWriter, parse_record


def _result(trial: str, timesteps: int, value: float) -> dict:
    return {"kind": "result", "trial": trial, "timesteps": timesteps, "return": value, "per_seed": {"0": value}}


def test_two_readers_of_a_growing_file_apply_each_record_once(tmp_path):
    path = tmp_path / "records.jsonl"
    writer = RecordWriter(path)
    book = ExperimentBook(["lr"], [0], budget=10_000)
    follower = FileFollower(path, book.apply, interval=0.001).start()
    readers = [threading.Thread(target=lambda: [follower.read_all() for _ in range(300)]) for _ in range(2)]
    for reader in readers:
        reader.start()
    for step in range(1, 301):
        writer("result", **{k: v for k, v in _result("a", step * 10, float(step)).items() if k != "kind"})
    for reader in readers:
        reader.join()
    follower.close()
    assert book.records == 300 and [p["timesteps"] for p in book.points] == [step * 10 for step in range(1, 301)]


def test_a_rewound_trial_keeps_one_history_and_the_best_is_of_the_furthest(tmp_path):
    book = ExperimentBook(["lr"], [0], budget=1000)
    for record in [{"kind": "trial", "trial": "a", "params": {"lr": 1e-3}},
                   {"kind": "trial", "trial": "b", "params": {"lr": 1e-2}},
                   _result("a", 250, 20.0), _result("a", 500, 30.0), _result("b", 250, 90.0),
                   _result("a", 250, 25.0),  # a went on from its checkpoint at 0 (PBT, a resume)
                   _result("a", 500, 40.0), _result("a", 750, 50.0)]:
        book.apply(record)
    curve = [(p["timesteps"], p["return"]) for p in book.points if p["trial"] == "a"]
    assert curve == [(250, 25.0), (500, 40.0), (750, 50.0)]
    assert book.best_trial() == "a"  # b scored more, but at 250 steps only
    table = book.trials_table().set_index("trial")
    assert table.loc["a", "best_return"] == 50.0 and table.loc["b", "lr"] == 1e-2


def test_records_are_json_lines_with_non_finite_numbers_as_null(tmp_path):
    writer = RecordWriter(tmp_path / "records.jsonl")
    writer("result", trial="a", timesteps=10, **{"return": float("nan")})
    line = (tmp_path / "records.jsonl").read_text().strip()
    assert json.loads(line)["return"] is None and parse_record(line)["trial"] == "a"
    assert parse_record("rlworkbench-experiment " + line)["kind"] == "result"
    assert parse_record("2026-11-27 INFO something else") is None
