"""The connection to a server's StudyService: the gRPC channel and stub, the
calls with their deadline, and the mapping of failed calls to
:class:`vernier.VernierError` subclasses. Every other module talks to the
server through one :class:`Transport`."""

from __future__ import annotations

from typing import Any

import grpc

from vernier._stubs import study_service_pb2_grpc
from vernier.errors import from_rpc_error

# The largest answer read (64 MiB): list pages stay under 3 MiB, a trial
# with all its measurements may be larger.
MAX_RECEIVE_BYTES = 64 << 20


class Transport:
    """Calls StudyService methods on ``target``, each with a deadline of
    ``timeout`` seconds. Creating one does not connect; the first call does.
    May be shared by threads."""

    def __init__(self, target: str, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        # A client of its own service must not be sent through an http_proxy
        # meant for the web.
        # List pages stay under 3 MiB on the server; a trial with all its
        # measurements may be larger than gRPC's default 4 MiB.
        self._channel = grpc.insecure_channel(
            target, options=[("grpc.enable_http_proxy", 0),
                             ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)])
        self._stub = study_service_pb2_grpc.StudyServiceStub(self._channel)

    def call(self, method: str, request: Any) -> Any:
        """Calls one StudyService method, turning failures into VernierErrors."""
        try:
            return getattr(self._stub, method)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise from_rpc_error(error, self.target, self.timeout) from None

    def ready(self, timeout: float) -> bool:
        """True when the server answers within ``timeout`` seconds."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
            return True
        except grpc.FutureTimeoutError:
            return False

    def close(self) -> None:
        self._channel.close()
