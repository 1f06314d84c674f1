"""Trials: one point of the search space, its measurements and its outcome."""

from __future__ import annotations

import contextlib
import datetime
import logging
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional

from vernier import _user_attributes
from vernier._html import key_value_table
from vernier._parameters import ParameterCodec, ParameterValue
from vernier._stubs import study_pb2, study_service_pb2
from vernier._transport import Transport
from vernier.errors import InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    from vernier.study import Study

__all__ = ["Measurement", "ParameterValue", "Trial", "timestamp_to_datetime"]

logger = logging.getLogger("vernier")

# What the server takes in one AddMeasurement call.
MAX_MEASUREMENTS_PER_CALL = 1000


def timestamp_to_datetime(stamp: Any) -> Optional[datetime.datetime]:
    """A protobuf Timestamp as an aware UTC datetime; None when unset."""
    if stamp.seconds == 0 and stamp.nanos == 0:
        return None
    return stamp.ToDatetime(tzinfo=datetime.timezone.utc)


@dataclass(frozen=True)
class Measurement:
    """Metrics reported at one step of a trial."""

    step: int
    metrics: Dict[str, float] = field(default_factory=dict)
    elapsed_seconds: float = 0.0

    @classmethod
    def from_proto(cls, proto: study_pb2.Measurement) -> "Measurement":
        return cls(
            step=proto.step,
            metrics={metric.metric_id: metric.value for metric in proto.metrics},
            elapsed_seconds=proto.elapsed_seconds,
        )


def metric_values(metrics: Optional[Mapping[str, Any]], keyword_metrics: Mapping[str, Any],
                  what: str) -> Dict[str, float]:
    """Merges a metrics mapping with keyword metrics and makes every value a
    float. Non-numbers are refused here; NaN and infinities are left for the
    server, whose message names the trial and the metric."""
    merged: Dict[str, Any] = dict(metrics or {})
    merged.update(keyword_metrics)
    values: Dict[str, float] = {}
    for name, value in merged.items():
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"{what}: metric names must be non-empty strings, got {name!r}")
        if isinstance(value, (str, bytes, bool)) or value is None:
            raise InvalidArgument(f'{what}: metric "{name}" must be a number, got {value!r}')
        try:
            values[name] = float(value)
        except (TypeError, ValueError):
            raise InvalidArgument(
                f'{what}: metric "{name}" must be a number, got {value!r}') from None
    return values


def measurement_proto(step: int, metrics: Mapping[str, float],
                      elapsed_seconds: float = 0.0) -> study_pb2.Measurement:
    proto = study_pb2.Measurement(step=step, elapsed_seconds=elapsed_seconds)
    for name, value in metrics.items():
        proto.metrics.add(metric_id=name, value=value)
    return proto


def check_step(step: Any, what: str) -> int:
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise InvalidArgument(f"{what}: step must be an integer, got {step!r}")
    return int(step)


