"""Leaderboards: the best trials of a study as rows, or a pandas DataFrame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from vernier._pandas import import_pandas

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from vernier.trial import ParameterValue, Trial


@dataclass(frozen=True)
class LeaderboardRow:
    """One completed trial on a leaderboard."""

    rank: int
    trial_id: int
    state: str
    value: Optional[float]
    """The objective's final value."""
    metrics: Dict[str, float] = field(default_factory=dict)
    """Every metric of the final measurement, the objective included."""
    parameters: Dict[str, "ParameterValue"] = field(default_factory=dict)
    feasible: Optional[bool] = None
    """Whether the trial meets every outcome constraint of the study; None
    when the study has none."""

    def to_dict(self, objective: str = "value") -> Dict[str, Any]:
        """A flat record: rank, trial, state, the objective under its own
        name, the other metrics, ``feasible`` when the study has outcome
        constraints, then the parameters (a parameter named like a metric
        gets a ``param.`` prefix)."""
        record: Dict[str, Any] = {"rank": self.rank, "trial": self.trial_id,
                                  "state": self.state, objective: self.value}
        for name, metric in self.metrics.items():
            record.setdefault(name, metric)
        if self.feasible is not None:
            record.setdefault("feasible", self.feasible)
        for name, parameter in self.parameters.items():
            record["param." + name if name in record else name] = parameter
        return record


def meets_constraints(metrics: Mapping[str, float],
                      constraints: Mapping[str, Tuple[Optional[float], Optional[float]]]) -> bool:
    """Whether every constrained metric is reported and within its bounds
    (``(min, max)``, None for an open side)."""
    for name, (lower, upper) in constraints.items():
        value = metrics.get(name)
        if value is None or value != value:
            return False
        if (lower is not None and value < lower) or (upper is not None and value > upper):
            return False
    return True


class Leaderboard(List[LeaderboardRow]):
    """Rows, best first. ``objective`` names the metric they are ranked by."""

    objective: str = "value"
    parameter_names: Sequence[str] = ()
    metric_names: Sequence[str] = ()
    """Every metric of the study (objectives, then outcome constraints, in
    the spec's order); with more than one, the rows are the Pareto front."""

    @classmethod
    def from_trials(cls, trials: Sequence["Trial"], objective: str,
                    parameter_names: Sequence[str], metric_names: Sequence[str] = (),
                    constraints: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]]
                    = None) -> "Leaderboard":
        board = cls(
            LeaderboardRow(rank=rank, trial_id=trial.id, state=trial.state, value=trial.value,
                           metrics=trial.metrics, parameters=dict(trial.parameters),
                           feasible=(meets_constraints(trial.metrics, constraints)
                                     if constraints else None))
            for rank, trial in enumerate(trials, start=1))
        board.objective = objective or "value"
        board.parameter_names = list(parameter_names)
        board.metric_names = list(metric_names) or [board.objective]
        return board

    def to_dataframe(self) -> "pandas.DataFrame":
        """The rows as a pandas DataFrame indexed by rank, one column per
        field of :meth:`LeaderboardRow.to_dict`.

        Raises:
            ImportError: pandas is not installed (Debian: python3-pandas).
        """
        pandas = import_pandas("Leaderboard.to_dataframe()",
                               "the leaderboard itself is a list of rows")
        records = [row.to_dict(self.objective) for row in self]
        columns = ["rank", "trial", "state", self.objective]
        for record in records:
            columns.extend(name for name in record if name not in columns)
        return pandas.DataFrame.from_records(records, columns=columns).set_index("rank")

    def _repr_html_(self) -> str:
        """Jupyter's view: the table, a column per metric and parameter."""
        import html
        names = list(self.metric_names) or [self.objective]
        params = list(self.parameter_names)
        head = "".join(f"<th>{html.escape(name)}</th>"
                       for name in ["rank", "trial", "state", *names, *params])
        if any(row.feasible is not None for row in self):
            head += "<th>feasible</th>"
        rows = []
        for row in self:
            values = [row.value if len(names) == 1 else row.metrics.get(name) for name in names]
            cells = [str(row.rank), str(row.trial_id), row.state]
            cells += ["-" if value is None else f"{value:.6g}" for value in values]
            cells += ["" if name not in row.parameters else str(row.parameters[name])
                      for name in params]
            if row.feasible is not None:
                cells.append("yes" if row.feasible else "no")
            rows.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells)
                        + "</tr>")
        return (f"<table class='vernier-leaderboard'><thead><tr>{head}</tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Notebooks (IPython) show the table rather than the list."""
        printer.text(str(self))

    def __str__(self) -> str:
        names = list(self.metric_names) or [self.objective]
        columns = []
        for index, name in enumerate(names):
            values = []
            for row in self:
                value = row.value if index == 0 and len(names) == 1 else row.metrics.get(name)
                values.append("-" if value is None else f"{value:.6g}")
            width = max([len(name)] + [len(value) for value in values])
            columns.append((name, width, values))
        header = "  ".join(f"{name:>{width}}" for name, width, _ in columns)
        lines = [f"rank  trial  {header}  parameters"]
        for position, row in enumerate(self):
            cells = "  ".join(f"{values[position]:>{width}}" for _, width, values in columns)
            params = " ".join(f"{name}={row.parameters[name]}" for name in row.parameters)
            lines.append(f"{row.rank:>4}  {row.trial_id:>5}  {cells}  {params}")
        return "\n".join(lines)
