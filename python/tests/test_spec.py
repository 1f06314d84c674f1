"""The YAML `hyperparameters:` vocabulary to StudySpec, without a server."""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path
from typing import Any, Dict

import grpc
import pytest

import vernier
from vernier.spec import closest_match, study_spec_from
from vernier.v1 import study_pb2

from specs import mixed_spec, quadratic_spec


def one_param(**param: Any) -> Dict[str, Any]:
    spec = quadratic_spec()
    spec["params"] = [dict({"parameterName": "p"}, **param)]
    return spec


def error_of(spec: Any) -> vernier.InvalidArgument:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study_spec_from(spec)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value


def test_every_field_lands_in_the_proto() -> None:
    spec = mixed_spec(maxTrials=10, maxParallelTrials=3, maxFailedTrials=2,
                      enableTrialEarlyStopping=True,
                      earlyStopping={"policy": "MEDIAN_STOPPING", "minTrials": 3, "startStep": 5},
                      algorithm="QUASI_RANDOM_SEARCH", resumePreviousJobId="old_job")
    proto = study_spec_from(spec)
    assert [p.parameter_name for p in proto.parameters] == [
        "lr", "layers", "optimizer", "batch_size", "dropout"]
    lr = proto.parameters[0]
    assert lr.type == study_pb2.ParameterSpec.DOUBLE
    assert (lr.min_value, lr.max_value) == (1e-4, 0.1)
    assert lr.scale_type == study_pb2.ParameterSpec.UNIT_LOG_SCALE
    assert proto.parameters[2].categorical_values == ["adam", "sgd"]
    assert list(proto.parameters[3].discrete_values) == [16, 32, 64]
    assert proto.metrics[0].metric_id == "loss"
    assert proto.metrics[0].goal == study_pb2.MetricSpec.MINIMIZE
    assert proto.algorithm == study_pb2.QUASI_RANDOM_SEARCH
    assert (proto.max_trials, proto.max_parallel_trials, proto.max_failed_trials) == (10, 3, 2)
    assert proto.early_stopping.enabled
    assert proto.early_stopping.policy == study_pb2.EarlyStoppingSpec.MEDIAN_STOPPING
    assert (proto.early_stopping.min_trials, proto.early_stopping.start_step) == (3, 5)


def test_defaults_of_a_study_created_from_python() -> None:
    proto = study_spec_from({"params": quadratic_spec()["params"]})
    assert proto.metrics[0].metric_id == "training/hptuning/metric"
    assert proto.metrics[0].goal == study_pb2.MetricSpec.MAXIMIZE
    assert proto.algorithm == study_pb2.ALGORITHM_UNSPECIFIED
    # No limits unless asked for: the caller drives the study.
    assert (proto.max_trials, proto.max_parallel_trials, proto.max_failed_trials) == (0, 0, 0)
    assert not proto.early_stopping.enabled


def test_max_failed_trials_follows_the_job_rule() -> None:
    assert study_spec_from(quadratic_spec(maxTrials=9)).max_failed_trials == 4
    assert study_spec_from(quadratic_spec(maxTrials=1)).max_failed_trials == 1


def test_numbers_may_be_quoted_or_numpy_like() -> None:
    proto = study_spec_from(one_param(type="DOUBLE", minValue="1e-4", maxValue="+0.5"))
    assert (proto.parameters[0].min_value, proto.parameters[0].max_value) == (1e-4, 0.5)
    assert study_spec_from(quadratic_spec(maxTrials="7")).max_trials == 7


def test_a_proto_spec_is_copied() -> None:
    original = study_spec_from(quadratic_spec())
    copied = study_spec_from(original)
    assert copied == original and copied is not original


def test_the_input_mapping_is_not_changed() -> None:
    spec = mixed_spec()
    before = copy.deepcopy(spec)
    study_spec_from(spec)
    assert spec == before


