"""Specs in the YAML `hyperparameters:` vocabulary, read by the server: what
the client sends (a file's text, a mapping as JSON) and how the server's
answers and errors reach Python. The golden corpus (test_spec_corpus.py)
covers the reader's rules themselves."""

from __future__ import annotations

import copy
import numbers
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterator

import grpc
import pytest

import vernier
from vernier._transport import find_token
from vernier.v1 import study_pb2, study_service_pb2, study_service_pb2_grpc

from specs import mixed_spec, quadratic_spec


def one_param(**param: Any) -> Dict[str, Any]:
    spec = quadratic_spec()
    spec["params"] = [dict({"parameterName": "p"}, **param)]
    return spec


def error_of(client: vernier.Client, spec: Any) -> vernier.InvalidArgument:
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.parse_study_spec(spec)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value


def test_every_field_of_a_mapping_lands_in_the_proto(client: vernier.Client) -> None:
    spec = mixed_spec(maxTrials=10, maxParallelTrials=3, maxFailedTrials=2,
                      enableTrialEarlyStopping=True,
                      earlyStopping={"policy": "MEDIAN_STOPPING", "minTrials": 3, "startStep": 5},
                      algorithm="QUASI_RANDOM_SEARCH", resumePreviousJobId="old_job")
    proto = client.parse_study_spec(spec)
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


def test_asha_settings_are_accepted(client: vernier.Client, study_name: str) -> None:
    # The client's own reader once refused these keys, which jobs accept.
    spec = quadratic_spec(maxTrials=16, enableTrialEarlyStopping=True, earlyStopping={
        "policy": "ASHA", "gracePeriod": 2, "reductionFactor": 3, "maxStep": 18})
    study = client.create_study(study_name, spec)
    early = study.spec.early_stopping
    assert (early.policy, early.grace_period, early.reduction_factor, early.max_step) == (
        study_pb2.EarlyStoppingSpec.ASHA, 2, 3.0, 18)


def test_defaults_of_a_study_created_from_python(client: vernier.Client) -> None:
    proto = client.parse_study_spec({"params": quadratic_spec()["params"]})
    assert proto.metrics[0].metric_id == "training/hptuning/metric"
    assert proto.metrics[0].goal == study_pb2.MetricSpec.MAXIMIZE
    assert proto.algorithm == study_pb2.ALGORITHM_UNSPECIFIED
    # No limits unless asked for: the caller drives the study.
    assert (proto.max_trials, proto.max_parallel_trials, proto.max_failed_trials) == (0, 0, 0)
    assert not proto.early_stopping.enabled


def test_max_failed_trials_follows_the_job_rule(client: vernier.Client) -> None:
    assert client.parse_study_spec(quadratic_spec(maxTrials=9)).max_failed_trials == 4
    assert client.parse_study_spec(quadratic_spec(maxTrials=1)).max_failed_trials == 1


