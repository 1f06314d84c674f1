"""Client calls about studies, and how server errors reach Python."""

from __future__ import annotations

import socket
import textwrap
import time
from pathlib import Path

import grpc
import pytest

import vernier
from vernier.v1 import study_pb2

from specs import mixed_spec, quadratic_spec


def test_create_get_and_list_a_study(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, mixed_spec(maxTrials=5), display_name="a test")
    assert study.name == study_name
    assert study.display_name == "a test"
    assert study.state == "ACTIVE"
    assert study.objective == "loss" and study.goal == "MINIMIZE"
    assert study.parameter_names == ["lr", "layers", "optimizer", "batch_size", "dropout"]
    assert study.spec.max_trials == 5
    assert study.create_time is not None and study.create_time.tzinfo is not None
    assert study.spec.HasField("seed")  # Chosen and stored by the server.

    fetched = client.get_study(study_name)
    assert fetched.proto == study.proto
    assert study_name in [listed.name for listed in client.list_studies()]
    assert repr(study).startswith(f"Study(name='{study_name}', state=ACTIVE")


def test_list_studies_reads_every_page(client: vernier.Client, study_name: str) -> None:
    # The server's default page holds fewer than this many studies.
    names = [f"{study_name}_{i}" for i in range(120)]
    for name in names:
        client.create_study(name, quadratic_spec())
    listed = {study.name for study in client.list_studies()}
    assert set(names) <= listed


def test_list_studies_reads_studies_larger_than_one_answer(client: vernier.Client,
                                                           study_name: str) -> None:
    # 20 studies of about 250 KB each: more than one 4 MiB answer holds, so
    # the server ends pages early and the client follows every one.
    values = [f"{i}" + "v" * 240 for i in range(1000)]
    spec = quadratic_spec(params=[
        {"parameterName": "choice", "type": "CATEGORICAL", "categoricalValues": values}])
    names = [f"{study_name}_{i}" for i in range(20)]
    for name in names:
        client.create_study(name, spec)
    listed = {study.name for study in client.list_studies()}
    assert set(names) <= listed


def test_oversized_fields_are_refused_naming_the_field(client: vernier.Client,
                                                       study_name: str) -> None:
    with pytest.raises(vernier.InvalidArgument, match=r"study\.display_name: is 3145728 bytes"):
        client.create_study(study_name, quadratic_spec(), display_name="d" * (3 << 20))


def test_create_is_idempotent_on_the_same_spec(client: vernier.Client, study_name: str) -> None:
    first = client.create_study(study_name, quadratic_spec())
    again = client.create_study(study_name, quadratic_spec())
    assert again.proto == first.proto


def test_create_with_another_spec_already_exists(client: vernier.Client,
                                                 study_name: str) -> None:
    client.create_study(study_name, quadratic_spec())
    with pytest.raises(vernier.AlreadyExists) as caught:
        client.create_study(study_name, quadratic_spec(goal="MAXIMIZE"))
    assert caught.value.code == grpc.StatusCode.ALREADY_EXISTS
    assert f'study "{study_name}" already exists with a different spec' in caught.value.message


def test_seed_is_kept(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec(), seed=1234)
    assert study.spec.seed == 1234


def test_seed_zero_is_a_seed_like_any_other(client: vernier.Client, study_name: str) -> None:
    first = client.create_study(study_name + "_a", quadratic_spec(), seed=0)
    second = client.create_study(study_name + "_b", quadratic_spec(), seed=0)
    assert first.spec.HasField("seed") and first.spec.seed == 0
    assert client.get_study(study_name + "_a").spec.seed == 0
    assert [t.parameters for t in first.suggest(3)] == [t.parameters for t in second.suggest(3)]
    # Re-running the same cell with seed=0 returns the study, not a conflict.
    assert client.create_study(study_name + "_a", quadratic_spec(), seed=0).spec.seed == 0
    with pytest.raises(vernier.AlreadyExists):
        client.create_study(study_name + "_a", quadratic_spec(), seed=1)


def test_same_seed_same_suggestions(client: vernier.Client, study_name: str) -> None:
    first = client.create_study(study_name + "_a", quadratic_spec(), seed=99)
    second = client.create_study(study_name + "_b", quadratic_spec(), seed=99)
    assert [t.parameters for t in first.suggest(3)] == [t.parameters for t in second.suggest(3)]


def test_create_from_a_yaml_file(client: vernier.Client, study_name: str,
                                 tmp_path: Path) -> None:
    path = tmp_path / "hp.yaml"
    path.write_text(textwrap.dedent("""
        trainingInput:
          hyperparameters:
            goal: MAXIMIZE
            hyperparameterMetricTag: accuracy
            maxTrials: 3
            params:
              - parameterName: units
                type: INTEGER
                minValue: 1
                maxValue: 9
    """))
    study = client.create_study(study_name, path)
    assert study.objective == "accuracy" and study.goal == "MAXIMIZE"
    assert study.spec.max_trials == 3
    assert study.spec.max_failed_trials == 1


