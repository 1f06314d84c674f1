"""Studies: a search space, an objective, and the trials run against them."""

from __future__ import annotations

import logging
from typing import (TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, Tuple,
                    Type, Union)

from vernier._parameters import ParameterCodec, ParameterValue, flatten_specs
from vernier._stubs import study_pb2, study_service_pb2
from vernier._transport import Transport
from vernier.errors import InvalidArgument
from vernier.leaderboard import Leaderboard
from vernier.optimizer import ObjectiveResult, run_optimization
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

    def _trial(self, proto: study_pb2.Trial) -> Trial:
        return Trial(self, proto, transport=self._transport, parameters=self._parameters)

    # Trials ------------------------------------------------------------------

    def suggest(self, count: int = 1, client_id: Optional[str] = None) -> Suggestions:
        """Asks for trials to evaluate (the "ask" of ask/tell).

        Args:
            count: how many, 1 to 1000.
            client_id: names the caller. A client that asks again with the
                same id (after a crash, say) gets its unfinished trials back
                before any new one.

        Returns:
            The trials, ACTIVE, with their ``parameters``; fewer than
            ``count`` (possibly none) when the study's ``maxTrials`` or
            ``maxParallelTrials`` leaves no room or a grid is exhausted: the
            list's ``reason`` says which.

        Raises:
            InvalidArgument: count out of range.
            NotFound: the study was deleted.
            FailedPrecondition: the study is not ACTIVE.
        """
        request = study_service_pb2.SuggestTrialsRequest(
            study_name=self.name, count=count, client_id=client_id or "")
        response = self._transport.call("SuggestTrials", request)
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
                 catch: Union[Type[BaseException], Tuple[Type[BaseException], ...]] = ()
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
        ``maxTrials`` reached, a grid exhausted).

        Returns:
            The trials this call ran, in the order they ended.
        """
        return run_optimization(self, fn, n_trials, n_parallel, catch)

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
