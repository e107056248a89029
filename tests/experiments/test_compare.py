"""``compare()``: interval estimates computed by rliable — checked against rliable itself on a fixed score
matrix — overlapping intervals reported as such, performance profiles, sample-efficiency curves, the config diff,
several envs as tasks, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from experiment_helpers import small_dqn, write_run_dir
from rliable import library as rly
from rliable import metrics

from rlworkbench.errors import ConfigError
from rlworkbench.workbench.experiments.compare import compare
from rlworkbench.workbench.run_result import RunResult

SCORES = {"A": [120.0, 180.0, 240.0, 300.0, 460.0], "B": [20.0, 35.0, 50.0, 70.0, 90.0]}


def _runs(tmp_path, scores, learning_rates=None, env="CartPole-v1"):
    """Run directories whose last 10 episodes average exactly each score (earlier episodes score 0)."""
    groups = {}
    for index, (label, values) in enumerate(scores.items()):
        config = small_dqn()
        config["optimizer"]["learning_rate"] = (learning_rates or [1e-3, 2e-3, 3e-3])[index]
        groups[label] = [write_run_dir(tmp_path / f"{env}-{label}-{seed}", [0.0] * 30 + [value] * 10, config,
                                       env=env, seed=seed) for seed, value in enumerate(values)]
    return groups


@pytest.mark.filterwarnings("ignore:random_state is deprecated:FutureWarning")
def test_the_numbers_are_rliables_on_a_fixed_score_matrix(tmp_path):
    groups = _runs(tmp_path, SCORES)
    comparison = compare(groups, reps=500, seed=3)
    matrix = {label: np.array(values)[:, None] for label, values in SCORES.items()}
    aggregates = lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x),  # noqa: E731
                                     metrics.aggregate_median(x), metrics.aggregate_optimality_gap(x, 475.0)])
    np.random.seed(3)  # rliable resamples with NumPy's global generator; compare(seed=3) seeds it alike
    point, interval = rly.get_interval_estimates(matrix, aggregates, reps=500,
                                                 random_state=np.random.RandomState(3))
    table = comparison.table.set_index("group")
    for label in SCORES:
        for index, name in enumerate(["iqm", "mean", "median", "optimality_gap"]):
            assert table.loc[label, name] == pytest.approx(point[label][index])
            assert table.loc[label, f"{name}_low"] == pytest.approx(interval[label][0][index])
            assert table.loc[label, f"{name}_high"] == pytest.approx(interval[label][1][index])
    assert table.loc["A", "mean"] == pytest.approx(np.mean(SCORES["A"]))  # and the scores are what we meant
    assert table.loc["A", "runs"] == 5 and np.array_equal(comparison.scores["A"], matrix["A"])


def test_groups_whose_intervals_overlap_are_reported_as_such(tmp_path):
    close = compare(_runs(tmp_path / "close", {"A": [100, 150, 200, 250, 300], "B": [110, 160, 190, 240, 310]}),
                    reps=500)
    pair = close.pairs.iloc[0]
    assert bool(pair["overlap"]) and "no clear difference" in pair["verdict"]
    assert 0.2 < pair["p_a_better"] < 0.8 and pair["p_low"] <= pair["p_a_better"] <= pair["p_high"]
    apart = compare(_runs(tmp_path / "apart", SCORES), reps=500)
    pair = apart.pairs.iloc[0]
    assert not pair["overlap"] and pair["verdict"] == "A is better (CIs apart)" and pair["p_a_better"] > 0.9


def test_profiles_curves_diff_and_figure(tmp_path):
    runs = [path for paths in _runs(tmp_path, SCORES).values() for path in paths]
    comparison = compare(runs, by="config", reps=300, taus=[0, 100, 200, 500], points=5)
    profiles = comparison.profiles
    assert set(profiles["tau"]) == {0, 100, 200, 500} and len(profiles) == 8
    a = profiles[profiles["group"].str.contains("0.001")].set_index("tau")["fraction"]
    assert a[0] == 1.0 and a[200] == pytest.approx(0.6) and a[500] == 0.0  # fractions of runs above tau
    curves = comparison.curves
    assert len(curves) == 10 and (curves["low"] <= curves["iqm"] + 1e-9).all()
    assert list(comparison.config_diff.index) == ["optimizer/learning_rate"]
    assert comparison.table["group"].str.startswith("optimizer/learning_rate=").all()
    table, figure = comparison
    assert table is comparison.table and len(figure.axes) >= 6
    assert "<img" in comparison._repr_html_()


def test_runs_are_read_from_anywhere_and_envs_are_tasks(tmp_path):
    cartpole = _runs(tmp_path / "c", SCORES)
    acrobot = _runs(tmp_path / "a", {"A": [-100, -90, -80, -70, -60], "B": [-400, -380, -350, -300, -250]},
                    env="Acrobot-v1")
    mixed = {label: [RunResult(path) for path in cartpole[label]] + [str(path) for path in acrobot[label]]
             for label in SCORES}
    with pytest.raises(ConfigError, match="different scales"):
        compare(mixed)
    comparison = compare(mixed, normalize={"CartPole-v1": (0, 500), "Acrobot-v1": (-500, 0)}, reps=300)
    assert comparison.scores["A"].shape == (5, 2)  # runs x tasks: stratified over both envs
    assert comparison.tasks == ["Acrobot-v1", "CartPole-v1"]
    assert comparison.scores["A"][0].tolist() == pytest.approx([400 / 500, 120 / 500])
    assert comparison.table.set_index("group").loc["A", "optimality_gap"] >= 0  # gamma 1 on normalized scores


def test_an_env_without_threshold_has_no_optimality_gap_and_says_so(tmp_path):
    comparison = compare(_runs(tmp_path, SCORES, env="Pendulum-v1"), reps=200)
    assert comparison.table["optimality_gap"].isna().all() and "no optimality gap" in comparison.notes[0]
    assert compare(_runs(tmp_path / "g", SCORES, env="Pendulum-v1"), optimum=0.0, reps=200).table[
        "optimality_gap"].notna().all()


def test_bad_input_is_a_config_error(tmp_path):
    empty = tmp_path / "empty"
    write_run_dir(empty, [], small_dqn())
    with pytest.raises(ConfigError, match="no finished episode"):
        compare([empty])
    with pytest.raises(ConfigError, match="takes runs"):
        compare([42])
    with pytest.raises(ConfigError, match="not a run directory"):
        compare([tmp_path / "missing"])
    with pytest.raises(ConfigError, match="grouping"):
        compare(_runs(tmp_path / "r", SCORES)["A"], by="")


def test_the_same_seed_gives_the_same_intervals_and_leaves_numpy_alone(tmp_path):
    runs = _runs(tmp_path, SCORES)
    np.random.seed(11)
    expected_next = np.random.rand()
    np.random.seed(11)
    first = compare(runs, reps=300, seed=5).table
    assert np.random.rand() == expected_next  # the global generator's state was put back
    again = compare(runs, reps=300, seed=5).table
    assert first.equals(again)
