"""The loop behind :meth:`vernier.Study.optimize`: suggest, evaluate, complete."""

from __future__ import annotations

import concurrent.futures
import logging
import math
import numbers
import threading
from typing import (TYPE_CHECKING, Callable, Iterable, List, Mapping, Optional, Tuple, Type,
                    Union)

from vernier.errors import InvalidArgument, VernierError
from vernier.trial import Trial

if TYPE_CHECKING:  # pragma: no cover
    from vernier.study import Study, Suggestions

ObjectiveResult = Union[float, Mapping[str, float], None]
"""What an objective function passed to :meth:`Study.optimize` returns."""

logger = logging.getLogger("vernier")

# Reasons are stored with the trial and shown in tables; a long traceback
# message is cut rather than refused.
MAX_REASON_LENGTH = 1000
# How long a thread waits for one of its siblings to free a parallel slot
# before asking again.
SLOT_WAIT_SECONDS = 1.0

ExceptionTypes = Union[Type[BaseException], Tuple[Type[BaseException], ...]]


def _reason(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".rstrip(": ")
    return text if len(text) <= MAX_REASON_LENGTH else text[: MAX_REASON_LENGTH - 3] + "..."


def _as_number(value: object) -> Optional[float]:
    """The value as a float when it is a number (numpy and 0-d tensors
    included); None for anything else."""
    if isinstance(value, (str, bytes, bool)) or value is None:
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def finish_trial(trial: Trial, result: ObjectiveResult, objective: str) -> None:
    """Completes a trial with what the objective function returned;
    ``objective`` names the study's objective metric."""
    if trial.is_done:  # The function completed it itself.
        return
    if result is None:
        trial.complete()
        return
    if isinstance(result, Mapping):
        metrics = dict(result)
        value = _as_number(metrics.get(objective))
    else:
        value = _as_number(result)
        if value is None:
            raise InvalidArgument(
                f"trial {trial.id}: the objective function returned {result!r}; return a "
                "number, a mapping of metric names to numbers, or None")
        metrics = {objective: value}
    if value is not None and not math.isfinite(value):
        trial.complete(infeasible=f"the objective {objective} is {value}")
    else:
        trial.complete(metrics)


class OptimizeRun:
    """State shared by the threads of one optimize() call; :meth:`stop` ends
    it (``study.stop()``).

    Raises:
        InvalidArgument: n_trials, n_parallel or a callback is not what it
            must be (named).
    """

    def __init__(self, study: "Study", fn: Callable[[Trial], ObjectiveResult], n_trials: int,
                 n_parallel: int = 1, catch: ExceptionTypes = (),
                 callbacks: Iterable[Callable[["Study", Trial], None]] = ()) -> None:
        if isinstance(n_trials, bool) or not isinstance(n_trials, numbers.Integral) \
                or n_trials < 0:
            raise InvalidArgument(f"n_trials must be a whole number >= 0, got {n_trials!r}")
        if isinstance(n_parallel, bool) or not isinstance(n_parallel, numbers.Integral) \
                or n_parallel < 1:
            raise InvalidArgument(f"n_parallel must be a whole number >= 1, got {n_parallel!r}")
        self.callbacks = list(callbacks or ())
        for index, callback in enumerate(self.callbacks):
            if not callable(callback):
                raise InvalidArgument(f"callbacks[{index}] must be callable as "
                                      f"callback(study, trial), got {callback!r}")
        self.study = study
        self.fn = fn
        self.n_trials = int(n_trials)
        self.n_parallel = int(n_parallel)
        self.catch = catch if isinstance(catch, tuple) else (catch,)
        # Callbacks run one at a time.
        self.callback_lock = threading.Lock()
        self.condition = threading.Condition()
        self.claimed = 0
        # Threads running a trial, and threads waiting for the server to
        # suggest one: while either is non-zero an empty suggestion may just
        # mean that every parallel slot is taken by a sibling.
        self.running = 0
        self.asking = 0
        self.stopped = False
        self.finished: List[Trial] = []
        self.error: Optional[BaseException] = None

    def stop(self) -> None:
        with self.condition:
            self.stopped = True
            self.condition.notify_all()

    def _claim(self) -> bool:
        with self.condition:
            if self.stopped or self.claimed >= self.n_trials:
                return False
            self.claimed += 1
            return True

    def _next_trial(self) -> Optional[Trial]:
        """One suggested trial, waiting while sibling threads hold (or are
        asking for) every parallel slot; None when the study has no room left."""
        while True:
            with self.condition:
                self.asking += 1
            suggestions: Optional[Suggestions] = None
            try:
                suggestions = self.study.suggest(1)
            finally:
                # In one step, so that no sibling sees neither the question
                # nor the trial it brought back.
                with self.condition:
                    self.asking -= 1
                    if suggestions:
                        self.running += 1
            if suggestions:
                return suggestions[0]
            with self.condition:
                if self.stopped:
                    return None
                if self.running == 0 and self.asking == 0:
                    # Fewer trials than asked for is worth a warning: the
                    # study's maxTrials (or an exhausted grid) ended the loop.
                    logger.warning("study=%s optimize ran %d of the n_trials=%d trials asked "
                                   "for: %s", self.study.name, len(self.finished),
                                   self.n_trials, suggestions.reason or "no trial suggested")
                    self.stopped = True
                    self.condition.notify_all()
                    return None
                self.condition.wait(SLOT_WAIT_SECONDS)

    def _evaluate(self, trial: Trial) -> None:
        try:
            finish_trial(trial, self.fn(trial), self.study.objective)
        except BaseException as error:
            if not trial.is_done:
                try:
                    trial.complete(infeasible=_reason(error))
                except VernierError as complete_error:
                    logger.warning("study=%s trial=%d could not be marked infeasible: %s",
                                   self.study.name, trial.id, complete_error)
            if isinstance(error, Exception) and isinstance(error, self.catch):
                logger.warning("study=%s trial=%d INFEASIBLE: %s", self.study.name, trial.id,
                               _reason(error))
                return
            raise
        logger.info("study=%s trial=%d %s %s=%s", self.study.name, trial.id, trial.state,
                    self.study.objective, trial.value)

    def work(self) -> None:
        """One thread's loop."""
        try:
            while self._claim():
                trial = self._next_trial()
                if trial is None:
                    return
                try:
                    self._evaluate(trial)
                finally:
                    with self.condition:
                        self.running -= 1
                        self.finished.append(trial)
                        self.condition.notify_all()
                with self.callback_lock:
                    for callback in self.callbacks:
                        callback(self.study, trial)
        except BaseException as error:
            with self.condition:
                if self.error is None:
                    self.error = error
            self.stop()
            raise


def run_optimization(run: OptimizeRun) -> List[Trial]:
    """Runs ``run`` to its end; see :meth:`vernier.Study.optimize`."""
    n_parallel = run.n_parallel
    if n_parallel == 1:
        # In the caller's thread: a KeyboardInterrupt lands in fn directly.
        run.work()
        return run.finished
    with concurrent.futures.ThreadPoolExecutor(max_workers=n_parallel,
                                               thread_name_prefix="vernier-optimize") as pool:
        futures = [pool.submit(run.work) for _ in range(n_parallel)]
        try:
            concurrent.futures.wait(futures)
        except BaseException:
            run.stop()  # Ctrl-C: the threads finish their current trial and stop.
            raise
    if run.error is not None:
        raise run.error
    return run.finished