@pytest.mark.parametrize("spec, field, problem", [
    ({"params": []}, "params", "at least one parameter is required"),
    ({}, "params", "at least one parameter is required"),
    (quadratic_spec(maxTrails=3), "maxTrails", 'unknown key "maxTrails"; did you mean "maxTrials"?'),
    (quadratic_spec(colour=3), "colour", 'unknown key "colour"; allowed: goal, '),
    (quadratic_spec(goal="max"), "goal", 'unknown goal "max"; allowed: MAXIMIZE, MINIMIZE'),
    (quadratic_spec(algorithm="BAYES"), "algorithm", 'unknown algorithm "BAYES"'),
    (quadratic_spec(hyperparameterMetricTag=""), "hyperparameterMetricTag",
     "the metric tag is empty"),
    (quadratic_spec(hyperparameterMetricTag=5), "hyperparameterMetricTag",
     "expected a string, got 5"),
    (quadratic_spec(maxTrials="ten"), "maxTrials", 'expected an integer, got "ten"'),
    (quadratic_spec(maxTrials=1.5), "maxTrials", "expected an integer, got 1.5"),
    (quadratic_spec(maxTrials=True), "maxTrials", "expected an integer, got True"),
    (quadratic_spec(maxTrials=2**31), "maxTrials", "expected an integer in [-2147483648, "),
    (quadratic_spec(maxTrials=0), "maxTrials", "must be at least 1, got 0"),
    (quadratic_spec(maxParallelTrials=0), "maxParallelTrials", "must be at least 1, got 0"),
    (quadratic_spec(maxTrials=2, maxParallelTrials=3), "maxParallelTrials",
     "must not exceed the maximum number of trials (2), got 3"),
    (quadratic_spec(maxFailedTrials=-1), "maxFailedTrials", "must not be negative, got -1"),
    (quadratic_spec(maxTrials=None), "maxTrials", "expected an integer, got nothing"),
    (quadratic_spec(enableTrialEarlyStopping="yes"), "enableTrialEarlyStopping",
     'expected true or false, got "yes"'),
    (quadratic_spec(earlyStopping={"policy": "ASHA"}), "earlyStopping",
     "is set but trial early stopping is not enabled"),
    (quadratic_spec(enableTrialEarlyStopping=False, earlyStopping={}), "earlyStopping",
     "is set but trial early stopping is not enabled"),
    (quadratic_spec(enableTrialEarlyStopping=True, earlyStopping={"minTrials": -2}),
     "earlyStopping.minTrials", "must not be negative, got -2"),
    (quadratic_spec(enableTrialEarlyStopping=True, earlyStopping={"startStep": -1}),
     "earlyStopping.startStep", "must not be negative, got -1"),
    (quadratic_spec(enableTrialEarlyStopping=True, earlyStopping={"policy": "FAST"}),
     "earlyStopping.policy", 'unknown early stopping policy "FAST"'),
    (quadratic_spec(enableTrialEarlyStopping=True, earlyStopping=[1]), "earlyStopping",
     "expected a mapping, got a list"),
    (quadratic_spec(resumePreviousJobId="9lives"), "resumePreviousJobId",
     'job id "9lives" must start with a letter'),
    (quadratic_spec(resumePreviousJobId="a-b"), "resumePreviousJobId",
     "job id \"a-b\" has '-' at position 1"),
    (quadratic_spec(params={"x": 1}), "params", "expected a list, got a mapping"),
    (quadratic_spec(params=["x"]), "params[0]", 'expected a mapping, got "x"'),
    (one_param(type="DOUBLE", minValue=5, maxValue=1), "params[0].maxValue",
     "the maximum (1) must be greater than the minimum (5)"),
    (one_param(type="DOUBLE", minValue=1, maxValue=1), "params[0].maxValue",
     "the maximum (1) must be greater than the minimum (1)"),
    (one_param(type="DOUBLE", minValue=0), "params[0].maxValue",
     'DOUBLE parameter "p" needs maxValue'),
    (one_param(type="INTEGER", maxValue=3), "params[0].minValue",
     'INTEGER parameter "p" needs minValue'),
    (one_param(type="DOUBLE", minValue=float("nan"), maxValue=1), "params[0].minValue",
     "expected a finite number, got nan"),
    (one_param(type="DOUBLE", minValue="-inf", maxValue=1), "params[0].minValue",
     'expected a finite number, got "-inf"'),
    (one_param(type="DOUBLE", minValue="0x10", maxValue=100), "params[0].minValue",
     'expected a number, got "0x10"'),
    (one_param(type="DOUBLE", minValue=0, maxValue=[1]), "params[0].maxValue",
     "expected a number, got a list"),
    (one_param(type="INTEGER", minValue=0.5, maxValue=3), "params[0].minValue",
     "an INTEGER parameter needs whole-number bounds, got 0.5"),
    (one_param(type="INTEGER", minValue=0, maxValue=2.0**60), "params[0].maxValue",
     "INTEGER bounds must lie within +-2^53"),
    (one_param(type="DOUBLE", minValue=0, maxValue=1, scaleType="UNIT_LOG_SCALE"),
     "params[0].minValue", "UNIT_LOG_SCALE needs a positive minimum, got 0"),
    (one_param(type="DOUBLE", minValue=0, maxValue=1, scaleType="LOG"), "params[0].scaleType",
     'unknown scale type "LOG"'),
    (one_param(type="FLOAT", minValue=0, maxValue=1), "params[0].type",
     'unknown parameter type "FLOAT"; allowed: DOUBLE, INTEGER, CATEGORICAL, DISCRETE'),
    (one_param(minValue=0, maxValue=1), "params[0].type",
     'parameter "p" needs a type: DOUBLE, INTEGER, CATEGORICAL or DISCRETE'),
    ({"params": [{"type": "CATEGORICAL", "categoricalValues": ["a"]}]},
     "params[0].parameterName", "the parameter name is required"),
    (one_param(parameterName="1st", type="CATEGORICAL", categoricalValues=["a"]),
     "params[0].parameterName", 'parameter name "1st" must start with a letter or'),
    (one_param(parameterName="a b", type="CATEGORICAL", categoricalValues=["a"]),
     "params[0].parameterName", 'parameter name "a b" must start'),
    (one_param(type="CATEGORICAL", categoricalValues=[]), "params[0].categoricalValues",
     'CATEGORICAL parameter "p" needs at least one value'),
    (one_param(type="CATEGORICAL"), "params[0].categoricalValues",
     'CATEGORICAL parameter "p" needs at least one value'),
    (one_param(type="CATEGORICAL", categoricalValues=["a", ""]),
     "params[0].categoricalValues[1]", "categorical values must not be empty"),
    (one_param(type="CATEGORICAL", categoricalValues=["a", "b", "a"]),
     "params[0].categoricalValues[2]", 'duplicate categorical value "a" (first at index 0)'),
    (one_param(type="CATEGORICAL", categoricalValues=["a", 1]),
     "params[0].categoricalValues[1]", "expected a string, got 1"),
    (one_param(type="CATEGORICAL", categoricalValues="abc"), "params[0].categoricalValues",
     'expected a list, got "abc"'),
    (one_param(type="CATEGORICAL", categoricalValues=["a"], scaleType="UNIT_LOG_SCALE"),
     "params[0].scaleType", "CATEGORICAL parameters cannot be scaled, got UNIT_LOG_SCALE"),
    (one_param(type="CATEGORICAL", categoricalValues=["a"], minValue=0), "params[0].minValue",
     "only DOUBLE and INTEGER parameters take bounds, this one is CATEGORICAL"),
    (one_param(type="DISCRETE", discreteValues=[1], maxValue=3), "params[0].maxValue",
     "only DOUBLE and INTEGER parameters take bounds, this one is DISCRETE"),
    (one_param(type="DOUBLE", minValue=0, maxValue=1, categoricalValues=["a"]),
     "params[0].categoricalValues",
     "only CATEGORICAL parameters take categorical values, this one is DOUBLE"),
    (one_param(type="INTEGER", minValue=0, maxValue=1, discreteValues=[1]),
     "params[0].discreteValues", "only DISCRETE parameters take discrete values, this one is "),
    (one_param(type="DISCRETE", discreteValues=[]), "params[0].discreteValues",
     'DISCRETE parameter "p" needs at least one value'),
    (one_param(type="DISCRETE", discreteValues=[1, 3, 2]), "params[0].discreteValues[2]",
     "values must be strictly increasing, but value 2 at index 2 follows 3 at index 1"),
    (one_param(type="DISCRETE", discreteValues=list(range(1001))), "params[0].discreteValues",
     "has 1001 values; at most 1000 are allowed"),
    (one_param(type="DISCRETE", discreteValues=[1, float("inf")]),
     "params[0].discreteValues[1]", "expected a finite number, got inf"),
    (one_param(type="DISCRETE", discreteValues=[0, 1], scaleType="UNIT_REVERSE_LOG_SCALE"),
     "params[0].discreteValues[0]", "UNIT_REVERSE_LOG_SCALE needs positive values, got 0"),
    (quadratic_spec(algorithm="GRID_SEARCH"), "params[0].type",
     'GRID_SEARCH cannot enumerate DOUBLE parameter "x"'),
    ({"params": quadratic_spec()["params"] * 2}, "params[1].parameterName",
     'duplicate parameter name "x" (first at index 0)'),
    ({"trainingInput": {"scaleTier": "BASIC"}}, "trainingInput.hyperparameters",
     "a study needs the hyperparameters block; this trainingInput has none"),
    ({"scaleTier": "BASIC", "jobDir": "/tmp"}, "hyperparameters",
     "a study needs the hyperparameters block"),
    ({"trainingInput": {"hyperparameters": quadratic_spec()}, "jobId": "x"}, "jobId",
     'unknown key "jobId"; only trainingInput may stand beside it'),
    ({"trainingInput": {"hyperparameters": quadratic_spec(maxTrials=-4)}},
     "trainingInput.hyperparameters.maxTrials", "must be at least 1, got -4"),
])
def test_a_bad_spec_names_its_field(spec: Any, field: str, problem: str) -> None:
    error = error_of(spec)
    assert error.field == field
    assert error.message.startswith(f"{field}: ")
    assert problem in error.message