def test_create_from_a_proto_spec(client: vernier.Client, study_name: str) -> None:
    spec = study_pb2.StudySpec()
    spec.parameters.add(parameter_name="x", type=study_pb2.ParameterSpec.DOUBLE,
                        min_value=0, max_value=1)
    spec.metrics.add(metric_id="a", goal=study_pb2.MetricSpec.MAXIMIZE)
    spec.metrics.add(metric_id="b", goal=study_pb2.MetricSpec.MINIMIZE)
    study = client.create_study(study_name, spec)
    assert [m.metric_id for m in study.spec.metrics] == ["a", "b"]


def test_a_bad_spec_fails_before_the_request(client: vernier.Client, study_name: str) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, quadratic_spec(maxTrials=2, maxParallelTrials=5))
    assert caught.value.field == "maxParallelTrials"
    with pytest.raises(vernier.NotFound):
        client.get_study(study_name)


def test_the_server_checks_what_the_client_sends(client: vernier.Client, study_name: str) -> None:
    # A proto spec skips the client's checks; the server's message comes back whole.
    spec = study_pb2.StudySpec()
    spec.parameters.add(parameter_name="x", type=study_pb2.ParameterSpec.DOUBLE,
                        min_value=5, max_value=1)
    spec.metrics.add(metric_id="loss", goal=study_pb2.MetricSpec.MINIMIZE)
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study(study_name, spec)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == (
        "spec.parameters[0].max_value: the maximum (1) must be greater than the minimum (5)")
    assert str(caught.value) == "INVALID_ARGUMENT: " + caught.value.message
    assert isinstance(caught.value, ValueError)


def test_a_bad_study_name_is_refused_by_the_server(client: vernier.Client) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.create_study("9 lives", quadratic_spec())
    assert 'study name "9 lives" must start with a letter' in caught.value.message


def test_unknown_study_is_not_found(client: vernier.Client) -> None:
    with pytest.raises(vernier.NotFound) as caught:
        client.get_study("no_such_study")
    assert caught.value.code == grpc.StatusCode.NOT_FOUND
    assert "no_such_study" in caught.value.message
    assert isinstance(caught.value, LookupError)


def test_delete_a_study(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec())
    study.delete()
    with pytest.raises(vernier.NotFound):
        client.get_study(study_name)
    with pytest.raises(vernier.NotFound):
        client.delete_study(study_name)
    with pytest.raises(vernier.NotFound):
        study.suggest()


def test_refresh_a_study(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec())
    assert study.refresh() is study
    assert study.state == "ACTIVE"


def test_localhost_target(server: vernier.LocalServer, study_name: str) -> None:
    with vernier.Client(f"localhost:{server.port}") as client:
        assert client.ping()
        assert client.create_study(study_name, quadratic_spec()).name == study_name


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_is_unavailable() -> None:
    target = f"127.0.0.1:{free_port()}"
    client = vernier.Client(target, timeout=5)
    assert not client.ping(timeout=0.5)
    started = time.monotonic()
    with pytest.raises(vernier.Unavailable) as caught:
        client.list_studies()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert f"cannot reach the Vernier server at {target}" in caught.value.message
    assert isinstance(caught.value, ConnectionError)
    with pytest.raises(vernier.Unavailable):
        client.create_study("s", quadratic_spec())
    with pytest.raises(vernier.Unavailable):
        client.get_study("s")
    client.close()
    assert time.monotonic() - started < 5  # Refused at once, not after the deadline.


def test_the_timeout_may_be_changed() -> None:
    # A listening socket nobody accepts on: only the deadline ends the call.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(0)
        with vernier.Client(f"127.0.0.1:{sock.getsockname()[1]}", timeout=300) as client:
            client.timeout = 0.5
            assert client.timeout == 0.5
            with pytest.raises(vernier.DeadlineExceeded) as caught:
                client.list_studies()
            assert "did not answer within 0.5 s" in caught.value.message


def test_a_server_that_does_not_answer_in_time() -> None:
    # A listening socket nobody accepts on: the connection never completes.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(0)
        target = f"127.0.0.1:{sock.getsockname()[1]}"
        client = vernier.Client(target, timeout=0.5)
        with pytest.raises(vernier.DeadlineExceeded) as caught:
            client.list_studies()
        assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert f"the Vernier server at {target} did not answer within 0.5 s" in \
            caught.value.message
        assert isinstance(caught.value, TimeoutError)


def test_error_classes_follow_the_status_code() -> None:
    from vernier.errors import error_for_code

    assert isinstance(error_for_code(grpc.StatusCode.FAILED_PRECONDITION, "m"),
                      vernier.FailedPrecondition)
    assert isinstance(error_for_code(grpc.StatusCode.ABORTED, "m"), vernier.Aborted)
    assert isinstance(error_for_code(grpc.StatusCode.INTERNAL, "m"), vernier.Internal)
    assert isinstance(error_for_code(grpc.StatusCode.UNIMPLEMENTED, "m"), vernier.Unimplemented)
    other = error_for_code(grpc.StatusCode.DATA_LOSS, "lost")
    assert type(other) is vernier.VernierError
    assert other.code == grpc.StatusCode.DATA_LOSS and str(other) == "DATA_LOSS: lost"
