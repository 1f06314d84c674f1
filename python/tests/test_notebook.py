"""What an Optuna user reaches for in a notebook (issue 36): best_params,
best_value and best_trials; user attributes kept on the server; callbacks
and study.stop() in optimize; Jupyter's HTML views; resuming a study by its
name in a new kernel; and the server's HTTP views the plots read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import vernier

SPACE = {
    "goal": "MINIMIZE", "hyperparameterMetricTag": "loss", "algorithm": "RANDOM_SEARCH",
    "params": [
        {"parameterName": "x", "type": "DOUBLE", "minValue": -5, "maxValue": 5},
        {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 3},
    ],
}

TWO_OBJECTIVES = {
    "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                {"metricId": "latency", "goal": "MINIMIZE"}],
    "algorithm": "RANDOM_SEARCH",
    "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}],
}


def loss(trial: vernier.Trial) -> float:
    return (trial.parameters["x"] - 1) ** 2 + trial.parameters["layers"]


def test_best_params_value_and_trials(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, SPACE, seed=1)
    with pytest.raises(vernier.FailedPrecondition, match="no completed trial yet"):
        study.best_params
    with pytest.raises(vernier.FailedPrecondition, match="no completed trial yet"):
        study.best_value
    assert study.best_trials == []
    trials = study.optimize(loss, n_trials=6)
    best = min(trials, key=lambda trial: trial.value)
    assert study.best_value == best.value
    assert study.best_params == best.parameters
    assert [trial.id for trial in study.best_trials] == [best.id]
    # A tie: both trials share the best value.
    tie = study.add_trial(dict(best.parameters))
    study.suggest()
    tie.complete(loss=best.value)
    assert sorted(trial.id for trial in study.best_trials) == sorted([best.id, tie.id])


def test_best_trials_is_the_pareto_front_and_best_value_is_refused(
        client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, TWO_OBJECTIVES, seed=2)
    for index, trial in enumerate(study.suggest(count=6)):
        trial.complete(accuracy=float(index), latency=float(index % 3))
    front = {trial.id for trial in study.best_trials}
    assert front == {row.trial_id for row in study.leaderboard(top=0)}
    assert study.best_trial is not None and study.best_trial.id in front
    with pytest.raises(vernier.FailedPrecondition, match="2 objectives.*best_trials"):
        study.best_value


def test_user_attributes_are_kept_on_the_server(client: vernier.Client, server: vernier.LocalServer,
                                                study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    study.set_user_attr("dataset", "cifar10")
    study.set_user_attr("splits", {"train": 0.8, "test": [1, 2]})
    trial = study.suggest()[0]
    trial.set_user_attr("seed", 7)
    trial.complete(loss=1.0)
    trial.set_user_attr("note", "ended trials take attributes too")
    assert study.user_attrs == {"dataset": "cifar10", "splits": {"test": [1, 2], "train": 0.8}}
    # Another client (a new kernel) reads them from the server.
    with vernier.Client(server.target) as other:
        again = other.get_study(study_name)
        assert again.user_attrs["splits"] == {"train": 0.8, "test": [1, 2]}
        assert again.get_trial(trial.id).user_attrs == {
            "seed": 7, "note": "ended trials take attributes too"}
        assert again.trials()[0].user_attrs["seed"] == 7


def test_bad_user_attributes_are_refused_naming_the_key(client: vernier.Client,
                                                        study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    with pytest.raises(vernier.InvalidArgument, match='"bad".*must be JSON') as error:
        study.set_user_attr("bad", object())
    assert error.value.field == "bad"
    with pytest.raises(vernier.InvalidArgument, match="NaN"):
        study.set_user_attr("nan", float("nan"))
    with pytest.raises(vernier.InvalidArgument, match="non-empty string"):
        study.set_user_attr("", 1)
    # The server's limits, with the key named.
    with pytest.raises(vernier.InvalidArgument, match=r'attributes\["big"\]: the value has'):
        study.set_user_attr("big", "x" * (64 * 1024))
    with pytest.raises(vernier.InvalidArgument, match="at most 256"):
        study.set_user_attr("k" * 300, 1)
    trial = study.suggest()[0]
    with pytest.raises(vernier.InvalidArgument, match=f"trial {trial.id}"):
        trial.set_user_attr("bad", {1, 2})
    assert study.refresh().user_attrs == {}


def test_callbacks_see_each_trial_and_stop_ends_optimize(client: vernier.Client,
                                                         study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    seen = []

    def callback(called_study: vernier.Study, trial: vernier.Trial) -> None:
        assert called_study is study and trial.is_done
        seen.append(trial.id)
        if len(seen) == 3:
            called_study.stop()

    ran = study.optimize(loss, n_trials=10, callbacks=[callback])
    assert [trial.id for trial in ran] == seen and len(ran) == 3
    # stop() from the objective function: its trial ends, no other starts.
    def stopping(trial: vernier.Trial) -> float:
        study.stop()
        return 1.0
    assert len(study.optimize(stopping, n_trials=5, n_parallel=1)) == 1
    with pytest.raises(RuntimeError, match="none is running"):
        study.stop()
    with pytest.raises(vernier.InvalidArgument, match=r"callbacks\[0\] must be callable"):
        study.optimize(loss, n_trials=1, callbacks=["not a function"])

    class Boom(Exception):
        pass

    def failing(called_study: vernier.Study, trial: vernier.Trial) -> None:
        raise Boom("from a callback")
    with pytest.raises(Boom):
        study.optimize(loss, n_trials=4, callbacks=[failing])


def test_stop_from_another_thread_ends_parallel_optimize(client: vernier.Client,
                                                         study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    counted = []

    def callback(called_study: vernier.Study, trial: vernier.Trial) -> None:
        counted.append(trial.id)
        if len(counted) == 4:
            called_study.stop()

    ran = study.optimize(loss, n_trials=40, n_parallel=3, callbacks=[callback])
    # The trials running when it stopped finish: at most one more per thread.
    assert 4 <= len(ran) <= 6, len(ran)


def test_html_views_of_study_trial_and_leaderboard(client: vernier.Client,
                                                   study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    study.set_user_attr("owner", "<ada>")
    study.optimize(loss, n_trials=3)
    page = study._repr_html_()
    assert f"Study {study_name}" in page and "loss (minimize)" in page
    assert "INTEGER 1 to 3" in page and "&lt;ada&gt;" in page and "<ada>" not in page
    trial = study.best_trial
    assert trial is not None
    trial_page = trial._repr_html_()
    assert f"Trial {trial.id} of {study_name}" in trial_page and "SUCCEEDED" in trial_page
    board = study.leaderboard(top=3)._repr_html_()
    assert board.count("<tr>") == 4 and "<th>loss</th>" in board and "<th>layers</th>" in board


def test_a_new_kernel_resumes_a_study_by_its_name(client: vernier.Client,
                                                  server: vernier.LocalServer,
                                                  study_name: str) -> None:
    study = client.create_study(study_name, SPACE)
    study.set_user_attr("epochs", 3)
    study.optimize(loss, n_trials=2)
    # A new Python process: only the name and the server's address.
    script = textwrap.dedent(f"""
        import json, vernier
        client = vernier.Client({server.target!r})
        study = client.load_study({study_name!r})
        same = client.create_study({study_name!r})
        study.optimize(lambda t: (t.parameters["x"] - 1) ** 2 + t.parameters["layers"], n_trials=2)
        print(json.dumps({{"trials": len(study.trials()), "epochs": study.user_attrs["epochs"],
                          "same": same.name, "best": study.best_value}}))
    """)
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["trials"] == 4 and answer["epochs"] == 3 and answer["same"] == study_name
    assert answer["best"] == study.best_value


def test_load_study_of_an_unknown_name_lists_the_studies(client: vernier.Client,
                                                         study_name: str) -> None:
    client.create_study(study_name, SPACE)
    with pytest.raises(vernier.NotFound,
                       match=r'no_such_study.*create_study\("no_such_study", spec\).*The server '
                             r"has \d+ studies: \w"):
        client.load_study("no_such_study")
    with pytest.raises(vernier.NotFound, match="create_study"):
        client.create_study("no_such_study")


def test_the_views_come_from_the_servers_http_api(client: vernier.Client,
                                                  server: vernier.LocalServer,
                                                  study_name: str) -> None:
    assert server.http_url and client.http_url == server.http_url
    study = client.create_study(study_name, SPACE)
    study.optimize(loss, n_trials=4)
    summary = study.dashboard(max_points=10)
    assert summary.trial_count == 4 and len(summary.sample) == 4
    assert list(summary.parameter_names) == ["x", "layers"]
    assert summary.importance_min_trials == 10 and summary.importance_trial_count == 4
    with pytest.raises(vernier.InvalidArgument, match="maxPoints must be 2 to 10000"):
        study.dashboard(max_points=1)
    with vernier.Client(server.target, http_url="http://127.0.0.1:9") as wrong:
        with pytest.raises(vernier.Unavailable, match="http_url=.*VERNIER_HTTP_URL"):
            wrong.get_study(study_name).dashboard()
    # The server's HTTP errors come back as the class of their status.
    study.delete()
    with pytest.raises(vernier.NotFound, match=study_name):
        study.dashboard()


def test_user_attributes_over_the_http_api(client: vernier.Client, server: vernier.LocalServer,
                                           study_name: str) -> None:
    import urllib.error
    import urllib.request

    from vernier._transport import find_token

    study = client.create_study(study_name, SPACE)
    trial = study.suggest()[0]

    def post(path: str, body: dict) -> dict:
        request = urllib.request.Request(
            f"{server.http_url}{path}", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {find_token(server.target)}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    answer = post(f"/v1/studies/{study_name}:setUserAttributes",
                  {"attributes": {"team": '"vision"'}})
    assert answer["userAttributes"] == {"team": '"vision"'}
    answer = post(f"/v1/studies/{study_name}/trials/{trial.id}:setUserAttributes",
                  {"attributes": {"gpu": '"a100"'}})
    assert answer["userAttributes"] == {"gpu": '"a100"'}
    assert study.refresh().user_attrs == {"team": "vision"}
    assert trial.refresh().user_attrs == {"gpu": "a100"}
    post(f"/v1/studies/{study_name}:setUserAttributes", {"remove": ["team"]})
    assert study.refresh().user_attrs == {}
    try:
        post(f"/v1/studies/{study_name}/trials/999:setUserAttributes", {"attributes": {"a": "1"}})
        raise AssertionError("an unknown trial took an attribute")
    except urllib.error.HTTPError as error:
        assert error.code == 404, error.code
