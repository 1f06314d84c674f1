"""The connection to a server's StudyService: the gRPC channel and stub, the
calls with their deadline, and the mapping of failed calls to
:class:`vernier.VernierError` subclasses. Every other module talks to the
server through one :class:`Transport`."""

from __future__ import annotations

import functools
import http.client
import json
import logging
import os
import re
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import grpc
from google.protobuf import json_format

from vernier._stubs import study_service_pb2_grpc
from vernier.errors import InvalidArgument, Unavailable, error_for_code, from_rpc_error

# `vernier serve`'s HTTP port when not told another (docs/http-api.md).
DEFAULT_HTTP_PORT = 7731
# The HTTP address of each server a LocalServer of this process started, by
# its gRPC target: a Client of it finds its views there.
KNOWN_HTTP_URLS: Dict[str, str] = {}


@dataclass(frozen=True)
class TlsFiles:
    """PEM files for TLS (see docs/security.md): the CA that signs the
    server's certificate and, for mutual TLS, this client's certificate and
    key; ``server_name`` is checked in the server's certificate instead of
    the host dialled. TLS is on when any file is given."""

    ca: Optional[str] = None
    cert: Optional[str] = None
    key: Optional[str] = None
    server_name: Optional[str] = None

    @classmethod
    def from_arguments(cls, ca: Optional[str], cert: Optional[str], key: Optional[str],
                       server_name: Optional[str]) -> "TlsFiles":
        """The arguments given, each missing one from the environment like the
        CLI: VERNIER_TLS_CA, VERNIER_TLS_CERT, VERNIER_TLS_KEY,
        VERNIER_TLS_SERVER_NAME."""
        def pick(given: Optional[str], variable: str) -> Optional[str]:
            return os.fspath(given) if given else (os.environ.get(variable) or None)
        return cls(pick(ca, "VERNIER_TLS_CA"), pick(cert, "VERNIER_TLS_CERT"),
                   pick(key, "VERNIER_TLS_KEY"), pick(server_name, "VERNIER_TLS_SERVER_NAME"))

    @property
    def enabled(self) -> bool:
        return bool(self.ca or self.cert or self.key)

    def credentials(self) -> grpc.ChannelCredentials:
        """SSL channel credentials from the files, read now.

        Raises:
            InvalidArgument: a file is missing, unreadable or not the PEM it
                should be, or only one of cert and key is given; the message
                names the argument and the file.
        """
        if not self.ca:
            raise InvalidArgument("tls_cert and tls_key need tls_ca, the CA that signs the "
                                  "server's certificate")
        if bool(self.cert) != bool(self.key):
            given, missing = ("tls_cert", "tls_key") if self.cert else ("tls_key", "tls_cert")
            raise InvalidArgument(f"{given} needs {missing} (mutual TLS takes both)")
        root = _read_pem("tls_ca", self.ca, b"-----BEGIN CERTIFICATE-----")
        if not self.cert:
            return grpc.ssl_channel_credentials(root_certificates=root)
        chain = _read_pem("tls_cert", self.cert, b"-----BEGIN CERTIFICATE-----")
        key = _read_pem("tls_key", self.key or "", b"PRIVATE KEY-----")
        return grpc.ssl_channel_credentials(root_certificates=root, private_key=key,
                                            certificate_chain=chain)

    def ssl_context(self) -> ssl.SSLContext:
        """The same settings for HTTPS (the dashboard's views): the CA to
        trust and, for mutual TLS, this client's certificate and key, checked
        like :meth:`credentials`. ``server_name`` is checked by the
        connection (:func:`_https_opener`)."""
        self.credentials()
        context = ssl.create_default_context(cafile=self.ca)
        if self.cert:
            context.load_cert_chain(self.cert, self.key)
        return context

    def channel_options(self) -> List[Tuple[str, Any]]:
        if self.enabled and self.server_name:
            return [("grpc.ssl_target_name_override", self.server_name)]
        return []


