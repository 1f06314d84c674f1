"""Matplotlib plots of a study, as Optuna's ``optuna.visualization.matplotlib``
names them, drawn from the server's bounded views (the dashboard's
``/dashboard/studies/NAME/summary`` and ``.../curves``, docs/web.md): the
server samples, ranks and downsamples, so a plot of a study of 100,000 trials
reads at most ``max_points`` trials and never a measurement it does not draw.

    import vernier.plot
    vernier.plot.plot_optimization_history(study)
    vernier.plot.plot_slice(study, params=["lr", "layers"])

Each function returns the matplotlib Axes it drew on (``plot_slice`` one per
parameter); ``ax=`` draws on one of yours. Needs matplotlib (Debian:
python3-matplotlib).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from vernier._parameters import flatten_specs
from vernier._stubs import http_pb2, study_pb2
from vernier.errors import InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    from vernier.study import Study

__all__ = ["plot_contour", "plot_edf", "plot_intermediate_values", "plot_optimization_history",
           "plot_parallel_coordinate", "plot_param_importances", "plot_pareto_front", "plot_slice"]

# The colours of the dashboard (web/plots.js), by trial state.
COLORS = {"SUCCEEDED": "#17803d", "FAILED": "#b42318", "INFEASIBLE": "#b42318",
          "STOPPED_EARLY": "#8a6d00", "CANCELLED": "#6b7280", "ACTIVE": "#1f5fbf",
          "STOPPING": "#1f5fbf"}
POINT = "#1f5fbf"
FRONT = "#b42318"


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as pyplot
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("vernier.plot needs matplotlib (Debian: apt-get install "
                          f"python3-matplotlib): {error}") from None
    return pyplot


def _axes(ax: Any) -> Any:
    return ax if ax is not None else _pyplot().subplots()[1]


class _Row:
    """One trial of the server's sample: its state, metrics and parameters
    (a category's label, a number, or absent when inactive)."""

    def __init__(self, trial: http_pb2.DashboardTrial, metric_ids: Sequence[str],
                 parameter_names: Sequence[str]) -> None:
        self.id = trial.id
        self.state = study_pb2.Trial.State.Name(trial.state)
        self.final = trial.final
        self.metrics = {name: value for name, value in zip(metric_ids, trial.metrics)
                        if not math.isnan(value)}
        self.params: Dict[str, Union[float, str]] = {}
        for index, name in enumerate(parameter_names):
            if index in trial.labels:
                self.params[name] = trial.labels[index]
            elif index < len(trial.parameters) and not math.isnan(trial.parameters[index]):
                self.params[name] = trial.parameters[index]


class _View:
    """A study's summary, read once per plot."""

    def __init__(self, study: "Study", max_points: int) -> None:
        self.study = study
        self.summary = study.dashboard(max_points=max_points)
        self.rows = [_Row(trial, self.summary.metric_ids, self.summary.parameter_names)
                     for trial in self.summary.sample]
        self.specs = {spec.parameter_name: spec for spec in flatten_specs(study.spec.parameters)}

    def ended(self, metric: str, stopped: bool = False) -> List[_Row]:
        """The sample's trials with a final value of ``metric``: SUCCEEDED
        ones, and STOPPED_EARLY ones too when ``stopped``."""
        states = ("SUCCEEDED", "STOPPED_EARLY") if stopped else ("SUCCEEDED",)
        return [row for row in self.rows
                if row.state in states and row.final and metric in row.metrics]

    def is_log(self, name: str) -> bool:
        spec = self.specs.get(name)
        return spec is not None and spec.scale_type == study_pb2.ParameterSpec.UNIT_LOG_SCALE

    def is_integer(self, name: str) -> bool:
        spec = self.specs.get(name)
        if spec is None:
            return False
        return spec.type == study_pb2.ParameterSpec.INTEGER or (
            spec.type == study_pb2.ParameterSpec.DISCRETE
            and all(float(v).is_integer() for v in spec.discrete_values))

    def is_categorical(self, name: str) -> bool:
        spec = self.specs.get(name)
        return spec is not None and spec.type == study_pb2.ParameterSpec.CATEGORICAL

    def check_parameters(self, params: Optional[Sequence[str]]) -> List[str]:
        names = list(self.summary.parameter_names)
        if params is None:
            return names
        unknown = [name for name in params if name not in names]
        if unknown:
            raise InvalidArgument(f"params: {', '.join(map(repr, unknown))} is no parameter of "
                                  f"study \"{self.study.name}\" ({', '.join(names)})",
                                  field="params")
        return list(params)

    def check_metric(self, metric: Optional[str], argument: str) -> str:
        names = list(self.summary.metric_ids)
        if metric is None:
            return names[0] if names else ""
        if metric not in names:
            raise InvalidArgument(f"{argument}: {metric!r} is no metric of study "
                                  f"\"{self.study.name}\" ({', '.join(names)})", field=argument)
        return metric


def _scale_axis(ax: Any, view: _View, name: str, axis: str, values: List[Any]) -> List[Any]:
    """Sets the axis of parameter ``name`` to its scale (log, whole-number
    ticks, categories) and returns the values to plot (categories as their
    positions)."""
    set_scale = ax.set_xscale if axis == "x" else ax.set_yscale
    if view.is_categorical(name) or any(isinstance(v, str) for v in values):
        categories = sorted({str(v) for v in values})
        ticks = ax.set_xticks if axis == "x" else ax.set_yticks
        ticks(range(len(categories)), categories)
        return [categories.index(str(v)) for v in values]
    if view.is_log(name):
        set_scale("log")
    elif view.is_integer(name):
        from matplotlib.ticker import MaxNLocator
        (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))
    return values


