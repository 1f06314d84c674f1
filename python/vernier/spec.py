"""Study specs in the YAML ``hyperparameters:`` vocabulary, read by the server.

The server is the one reader of specs: this module only reads a spec file's
text (or writes a mapping as JSON) and sends it to StudyService's
ParseStudySpec, which reads it with the code ``vernier jobs submit --config``
uses (tuner/config/) and answers the ``vernier.v1.StudySpec`` CreateStudy
would store. See docs/python.md for the forms a spec may take and
docs/yaml-reference.md for its keys.
"""

from __future__ import annotations

import json
import numbers
import os
import re
from typing import Any, Mapping, Union

from vernier._stubs import study_pb2, study_service_pb2
from vernier._transport import Transport
from vernier.errors import InvalidArgument, NotFound

SpecSource = Union[Mapping[str, Any], str, "os.PathLike[str]", study_pb2.StudySpec]

# What a mapping is called in the request; its errors are reported without
# this name and the position in the JSON the client wrote.
MAPPING_NAME = "<mapping>"

# "LINE:COLUMN: FIELD: " after the file name of a server's message.
_LOCATION = re.compile(r"(\d+):(\d+): (?:([A-Za-z_][A-Za-z0-9_.\[\]]*): )?")


def read_spec_file(path: Union[str, "os.PathLike[str]"]) -> str:
    """The text of a spec file.

    Raises:
        NotFound: there is no such file.
        InvalidArgument: it is a directory, or cannot be read as UTF-8 text.
    """
    file_name = os.fspath(path)
    if not os.path.exists(file_name):
        raise NotFound(f'config file "{file_name}" does not exist')
    if os.path.isdir(file_name):
        raise InvalidArgument(f'config file "{file_name}" is a directory, not a YAML file')
    try:
        with open(file_name, encoding="utf-8") as stream:
            return stream.read()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f'cannot read config file "{file_name}": {error}') from error


def _json_value(value: Any) -> Any:
    """Numbers that are not int or float (numpy's) and mappings that are not
    dicts, for json.dumps."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise InvalidArgument(
        f"a study spec holds {value!r} ({type(value).__name__}); values must be strings, "
        "numbers, booleans, None, lists or mappings")


def mapping_text(spec: Mapping[str, Any]) -> str:
    """A spec mapping as the JSON sent to the server."""
    try:
        return json.dumps(dict(spec), ensure_ascii=False, default=_json_value)
    except InvalidArgument:
        raise
    except (TypeError, ValueError) as error:
        raise InvalidArgument(f"a study spec mapping cannot be sent: {error}") from None


def parse_request(spec: Union[Mapping[str, Any], str, "os.PathLike[str]"]
                  ) -> study_service_pb2.ParseStudySpecRequest:
    """The ParseStudySpec request for a spec file's path or a mapping."""
    if isinstance(spec, (str, os.PathLike)):
        # The server tells JSON from YAML by the file name.
        return study_service_pb2.ParseStudySpecRequest(text=read_spec_file(spec),
                                                       file_name=os.fspath(spec))
    if isinstance(spec, Mapping):
        return study_service_pb2.ParseStudySpecRequest(
            text=mapping_text(spec), format=study_service_pb2.SPEC_FORMAT_JSON,
            file_name=MAPPING_NAME)
    raise InvalidArgument(
        "a study spec is a mapping, the path of a YAML or JSON file, or a vernier.v1.StudySpec, "
        f"got {type(spec).__name__}")


def located_error(error: InvalidArgument, file_name: str) -> InvalidArgument:
    """The server's error about a spec, with ``field`` set to the path its
    message names; for a mapping, without the position in the JSON."""
    prefix = f"{file_name}:"
    if not error.message.startswith(prefix):
        return error
    location = _LOCATION.match(error.message, len(prefix))
    if location is None:
        return error
    message = error.message
    if file_name == MAPPING_NAME:
        message = message[location.end(2) + 2:]
    return InvalidArgument(message, field=location.group(3))


def parse_study_spec(transport: Transport, spec: SpecSource) -> study_pb2.StudySpec:
    """The StudySpec the server reads from ``spec``; a StudySpec is copied.

    Raises:
        InvalidArgument: the spec breaks a rule; ``field`` names the field.
        NotFound: ``spec`` is a path and no such file exists.
    """
    parsed = study_pb2.StudySpec()
    if isinstance(spec, study_pb2.StudySpec):
        parsed.CopyFrom(spec)
        return parsed
    request = parse_request(spec)
    try:
        parsed.CopyFrom(transport.call("ParseStudySpec", request).spec)
    except InvalidArgument as error:
        raise located_error(error, request.file_name) from None
    return parsed


__all__ = ["SpecSource", "parse_study_spec", "read_spec_file"]