class _HTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection that checks ``server_name`` in the server's
    certificate (and sends it as SNI) instead of the host dialled, as the
    gRPC channel does with ``grpc.ssl_target_name_override``."""

    def __init__(self, *args: Any, server_name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._server_name = server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock,
                                              server_hostname=self._server_name or self.host)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, tls: TlsFiles) -> None:
        super().__init__(context=tls.ssl_context())
        self._server_name = tls.server_name

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(_HTTPSConnection, server_name=self._server_name),
                            req, context=self._context)


def _https_opener(tls: TlsFiles) -> urllib.request.OpenerDirector:
    """What the dashboard's views are read with: the client's own TLS
    settings (CA, client certificate, server name), and no proxy meant for
    the web (the server's own address)."""
    handlers: List[Any] = [urllib.request.ProxyHandler({})]
    if tls.enabled:
        handlers.append(_HTTPSHandler(tls))
    return urllib.request.build_opener(*handlers)


def _read_pem(argument: str, path: str, marker: bytes) -> bytes:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise InvalidArgument(f"{argument} {path}: no such file") from None
    except IsADirectoryError:
        raise InvalidArgument(f"{argument} {path}: is a directory, not a file") from None
    except OSError as error:
        raise InvalidArgument(f"{argument} {path}: cannot read it: {error.strerror}") from None
    if marker not in data:
        what = "private key" if b"KEY" in marker else "certificate"
        raise InvalidArgument(f"{argument} {path}: no PEM {what} in it "
                              f"({marker.decode().strip('-')})")
    return data

def find_token(target: str) -> Optional[str]:
    """The API token for the server at ``target``, as the CLI finds it (see
    docs/security.md): ``$VERNIER_TOKEN``, else the file ``$VERNIER_TOKEN_FILE``
    names, else the file ``vernier serve`` wrote for its own user for that
    address under ``$VERNIER_CONFIG_DIR`` (default
    ``$XDG_CONFIG_HOME/vernier``, else ``~/.config/vernier``)
    ``/tokens/``; None when there is none.

    Raises:
        InvalidArgument: a token file is missing (when named), readable by
            others, or empty; the message names it.
    """
    if os.environ.get("VERNIER_TOKEN"):
        return os.environ["VERNIER_TOKEN"]
    named = os.environ.get("VERNIER_TOKEN_FILE")
    if named:
        return read_token_file(named)
    path = os.path.join(_config_dir(), "tokens", _token_file_name(target))
    return read_token_file(path) if os.path.exists(path) else None


def read_token_file(path: str) -> str:
    """The token in ``path``, which only its owner may read (mode 0600)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InvalidArgument(f"token file {path}: no such file") from None
    if mode & 0o077:
        raise InvalidArgument(f"token file {path}: others may read it (mode {mode & 0o7777:04o}); "
                              f"a token file must be mode 0600: chmod 600 {path}")
    with open(path, encoding="utf-8") as file:
        token = file.read().strip()
    if not token:
        raise InvalidArgument(f"token file {path}: is empty")
    return token


def _config_dir() -> str:
    if os.environ.get("VERNIER_CONFIG_DIR"):
        return os.environ["VERNIER_CONFIG_DIR"]
    if os.environ.get("XDG_CONFIG_HOME"):
        return os.path.join(os.environ["XDG_CONFIG_HOME"], "vernier")
    return os.path.join(os.path.expanduser("~"), ".config", "vernier")


_LOOPBACK = re.compile(r"^(localhost|127(\.\d{1,3}){3}|\[?::1\]?|\[?::ffff:127(\.\d{1,3}){3}\]?)$",
                       re.IGNORECASE)


def _token_file_name(target: str) -> str:
    """As auth::TokenFileNameForAddress: ``loopback-PORT`` for any loopback
    host, else ``HOST-PORT`` with odd characters replaced by ``_``."""
    host, port = target, ""
    if target.startswith("["):
        close = target.find("]:")
        if close >= 0:
            host, port = target[:close + 1], target[close + 2:]
    elif target.count(":") == 1:
        host, port = target.split(":")
    if _LOOPBACK.match(host):
        return f"loopback-{port}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{host}-{port}")


# The largest answer read (64 MiB): list pages stay under 3 MiB, a trial
# with all its measurements may be larger.
MAX_RECEIVE_BYTES = 64 << 20


_LOG = logging.getLogger("vernier")

# Backoff between retries of an UNAVAILABLE call: doubling from the first to
# the longest, in seconds.
_FIRST_RETRY_DELAY = 0.2
_LONGEST_RETRY_DELAY = 5.0


class Transport:
    """Calls StudyService methods on ``target``, each with a deadline of
    ``timeout`` seconds. Creating one does not connect; the first call does.
    Once the server has answered, a call that fails with UNAVAILABLE (its
    store restarting, the server restarting) is retried with backoff for up
    to ``retry_unavailable`` seconds; a server never reached fails at once.
    May be shared by threads."""

    def __init__(self, target: str, timeout: float, tls: Optional[TlsFiles] = None,
                 token: Optional[str] = None, http_url: Optional[str] = None,
                 retry_unavailable: float = 120.0) -> None:
        self.target = target
        self.timeout = timeout
        self.retry_unavailable = retry_unavailable
        self._answered = False
        self.tls = tls or TlsFiles()
        self._http_url = http_url or os.environ.get("VERNIER_HTTP_URL") or None
        found = token or find_token(target)
        self._token = found
        self._metadata = (("authorization", f"Bearer {found}"),) if found else None
        # A client of its own service must not be sent through an http_proxy
        # meant for the web.
        # List pages stay under 3 MiB on the server; a trial with all its
        # measurements may be larger than gRPC's default 4 MiB.
        options: List[Tuple[str, Any]] = [("grpc.enable_http_proxy", 0),
                                          ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)]
        if self.tls.enabled:
            self._channel = grpc.secure_channel(target, self.tls.credentials(),
                                                options=options + self.tls.channel_options())
        else:
            self._channel = grpc.insecure_channel(target, options=options)
        self._stub = study_service_pb2_grpc.StudyServiceStub(self._channel)
        # The views' HTTPS uses the same TLS settings as the channel, built
        # once with it.
        self._opener = _https_opener(self.tls)

    def call(self, method: str, request: Any) -> Any:
        """Calls one StudyService method, turning failures into VernierErrors."""
        give_up_at = time.monotonic() + self.retry_unavailable
        delay = _FIRST_RETRY_DELAY
        attempt = 1
        while True:
            try:
                response = getattr(self._stub, method)(request, timeout=self.timeout,
                                                       metadata=self._metadata)
                if attempt > 1:
                    _LOG.info("%s answered %s after %d attempts", self.target, method, attempt)
                self._answered = True
                return response
            except grpc.RpcError as error:
                code = error.code() if hasattr(error, "code") else None
                if (code != grpc.StatusCode.UNAVAILABLE or not self._answered
                        or time.monotonic() + delay > give_up_at):
                    raise from_rpc_error(error, self.target, self.timeout,
                                         self.tls.enabled) from None
                if attempt == 1:
                    details = error.details() if hasattr(error, "details") else str(error)
                    _LOG.warning("%s is unavailable (%s); retrying %s for up to %g s",
                                 self.target, details, method, self.retry_unavailable)
            time.sleep(delay)
            delay = min(delay * 2, _LONGEST_RETRY_DELAY)
            attempt += 1

    @property
    def http_url(self) -> str:
        """The server's HTTP API (its dashboard's views): ``http_url=``, else
        ``$VERNIER_HTTP_URL``, else the address a LocalServer of this process
        printed for ``target``, else ``target``'s host on port 7731 (https
        under TLS)."""
        if self._http_url:
            return self._http_url.rstrip("/")
        if self.target in KNOWN_HTTP_URLS:
            return KNOWN_HTTP_URLS[self.target]
        host = self.target.rsplit(":", 1)[0] if ":" in self.target else self.target
        return f"{'https' if self.tls.enabled else 'http'}://{host}:{DEFAULT_HTTP_PORT}"

    def view(self, path: str, query: Mapping[str, Any], message: Any) -> Any:
        """GETs one of the dashboard's bounded views (``/dashboard/...``,
        docs/web.md) with this client's token, and parses its proto3 JSON
        into ``message`` (the view's own message type).

        Raises:
            Unavailable: nothing answers at :attr:`http_url` (the message
                says how to name the right one).
            VernierError: the server's error (401, 403, 404, 400), as the
                class of its status.
        """
        url = f"{self.http_url}{path}?{urllib.parse.urlencode(query)}"
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        if self._token:
            request.add_header("Authorization", f"Bearer {self._token}")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")
            try:
                detail = json.loads(text)["error"]
                code, message = grpc.StatusCode[detail["status"]], str(detail["message"])
            except (ValueError, KeyError, TypeError):
                raise Unavailable(f"{url} answered HTTP {error.code} and no Vernier error: "
                                  f"{text[:200]} (is http_url= the server's HTTP port?)") from None
            raise error_for_code(code, message) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, ssl.SSLError):
                raise Unavailable(
                    f"the TLS handshake with the Vernier server's HTTP API at {self.http_url} "
                    f"failed ({reason}): does tls_ca sign its certificate, and does the "
                    "certificate name the host dialled (else tls_server_name"
                    f"{'=' + self.tls.server_name if self.tls.server_name else ''})?") from None
            raise Unavailable(
                f"cannot reach the Vernier server's HTTP API at {self.http_url} ({reason}); its "
                "plots read the dashboard's views there: pass Client(http_url=...) or set "
                "VERNIER_HTTP_URL to the address `vernier serve` printed (\"dashboard and HTTP API "
                "at ...\")") from None
        return json_format.Parse(body, message, ignore_unknown_fields=True)

    def ready(self, timeout: float) -> bool:
        """True when the server answers within ``timeout`` seconds."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
            return True
        except grpc.FutureTimeoutError:
            return False

    def close(self) -> None:
        self._channel.close()