def plot_optimization_history(study: "Study", ax: Any = None, target: Optional[str] = None,
                              max_points: int = 1000) -> Any:
    """The objective by trial id: the server's sample of succeeded trials,
    stopped-early ones (whose values are from earlier steps) in amber, and
    the best so far over every succeeded trial as steps. With several
    objectives, ``target`` (default the first) by trial id with the Pareto
    front in red, and no best so far (one objective's best is not the
    study's)."""
    view = _View(study, max_points)
    metric = view.check_metric(target, "target")
    ax = _axes(ax)
    objectives = list(study.objectives)
    if len(objectives) > 1:
        front = set(view.summary.pareto_front)
        rows = view.ended(metric, stopped=True)
        ax.scatter([r.id for r in rows], [r.metrics[metric] for r in rows], s=14,
                   c=[FRONT if r.id in front else COLORS[r.state] for r in rows], label="trial")
        ax.set_title(f"{metric} by trial (Pareto front in red)")
    else:
        done = view.ended(metric)
        stopped = [r for r in view.ended(metric, stopped=True) if r.state == "STOPPED_EARLY"]
        ax.scatter([r.id for r in done], [r.metrics[metric] for r in done], s=14, c=POINT,
                   label="succeeded")
        if stopped:
            ax.scatter([r.id for r in stopped], [r.metrics[metric] for r in stopped], s=14,
                       c=COLORS["STOPPED_EARLY"], label="stopped early")
        best = list(view.summary.best_so_far)
        if best and metric == view.summary.metric_ids[0]:
            xs = [point.trial_id for point in best]
            ys = [point.value for point in best]
            if view.summary.last_trial_id > xs[-1]:
                xs.append(view.summary.last_trial_id)
                ys.append(ys[-1])
            ax.step(xs, ys, where="post", color="#17803d", linewidth=2, label="best so far")
        ax.set_title("Optimization history")
    ax.set_xlabel("trial")
    ax.set_ylabel(metric)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_intermediate_values(study: "Study", ax: Any = None, max_trials: int = 50,
                             max_points: int = 100) -> Any:
    """The learning curves (objective by step) of at most ``max_trials``
    trials (the best fifth and the latest), downsampled by the server,
    coloured by state, with a legend per state."""
    curves = study.curves(max_trials=max_trials, max_points=max_points)
    ax = _axes(ax)
    shown: Dict[str, int] = {}
    for curve in curves.curves:
        state = study_pb2.Trial.State.Name(curve.state)
        shown[state] = shown.get(state, 0) + 1
        ax.plot(list(curve.steps), list(curve.values), color=COLORS.get(state, "#888888"),
                linewidth=1, alpha=0.8)
    from matplotlib.lines import Line2D
    ax.legend([Line2D([0], [0], color=COLORS.get(state, "#888888")) for state in shown],
              [f"{state} ({count})" for state, count in shown.items()], fontsize="small")
    ax.set_xlabel("step")
    ax.set_ylabel(curves.metric_id or "objective")
    ax.set_title("Intermediate values")
    return ax