def test_the_wrapped_forms_are_read() -> None:
    inner = quadratic_spec(maxTrials=5)
    expected = study_spec_from(inner)
    assert study_spec_from({"hyperparameters": inner, "scaleTier": "BASIC"}) == expected
    assert study_spec_from({"trainingInput": {"hyperparameters": inner}}) == expected


def test_a_spec_of_the_wrong_type() -> None:
    error = error_of(42)
    assert "a mapping or the path of a YAML file, got int" in error.message


def test_closest_match_allows_a_third_of_the_key_to_differ() -> None:
    keys = ["maxTrials", "maxParallelTrials", "goal"]
    assert closest_match("maxtrials", keys) == "maxTrials"
    assert closest_match("maxTiralls", keys) == "maxTrials"
    assert closest_match("gaol", keys) == "goal"
    assert closest_match("budget", keys) is None


# YAML files ---------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "hp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


HPTUNING = """
trainingInput:
  scaleTier: BASIC
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy
    maxTrials: 4
    maxParallelTrials: 2
    enableTrialEarlyStopping: true
    params:
      - parameterName: lr
        type: DOUBLE
        minValue: 1e-4
        maxValue: "0.1"
        scaleType: UNIT_LOG_SCALE
      - parameterName: optimizer
        type: CATEGORICAL
        categoricalValues: [adam, 1.10, "true"]
"""


