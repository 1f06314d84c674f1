"""Conditional parameters (Vertex AI's conditionalParameterSpecs) from a
Python mapping: the same spec the CLI reads, through the server's
ParseStudySpec."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import vernier


def conditional_spec(algorithm: str = "RANDOM_SEARCH") -> Dict[str, Any]:
    return {
        "hyperparameterMetricTag": "accuracy",
        "goal": "MAXIMIZE",
        "maxTrials": 40,
        "maxParallelTrials": 40,
        "algorithm": algorithm,
        "params": [
            {"parameterName": "model", "type": "CATEGORICAL",
             "categoricalValues": ["linear", "dnn"],
             "conditionalParameterSpecs": [
                 {"parentCategoricalValues": {"values": ["linear"]},
                  "parameterSpec": {"parameterName": "l2", "type": "DOUBLE",
                                    "minValue": 1e-6, "maxValue": 0.1,
                                    "scaleType": "UNIT_LOG_SCALE"}},
                 {"parentCategoricalValues": {"values": ["dnn"]},
                  "parameterSpec": {
                      "parameterName": "layers", "type": "INTEGER",
                      "minValue": 1, "maxValue": 4,
                      "conditionalParameterSpecs": [
                          {"parentIntValues": {"values": [3, 4]},
                           "parameterSpec": {"parameterName": "dropout", "type": "DISCRETE",
                                             "discreteValues": [0.1, 0.3]}}]}}]},
            {"parameterName": "lr", "type": "DOUBLE", "minValue": 0.001, "maxValue": 0.1},
        ],
    }


def expected_names(parameters: Dict[str, Any]) -> set:
    names = {"model", "lr"}
    if parameters["model"] == "linear":
        names.add("l2")
    else:
        names.add("layers")
        if parameters["layers"] >= 3:
            names.add("dropout")
    return names


@pytest.mark.parametrize("algorithm", ["RANDOM_SEARCH", "GAUSSIAN_PROCESS_BANDIT"])
def test_suggestions_carry_only_their_active_parameters(client: vernier.Client, study_name: str,
                                                        algorithm: str) -> None:
    study = client.create_study(study_name, conditional_spec(algorithm), seed=3)
    assert study.parameter_names == ["model", "l2", "layers", "dropout", "lr"]
    seen = set()
    for trial in study.suggest(count=30):
        assert set(trial.parameters) == expected_names(trial.parameters), trial.parameters
        seen.update(trial.parameters)
        if trial.parameters.get("dropout") is not None:
            assert trial.parameters["dropout"] in (0.1, 0.3)
    assert seen == {"model", "l2", "layers", "dropout", "lr"}


def test_the_leaderboard_shows_inactive_parameters_as_absent(client: vernier.Client,
                                                              study_name: str) -> None:
    study = client.create_study(study_name, conditional_spec(), seed=5)
    for trial in study.suggest(count=12):
        trial.complete({"accuracy": 1.0 if trial.parameters["model"] == "dnn" else 0.5})
    board = study.leaderboard(top=0)
    assert len(board) == 12
    for row in board:
        assert set(row.parameters) == expected_names(row.parameters)
        assert "None" not in str(board)
    pandas = pytest.importorskip("pandas")
    frame = board.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    linear = frame[frame["model"] == "linear"]
    if len(linear):
        assert linear["layers"].isna().all()


def test_a_trial_created_by_hand_must_leave_inactive_parameters_out(
        client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, conditional_spec(), seed=5)
    trial = study.add_trial({"model": "linear", "l2": 0.001, "lr": 0.01})
    assert set(trial.parameters) == {"model", "l2", "lr"}
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.add_trial({"model": "linear", "l2": 0.001, "layers": 2, "lr": 0.01})
    assert 'parameter "layers": is inactive' in str(caught.value)


def test_a_bad_condition_names_its_field(client: vernier.Client, study_name: str) -> None:
    spec = conditional_spec()
    spec["params"][0]["conditionalParameterSpecs"][0]["parentCategoricalValues"]["values"] = [
        "cnn"]
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, spec)
    message = str(caught.value)
    assert "params[0].conditionalParameterSpecs[0].parentCategoricalValues.values[0]" in message
    assert '"cnn" is not a value of parent "model"' in message
