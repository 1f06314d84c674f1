"""The connection to a Vernier server."""

from __future__ import annotations

from typing import Any, List, Optional

import grpc

from vernier._stubs import study_pb2, study_service_pb2, study_service_pb2_grpc
from vernier.errors import from_rpc_error
from vernier.spec import SpecSource, study_spec_from
from vernier.study import PAGE_SIZE, Study

DEFAULT_TARGET = "localhost:7730"


class Client:
    """A client of ``vernier serve``'s StudyService.

    Creating a client does not connect; the first call does. Every call has a
    deadline of ``timeout`` seconds. The client may be shared by threads.

    Args:
        target: ``HOST:PORT`` of the server (``vernier serve`` listens on
            127.0.0.1:7730 by default).
        timeout: seconds each call may take before :class:`DeadlineExceeded`.

    Example::

        client = vernier.Client("localhost:7730")
        study = client.create_study("lr_sweep", {"goal": "MINIMIZE", ...})
    """

    def __init__(self, target: str = DEFAULT_TARGET, *, timeout: float = 30.0) -> None:
        self.target = target
        self.timeout = timeout
        # A client of its own service must not be sent through an http_proxy
        # meant for the web.
        self._channel = grpc.insecure_channel(target, options=[("grpc.enable_http_proxy", 0)])
        self._stub = study_service_pb2_grpc.StudyServiceStub(self._channel)

    def _call(self, method: str, request: Any) -> Any:
        """Calls one StudyService method, turning failures into VernierErrors."""
        try:
            return getattr(self._stub, method)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise from_rpc_error(error, self.target, self.timeout) from None

    def ping(self, timeout: float = 2.0) -> bool:
        """True when a server answers at :attr:`target` within ``timeout``
        seconds."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
            return True
        except grpc.FutureTimeoutError:
            return False

    def create_study(self, name: str, spec: SpecSource, *, display_name: str = "",
                     seed: Optional[int] = None) -> Study:
        """Creates a study, or returns the one of that name when its spec is
        the same (so re-running a notebook cell is harmless).

        Args:
            name: letters, digits, ``_`` and ``-``, starting with a letter.
            spec: the search space and objective in the YAML
                ``hyperparameters:`` vocabulary, as a mapping or the path of a
                YAML file (see :func:`vernier.spec.study_spec_from`)::

                    {"goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy",
                     "maxTrials": 20, "algorithm": "RANDOM_SEARCH",
                     "params": [{"parameterName": "lr", "type": "DOUBLE",
                                 "minValue": 1e-4, "maxValue": 0.1,
                                 "scaleType": "UNIT_LOG_SCALE"}]}
            display_name: free text shown beside the name.
            seed: the designers' seed, for reproducible suggestions; default:
                one chosen by the server.

        Raises:
            InvalidArgument: the spec or name breaks a rule; for spec errors
                found by the client, ``error.field`` names the field.
            AlreadyExists: a study of that name exists with another spec.
            NotFound: ``spec`` names a file that does not exist.
        """
        study_spec = study_spec_from(spec)
        if seed is not None:
            study_spec.seed = seed
        study = study_pb2.Study(name=name, display_name=display_name, spec=study_spec)
        return Study(self, self._call("CreateStudy",
                                      study_service_pb2.CreateStudyRequest(study=study)))

    def get_study(self, name: str) -> Study:
        """The study of that name.

        Raises:
            NotFound: there is none.
        """
        return Study(self, self._call("GetStudy",
                                      study_service_pb2.GetStudyRequest(study_name=name)))

    def list_studies(self) -> List[Study]:
        """Every study on the server (all pages)."""
        studies: List[Study] = []
        page_token = ""
        while True:
            response = self._call("ListStudies",
                                  study_service_pb2.ListStudiesRequest(page_size=PAGE_SIZE,
                                                                       page_token=page_token))
            studies.extend(Study(self, proto) for proto in response.studies)
            page_token = response.next_page_token
            if not page_token:
                return studies

    def delete_study(self, name: str) -> None:
        """Deletes a study and all its trials.

        Raises:
            NotFound: there is none.
        """
        self._call("DeleteStudy", study_service_pb2.DeleteStudyRequest(study_name=name))

    def close(self) -> None:
        """Closes the connection; the client cannot be used afterwards."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client(target={self.target!r})"
