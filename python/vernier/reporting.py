"""``vernier.report``: metrics from a trainer that the Vernier agent runs.

A trainer launched by ``vernier jobs submit`` does not talk to the server:
the ``vernier-agent`` beside it reads its metrics and forwards them. The agent
reads two things, and ``report`` writes whichever applies:

* when ``CLOUD_ML_HP_METRIC_FILE`` is set (the agent always sets it), one
  JSON object per line appended to that file, in the format of Google's
  cloudml-hypertune library::

      {"global_step": "120", "accuracy": "0.91", "timestamp": 1700000000.1, "trial": "3"}

* otherwise (the trainer runs by hand, or under another launcher) a
  ``step=120 accuracy=0.91`` line on standard output, which the agent also
  parses from a trainer's output.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import sys
import time
from typing import Any, Mapping, Optional, TextIO



def InvalidArgument(message: str) -> Exception:  # noqa: N802 (raised like the class)
    """vernier.InvalidArgument with this message; a ValueError where grpc (which
    the client's errors need) is not installed, since reporting itself needs
    only the standard library."""
    try:
        from vernier.errors import InvalidArgument as invalid_argument
    except ImportError:
        return ValueError(message)
    return invalid_argument(message)

METRIC_FILE_VARIABLE = "CLOUD_ML_HP_METRIC_FILE"
TRIAL_ID_VARIABLE = "CLOUD_ML_TRIAL_ID"
# The names the agent accepts (metrics/metric_value.cc); it drops others.
_METRIC_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
# Keys of a hypertune record that are not metrics.
_RESERVED_NAMES = ("global_step", "step", "epoch", "timestamp", "trial", "checkpoint_path")


def _format_value(value: float) -> str:
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def report(metrics: Optional[Mapping[str, float]] = None, /, *, step: Optional[int] = None,
           stream: Optional[TextIO] = None, **keyword_metrics: float) -> None:
    """Reports metrics from a trainer to the Vernier agent that launched it.

    Args:
        metrics: metrics whose names are not Python identifiers, e.g.
            ``{"training/hptuning/metric": 0.91}``.
        step: the training step; None lets the agent number reports 1, 2, 3...
        stream: where the ``name=value`` line goes when no metrics file is
            set (default: standard output).
        **keyword_metrics: metrics by name, e.g. ``accuracy=0.91``.

    Raises:
        InvalidArgument: no metric; a name the agent would not read (it must
            match ``[A-Za-z_][A-Za-z0-9_./-]*`` and not be one of global_step,
            step, epoch, timestamp, trial, checkpoint_path); a value that is
            not a finite number; a negative or non-integer step.
    """
    merged = dict(metrics or {})
    merged.update(keyword_metrics)
    if not merged:
        raise InvalidArgument("report: give at least one metric, e.g. report(step=1, loss=0.3)")
    if step is not None and (isinstance(step, bool) or not isinstance(step, numbers.Integral)
                             or step < 0):
        raise InvalidArgument(f"report: step must be a whole number >= 0, got {step!r}")
    values = {}
    for name, value in merged.items():
        if not isinstance(name, str) or not _METRIC_NAME.fullmatch(name) \
                or name in _RESERVED_NAMES:
            raise InvalidArgument(
                f"report: metric name {name!r} cannot be read by the agent; use letters, digits, "
                "'_', '.', '/' and '-', starting with a letter or '_', and none of "
                + ", ".join(_RESERVED_NAMES))
        number = _finite(name, value)
        values[name] = number
    path = os.environ.get(METRIC_FILE_VARIABLE)
    if path:
        _append_record(path, step, values)
    else:
        _print_line(stream or sys.stdout, step, values)


def _finite(name: str, value: Any) -> float:
    if isinstance(value, (str, bytes, bool)) or value is None:
        raise InvalidArgument(f'report: metric "{name}" must be a number, got {value!r}')
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f'report: metric "{name}" must be a number, got {value!r}') from None
    if not math.isfinite(number):
        raise InvalidArgument(
            f'report: metric "{name}" is {number}; values must be finite (the agent drops '
            "NaN and infinite values)")
    return number


def _append_record(path: str, step: Optional[int], values: Mapping[str, float]) -> None:
    record = {"global_step": str(int(step) if step is not None else 0)}
    record.update({name: _format_value(value) for name, value in values.items()})
    record["timestamp"] = time.time()  # type: ignore[assignment]
    record["trial"] = os.environ.get(TRIAL_ID_VARIABLE, "0")
    line = json.dumps(record) + "\n"
    # One write of one whole line in append mode, so that a reader polling the
    # file never sees half a record followed by another writer's line.
    with open(path, "a", encoding="utf-8") as file:
        file.write(line)


def _print_line(stream: TextIO, step: Optional[int], values: Mapping[str, float]) -> None:
    tokens = [] if step is None else [f"step={step}"]
    tokens.extend(f"{name}={_format_value(value)}" for name, value in values.items())
    print(" ".join(tokens), file=stream, flush=True)