def plot_parallel_coordinate(study: "Study", ax: Any = None,
                             params: Optional[Sequence[str]] = None,
                             max_points: int = 1000) -> Any:
    """One axis per parameter and one for the objective, a line per
    succeeded trial of the sample coloured by its objective. Each axis spans
    the parameter's own scale (log for a log-scaled one, its categories for
    a categorical one) with its ends labelled; a trial in which a
    conditional parameter is inactive crosses that axis at "inactive",
    below it, so every line is whole."""
    view = _View(study, max_points)
    names = view.check_parameters(params)
    metric = view.summary.metric_ids[0]
    rows = view.ended(metric)
    ax = _axes(ax)
    axes_names = names + [metric]
    columns: List[List[float]] = []
    labels: List[Tuple[str, str]] = []
    for name in axes_names:
        values = [row.metrics[metric] if name == metric else row.params.get(name)
                  for row in rows]
        present = [v for v in values if v is not None]
        if any(isinstance(v, str) for v in present):
            categories = sorted({str(v) for v in present})
            positions = {c: (i + 0.5) / len(categories) for i, c in enumerate(categories)}
            columns.append([-0.1 if v is None else positions[str(v)] for v in values])
            labels.append((categories[0], categories[-1]))
            continue
        log = name != metric and view.is_log(name)
        scaled = [math.log10(v) if log else v for v in present]
        low, high = (min(scaled), max(scaled)) if scaled else (0.0, 1.0)
        span = high - low or 1.0
        columns.append([-0.1 if v is None else
                        ((math.log10(v) if log else v) - low) / span for v in values])
        ends = (10 ** low, 10 ** high) if log else (low, high)
        labels.append((f"{ends[0]:.3g}", f"{ends[1]:.3g}"))
    import matplotlib
    objective = [row.metrics[metric] for row in rows]
    norm = matplotlib.colors.Normalize(min(objective, default=0), max(objective, default=1))
    colormap = matplotlib.colormaps["viridis"]
    for index in range(len(rows)):
        ax.plot(range(len(axes_names)), [column[index] for column in columns],
                color=colormap(norm(objective[index])), linewidth=1, alpha=0.8)
    for position, (low, high) in enumerate(labels):
        ax.axvline(position, color="#444444", linewidth=0.8)
        ax.annotate(low, (position, 0), xytext=(3, 0), textcoords="offset points", fontsize=7)
        ax.annotate(high, (position, 1), xytext=(3, 0), textcoords="offset points", fontsize=7)
        if any(column is not None and column == -0.1 for column in columns[position]):
            ax.annotate("inactive", (position, -0.1), xytext=(3, 0), textcoords="offset points",
                        fontsize=7)
    ax.set_xticks(range(len(axes_names)),
                  [name + (" (log)" if name != metric and view.is_log(name) else "")
                   for name in axes_names])
    ax.set_yticks([])
    ax.set_ylim(-0.15, 1.05)
    mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=colormap)
    ax.figure.colorbar(mappable, ax=ax, label=metric)
    ax.set_title("Parallel coordinates")
    return ax


def plot_slice(study: "Study", params: Optional[Sequence[str]] = None,
               max_points: int = 1000) -> Any:
    """The objective against each parameter, one Axes each (returned as a
    list, or the Axes alone for one parameter): every succeeded trial of the
    sample, also those that share a value, on the parameter's own scale (log
    for a log-scaled one, whole-number ticks for an integer one, a column
    per category)."""
    view = _View(study, max_points)
    names = view.check_parameters(params)
    metric = view.summary.metric_ids[0]
    rows = view.ended(metric)
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(1, max(1, len(names)), squeeze=False,
                                   figsize=(4 * max(1, len(names)), 3.5), sharey=True)
    for ax, name in zip(axes[0], names):
        points = [row for row in rows if name in row.params]
        xs = _scale_axis(ax, view, name, "x", [row.params[name] for row in points])
        ax.scatter(xs, [row.metrics[metric] for row in points], s=14,
                   c=[COLORS[row.state] for row in points])
        ax.set_xlabel(name)
    axes[0][0].set_ylabel(metric)
    figure.suptitle("Slice")
    return axes[0][0] if len(names) == 1 else list(axes[0])