class FakeInt:
    """Stands for numpy's integers: an Integral that is not an int."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value


numbers.Integral.register(FakeInt)


def test_numbers_may_be_quoted_or_numpy_like(client: vernier.Client) -> None:
    proto = client.parse_study_spec(one_param(type="DOUBLE", minValue="1e-4", maxValue="+0.5"))
    assert (proto.parameters[0].min_value, proto.parameters[0].max_value) == (1e-4, 0.5)
    assert client.parse_study_spec(quadratic_spec(maxTrials="7")).max_trials == 7
    assert client.parse_study_spec(quadratic_spec(maxTrials=FakeInt(6))).max_trials == 6


def test_a_proto_spec_is_copied(client: vernier.Client) -> None:
    original = client.parse_study_spec(quadratic_spec())
    copied = client.parse_study_spec(original)
    assert copied == original and copied is not original
    assert vernier.study_spec_from(original) == original


def test_study_spec_from_asks_the_given_client(client: vernier.Client) -> None:
    assert vernier.study_spec_from(quadratic_spec(), client) == \
        client.parse_study_spec(quadratic_spec())


def test_the_input_mapping_is_not_changed(client: vernier.Client) -> None:
    spec = mixed_spec()
    before = copy.deepcopy(spec)
    client.parse_study_spec(spec)
    assert spec == before


def test_the_wrapped_forms_are_read(client: vernier.Client) -> None:
    inner = quadratic_spec(maxTrials=5)
    expected = client.parse_study_spec(inner)
    assert client.parse_study_spec({"hyperparameters": inner, "scaleTier": "BASIC"}) == expected
    assert client.parse_study_spec({"trainingInput": {"hyperparameters": inner}}) == expected


@pytest.mark.parametrize("spec, field, problem", [
    ({"params": []}, "params", "at least one parameter is required"),
    ({}, "params", "at least one parameter is required"),
    (quadratic_spec(maxTrails=3), "maxTrails", 'unknown key "maxTrails"; did you mean "maxTrials"?'),
    (quadratic_spec(colour=3), "colour", 'unknown key "colour"; allowed: goal, '),
    (quadratic_spec(goal="max"), "goal", 'unknown goal "max"; allowed: MAXIMIZE, MINIMIZE'),
    (quadratic_spec(maxTrials=True), "maxTrials", 'expected an integer, got "true"'),
    (quadratic_spec(maxTrials=None), "maxTrials", "expected an integer, got nothing"),
    (quadratic_spec(maxTrials=2, maxParallelTrials=5), "maxParallelTrials",
     "must not exceed the maximum number of trials (2), got 5"),
    (quadratic_spec(enableTrialEarlyStopping="true"), "enableTrialEarlyStopping",
     'expected true or false, got the quoted string "true"'),
    (one_param(type="DOUBLE", minValue=float("nan"), maxValue=1), "params[0].minValue",
     'expected a finite number, got "NaN"'),
    (one_param(type="DOUBLE", minValue=5, maxValue=1), "params[0].maxValue",
     "the maximum (1) must be greater than the minimum (5)"),
    ({"trainingInput": {"scaleTier": "BASIC"}}, "trainingInput.hyperparameters",
     "a study needs the hyperparameters block; this trainingInput has none"),
])
def test_a_bad_mapping_names_its_field(client: vernier.Client, spec: Any, field: str,
                                       problem: str) -> None:
    # A mapping's errors name the field alone: the JSON the client wrote has
    # no lines worth pointing at.
    error = error_of(client, spec)
    assert error.field == field
    assert error.message.startswith(f"{field}: "), error.message
    assert problem in error.message


def test_a_bad_spec_fails_before_the_study_is_created(client: vernier.Client,
                                                      study_name: str) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, quadratic_spec(maxTrials=2, maxParallelTrials=5))
    assert caught.value.field == "maxParallelTrials"
    with pytest.raises(vernier.NotFound):
        client.get_study(study_name)


@pytest.mark.parametrize("spec, problem", [
    (42, "a study spec is a mapping, the path of a YAML or JSON file, or a vernier.v1.StudySpec, "
         "got int"),
    (quadratic_spec(goal=object()), "a study spec holds <object object"),
    ({("a", "b"): 1}, "a study spec mapping cannot be sent: keys must be"),
])
def test_what_cannot_be_sent_is_refused_by_the_client(client: vernier.Client, spec: Any,
                                                      problem: str) -> None:
    assert problem in error_of(client, spec).message


# Files ----------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "hp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_a_file_error_names_file_line_column_and_field(client: vernier.Client,
                                                       tmp_path: Path) -> None:
    path = write(tmp_path, """
        trainingInput:
          hyperparameters:
            enableTrialEarlyStopping: yes
        """)
    error = error_of(client, path)
    assert error.message == (
        f"{path}:3:31: trainingInput.hyperparameters.enableTrialEarlyStopping: "
        'expected true or false, got "yes"')
    assert error.field == "trainingInput.hyperparameters.enableTrialEarlyStopping"
    assert error_of(client, str(path)).message == error.message


def test_a_json_file_is_read_as_json(client: vernier.Client, tmp_path: Path) -> None:
    path = write(tmp_path, '{"maxTrials": 4, "params": [{"parameterName": "x", '
                           '"type": "INTEGER", "minValue": 0, "maxValue": 3}]}', "hp.json")
    assert client.parse_study_spec(path).max_trials == 4
    not_json = write(tmp_path, "maxTrials: 4\n", "yaml.json")
    assert error_of(client, not_json).message == \
        f'{not_json}:1:1: expected a JSON object, starting with "{{"'


def test_an_empty_file_is_invalid(client: vernier.Client, tmp_path: Path) -> None:
    path = write(tmp_path, "")
    assert error_of(client, path).message == \
        f"{path}:1:1: the document is empty; expected a hyperparameters mapping"


def test_a_missing_file_is_not_found(client: vernier.Client, tmp_path: Path) -> None:
    with pytest.raises(vernier.NotFound) as caught:
        client.parse_study_spec(tmp_path / "nope.yaml")
    assert caught.value.code == grpc.StatusCode.NOT_FOUND
    assert f'config file "{tmp_path}/nope.yaml" does not exist' in caught.value.message


def test_a_directory_is_not_a_spec(client: vernier.Client, tmp_path: Path) -> None:
    assert "is a directory" in error_of(client, tmp_path).message


def test_the_repository_example_config_is_read(client: vernier.Client) -> None:
    import os
    source = Path(os.environ.get("VERNIER_SOURCE_DIR", Path(__file__).parents[2]))
    proto = client.parse_study_spec(source / "examples" / "hptuning_config.yaml")
    assert len(proto.parameters) >= 1


# The RPC itself -----------------------------------------------------------------


class _BearerToken(grpc.UnaryUnaryClientInterceptor):
    """Sends the server's own token, as vernier.Client finds it."""

    def __init__(self, token: str) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),)

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        details = details._replace(metadata=tuple(details.metadata or ()) + self._metadata)
        return continuation(details, request)


