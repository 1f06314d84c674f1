"""Ask/tell: suggest, report, should_stop, complete, and the study's views of
its trials, against the real server."""

from __future__ import annotations

import math

import grpc
import pytest

import vernier

from specs import mixed_spec, quadratic_spec


@pytest.fixture
def study(client: vernier.Client, study_name: str) -> vernier.Study:
    return client.create_study(study_name, quadratic_spec())


def test_suggest_gives_typed_parameters(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, mixed_spec())
    trials = study.suggest(count=8)
    assert len(trials) == 8 and trials.reason == ""
    for trial in trials:
        assert trial.state == "ACTIVE" and trial.study_name == study_name
        params = trial.parameters
        assert set(params) == {"lr", "layers", "optimizer", "batch_size", "dropout"}
        assert type(params["lr"]) is float and 1e-4 <= params["lr"] <= 0.1
        assert type(params["layers"]) is int and 1 <= params["layers"] <= 4
        assert params["optimizer"] in ("adam", "sgd")
        # Whole-number DISCRETE values come back as int, others as float.
        assert type(params["batch_size"]) is int and params["batch_size"] in (16, 32, 64)
        assert type(params["dropout"]) is float and params["dropout"] in (0.1, 0.25, 0.5)
        assert trial.start_time is not None and trial.end_time is None
        assert trial.value is None and trial.metrics == {} and not trial.is_done
    assert len({trial.id for trial in trials}) == 8


def test_suggest_stops_at_max_trials(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec(maxTrials=3))
    assert len(study.suggest(2)) == 2
    last = study.suggest(5)
    assert len(last) == 1
    assert "max_trials=3" in last.reason
    assert list(study.suggest()) == []


def test_suggest_respects_max_parallel_trials(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec(maxTrials=10, maxParallelTrials=2))
    first = study.suggest(5)
    assert len(first) == 2 and "max_parallel_trials=2" in first.reason
    first[0].complete(loss=1.0)
    assert len(study.suggest(5)) == 1


def test_a_client_id_gets_its_unfinished_trial_back(study: vernier.Study) -> None:
    handed_out = study.suggest(client_id="worker-1")[0]
    assert handed_out.client_id == "worker-1"
    again = study.suggest(client_id="worker-1")[0]
    assert again.id == handed_out.id and again.parameters == handed_out.parameters
    other = study.suggest(client_id="worker-2")[0]
    assert other.id != handed_out.id


def test_suggest_count_out_of_range(study: vernier.Study) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.suggest(count=0)
    assert "count is 0; ask for 1 to 1000 trials" in caught.value.message