def plot_contour(study: "Study", params: Optional[Sequence[str]] = None, ax: Any = None,
                 max_points: int = 1000) -> Any:
    """The objective over two parameters (default: the two most important
    numeric ones): the succeeded trials of the sample coloured by objective,
    over the objective's contours interpolated between them (when they span
    an area)."""
    view = _View(study, max_points)
    numeric = [name for name in view.summary.parameter_names if not view.is_categorical(name)]
    if params is None:
        ranked = sorted(zip(view.summary.importance, view.summary.parameter_names), reverse=True)
        params = [name for _, name in ranked if name in numeric][:2]
    names = view.check_parameters(params)
    if len(names) != 2:
        raise InvalidArgument(f"params: a contour plot takes two parameters, got {names!r}",
                              field="params")
    metric = view.summary.metric_ids[0]
    rows = [row for row in view.ended(metric)
            if names[0] in row.params and names[1] in row.params]
    ax = _axes(ax)
    xs = _scale_axis(ax, view, names[0], "x", [row.params[names[0]] for row in rows])
    ys = _scale_axis(ax, view, names[1], "y", [row.params[names[1]] for row in rows])
    values = [row.metrics[metric] for row in rows]
    if len(set(zip(xs, ys))) >= 4:
        try:
            contour = ax.tricontourf(xs, ys, values, levels=12, cmap="viridis", alpha=0.6)
            ax.figure.colorbar(contour, ax=ax, label=metric)
        except (ValueError, RuntimeError):  # Points on a line: no area to fill.
            pass
    ax.scatter(xs, ys, c=values, cmap="viridis", edgecolors="black", s=18)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title(f"Contour of {metric}")
    return ax


def plot_param_importances(study: "Study", ax: Any = None) -> Any:
    """The server's importances (the dashboard's): each parameter's share of
    the objective's variance explained alone, less chance, unscaled. Below
    the server's minimum of trials the bars are grey and the title says
    there are too few trials to tell."""
    summary = study.dashboard(max_points=2)
    ax = _axes(ax)
    pairs = sorted(zip(summary.importance, summary.parameter_names))
    too_few = summary.importance_trial_count < summary.importance_min_trials
    ax.barh([name for _, name in pairs], [share for share, _ in pairs],
            color="#b8bec8" if too_few else POINT)
    for position, (share, _) in enumerate(pairs):
        ax.annotate(f"{share:.2f}", (max(share, 0), position), xytext=(3, -3),
                    textcoords="offset points", fontsize=8)
    ax.axvline(0, color="#444444", linewidth=0.8)
    ax.set_xlabel("share of the objective's variance explained alone (less chance)")
    title = f"Parameter importance ({summary.importance_trial_count} trials)"
    if too_few:
        title = (f"Too few trials to tell: {summary.importance_trial_count} of at least "
                 f"{summary.importance_min_trials}")
    ax.set_title(title)
    return ax


def plot_edf(study: Union["Study", Sequence["Study"]], ax: Any = None,
             target: Optional[str] = None, max_points: int = 10000) -> Any:
    """The empirical distribution function of the objective over the
    succeeded trials of each study (of the server's sample: at most
    ``max_points`` trials a study, the best always in it)."""
    studies = [study] if not isinstance(study, (list, tuple)) else list(study)
    ax = _axes(ax)
    for each in studies:
        view = _View(each, max_points)
        metric = view.check_metric(target, "target")
        values = sorted(row.metrics[metric] for row in view.ended(metric))
        if values:
            fractions = [(index + 1) / len(values) for index in range(len(values))]
            ax.step(values, fractions, where="post", label=each.name)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(target or (studies[0].objective if studies else "objective"))
    ax.set_ylabel("fraction of trials")
    ax.set_title("Empirical distribution function")
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_pareto_front(study: "Study", ax: Any = None, targets: Optional[Sequence[str]] = None,
                      max_points: int = 1000) -> Any:
    """Two objectives (``targets``, default the first two) against each
    other: the ended trials of the sample, and the Pareto front (as
    ``study.best_trials`` ranks it) in red, joined by a line."""
    view = _View(study, max_points)
    objectives = list(study.objectives)
    names = list(targets) if targets is not None else objectives[:2]
    if len(names) != 2:
        raise InvalidArgument(f"targets: a Pareto front plot takes two metrics, got {names!r} "
                              f"(the study's objectives: {', '.join(objectives)})",
                              field="targets")
    for name in names:
        view.check_metric(name, "targets")
    rows = [row for row in view.ended(names[0], stopped=True) if names[1] in row.metrics]
    front = set(view.summary.pareto_front)
    ax = _axes(ax)
    others = [row for row in rows if row.id not in front]
    on_front = sorted((row for row in rows if row.id in front),
                      key=lambda row: row.metrics[names[0]])
    ax.scatter([r.metrics[names[0]] for r in others], [r.metrics[names[1]] for r in others],
               s=14, c=POINT, label="trial")
    ax.plot([r.metrics[names[0]] for r in on_front], [r.metrics[names[1]] for r in on_front],
            color=FRONT, marker="o", markersize=5, linewidth=1.5,
            label=f"Pareto front ({len(view.summary.pareto_front)})")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title("Pareto front")
    ax.legend(loc="best", fontsize="small")
    return ax
