"""Study specs the tests share."""

from __future__ import annotations

from typing import Any, Dict


def quadratic_spec(**overrides: Any) -> Dict[str, Any]:
    """A one-parameter study minimising `loss`."""
    spec: Dict[str, Any] = {
        "goal": "MINIMIZE",
        "hyperparameterMetricTag": "loss",
        "algorithm": "RANDOM_SEARCH",
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": -5, "maxValue": 5}],
    }
    spec.update(overrides)
    return spec


def mixed_spec(**overrides: Any) -> Dict[str, Any]:
    """One parameter of every type."""
    spec = quadratic_spec(**overrides)
    spec["params"] = [
        {"parameterName": "lr", "type": "DOUBLE", "minValue": 1e-4, "maxValue": 0.1,
         "scaleType": "UNIT_LOG_SCALE"},
        {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 4},
        {"parameterName": "optimizer", "type": "CATEGORICAL",
         "categoricalValues": ["adam", "sgd"]},
        {"parameterName": "batch_size", "type": "DISCRETE", "discreteValues": [16, 32, 64]},
        {"parameterName": "dropout", "type": "DISCRETE", "discreteValues": [0.1, 0.25, 0.5]},
    ]
    return spec