def _report_arguments(args: tuple, step: Any, what: str) -> tuple:
    """The step and the metrics mapping of ``Trial.report(*args, step=...)``:
    ``(step, metrics)``, ``(metrics,)`` with ``step=``, or ``()`` with
    ``step=``. Optuna's ``report(value, step)`` gets a message that shows the
    call to write instead."""
    if len(args) > 2:
        raise InvalidArgument(
            f"{what}: takes the step and at most one metrics mapping by position, got "
            f"{len(args)} values; write report(step=1, loss=0.3)")
    if args and _is_number(args[0]) and not _is_whole(args[0]) \
            and len(args) == 2 and _is_whole(args[1]):
        raise InvalidArgument(
            f"{what}: report({args[0]!r}, {args[1]!r}) looks like Optuna's order "
            f"(value, step); Vernier names its metrics: write "
            f"report(step={args[1]!r}, <metric>={args[0]!r}), e.g. "
            f"report(step={args[1]!r}, loss={args[0]!r})")
    rest = list(args)
    if rest and not isinstance(rest[0], Mapping):
        if step is not None:
            raise InvalidArgument(
                f"{what}: the step is given twice ({rest[0]!r} by position and step={step!r})")
        step = rest.pop(0)
    if rest and not isinstance(rest[0], Mapping):
        raise InvalidArgument(
            f"{what}: after the step comes a mapping of metrics, got {rest[0]!r}; "
            "write report(step=1, loss=0.3)")
    if step is None:
        raise InvalidArgument(f"{what}: give the step, e.g. report(step=1, loss=0.3)")
    return check_step(step, what), (rest[0] if rest else None)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class Trial:
    """One trial of a study, as the server last described it.

    Attributes:
        id: the trial's number in its study, from 1.
        study_name: the study it belongs to.
        state: ``"ACTIVE"``, ``"STOPPING"``, ``"SUCCEEDED"``, ``"FAILED"``,
            ``"INFEASIBLE"``, ``"STOPPED_EARLY"``, ``"CANCELLED"`` (its job
            was cancelled) or ``"REQUESTED"``.
        parameters: name to typed value (see :data:`ParameterValue`).
        final_measurement: the measurement the trial was completed with.
        latest_measurement: the most recent measurement reported.
        measurements: every measurement, filled by :meth:`refresh`
            (and by ``study.trials(include_measurements=True)``).
        measurement_count: how many measurements the server holds.
        client_id: the client the trial was handed to.
        status_reason: why it is INFEASIBLE, FAILED or STOPPED_EARLY.
        start_time, end_time: aware UTC datetimes, or None.
    """

    def __init__(self, study: "Study", proto: study_pb2.Trial, *, transport: Transport,
                 parameters: ParameterCodec) -> None:
        self._study = study
        self._transport = transport
        self._parameters = parameters
        self.stop_reason: str = ""
        # Reports held back by batched_reports(); None outside it.
        self._pending: Optional[List[study_pb2.Measurement]] = None
        self._max_pending = 0
        self._update(proto)

    def _update(self, proto: study_pb2.Trial) -> None:
        self._proto = proto
        self.id: int = proto.id
        self.study_name: str = proto.study_name or self._study.name
        self.state: str = study_pb2.Trial.State.Name(proto.state)
        self.parameters: Dict[str, ParameterValue] = self._parameters.decode(
            proto.parameters)
        self.final_measurement: Optional[Measurement] = (
            Measurement.from_proto(proto.final_measurement)
            if proto.HasField("final_measurement") else None)
        self.latest_measurement: Optional[Measurement] = (
            Measurement.from_proto(proto.latest_measurement)
            if proto.HasField("latest_measurement") else None)
        self.measurements: List[Measurement] = [
            Measurement.from_proto(measurement) for measurement in proto.measurements]
        self.measurement_count: int = proto.measurement_count
        self.client_id: str = proto.client_id
        self.status_reason: str = proto.status_reason
        self.start_time = timestamp_to_datetime(proto.start_time)
        self.end_time = timestamp_to_datetime(proto.end_time)

    @property
    def proto(self) -> study_pb2.Trial:
        """The ``vernier.v1.Trial`` message behind this object."""
        return self._proto

    @property
    def metrics(self) -> Dict[str, float]:
        """The final measurement's metrics; empty until the trial succeeds."""
        return dict(self.final_measurement.metrics) if self.final_measurement else {}

    @property
    def value(self) -> Optional[float]:
        """The objective (the study's first metric) of the final measurement."""
        return self.metrics.get(self._study.objective)

    @property
    def is_done(self) -> bool:
        """True once the trial has ended, whichever way."""
        return self.state in ("SUCCEEDED", "FAILED", "INFEASIBLE", "STOPPED_EARLY", "CANCELLED")

    def _elapsed_seconds(self) -> float:
        if self.start_time is None:
            return 0.0
        now = datetime.datetime.now(datetime.timezone.utc)
        return max(0.0, (now - self.start_time).total_seconds())

    def report(self, *args: Any, step: Any = None, **keyword_metrics: float) -> None:
        """Records intermediate metrics at a training step.

        Called as ``report(step=10, loss=0.3)``, ``report(10, loss=0.3)`` or,
        for metric names that are not Python identifiers,
        ``report(10, {"training/hptuning/metric": 0.3})``.

        Args:
            step: the training step (or epoch), a whole number >= 0; by
                keyword or first.
            metrics: (second, after the step) metrics whose names are not
                Python identifiers.
            **keyword_metrics: metrics by name, e.g. ``loss=0.3, accuracy=0.9``.

        Raises:
            InvalidArgument: no step, the step given twice, Optuna's order
                ``report(value, step)``, no metric, a metric named ``step``,
                a value that is not a finite number, a negative step.
            FailedPrecondition: the trial has ended.
            NotFound: the trial or its study no longer exists.
        """
        what = f"trial {self.id}: report"
        step, metrics = _report_arguments(args, step, what)
        values = metric_values(metrics, keyword_metrics, what)
        if not values:
            raise InvalidArgument(f"{what}: give at least one metric, e.g. report(step=1, loss=0.3)")
        if "step" in values:
            raise InvalidArgument(
                f'{what}: "step" cannot be a metric name; the step is report\'s own argument, '
                "e.g. report(step=1, loss=0.3)")
        measurement = measurement_proto(step, values, self._elapsed_seconds())
        if self._pending is not None:
            self._pending.append(measurement)
            if len(self._pending) >= self._max_pending:
                self.flush()
            return
        request = study_service_pb2.AddMeasurementRequest(
            study_name=self.study_name, trial_id=self.id, measurement=measurement)
        self._update(self._transport.call("AddMeasurement", request))

    @contextlib.contextmanager
    def batched_reports(self, max_pending: int = 100) -> Iterator["Trial"]:
        """Inside this block :meth:`report` holds measurements back and sends
        them together, in one call (and one transaction) per batch: for
        trials that report many cheap steps, one call instead of one per
        step. Held reports go out when ``max_pending`` have gathered, before
        :meth:`should_stop`, :meth:`complete` and :meth:`refresh` (so those
        see them), on :meth:`flush`, and when the block ends.

        A held report is not yet on the server: if the process dies, it is
        lost, and an error about it (the trial ended meanwhile, say) is
        raised by the call that sends it, not by ``report``. When the block
        ends with an exception, what is held is still sent; a failure to
        send it then is logged, and the block's exception goes on.

        Args:
            max_pending: reports held at most, 1 to 1000.

        Raises:
            InvalidArgument: ``max_pending`` out of range, or a block already
                open on this trial.
        """
        if isinstance(max_pending, bool) or not isinstance(max_pending, numbers.Integral) \
                or not 1 <= max_pending <= MAX_MEASUREMENTS_PER_CALL:
            raise InvalidArgument(f"trial {self.id}: batched_reports(max_pending=...) must be "
                                  f"a whole number from 1 to {MAX_MEASUREMENTS_PER_CALL}, got "
                                  f"{max_pending!r}")
        if self._pending is not None:
            raise InvalidArgument(f"trial {self.id}: batched_reports is already open on it")
        self._pending = []
        self._max_pending = int(max_pending)
        try:
            yield self
        except BaseException:
            try:
                self.flush()
            except Exception as error:  # the block's own exception matters more
                logger.warning("study=%s trial=%d: held reports not sent: %s",
                               self.study_name, self.id, error)
            raise
        else:
            self.flush()
        finally:
            self._pending = None

    def flush(self) -> None:
        """Sends the reports :meth:`batched_reports` holds, in one call;
        nothing to do outside it or when none is held.

        Raises:
            FailedPrecondition: the trial has ended (none of them is stored).
            NotFound: the trial or its study no longer exists.
        """
        if not self._pending:
            return
        held, self._pending = self._pending, []
        request = study_service_pb2.AddMeasurementRequest(
            study_name=self.study_name, trial_id=self.id, measurements=held)
        self._update(self._transport.call("AddMeasurement", request))

    def should_stop(self) -> bool:
        """Asks the server whether this trial should stop early (its early
        stopping policy says so, someone stopped it, or it has ended). The
        reason is kept in :attr:`stop_reason`."""
        self.flush()
        request = study_service_pb2.CheckEarlyStoppingRequest(
            study_name=self.study_name, trial_id=self.id)
        response = self._transport.call("CheckEarlyStopping", request)
        self.stop_reason = response.reason
        return response.should_stop

    def complete(self, metrics: Optional[Mapping[str, float]] = None, /, *,
                 infeasible: Optional[str] = None, **keyword_metrics: float) -> "Trial":
        """Ends the trial.

        ``trial.complete(accuracy=0.93)`` completes it with that final
        measurement (it must hold the study's objective metric);
        ``trial.complete()`` completes it with its latest reported measurement;
        ``trial.complete(infeasible="diverged")`` marks it INFEASIBLE: the
        point could not be evaluated, and the designer learns to avoid it.

        Completing again with the same result is a no-op, so a retry after a
        lost answer is safe; completing with another result raises
        :class:`FailedPrecondition`.

        Returns:
            this trial, updated (state SUCCEEDED, STOPPED_EARLY when it had been
            asked to stop, or INFEASIBLE).

        Raises:
            InvalidArgument: metrics and ``infeasible`` together; a value that
                is not a finite number; the objective metric missing.
            FailedPrecondition: already ended otherwise, or nothing to complete
                with (no metrics given and none reported).
        """
        request = self.completion_request(metrics, infeasible=infeasible, **keyword_metrics)
        self._update(self._transport.call("CompleteTrial", request))
        return self

    def completion_request(self, metrics: Optional[Mapping[str, float]] = None, /, *,
                           infeasible: Optional[str] = None, **keyword_metrics: float
                           ) -> study_service_pb2.CompleteTrialRequest:
        """The request :meth:`complete` would send, for a call that carries it
        (``Study.suggest(complete=trial)``); held reports are sent first.

        Raises:
            InvalidArgument: as :meth:`complete`.
        """
        self.flush()
        what = f"trial {self.id}: complete"
        values = metric_values(metrics, keyword_metrics, what)
        request = study_service_pb2.CompleteTrialRequest(
            study_name=self.study_name, trial_id=self.id)
        if infeasible is not None:
            if values:
                raise InvalidArgument(f"{what}: give metrics or infeasible=REASON, not both")
            request.trial_infeasible = True
            request.infeasible_reason = infeasible
        elif values:
            # Elapsed time stays 0 so that a retried completion is identical.
            step = self.latest_measurement.step if self.latest_measurement else 0
            request.final_measurement.CopyFrom(measurement_proto(step, values))
        return request

    def update_from(self, proto: study_pb2.Trial) -> "Trial":
        """Takes ``proto``, this trial as the server returned it from another
        call (``SuggestTrialsResponse.completed_trial``), as its state.

        Raises:
            InvalidArgument: ``proto`` is another trial.
        """
        if proto.id != self.id or (proto.study_name and proto.study_name != self.study_name):
            raise InvalidArgument(f"trial {self.id}: update_from got trial {proto.id} of study "
                                  f'"{proto.study_name}"')
        self._update(proto)
        return self

    def refresh(self) -> "Trial":
        """Reloads the trial from the server, with all its measurements."""
        self.flush()
        request = study_service_pb2.GetTrialRequest(study_name=self.study_name, trial_id=self.id)
        self._update(self._transport.call("GetTrial", request))
        return self

    @property
    def user_attrs(self) -> Dict[str, Any]:
        """The trial's user attributes (Optuna's ``user_attrs``), stored on
        the server: as of the last load, :meth:`refresh` or
        :meth:`set_user_attr`."""
        return _user_attributes.decode(self._proto.user_attributes)

    def set_user_attr(self, key: str, value: Any) -> None:
        """Stores a user attribute with the trial on the server, in any state
        (an ended trial's too). ``value`` must be JSON.

        Raises:
            InvalidArgument: as :meth:`Study.set_user_attr`.
        """
        text = _user_attributes.encode(key, value, f'study "{self.study_name}" trial {self.id}')
        request = study_service_pb2.SetTrialUserAttributesRequest(
            study_name=self.study_name, trial_id=self.id, attributes={key: text})
        measurements = self._proto.measurements
        updated = self._transport.call("SetTrialUserAttributes", request)
        updated.measurements.extend(measurements)  # The answer has none.
        self._update(updated)

    def __repr__(self) -> str:
        value = "" if self.value is None else f" {self._study.objective}={self.value:g}"
        return (f"Trial(id={self.id}, state={self.state}, parameters={self.parameters}{value})")

    def _repr_html_(self) -> str:
        """Jupyter's view: state, reason, parameters, final metrics and user
        attributes (no call to the server)."""
        rows = [("state", self.state)]
        if self.status_reason:
            rows.append(("reason", self.status_reason))
        rows.extend((name, value) for name, value in self.parameters.items())
        rows.extend((name, f"{value:.6g}") for name, value in self.metrics.items())
        rows.extend((f"user_attrs[{key!r}]", repr(value))
                    for key, value in self.user_attrs.items())
        return key_value_table("vernier-trial", f"Trial {self.id} of {self.study_name}", rows)

