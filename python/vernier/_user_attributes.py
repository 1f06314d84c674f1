"""User attributes of studies and trials (Optuna's ``user_attrs``): kept on
the server (``StudyService.SetStudyUserAttributes`` and
``SetTrialUserAttributes``), each value as JSON text, so that they survive
the notebook's kernel and any client reads them."""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping

from vernier.errors import InvalidArgument


def decode(attributes: Mapping[str, str]) -> Dict[str, Any]:
    """The stored attributes as Python values (JSON text decoded; a value
    that is no JSON, set by another client, stays a string)."""
    values: Dict[str, Any] = {}
    for key, text in attributes.items():
        try:
            values[key] = json.loads(text)
        except ValueError:
            values[key] = text
    return dict(sorted(values.items()))


def encode(key: Any, value: Any, owner: str) -> str:
    """``value`` as JSON text, or InvalidArgument naming the key."""
    if not isinstance(key, str) or not key:
        raise InvalidArgument(f"{owner}: a user attribute's key must be a non-empty string, "
                              f"got {key!r}", field="key")
    try:
        return json.dumps(value, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise InvalidArgument(
            f'{owner}: user attribute "{key}" must be JSON (numbers, strings, booleans, None, '
            f"lists and dicts of them; no NaN or infinity), got {value!r}: {error}",
            field=key) from None
