"""vernier.plot: each of Optuna's matplotlib plots, drawn from the server's
bounded views (Agg: no display needed), with every point the view holds."""

from __future__ import annotations

import math

import pytest

import vernier

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as pyplot  # noqa: E402

import vernier.plot  # noqa: E402

SPACE = {
    "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy", "algorithm": "RANDOM_SEARCH",
    "params": [
        {"parameterName": "lr", "type": "DOUBLE", "minValue": 1e-4, "maxValue": 1,
         "scaleType": "UNIT_LOG_SCALE"},
        {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 3},
        {"parameterName": "model", "type": "CATEGORICAL", "categoricalValues": ["linear", "dnn"],
         "conditionalParameterSpecs": [{
             "parentCategoricalValues": {"values": ["dnn"]},
             "parameterSpec": {"parameterName": "width", "type": "INTEGER",
                               "minValue": 8, "maxValue": 64}}]},
    ],
}


def accuracy(trial: vernier.Trial) -> float:
    for step in range(1, 4):
        trial.report(step, accuracy=step * 0.1 * trial.parameters["layers"])
    return trial.parameters["layers"] * 0.3 + (0.05 if trial.parameters["model"] == "dnn" else 0)


@pytest.fixture
def study(client: vernier.Client, study_name: str) -> vernier.Study:
    study = client.create_study(study_name, SPACE, seed=5)
    study.optimize(accuracy, n_trials=16)
    return study


@pytest.fixture(autouse=True)
def close_figures():
    yield
    pyplot.close("all")


def test_history_draws_every_trial_and_the_best_so_far(study: vernier.Study) -> None:
    ax = vernier.plot.plot_optimization_history(study)
    points = ax.collections[0].get_offsets()
    assert len(points) == 16
    best = ax.lines[0].get_ydata()
    assert best[-1] == max(trial.value for trial in study.trials())
    assert ax.get_ylabel() == "accuracy"


def test_intermediate_values_has_a_line_per_trial_and_a_legend(study: vernier.Study) -> None:
    ax = vernier.plot.plot_intermediate_values(study)
    assert len(ax.lines) == 16
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["SUCCEEDED (16)"]


def test_parallel_coordinates_draw_whole_lines_with_inactive_parameters(
        study: vernier.Study) -> None:
    ax = vernier.plot.plot_parallel_coordinate(study)
    lines = [line for line in ax.lines if len(line.get_xdata()) == 5]
    assert len(lines) == 16
    assert all(not any(math.isnan(y) for y in line.get_ydata()) for line in lines)
    labels = [text.get_text() for text in ax.get_xticklabels()]
    assert labels == ["lr (log)", "layers", "model", "width", "accuracy"]
    assert any(text.get_text() == "inactive" for text in ax.texts)


def test_slice_draws_points_that_share_a_value_on_each_parameters_scale(
        study: vernier.Study) -> None:
    lr, layers = vernier.plot.plot_slice(study, params=["lr", "layers"])
    assert lr.get_xscale() == "log"
    assert len(layers.collections[0].get_offsets()) == 16  # 16 points on 3 values.
    pyplot.gcf().canvas.draw()
    ticks = [tick for tick in layers.get_xticks() if layers.get_xlim()[0] <= tick <= layers.get_xlim()[1]]
    assert ticks and all(float(tick).is_integer() for tick in ticks), ticks
    model = vernier.plot.plot_slice(study, params=["model"])
    assert [text.get_text() for text in model.get_xticklabels()] == ["dnn", "linear"]
    with pytest.raises(vernier.InvalidArgument, match="'depth' is no parameter"):
        vernier.plot.plot_slice(study, params=["depth"])


def test_contour_importance_and_edf(study: vernier.Study) -> None:
    ax = vernier.plot.plot_contour(study, params=["lr", "layers"])
    assert ax.get_xscale() == "log" and len(ax.collections[-1].get_offsets()) == 16
    with pytest.raises(vernier.InvalidArgument, match="two parameters"):
        vernier.plot.plot_contour(study, params=["lr"])
    ax = vernier.plot.plot_param_importances(study)
    summary = study.dashboard()
    widths = {bar.get_y(): bar.get_width() for bar in ax.patches}
    assert sorted(widths.values()) == sorted(summary.importance)  # As the server reads them.
    assert "Too few" not in ax.get_title()
    ax = vernier.plot.plot_edf(study)
    assert ax.lines[0].get_ydata()[-1] == 1.0 and len(ax.lines[0].get_xdata()) == 16


def test_importance_says_too_few_trials(client: vernier.Client, study_name: str) -> None:
    few = client.create_study(study_name, SPACE, seed=6)
    few.optimize(accuracy, n_trials=4)
    ax = vernier.plot.plot_param_importances(few)
    assert ax.get_title() == "Too few trials to tell: 4 of at least 10"


def test_pareto_front(client: vernier.Client, study_name: str) -> None:
    study = client.create_study(study_name, {
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                    {"metricId": "latency", "goal": "MINIMIZE"}],
        "algorithm": "RANDOM_SEARCH",
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]})
    for index, trial in enumerate(study.suggest(count=8)):
        # Pairs share an accuracy: every point is drawn.
        trial.complete(accuracy=float(index // 2), latency=trial.parameters["x"])
    ax = vernier.plot.plot_pareto_front(study)
    front = {trial.id for trial in study.best_trials}
    assert len(ax.lines[0].get_xdata()) == len(front)
    assert len(ax.collections[0].get_offsets()) + len(front) == 8
    with pytest.raises(vernier.InvalidArgument, match="'speed' is no metric"):
        vernier.plot.plot_pareto_front(study, targets=["accuracy", "speed"])
    ax = vernier.plot.plot_optimization_history(study, target="latency")
    assert ax.get_ylabel() == "latency" and len(ax.collections[0].get_offsets()) == 8
