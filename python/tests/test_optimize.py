"""study.optimize against the real server."""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Dict, List

import pytest

import vernier

from specs import quadratic_spec


@pytest.fixture
def study(client: vernier.Client, study_name: str) -> vernier.Study:
    return client.create_study(study_name, quadratic_spec(), seed=7)


def loss_of(trial: vernier.Trial) -> float:
    return (float(trial.parameters["x"]) - 1.0) ** 2


def test_optimize_with_a_number(study: vernier.Study) -> None:
    ran = study.optimize(loss_of, n_trials=12)
    assert len(ran) == 12
    assert all(trial.state == "SUCCEEDED" for trial in ran)
    assert all(trial.value == loss_of(trial) for trial in ran)
    assert len(study.trials(states=["SUCCEEDED"])) == 12
    best = study.best_trial
    assert best is not None and best.value == min(trial.value for trial in ran)


def test_optimize_with_a_mapping_and_with_reports(study: vernier.Study) -> None:
    def with_metrics(trial: vernier.Trial) -> Dict[str, float]:
        return {"loss": loss_of(trial), "training/extra": 1.0}

    def with_reports(trial: vernier.Trial) -> None:
        for step in range(1, 4):
            trial.report(step, loss=loss_of(trial) + 1.0 / step)
            assert not trial.should_stop()

    ran = study.optimize(with_metrics, n_trials=2) + study.optimize(with_reports, n_trials=2)
    assert [trial.metrics.get("training/extra") for trial in ran[:2]] == [1.0, 1.0]
    for trial in ran[2:]:
        assert trial.final_measurement is not None and trial.final_measurement.step == 3
        assert trial.value == pytest.approx(loss_of(trial) + 1.0 / 3)


def test_a_function_that_completes_its_own_trial(study: vernier.Study) -> None:
    def completes(trial: vernier.Trial) -> None:
        trial.complete(loss=4.0)

    ran = study.optimize(completes, n_trials=2)
    assert [trial.value for trial in ran] == [4.0, 4.0]


@pytest.mark.parametrize("bad", [math.nan, math.inf, {"loss": math.nan}])
def test_a_non_finite_objective_makes_the_trial_infeasible(study: vernier.Study,
                                                           bad: object) -> None:
    ran = study.optimize(lambda trial: bad, n_trials=2)  # type: ignore[arg-type,return-value]
    assert [trial.state for trial in ran] == ["INFEASIBLE", "INFEASIBLE"]
    assert "the objective loss is" in ran[0].status_reason


def test_a_raising_function_marks_the_trial_infeasible_and_re_raises(
        study: vernier.Study) -> None:
    calls: List[int] = []

    def fails_on_second(trial: vernier.Trial) -> float:
        calls.append(trial.id)
        if len(calls) == 2:
            raise RuntimeError("out of memory")
        return loss_of(trial)

    with pytest.raises(RuntimeError, match="out of memory"):
        study.optimize(fails_on_second, n_trials=5)
    assert len(calls) == 2
    failed = study.get_trial(calls[1])
    assert failed.state == "INFEASIBLE"
    assert failed.status_reason == "RuntimeError: out of memory"
    assert study.trials(states=["ACTIVE"]) == []


def test_caught_exceptions_let_the_loop_go_on(study: vernier.Study) -> None:
    def odd_ones_fail(trial: vernier.Trial) -> float:
        if trial.id % 2:
            raise ValueError(f"trial {trial.id} is odd")
        return loss_of(trial)

    ran = study.optimize(odd_ones_fail, n_trials=6, catch=ValueError)
    assert len(ran) == 6
    assert {trial.state for trial in ran if trial.id % 2} == {"INFEASIBLE"}
    assert {trial.state for trial in ran if not trial.id % 2} == {"SUCCEEDED"}
    assert study.optimize(odd_ones_fail, n_trials=2, catch=(KeyError, ValueError))


def test_a_bad_return_value_stops_the_loop(study: vernier.Study) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.optimize(lambda trial: "good", n_trials=3)  # type: ignore[arg-type,return-value]
    assert "the objective function returned 'good'" in caught.value.message
    assert [t.state for t in study.trials()] == ["INFEASIBLE"]


def test_a_mapping_without_the_objective_stops_the_loop(study: vernier.Study) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.optimize(lambda trial: {"accuracy": 1.0}, n_trials=3)
    assert 'lacks the objective metric "loss"' in caught.value.message


def test_optimize_stops_when_the_study_is_full(client: vernier.Client, study_name: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    study = client.create_study(study_name, quadratic_spec(maxTrials=4))
    with caplog.at_level(logging.WARNING, logger="vernier"):
        assert len(study.optimize(loss_of, n_trials=10)) == 4
    assert "optimize ran 4 of the n_trials=10 trials asked for" in caplog.text
    assert "max_trials=4" in caplog.text
    assert study.refresh().state == "COMPLETED"
    assert study.optimize(loss_of, n_trials=10) == []


def test_optimize_in_parallel(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec(maxParallelTrials=2))
    lock = threading.Lock()
    two_running = threading.Event()
    running = 0
    most_running = 0

    def slow(trial: vernier.Trial) -> float:
        nonlocal running, most_running
        with lock:
            running += 1
            most_running = max(most_running, running)
            if running == 2:
                two_running.set()
        # Holds the slot until a sibling runs too (or a third would have got in).
        two_running.wait(timeout=10)
        time.sleep(0.02)
        with lock:
            running -= 1
        return loss_of(trial)

    # Three threads, but the study lets only two trials run at once.
    ran = study.optimize(slow, n_trials=9, n_parallel=3)
    assert len(ran) == 9 and len({trial.id for trial in ran}) == 9
    assert all(trial.state == "SUCCEEDED" for trial in ran)
    assert most_running == 2


def test_a_raising_function_in_parallel(study: vernier.Study) -> None:
    def fails(trial: vernier.Trial) -> float:
        if trial.id == 3:
            raise KeyError("boom")
        time.sleep(0.01)
        return loss_of(trial)

    with pytest.raises(KeyError):
        study.optimize(fails, n_trials=50, n_parallel=4)
    states = [trial.state for trial in study.trials()]
    assert "ACTIVE" not in states
    assert len(states) < 50
    assert study.get_trial(3).state == "INFEASIBLE"


@pytest.mark.parametrize("n_trials, n_parallel, problem", [
    (-1, 1, "n_trials must be a whole number >= 0"),
    (1.5, 1, "n_trials must be a whole number >= 0"),
    (1, 0, "n_parallel must be a whole number >= 1"),
])
def test_optimize_arguments(study: vernier.Study, n_trials: object, n_parallel: object,
                            problem: str) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.optimize(loss_of, n_trials=n_trials, n_parallel=n_parallel)  # type: ignore[arg-type]
    assert problem in caught.value.message


def test_zero_trials_does_nothing(study: vernier.Study) -> None:
    assert study.optimize(loss_of, n_trials=0) == []
    assert study.trials() == []