def test_report_should_stop_and_complete(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.report(1, loss=0.9, accuracy=0.5)
    trial.report(2, {"training/hptuning/metric": 0.4}, loss=0.7)
    assert trial.measurement_count == 2
    assert trial.latest_measurement is not None
    assert trial.latest_measurement.step == 2
    assert trial.latest_measurement.metrics == {"training/hptuning/metric": 0.4, "loss": 0.7}
    assert not trial.should_stop()
    assert trial.stop_reason == ""

    done = trial.complete(loss=0.5)
    assert done is trial
    assert trial.state == "SUCCEEDED" and trial.is_done
    assert trial.value == 0.5 and trial.metrics == {"loss": 0.5}
    assert trial.final_measurement is not None and trial.final_measurement.step == 2
    assert trial.end_time is not None

    assert trial.should_stop()
    assert "SUCCEEDED" in trial.stop_reason

    history = study.get_trial(trial.id)
    assert [m.step for m in history.measurements] == [1, 2]
    assert history.measurements[0].metrics == {"loss": 0.9, "accuracy": 0.5}
    assert history.measurements[0].elapsed_seconds >= 0
    assert repr(history) == f"Trial(id={trial.id}, state=SUCCEEDED, parameters=" \
        f"{trial.parameters} loss=0.5)"


def test_complete_with_the_latest_measurement(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.report(3, loss=0.25)
    trial.complete()
    assert trial.state == "SUCCEEDED" and trial.value == 0.25


def test_complete_without_any_measurement_fails(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.FailedPrecondition) as caught:
        trial.complete()
    assert "has no measurement" in caught.value.message
    assert trial.refresh().state == "ACTIVE"


def test_completing_twice(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.complete(loss=1.5)
    # The same result again is a harmless retry...
    assert trial.complete(loss=1.5).state == "SUCCEEDED"
    # ...another result is refused, and the first one stands.
    with pytest.raises(vernier.FailedPrecondition) as caught:
        trial.complete(loss=2.5)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert f"trial {trial.id} was already completed with another final measurement" in \
        caught.value.message
    with pytest.raises(vernier.FailedPrecondition):
        trial.complete(infeasible="changed my mind")
    assert study.get_trial(trial.id).value == 1.5


def test_complete_infeasible(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.complete(infeasible="diverged")
    assert trial.state == "INFEASIBLE" and trial.status_reason == "diverged"
    assert trial.value is None
    assert trial.complete(infeasible="diverged").state == "INFEASIBLE"
    other = study.suggest()[0]
    assert other.complete(infeasible="").status_reason == "marked infeasible"


def test_complete_with_metrics_and_infeasible_is_refused(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.complete(infeasible="no", loss=1.0)
    assert "give metrics or infeasible=REASON, not both" in caught.value.message


def test_complete_without_the_objective_is_refused(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.complete(accuracy=0.9)
    assert 'lacks the objective metric "loss"' in caught.value.message


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_refused(study: vernier.Study, value: float) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1, loss=value)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert 'metric "loss" is' in caught.value.message
    assert "values must be finite" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.complete(loss=value)
    assert "values must be finite" in caught.value.message
    assert trial.refresh().state == "ACTIVE" and trial.measurement_count == 0


@pytest.mark.parametrize("value", ["0.5", None, True, [1.0], object()])
def test_metric_values_must_be_numbers(study: vernier.Study, value: object) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1, loss=value)  # type: ignore[arg-type]
    assert 'metric "loss" must be a number' in caught.value.message


def test_report_arguments(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1)
    assert "give at least one metric" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1.5, loss=1.0)  # type: ignore[arg-type]
    assert "step must be an integer" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(-1, loss=1.0)
    assert "step -1 is negative" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1, {"": 1.0})
    assert "metric names must be non-empty strings" in caught.value.message


def test_report_takes_the_step_by_keyword_or_first(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.report(step=1, loss=0.3)
    trial.report(2, loss=0.2)
    trial.report({"training/loss": 0.1}, step=3)
    trial.report(4, {"training/loss": 0.05}, loss=0.04)
    steps = [(m.step, m.metrics) for m in trial.refresh().measurements]
    assert steps == [(1, {"loss": 0.3}), (2, {"loss": 0.2}), (3, {"training/loss": 0.1}),
                     (4, {"training/loss": 0.05, "loss": 0.04})]


def test_report_refuses_step_as_a_metric_and_optunas_order(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(2, loss=0.2, step=2)  # type: ignore[misc]
    assert "the step is given twice" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(2, {"step": 2.0, "loss": 0.2})
    assert '"step" cannot be a metric name' in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(0.3, 1)  # type: ignore[arg-type]
    assert "looks like Optuna's order (value, step)" in caught.value.message
    assert "report(step=1, loss=0.3)" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(loss=0.3)
    assert "give the step, e.g. report(step=1, loss=0.3)" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1, 2, 3)  # type: ignore[arg-type]
    assert "at most one metrics mapping" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        trial.report(1, 0.5)  # type: ignore[arg-type]
    assert "after the step comes a mapping of metrics" in caught.value.message
    assert trial.refresh().measurement_count == 0


def test_report_after_completion_fails(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    trial.complete(loss=1.0)
    with pytest.raises(vernier.FailedPrecondition) as caught:
        trial.report(5, loss=0.1)
    assert "SUCCEEDED" in caught.value.message


def test_batched_reports_go_out_together_and_before_what_reads_them(
        study: vernier.Study) -> None:
    trial = study.suggest()[0]
    with trial.batched_reports(max_pending=3):
        trial.report(1, loss=0.9)
        trial.report(2, loss=0.8)
        # Held: the server has none yet.
        assert study.get_trial(trial.id).measurement_count == 0
        trial.report(3, loss=0.7)  # the third fills the batch
        assert trial.measurement_count == 3
        assert study.get_trial(trial.id).measurement_count == 3
        trial.report(4, loss=0.6)
        assert not trial.should_stop()  # sends step 4 first
        assert trial.measurement_count == 4
        trial.report(5, loss=0.5)
    # The block's end sent step 5.
    assert [m.step for m in study.get_trial(trial.id).measurements] == [1, 2, 3, 4, 5]

    other = study.suggest()[0]
    with other.batched_reports():
        other.report(1, loss=0.4)
        other.report(2, loss=0.3)
        other.complete()  # with the latest held report
    assert other.state == "SUCCEEDED" and other.value == 0.3
    assert other.final_measurement is not None and other.final_measurement.step == 2


def test_batched_reports_refusals_and_a_batch_the_server_refuses(study: vernier.Study) -> None:
    trial = study.suggest()[0]
    for bad in (0, 1001, 2.5, True):
        with pytest.raises(vernier.InvalidArgument) as caught:
            with trial.batched_reports(max_pending=bad):
                pass
        assert "max_pending" in caught.value.message
    with trial.batched_reports():
        with pytest.raises(vernier.InvalidArgument) as caught:
            with trial.batched_reports():
                pass
        assert "already open" in caught.value.message
    # Ended meanwhile (by another client): the batch is refused when sent,
    # and none of it is stored.
    trial.report(1, loss=0.9)
    with pytest.raises(vernier.FailedPrecondition) as caught:
        with trial.batched_reports():
            trial.report(2, loss=0.8)
            trial.report(3, loss=0.7)
            study.get_trial(trial.id).complete(loss=0.5)
    assert "SUCCEEDED" in caught.value.message
    assert [m.step for m in study.get_trial(trial.id).measurements] == [1]
    # An exception in the block still sends what is held, and goes on.
    held = study.suggest()[0]
    with pytest.raises(KeyError):
        with held.batched_reports():
            held.report(1, loss=0.2)
            raise KeyError("trainer failed")
    assert study.get_trial(held.id).measurement_count == 1


def test_suggest_completes_the_previous_trial_in_the_same_call(study: vernier.Study) -> None:
    first = study.suggest(client_id="loop")[0]
    second = study.suggest(client_id="loop", complete=first, metrics={"loss": 0.25})[0]
    assert first.state == "SUCCEEDED" and first.value == 0.25
    assert second.id != first.id and second.state == "ACTIVE"
    second.report(1, loss=0.5)
    third = study.suggest(client_id="loop", complete=second)[0]  # with its latest report
    assert second.state == "SUCCEEDED" and second.value == 0.5
    fourth = study.suggest(client_id="loop", complete=third, infeasible="diverged")[0]
    assert third.state == "INFEASIBLE" and third.status_reason == "diverged"
    assert fourth.state == "ACTIVE"
    # The request rides along as complete() would send it; the answer is
    # taken back only for the same trial.
    request = fourth.completion_request({"loss": 0.1})
    assert request.trial_id == fourth.id and request.final_measurement.metrics[0].value == 0.1
    with pytest.raises(vernier.InvalidArgument) as caught:
        fourth.update_from(first.proto)
    assert f"trial {fourth.id}: update_from got trial {first.id}" in caught.value.message
    assert fourth.state == "ACTIVE"


def test_suggest_refuses_a_completion_it_cannot_make_and_suggests_nothing(
        client: vernier.Client, study: vernier.Study) -> None:
    trial = study.suggest(client_id="loop")[0]
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.suggest(metrics={"loss": 0.1})
    assert "complete=trial" in caught.value.message
    elsewhere = client.create_study(study.name + "_b", quadratic_spec())
    with pytest.raises(vernier.InvalidArgument) as caught:
        elsewhere.suggest(complete=trial, metrics={"loss": 0.1})
    assert "a trial of this study" in caught.value.message
    # Nothing reported, no metrics: the server refuses and suggests nothing.
    with pytest.raises(vernier.FailedPrecondition) as caught:
        study.suggest(client_id="other", complete=trial)
    assert "complete_trial" in caught.value.message and "has no measurement" in \
        caught.value.message
    assert [t.id for t in study.trials()] == [trial.id]
    assert trial.refresh().state == "ACTIVE"


def test_unknown_trial_is_not_found(study: vernier.Study) -> None:
    with pytest.raises(vernier.NotFound):
        study.get_trial(999)
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.get_trial(0)
    assert "trial_id 0 is not a trial id" in caught.value.message


def test_calls_on_a_deleted_study_are_not_found(client: vernier.Client, study: vernier.Study
                                                ) -> None:
    trial = study.suggest()[0]
    client.delete_study(study.name)
    for call in (lambda: trial.report(1, loss=1.0), trial.should_stop,
                 lambda: trial.complete(loss=1.0), trial.refresh, study.trials,
                 lambda: study.best_trial, study.leaderboard, study.refresh):
        with pytest.raises(vernier.NotFound):
            call()


def test_trials_lists_every_trial_by_state(study: vernier.Study) -> None:
    trials = study.suggest(4)
    trials[0].report(1, loss=3.0)
    trials[0].complete(loss=2.0)
    trials[1].complete(infeasible="bad")
    every = study.trials()
    assert [t.id for t in every] == sorted(t.id for t in trials)
    assert [t.id for t in study.trials(states=["SUCCEEDED"])] == [trials[0].id]
    assert {t.id for t in study.trials(states=["ACTIVE", "INFEASIBLE"])} == {
        t.id for t in trials[1:]}
    assert study.trials()[0].measurements == []
    assert [m.step for m in study.trials(include_measurements=True)[0].measurements] == [1]


def test_trials_reads_every_page(study: vernier.Study) -> None:
    suggested = study.suggest(250)
    assert len(suggested) == 250
    assert [t.id for t in study.trials()] == [t.id for t in suggested]


def test_trials_with_an_unknown_state(study: vernier.Study) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.trials(states=["DONE"])
    assert 'unknown trial state "DONE"; allowed: REQUESTED, ACTIVE' in caught.value.message


def test_add_trial_is_handed_out_first(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, mixed_spec())
    chosen = {"lr": 0.01, "layers": 2, "optimizer": "sgd", "batch_size": 32, "dropout": 0.25}
    queued = study.add_trial(chosen)
    assert queued.state == "REQUESTED" and queued.parameters == chosen
    handed_out = study.suggest()[0]
    assert handed_out.id == queued.id and handed_out.state == "ACTIVE"
    assert handed_out.parameters == chosen


def test_add_trial_with_bad_parameters(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, mixed_spec())
    good = {"lr": 0.01, "layers": 2, "optimizer": "sgd", "batch_size": 32, "dropout": 0.25}
    with pytest.raises(vernier.InvalidArgument):
        study.add_trial(dict(good, lr=5.0))  # Out of range: the server says so.
    with pytest.raises(vernier.InvalidArgument):
        study.add_trial({"lr": 0.01})  # Missing parameters.
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.add_trial(dict(good, layers=2.5))
    assert 'parameter "layers" is INTEGER: expected a whole number' in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.add_trial(dict(good, optimizer=1))
    assert 'parameter "optimizer" is CATEGORICAL: expected a string' in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.add_trial(dict(good, dropout=None))
    assert caught.value.field == "dropout"


def test_best_trial_and_leaderboard(study: vernier.Study) -> None:
    assert study.best_trial is None
    assert list(study.leaderboard()) == []
    trials = study.suggest(4)
    for trial, loss in zip(trials, [3.0, 1.0, 2.0]):
        trial.complete(loss=loss, accuracy=1 / loss)
    trials[3].complete(infeasible="skip")

    best = study.best_trial
    assert best is not None and best.id == trials[1].id and best.value == 1.0

    board = study.leaderboard(top=2)
    assert [row.trial_id for row in board] == [trials[1].id, trials[2].id]
    assert [row.rank for row in board] == [1, 2]
    assert board[0].value == 1.0 and board[0].state == "SUCCEEDED"
    assert board[0].metrics == {"loss": 1.0, "accuracy": 1.0}
    assert board[0].parameters == trials[1].parameters
    assert len(study.leaderboard(top=0)) == 3
    assert "rank  trial  loss" in str(board)
    pretty = pytest.importorskip("IPython.lib.pretty")
    assert pretty.pretty(board) == str(board)
    assert board[0].to_dict("loss") == {"rank": 1, "trial": trials[1].id, "state": "SUCCEEDED",
                                        "loss": 1.0, "accuracy": 1.0,
                                        "x": trials[1].parameters["x"]}


def test_leaderboard_as_a_dataframe(study: vernier.Study) -> None:
    pandas = pytest.importorskip("pandas")
    for trial, loss in zip(study.suggest(3), [3.0, 1.0, 2.0]):
        trial.complete(loss=loss)
    frame = study.leaderboard(as_dataframe=True)
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["trial", "state", "loss", "x"]
    assert list(frame["loss"]) == [1.0, 2.0, 3.0]
    assert list(frame.index) == [1, 2, 3]
    assert frame.equals(study.leaderboard().to_dataframe())


def test_leaderboard_top_must_not_be_negative(study: vernier.Study) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        study.leaderboard(top=-1)
    assert "top must not be negative" in caught.value.message


def test_a_maximised_study_ranks_the_largest_first(client: vernier.Client,
                                                   study_name: str) -> None:
    study = client.create_study(study_name, quadratic_spec(goal="MAXIMIZE"))
    for trial, loss in zip(study.suggest(3), [3.0, 1.0, 2.0]):
        trial.complete(loss=loss)
    assert [row.value for row in study.leaderboard()] == [3.0, 2.0, 1.0]


def test_trials_dataframe_has_every_trial_and_on_request_the_learning_curves(
        study: vernier.Study) -> None:
    pandas = pytest.importorskip("pandas")
    done, diverged, running = study.suggest(3)
    done.report(step=1, loss=4.0)
    done.report(step=2, loss=2.5, accuracy=0.5)
    done.complete(loss=2.0, accuracy=0.75)
    diverged.complete(infeasible="diverged")
    running.report(step=1, loss=9.0)

    frame = study.trials_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["number", "value", "datetime_start", "datetime_complete",
                                   "duration", "params_x", "state", "metrics_loss",
                                   "metrics_accuracy", "status_reason"]
    assert list(frame["number"]) == [done.id, diverged.id, running.id]
    assert list(frame["state"]) == ["SUCCEEDED", "INFEASIBLE", "ACTIVE"]
    assert frame["value"][0] == 2.0 and frame["metrics_accuracy"][0] == 0.75
    assert math.isnan(frame["value"][1]) and frame["status_reason"][1] == "diverged"
    # A running trial shows its latest measurement, and no end yet.
    assert frame["value"][2] == 9.0 and pandas.isna(frame["datetime_complete"][2])
    assert frame["duration"][0] > pandas.Timedelta(0)
    assert list(frame["params_x"]) == [done.parameters["x"], diverged.parameters["x"],
                                       running.parameters["x"]]

    curves = study.trials_dataframe(include_intermediate=True)
    assert curves["intermediate_values"][0] == {1: 4.0, 2: 2.5}
    assert curves["intermediate_values"][1] == {}
    assert curves["intermediate_values"][2] == {1: 9.0}
    only = study.trials_dataframe(states=["SUCCEEDED"])
    assert list(only["number"]) == [done.id]
    with pytest.raises(vernier.InvalidArgument):
        study.trials_dataframe(states=["DONE"])
