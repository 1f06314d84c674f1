"""The connection to a Vernier server."""

from __future__ import annotations

from typing import List, Optional

from vernier._stubs import study_pb2, study_service_pb2
from vernier._transport import TlsFiles, Transport
from vernier.errors import NotFound
from vernier.spec import SpecSource, parse_study_spec
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
        tls_ca: talk TLS, trusting this CA (a PEM file) to sign the server's
            certificate; default ``$VERNIER_TLS_CA``, else plaintext.
        tls_cert, tls_key: mutual TLS: this client's certificate and key
            (PEM files); default ``$VERNIER_TLS_CERT``, ``$VERNIER_TLS_KEY``.
        tls_server_name: the name to check in the server's certificate
            instead of the host of ``target``; default
            ``$VERNIER_TLS_SERVER_NAME``.
        token: the API token sent with every call; default
            ``$VERNIER_TOKEN``, else the file ``$VERNIER_TOKEN_FILE``, else
            the one ``vernier serve`` wrote for its own user for ``target``
            (docs/security.md).
        http_url: the server's HTTP API, where :mod:`vernier.plot` reads the
            dashboard's views; default ``$VERNIER_HTTP_URL``, else the
            address a :class:`LocalServer` of this process printed, else
            ``http://HOST:7731`` (``vernier serve``'s default HTTP port).
        retry_unavailable: once the server has answered this client, a
            call that fails with UNAVAILABLE (the server's store restarting,
            the server restarting) is retried with backoff for up to this
            many seconds before :class:`Unavailable` is raised; 0: never.
            A server never reached fails at once.

    Raises:
        InvalidArgument: a TLS file is missing or not PEM (named), or a token
            file is missing, readable by others or empty.

    Example::

        client = vernier.Client("localhost:7730")
        study = client.create_study("lr_sweep", {"goal": "MINIMIZE", ...})
    """

    def __init__(self, target: str = DEFAULT_TARGET, *, timeout: float = 30.0,
                 tls_ca: Optional[str] = None, tls_cert: Optional[str] = None,
                 tls_key: Optional[str] = None, tls_server_name: Optional[str] = None,
                 token: Optional[str] = None, http_url: Optional[str] = None,
                 retry_unavailable: float = 120.0) -> None:
        self._transport = Transport(
            target, timeout, TlsFiles.from_arguments(tls_ca, tls_cert, tls_key, tls_server_name),
            token, http_url, retry_unavailable)

    @property
    def target(self) -> str:
        """``HOST:PORT`` of the server."""
        return self._transport.target

    @property
    def http_url(self) -> str:
        """The server's HTTP API (see ``http_url=``)."""
        return self._transport.http_url

    @property
    def timeout(self) -> float:
        """Seconds each call may take; may be changed."""
        return self._transport.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._transport.timeout = seconds

    def ping(self, timeout: float = 2.0) -> bool:
        """True when a server answers at :attr:`target` within ``timeout``
        seconds."""
        return self._transport.ready(timeout)

    def parse_study_spec(self, spec: SpecSource) -> study_pb2.StudySpec:
        """The ``vernier.v1.StudySpec`` the server reads from ``spec`` (see
        :meth:`create_study`), without creating anything; a StudySpec is
        returned as a copy.

        Raises:
            InvalidArgument: the spec breaks a rule; ``error.field`` names
                the field.
            NotFound: ``spec`` names a file that does not exist.
        """
        return parse_study_spec(self._transport, spec)

    def create_study(self, name: str, spec: Optional[SpecSource] = None, *,
                     display_name: str = "", seed: Optional[int] = None) -> Study:
        """Creates a study, or returns the one of that name when its spec is
        the same (so re-running a notebook cell is harmless). Without a spec
        it returns the stored study of that name: a new kernel resumes a
        study by its name alone (:meth:`load_study`).

        Args:
            name: letters, digits, ``_`` and ``-``, starting with a letter.
            spec: the search space and objective in the YAML
                ``hyperparameters:`` vocabulary, as a mapping or the path of a
                YAML (or ``.json``) file, which the server reads (see
                docs/python.md); or a ``vernier.v1.StudySpec``, sent as is::

                    {"goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy",
                     "maxTrials": 20, "algorithm": "RANDOM_SEARCH",
                     "params": [{"parameterName": "lr", "type": "DOUBLE",
                                 "minValue": 1e-4, "maxValue": 0.1,
                                 "scaleType": "UNIT_LOG_SCALE"}]}
            display_name: free text shown beside the name.
            seed: the designers' seed, for reproducible suggestions (0 is a
                seed like any other); None (the default): one chosen by the
                server and stored with the study.

        Raises:
            InvalidArgument: the spec or name breaks a rule; for errors in a
                mapping or file, ``error.field`` names the field.
            AlreadyExists: a study of that name exists with another spec.
            NotFound: ``spec`` names a file that does not exist, or no spec
                was given and there is no study of that name.
        """
        if spec is None:
            return self.load_study(name)
        study_spec = self.parse_study_spec(spec)
        if seed is not None:
            study_spec.seed = seed
        study = study_pb2.Study(name=name, display_name=display_name, spec=study_spec)
        return Study(self._transport, self._transport.call(
            "CreateStudy", study_service_pb2.CreateStudyRequest(study=study)))

    def get_study(self, name: str) -> Study:
        """The study of that name.

        Raises:
            NotFound: there is none.
        """
        return Study(self._transport, self._transport.call(
            "GetStudy", study_service_pb2.GetStudyRequest(study_name=name)))

    def load_study(self, name: str) -> Study:
        """The stored study of that name, to go on with it (Optuna's
        ``load_study``): everything is on the server (its spec, trials, user
        attributes), so a new kernel needs only the name.

        Raises:
            NotFound: there is none; the message lists the studies there are.
        """
        try:
            return self.get_study(name)
        except NotFound as error:
            names = [study.name for study in self.list_studies()]
            listed = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
            raise NotFound(f'{error.message}; create it with create_study("{name}", spec). '
                           f"The server has {len(names)} studies"
                           + (f": {listed}" if names else "")) from None

    def list_studies(self) -> List[Study]:
        """Every study on the server (all pages)."""
        studies: List[Study] = []
        page_token = ""
        while True:
            response = self._transport.call("ListStudies",
                                  study_service_pb2.ListStudiesRequest(page_size=PAGE_SIZE,
                                                                       page_token=page_token))
            studies.extend(Study(self._transport, proto) for proto in response.studies)
            page_token = response.next_page_token
            if not page_token:
                return studies

    def delete_study(self, name: str) -> None:
        """Deletes a study and all its trials.

        Raises:
            NotFound: there is none.
        """
        self._transport.call("DeleteStudy", study_service_pb2.DeleteStudyRequest(study_name=name))

    def close(self) -> None:
        """Closes the connection; the client cannot be used afterwards."""
        self._transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client(target={self.target!r})"


def study_spec_from(spec: SpecSource, client: Optional[Client] = None) -> study_pb2.StudySpec:
    """The ``vernier.v1.StudySpec`` the server reads from ``spec``: the same
    as ``client.parse_study_spec(spec)``, with ``Client()`` (the server at
    localhost:7730) when no client is given. A StudySpec is returned as a
    copy without asking any server."""
    if isinstance(spec, study_pb2.StudySpec):
        copy = study_pb2.StudySpec()
        copy.CopyFrom(spec)
        return copy
    if client is not None:
        return client.parse_study_spec(spec)
    with Client() as default_client:
        return default_client.parse_study_spec(spec)