@pytest.fixture
def stub(server: vernier.LocalServer) -> Iterator[study_service_pb2_grpc.StudyServiceStub]:
    channel = grpc.insecure_channel(server.target, options=[("grpc.enable_http_proxy", 0)])
    token = find_token(server.target) or ""
    yield study_service_pb2_grpc.StudyServiceStub(
        grpc.intercept_channel(channel, _BearerToken(token)))
    channel.close()


def rpc_error(stub: study_service_pb2_grpc.StudyServiceStub,
              request: study_service_pb2.ParseStudySpecRequest) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        stub.ParseStudySpec(request, timeout=10)
    return caught.value


def test_parse_study_spec_answers_invalid_argument_with_the_location(
        stub: study_service_pb2_grpc.StudyServiceStub) -> None:
    error = rpc_error(stub, study_service_pb2.ParseStudySpecRequest(
        text="goal: MAXIMIZE\nmaxTrials: ten\n", file_name="hp.yaml"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == 'hp.yaml:2:12: maxTrials: expected an integer, got "ten"'


def test_parse_study_spec_of_empty_text(stub: study_service_pb2_grpc.StudyServiceStub) -> None:
    error = rpc_error(stub, study_service_pb2.ParseStudySpecRequest(text=""))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == \
        "<spec>:1:1: the document is empty; expected a hyperparameters mapping"


def test_parse_study_spec_of_bad_syntax(stub: study_service_pb2_grpc.StudyServiceStub) -> None:
    error = rpc_error(stub, study_service_pb2.ParseStudySpecRequest(
        text="params: [a, b\n", format=study_service_pb2.SPEC_FORMAT_YAML, file_name="s.yaml"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith("s.yaml:")
    assert "YAML syntax error" in error.details()


def test_parse_study_spec_of_an_unknown_format(
        stub: study_service_pb2_grpc.StudyServiceStub) -> None:
    error = rpc_error(stub, study_service_pb2.ParseStudySpecRequest(text="{}", format=7))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith("format: unknown spec format 7")


def test_parse_study_spec_creates_nothing(client: vernier.Client,
                                          stub: study_service_pb2_grpc.StudyServiceStub) -> None:
    before = len(client.list_studies())
    response = stub.ParseStudySpec(study_service_pb2.ParseStudySpecRequest(
        text="params: [{parameterName: x, type: INTEGER, minValue: 0, maxValue: 1}]"), timeout=10)
    assert response.spec.parameters[0].parameter_name == "x"
    assert len(client.list_studies()) == before
