"""Several objectives and outcome constraints (issue 21 parts 2 and 3) from
Python: the YAML of `vernier jobs submit` and a mapping, both read by the
server's ParseStudySpec; the leaderboard is the Pareto front with every
metric."""

from __future__ import annotations

import os
from typing import Any, Dict

import pytest

import vernier

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "hptuning_multi_objective.yaml")


def accuracy_and_weights(parameters: Dict[str, Any]) -> Dict[str, float]:
    """A stand-in for examples/trainer/train.py: bigger models learn better."""
    layers = parameters["hidden_layers"]
    units = parameters.get("hidden_units", 0.0)
    weights = 3 if layers == 0 else 3 * units + (layers - 1) * (units + 1) * units + units + 1
    accuracy = 0.8 + 0.15 * (1 - 1 / (1 + weights / 50)) - 0.01 * abs(
        parameters["learning_rate"] - 0.1)
    return {"accuracy": accuracy, "weights": float(weights)}


def dominates(a: Dict[str, float], b: Dict[str, float]) -> bool:
    return (a["accuracy"] >= b["accuracy"] and a["weights"] <= b["weights"]
            and (a["accuracy"] > b["accuracy"] or a["weights"] < b["weights"]))


def test_the_jobs_yaml_with_two_objectives_and_conditions_drives_a_study(
        client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, EXAMPLE, seed=4)
    assert study.metric_names == ["accuracy", "weights"]
    assert study.objectives == {"accuracy": "MAXIMIZE", "weights": "MINIMIZE"}
    assert study.constraints == {}
    results = {}
    for _ in range(4):  # Past the quasi-random start: the GP of several objectives.
        for trial in study.suggest(count=3):
            if trial.parameters["hidden_layers"] == 0:
                assert "hidden_units" not in trial.parameters
            results[trial.id] = accuracy_and_weights(trial.parameters)
            trial.complete(results[trial.id])
    board = study.leaderboard(top=0)
    assert board.metric_names == ["accuracy", "weights"]
    front = {row.trial_id for row in board}
    assert front
    for row in board:
        assert set(row.metrics) == {"accuracy", "weights"}
        assert row.feasible is None
        assert not any(dominates(other, results[row.trial_id]) for other in results.values())
    for trial_id, metrics in results.items():
        if trial_id not in front:
            assert any(dominates(results[best], metrics) for best in front)
    text = str(board)
    assert "accuracy" in text and "weights" in text
    pandas = pytest.importorskip("pandas")
    frame = board.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert {"accuracy", "weights", "hidden_layers"} <= set(frame.columns)


def test_an_outcome_constraint_ranks_infeasible_trials_last(client: vernier.Client,
                                                            study_name: str) -> None:
    spec = {
        "metrics": [{"metricId": "loss", "goal": "MINIMIZE"},
                    {"metricId": "latency_ms", "constraint": {"maxValue": 50}}],
        "params": [{"parameterName": "layers", "type": "INTEGER", "minValue": 1,
                    "maxValue": 8}],
        "algorithm": "GAUSSIAN_PROCESS_BANDIT",
    }
    study = client.create_study(study_name, spec, seed=2)
    assert study.constraints == {"latency_ms": (None, 50.0)}
    assert study.objectives == {"loss": "MINIMIZE"}
    for trial in study.suggest(count=8):
        layers = trial.parameters["layers"]
        trial.complete(loss=1.0 / layers, latency_ms=10.0 * layers)
    board = study.leaderboard(top=0)
    feasibility = [row.feasible for row in board]
    assert feasibility == sorted(feasibility, reverse=True)  # every True before any False
    best = board[0]
    assert best.feasible and best.metrics["latency_ms"] <= 50
    assert study.best_trial.id == best.trial_id
    pandas = pytest.importorskip("pandas")
    assert "feasible" in board.to_dataframe().columns
    # More trials come from the GP with a model of the constraint.
    for trial in study.suggest(count=2):
        assert 1 <= trial.parameters["layers"] <= 8


def test_early_stopping_with_two_objectives_is_refused_naming_the_field(
        client: vernier.Client, study_name: str) -> None:
    spec = {
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                    {"metricId": "latency_ms", "goal": "MINIMIZE"}],
        "enableTrialEarlyStopping": True,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}],
    }
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, spec)
    assert "enableTrialEarlyStopping" in str(caught.value)
    assert "early stopping compares trials on one objective" in str(caught.value)


def test_metrics_beside_the_metric_tag_is_refused(client: vernier.Client,
                                                  study_name: str) -> None:
    spec = {
        "hyperparameterMetricTag": "accuracy",
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}],
    }
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, spec)
    assert "hyperparameterMetricTag" in str(caught.value)
    assert "not both" in str(caught.value)
