"""The client retries UNAVAILABLE from a server it has reached (its store
restarting), and only from such a server, within ``retry_unavailable``.

The server here is a stand-in StudyService of a few lines: what is tested is
the client's transport, not the service."""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Iterator, List

import grpc
import pytest

import vernier
from vernier.v1 import study_service_pb2, study_service_pb2_grpc


class FlakyStudies(study_service_pb2_grpc.StudyServiceServicer):
    """Answers ListStudies, except that the calls numbered in ``failing``
    (from 1) fail with UNAVAILABLE, as a server whose store is away does."""

    def __init__(self) -> None:
        self.failing: List[int] = []
        self.calls = 0
        self._lock = threading.Lock()

    def ListStudies(self, request, context):  # noqa: N802 - the gRPC method's name
        with self._lock:
            self.calls += 1
            call = self.calls
        if call in self.failing:
            context.abort(grpc.StatusCode.UNAVAILABLE,
                          "PostgreSQL store: listing studies failed: lost the connection")
        return study_service_pb2.ListStudiesResponse()


@pytest.fixture()
def flaky() -> Iterator[tuple]:
    service = FlakyStudies()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    study_service_pb2_grpc.add_StudyServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield service, f"127.0.0.1:{port}"
    server.stop(None)


def test_unavailable_is_retried_once_the_server_answered(flaky: tuple) -> None:
    service, target = flaky
    client = vernier.Client(target, timeout=5, token="t", retry_unavailable=30)
    assert client.list_studies() == []
    service.failing = [2, 3]
    assert client.list_studies() == []
    assert service.calls == 4
    client.close()


def test_unavailable_past_the_retry_limit_is_raised(flaky: tuple) -> None:
    service, target = flaky
    client = vernier.Client(target, timeout=5, token="t", retry_unavailable=0.5)
    assert client.list_studies() == []
    service.failing = list(range(2, 100))
    with pytest.raises(vernier.Unavailable) as caught:
        client.list_studies()
    assert "lost the connection" in caught.value.message
    assert service.calls >= 2
    client.close()


def test_retry_unavailable_zero_never_retries(flaky: tuple) -> None:
    service, target = flaky
    client = vernier.Client(target, timeout=5, token="t", retry_unavailable=0)
    assert client.list_studies() == []
    service.failing = [2]
    with pytest.raises(vernier.Unavailable):
        client.list_studies()
    assert service.calls == 2
    client.close()


def test_a_server_never_answered_is_not_retried(flaky: tuple) -> None:
    service, target = flaky
    service.failing = [1]
    client = vernier.Client(target, timeout=5, token="t", retry_unavailable=30)
    with pytest.raises(vernier.Unavailable):
        client.list_studies()
    assert service.calls == 1
    client.close()
