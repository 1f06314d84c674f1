"""The exceptions the client raises.

Every error the server returns becomes one :class:`VernierError` subclass
chosen by its gRPC status code, carrying the server's message unchanged, so
that ``except vernier.NotFound`` reads like the situation it handles. Checks the
client makes itself before sending anything (a study spec, a metric value)
raise the same classes with the code the server would have used.
"""

from __future__ import annotations

from typing import Dict, Optional, Type

import grpc


class VernierError(Exception):
    """Base of every error raised by the Vernier client.

    Attributes:
        code: the gRPC status code (``grpc.StatusCode.NOT_FOUND``, ...).
        message: the server's message (or the client's, for checks made
            before a request is sent), without any prefix.
        field: for errors in a study spec, the path of the offending field in
            the YAML vocabulary (``"params[1].maxValue"``); else None.
    """

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        message: str,
        *,
        code: Optional[grpc.StatusCode] = None,
        field: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.field = field

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


class InvalidArgument(VernierError, ValueError):
    """The request is malformed: a bad spec, a NaN metric, an unknown name."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(VernierError, LookupError):
    """No such study or trial."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(VernierError):
    """A study of that name exists with another spec."""

    code = grpc.StatusCode.ALREADY_EXISTS


class FailedPrecondition(VernierError):
    """The object is in the wrong state, e.g. completing a finished trial with
    another result or reporting to a trial that has ended."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(VernierError):
    """A concurrent change got in the way; retrying may succeed."""

    code = grpc.StatusCode.ABORTED


class Unavailable(VernierError, ConnectionError):
    """The server cannot be reached (not running, wrong address, gone)."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(VernierError, TimeoutError):
    """The server did not answer within the client's timeout."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


class Unimplemented(VernierError, NotImplementedError):
    """The server does not offer this call (an older server)."""

    code = grpc.StatusCode.UNIMPLEMENTED


class Unauthenticated(VernierError, PermissionError):
    """No API token, or one the server does not accept (unknown, expired,
    revoked); the message says which (see docs/security.md)."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(VernierError, PermissionError):
    """The token's role, or the study's ownership, does not allow the call;
    the message names the method and what it takes."""

    code = grpc.StatusCode.PERMISSION_DENIED


class Internal(VernierError):
    """The server failed on its side; its log says more."""

    code = grpc.StatusCode.INTERNAL


_BY_CODE: Dict[grpc.StatusCode, Type[VernierError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        NotFound,
        AlreadyExists,
        FailedPrecondition,
        Aborted,
        Unavailable,
        DeadlineExceeded,
        Unimplemented,
        Unauthenticated,
        PermissionDenied,
        Internal,
    )
}


def error_for_code(code: grpc.StatusCode, message: str) -> VernierError:
    """The exception for a status code; codes without a class of their own
    give a plain :class:`VernierError` that still carries the code."""
    cls = _BY_CODE.get(code, VernierError)
    return cls(message, code=code)


def from_rpc_error(error: grpc.RpcError, target: str, timeout: float,
                   tls: bool = False) -> VernierError:
    """Turns a failed call into its exception. Transport failures name the
    address, since the server's own message cannot help there, and what to
    check about TLS (a failed handshake looks like an absent server)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else None) or str(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        hint = ("is `vernier serve` running there, does tls_ca sign its certificate and does "
                "that name the host dialled (else tls_server_name), and, under mutual TLS, does "
                "it accept tls_cert?" if tls else
                "is `vernier serve` running? If it serves TLS, pass tls_ca= or set VERNIER_TLS_CA")
        details = f"cannot reach the Vernier server at {target} ({hint}): {details}"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        details = (
            f"the Vernier server at {target} did not answer within {timeout:g} s: {details}"
        )
    return error_for_code(code, details)
