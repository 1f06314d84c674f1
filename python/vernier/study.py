"""Studies: a search space, an objective, and the trials run against them."""

from __future__ import annotations

import logging
import threading
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional,
                    Sequence, Set, Tuple, Type, Union)

from vernier import _user_attributes
from vernier._html import key_value_table
from vernier._parameters import ParameterCodec, ParameterValue, flatten_specs
from vernier._stubs import http_pb2, study_pb2, study_service_pb2
from vernier._transport import Transport
from vernier.errors import FailedPrecondition, InvalidArgument
from vernier.leaderboard import Leaderboard
from vernier.optimizer import ObjectiveResult, OptimizeRun, run_optimization
from vernier.trial import Trial, timestamp_to_datetime
from vernier.trials_frame import trials_dataframe

if TYPE_CHECKING:  # pragma: no cover
    import pandas

logger = logging.getLogger("vernier")

# Lists are read in pages of this many items, so that no single answer grows
# with the size of the database.
PAGE_SIZE = 100

class Suggestions(List[Trial]):
    """The trials :meth:`Study.suggest` handed out: a list, plus the server's
    ``reason`` when it gave fewer than asked (e.g. ``"the study has all its
    max_trials=20 trials"``)."""

    reason: str = ""


class Study:
    """A study on the server. Get one from :meth:`Client.create_study`,
    :meth:`Client.get_study` or :meth:`Client.list_studies`.

    Attributes:
        name: unique; letters, digits, ``_`` and ``-``.
        display_name: free text.
        state: ``"ACTIVE"``, ``"INACTIVE"`` or ``"COMPLETED"``.
        spec: the ``vernier.v1.StudySpec`` (parameters, metrics, limits).
        create_time: an aware UTC datetime.
    """

    def __init__(self, transport: Transport, proto: study_pb2.Study) -> None:
        self._transport = transport
        # The optimize() calls running now, which stop() ends.
        self._runs: Set[OptimizeRun] = set()
        self._runs_lock = threading.Lock()
        self._update(proto)

    def _update(self, proto: study_pb2.Study) -> None:
        self._proto = proto
        self.name: str = proto.name
        self.display_name: str = proto.display_name
        self.state: str = study_pb2.Study.State.Name(proto.state)
        self.spec: study_pb2.StudySpec = proto.spec
        self.create_time = timestamp_to_datetime(proto.create_time)
        self._parameters = ParameterCodec(proto.spec.parameters)

    @property
    def proto(self) -> study_pb2.Study:
        """The ``vernier.v1.Study`` message behind this object."""
        return self._proto

    @property
    def objective(self) -> str:
        """The name of the metric being optimised (the first metric)."""
        return self.spec.metrics[0].metric_id if self.spec.metrics else ""

    @property
    def goal(self) -> str:
        """``"MAXIMIZE"`` or ``"MINIMIZE"``, for the objective."""
        if not self.spec.metrics:
            return "GOAL_UNSPECIFIED"
        return study_pb2.MetricSpec.Goal.Name(self.spec.metrics[0].goal)

    @property
    def metric_names(self) -> List[str]:
        """Every metric of the spec: the objectives, then any outcome
        constraints, in the spec's order."""
        return [metric.metric_id for metric in self.spec.metrics]

    @property
    def objectives(self) -> Dict[str, str]:
        """The objectives (metrics without a constraint) and their goals,
        ``{"accuracy": "MAXIMIZE", "latency_ms": "MINIMIZE"}``."""
        return {metric.metric_id: study_pb2.MetricSpec.Goal.Name(metric.goal)
                for metric in self.spec.metrics if not metric.HasField("constraint")}

    @property
    def constraints(self) -> Dict[str, Tuple[Optional[float], Optional[float]]]:
        """The outcome constraints: metric name to ``(min, max)``, None for
        an open side. A trial is feasible when it meets every one."""
        return {metric.metric_id: (
                    metric.constraint.min_value if metric.constraint.HasField("min_value")
                    else None,
                    metric.constraint.max_value if metric.constraint.HasField("max_value")
                    else None)
                for metric in self.spec.metrics if metric.HasField("constraint")}

    @property
    def parameter_names(self) -> List[str]:
        """The search space's parameters, in spec order; a conditional
        parameter follows its parent. A trial's ``parameters`` hold only
        those active for it."""
        return [param.parameter_name for param in flatten_specs(self.spec.parameters)]

    @property
    def user_attrs(self) -> Dict[str, Any]:
        """The study's user attributes (Optuna's ``user_attrs``), stored on
        the server: as of the last load, :meth:`refresh` or
        :meth:`set_user_attr`."""
        return _user_attributes.decode(self._proto.user_attributes)

    def set_user_attr(self, key: str, value: Any) -> None:
        """Stores a user attribute with the study on the server (a new
        kernel, another client and the HTTP API see it). ``value`` must be
        JSON: numbers, strings, booleans, None, and lists and dicts of them.

        Raises:
            InvalidArgument: a key that is empty or over 256 bytes, a value
                that is no JSON or over 64 KiB, or past 100 attributes.
        """
        text = _user_attributes.encode(key, value, f'study "{self.name}"')
        request = study_service_pb2.SetStudyUserAttributesRequest(study_name=self.name,
                                                                  attributes={key: text})
        self._update(self._transport.call("SetStudyUserAttributes", request))

    def _trial(self, proto: study_pb2.Trial) -> Trial:
        return Trial(self, proto, transport=self._transport, parameters=self._parameters)

    # Trials ------------------------------------------------------------------

    def suggest(self, count: int = 1, client_id: Optional[str] = None, *,
                complete: Optional[Trial] = None,
                metrics: Optional[Mapping[str, float]] = None,
                infeasible: Optional[str] = None) -> Suggestions:
        """Asks for trials to evaluate (the "ask" of ask/tell).

        Args:
            count: how many, 1 to 1000.
            client_id: names the caller. A client that asks again with the
                same id (after a crash, say) gets its unfinished trials back
                before any new one.
            complete: a trial of this study to complete first, in the same
                call: ``study.suggest(complete=trial, metrics={"loss": 0.2})``
                is ``trial.complete({"loss": 0.2})`` then ``study.suggest()``
                in one round trip (``metrics``, ``infeasible`` and a trial
                completed with its latest measurement as in
                :meth:`Trial.complete`). ``complete`` is updated in place.
                When the completion fails, nothing is suggested.
            metrics, infeasible: how to complete ``complete``.

        Returns:
            The trials, ACTIVE, with their ``parameters``; fewer than
            ``count`` (possibly none) when the study's ``maxTrials`` or
            ``maxParallelTrials`` leaves no room or a grid is exhausted: the
            list's ``reason`` says which.

        Raises:
            InvalidArgument: count out of range; ``metrics`` or
                ``infeasible`` without ``complete``; ``complete`` not a
                trial of this study; what :meth:`Trial.complete` refuses.
            NotFound: the study was deleted.
            FailedPrecondition: the study is not ACTIVE; ``complete``
                cannot be completed so (see :meth:`Trial.complete`).
        """
        request = study_service_pb2.SuggestTrialsRequest(
            study_name=self.name, count=count, client_id=client_id or "")
        if complete is None:
            if metrics is not None or infeasible is not None:
                raise InvalidArgument(f'study "{self.name}": suggest(metrics=..., '
                                      "infeasible=...) say how to complete a trial; pass it "
                                      "as complete=trial")
        else:
            if not isinstance(complete, Trial) or complete.study_name != self.name:
                raise InvalidArgument(f'study "{self.name}": suggest(complete=...) takes a '
                                      f"trial of this study, got {complete!r}")
            request.complete_trial.CopyFrom(
                complete.completion_request(metrics, infeasible=infeasible))
        response = self._transport.call("SuggestTrials", request)
        if complete is not None:
            complete.update_from(response.completed_trial)
        trials = Suggestions(self._trial(proto) for proto in response.trials)
        trials.reason = response.reason
        if response.reason:
            logger.info("study=%s suggested %d of %d: %s", self.name, len(trials), count,
                        response.reason)
        return trials

    def add_trial(self, parameters: Mapping[str, ParameterValue]) -> Trial:
        """Queues a trial with parameters of your choosing (e.g. a known good
        configuration); the next :meth:`suggest` hands it out before any new
        suggestion. It is REQUESTED until then.

        Raises:
            InvalidArgument: a parameter missing, unknown or out of its range.
            FailedPrecondition: the study already has ``maxTrials`` trials.
        """
        trial = study_pb2.Trial()
        trial.parameters.extend(self._parameters.encode(parameters))
        request = study_service_pb2.CreateTrialRequest(study_name=self.name, trial=trial)
        return self._trial(self._transport.call("CreateTrial", request))

    def get_trial(self, trial_id: int) -> Trial:
        """One trial with all its measurements.

        Raises:
            NotFound: no such trial (or study).
        """
        request = study_service_pb2.GetTrialRequest(study_name=self.name, trial_id=trial_id)
        return self._trial(self._transport.call("GetTrial", request))

    def trials(self, states: Optional[Sequence[str]] = None,
               include_measurements: bool = False) -> List[Trial]:
        """Every trial of the study, by id.

        Args:
            states: only trials in these states, e.g. ``["SUCCEEDED"]``.
            include_measurements: fill each trial's ``measurements`` too.

        Raises:
            InvalidArgument: an unknown state name.
        """
        state_values = []
        for state in states or ():
            try:
                state_values.append(study_pb2.Trial.State.Value(state))
            except ValueError:
                allowed = ", ".join(name for name in study_pb2.Trial.State.keys()
                                    if name != "STATE_UNSPECIFIED")
                raise InvalidArgument(f'unknown trial state "{state}"; allowed: {allowed}',
                                      field="states") from None
        trials: List[Trial] = []
        page_token = ""
        while True:
            request = study_service_pb2.ListTrialsRequest(
                study_name=self.name, page_size=PAGE_SIZE, page_token=page_token,
                states=state_values,
                include_measurements=include_measurements)
            response = self._transport.call("ListTrials", request)
            trials.extend(self._trial(proto) for proto in response.trials)
            page_token = response.next_page_token
            if not page_token:
                return trials

    def trials_dataframe(self, states: Optional[Sequence[str]] = None,
                         include_intermediate: bool = False) -> "pandas.DataFrame":
        """Every trial (failed, infeasible and running ones too), by id, as a
        pandas DataFrame with Optuna's column names: ``number``, ``value``
        (the objective), ``datetime_start``, ``datetime_complete``,
        ``duration``, ``params_NAME``, ``state``, ``metrics_NAME`` (the final
        measurement's, else the latest's) and ``status_reason``.

        Args:
            states: only trials in these states, as for :meth:`trials`.
            include_intermediate: add ``intermediate_values``, the
                objective's ``{step: value}`` of every measurement (reads every
                measurement: more data for a long study).

        Raises:
            ImportError: pandas is not installed (Debian: python3-pandas).
            InvalidArgument: an unknown state name.
        """
        return trials_dataframe(self.trials(states, include_measurements=include_intermediate),
                                self.objective, include_intermediate)

    @property
    def best_params(self) -> Dict[str, ParameterValue]:
        """The best trial's parameters (Optuna's ``best_params``).

        Raises:
            FailedPrecondition: no trial has completed yet.
        """
        return dict(self._require_best().parameters)

    @property
    def best_value(self) -> float:
        """The best trial's objective value (Optuna's ``best_value``).

        Raises:
            FailedPrecondition: no trial has completed yet, or the study has
                several objectives (there is no one best value: see
                :attr:`best_trials`).
        """
        if len(self.objectives) > 1:
            raise FailedPrecondition(
                f'study "{self.name}" has {len(self.objectives)} objectives '
                f"({', '.join(self.objectives)}): there is no one best value; "
                "study.best_trials is the Pareto front")
        value = self._require_best().value
        assert value is not None  # A ranked trial has its objective.
        return value

    @property
    def best_trials(self) -> List[Trial]:
        """With several objectives the Pareto front (the trials no other
        beats on every objective), as the leaderboard ranks it; with one, the
        trials that share the best value (Optuna's ``best_trials``)."""
        request = study_service_pb2.ListOptimalTrialsRequest(study_name=self.name, top=0)
        trials = [self._trial(proto)
                  for proto in self._transport.call("ListOptimalTrials", request).trials]
        if len(self.objectives) > 1 or not trials:
            return trials
        return [trial for trial in trials if trial.value == trials[0].value]

    def _require_best(self) -> Trial:
        best = self.best_trial
        if best is None:
            raise FailedPrecondition(f'study "{self.name}" has no completed trial yet')
        return best

    @property
    def best_trial(self) -> Optional[Trial]:
        """The best completed trial by the objective, or None before any
        trial has completed. (With several metrics: the first of the Pareto
        front by the first metric.)"""
        request = study_service_pb2.ListOptimalTrialsRequest(study_name=self.name, top=1)
        response = self._transport.call("ListOptimalTrials", request)
        return self._trial(response.trials[0]) if response.trials else None

    def leaderboard(self, top: int = 10, as_dataframe: bool = False
                    ) -> Union[Leaderboard, "pandas.DataFrame"]:
        """The best completed trials, best first.

        Args:
            top: how many rows; 0 for every completed trial.
            as_dataframe: return a pandas DataFrame instead (needs pandas;
                the same as ``study.leaderboard(top).to_dataframe()``).

        With several objectives the rows are the Pareto front (the trials
        no other trial beats on every objective), each with every metric;
        with outcome constraints, trials that miss one rank below every
        trial that meets them all (``row.feasible``).

        Returns:
            A :class:`Leaderboard`: a list of :class:`LeaderboardRow` (rank,
            trial id, state, objective value, metrics, feasibility,
            parameters) with a ``to_dataframe()`` method.
        """
        request = study_service_pb2.ListOptimalTrialsRequest(study_name=self.name, top=top)
        response = self._transport.call("ListOptimalTrials", request)
        board = Leaderboard.from_trials(
            [self._trial(proto) for proto in response.trials], self.objective,
            self.parameter_names, self.metric_names, self.constraints)
        return board.to_dataframe() if as_dataframe else board

    def optimize(self, fn: Callable[[Trial], ObjectiveResult], n_trials: int,
                 n_parallel: int = 1,
                 catch: Union[Type[BaseException], Tuple[Type[BaseException], ...]] = (),
                 callbacks: Iterable[Callable[["Study", Trial], None]] = ()
                 ) -> List[Trial]:
        """Runs ``fn`` on ``n_trials`` suggested trials, ``n_parallel`` at a
        time in threads, and completes each with what it returns.

        ``fn(trial)`` reads ``trial.parameters`` (and may ``trial.report``
        progress and check ``trial.should_stop()``), then returns

        * a number: the objective's final value;
        * a mapping of metric names to numbers (it must hold the objective);
        * None: the trial completes with its latest reported measurement.

        A NaN or infinite objective marks the trial INFEASIBLE (the point
        could not be evaluated; a diverged training, say) and the loop goes on.
        When ``fn`` raises, the trial is marked INFEASIBLE with the exception
        as its reason; exceptions of the types in ``catch`` are logged and the
        loop goes on, any other exception stops the loop (the other threads
        finish their current trial) and is re-raised.

        The loop ends early when the study has no room left (its
        ``maxTrials`` reached, a grid exhausted), or when :meth:`stop` is
        called (by ``fn``, a callback or another thread).

        Each of ``callbacks`` is called as ``callback(study, trial)`` after
        each trial has ended, one at a time, in the thread that ran it (as
        Optuna's); one that raises stops the loop as ``fn`` would.

        Returns:
            The trials this call ran, in the order they ended.
        """
        run = OptimizeRun(self, fn, n_trials, n_parallel, catch, callbacks)
        with self._runs_lock:
            self._runs.add(run)
        try:
            return run_optimization(run)
        finally:
            with self._runs_lock:
                self._runs.discard(run)

    def stop(self) -> None:
        """Ends the :meth:`optimize` calls running on this object: no new
        trial starts, trials being evaluated finish, and ``optimize`` returns
        them (Optuna's ``study.stop()``).

        Raises:
            RuntimeError: no ``optimize`` is running on this object.
        """
        with self._runs_lock:
            runs = list(self._runs)
        if not runs:
            raise RuntimeError(f'study "{self.name}": stop() ends a running optimize(); none is '
                               "running on this object")
        for run in runs:
            run.stop()
        logger.info("study=%s optimize stopped by study.stop()", self.name)

    # The dashboard's views -------------------------------------------------------

    def dashboard(self, max_points: int = 1000) -> http_pb2.StudyDashboard:
        """What the dashboard's plots draw, computed by the server and
        bounded whatever the study's size (``GET /dashboard/studies/NAME/
        summary``, docs/web.md): state counts, a sample of at most
        ``max_points`` trials (the best and the Pareto front always in it),
        the best so far, the Pareto front's ids and the importances.
        :mod:`vernier.plot` draws from it.

        Raises:
            Unavailable: the server's HTTP API is not at the client's
                ``http_url``.
        """
        return self._transport.view(f"/dashboard/studies/{self.name}/summary",
                                    {"maxPoints": max_points}, http_pb2.StudyDashboard())

    def curves(self, max_trials: int = 50, max_points: int = 100) -> http_pb2.StudyCurves:
        """The learning curves the dashboard draws (``GET
        /dashboard/studies/NAME/curves``): the objective by step of at most
        ``max_trials`` trials (the best fifth and the latest), each
        downsampled by the server to at most ``max_points`` points."""
        return self._transport.view(f"/dashboard/studies/{self.name}/curves",
                                    {"maxTrials": max_trials, "maxPoints": max_points},
                                    http_pb2.StudyCurves())

    # The study itself ----------------------------------------------------------

    def refresh(self) -> "Study":
        """Reloads the study (its state) from the server."""
        request = study_service_pb2.GetStudyRequest(study_name=self.name)
        self._update(self._transport.call("GetStudy", request))
        return self

    def delete(self) -> None:
        """Deletes the study and all its trials.

        Raises:
            NotFound: already gone.
        """
        self._transport.call("DeleteStudy",
                             study_service_pb2.DeleteStudyRequest(study_name=self.name))

    def __repr__(self) -> str:
        params = ", ".join(self.parameter_names)
        return (f"Study(name={self.name!r}, state={self.state}, objective={self.objective!r} "
                f"{self.goal}, parameters=[{params}])")

    def _repr_html_(self) -> str:
        """Jupyter's view: the study's name, state, objectives, constraints,
        parameters and user attributes (no call to the server)."""
        objectives = ", ".join(f"{name} ({goal.lower()})" for name, goal in self.objectives.items())
        constraints = ", ".join(
            f"{name} in [{'-inf' if low is None else low}, {'inf' if high is None else high}]"
            for name, (low, high) in self.constraints.items())
        params = []
        for spec in flatten_specs(self.spec.parameters):
            kind = study_pb2.ParameterSpec.Type.Name(spec.type)
            if spec.type == study_pb2.ParameterSpec.CATEGORICAL:
                domain = ", ".join(spec.categorical_values)
            elif spec.type == study_pb2.ParameterSpec.DISCRETE:
                domain = ", ".join(f"{value:g}" for value in spec.discrete_values)
            else:
                domain = f"{spec.min_value:g} to {spec.max_value:g}"
                if spec.scale_type == study_pb2.ParameterSpec.UNIT_LOG_SCALE:
                    domain += " (log)"
            params.append((spec.parameter_name, f"{kind} {domain}"))
        rows = [("state", self.state), ("objectives", objectives)]
        if constraints:
            rows.append(("constraints", constraints))
        rows.extend(params)
        rows.extend((f"user_attrs[{key!r}]", repr(value))
                    for key, value in self.user_attrs.items())
        return key_value_table("vernier-study", f"Study {self.name}", rows)