def test_an_hptuning_config_file_is_read(tmp_path: Path) -> None:
    proto = study_spec_from(write(tmp_path, HPTUNING))
    assert proto.metrics[0].metric_id == "accuracy"
    assert proto.parameters[0].min_value == 1e-4
    # Scalars are read as written: 1.10 stays "1.10", as the C++ reader keeps it.
    assert proto.parameters[1].categorical_values == ["adam", "1.10", "true"]
    assert (proto.max_trials, proto.max_parallel_trials) == (4, 2)
    assert proto.early_stopping.enabled
    assert study_spec_from(str(write(tmp_path, HPTUNING))) == proto


def test_the_repository_example_config_is_read() -> None:
    import os
    source = Path(os.environ.get("VERNIER_SOURCE_DIR", Path(__file__).parents[2]))
    proto = study_spec_from(source / "examples" / "hptuning_config.yaml")
    assert len(proto.parameters) >= 1


@pytest.mark.parametrize("text, where, problem", [
    ("""
     goal: MAXIMIZE
     maxTrials: ten
     params: []
     """, "hp.yaml:2:12: maxTrials", 'expected an integer, got "ten"'),
    ("""
     maxTrails: 3
     """, "hp.yaml:1:1: maxTrails", 'did you mean "maxTrials"?'),
    ("""
     enableTrialEarlyStopping: yes
     """, "hp.yaml:1:27: enableTrialEarlyStopping", 'expected true or false, got "yes"'),
    ("""
     enableTrialEarlyStopping: "true"
     """, "hp.yaml:1:27: enableTrialEarlyStopping",
     'expected true or false, got the quoted string "true"'),
    ("""
     maxTrials:
     params: []
     """, "hp.yaml:1:1: maxTrials", "expected an integer, got nothing"),
    ("""
     maxTrials: 0x10
     """, "hp.yaml:1:12: maxTrials", 'expected an integer, got "0x10"'),
    ("""
     maxTrials: 3
     maxTrials: 4
     """, "hp.yaml:2:1: maxTrials", 'duplicate key "maxTrials" (first at line 1)'),
    ("""
     params:
       - parameterName: units
         type: INTEGER
         minValue: 5
         maxValue: 1
     """, "hp.yaml:5:5: params[0].maxValue", "the maximum (1) must be greater than the minimum (5)"),
    ("""
     params:
       - parameterName: units
         minValue: 5
         maxValue: 6
     """, "hp.yaml:2:5: params[0].type", 'parameter "units" needs a type'),
    ("""
     params:
       - parameterName: c
         type: CATEGORICAL
         categoricalValues: [a, b, a]
     """, "hp.yaml:4:31: params[0].categoricalValues[2]", 'duplicate categorical value "a"'),
    ("""
     trainingInput:
       hyperparameters:
         params:
           - parameterName: x
             type: DOUBLE
             minValue: .nan
             maxValue: 1
     """, "hp.yaml:6:19: trainingInput.hyperparameters.params[0].minValue",
     'expected a finite number, got ".nan"'),
])
def test_a_bad_file_names_file_line_column_and_field(tmp_path: Path, text: str, where: str,
                                                     problem: str) -> None:
    path = write(tmp_path, text)
    error = error_of(path)
    assert error.message.startswith(f"{tmp_path}/{where}: "), error.message
    assert problem in error.message


@pytest.mark.parametrize("text, problem", [
    ("", "hp.yaml:1:1: the document is empty"),
    ("params: [a, b\n", "YAML syntax error"),
    ("- a\n- b\n", "hp.yaml:1:1: expected a mapping (the hyperparameters block), got a list"),
    ("? [a]\n: 1\n", "keys must be plain names, got a list"),
])
def test_unreadable_yaml(tmp_path: Path, text: str, problem: str) -> None:
    error = error_of(write(tmp_path, text))
    assert problem in error.message


def test_a_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(vernier.NotFound) as caught:
        study_spec_from(tmp_path / "nope.yaml")
    assert caught.value.code == grpc.StatusCode.NOT_FOUND
    assert f'config file "{tmp_path}/nope.yaml" does not exist' in caught.value.message


def test_a_directory_is_not_a_spec(tmp_path: Path) -> None:
    assert "is a directory" in error_of(tmp_path).message
