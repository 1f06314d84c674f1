"""Leaderboards: the best trials of a study as rows, or a pandas DataFrame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

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

    def to_dict(self, objective: str = "value") -> Dict[str, Any]:
        """A flat record: rank, trial, state, the objective under its own
        name, the other metrics, then the parameters (a parameter named like
        a metric gets a ``param.`` prefix)."""
        record: Dict[str, Any] = {"rank": self.rank, "trial": self.trial_id,
                                  "state": self.state, objective: self.value}
        for name, metric in self.metrics.items():
            record.setdefault(name, metric)
        for name, parameter in self.parameters.items():
            record["param." + name if name in record else name] = parameter
        return record


class Leaderboard(List[LeaderboardRow]):
    """Rows, best first. ``objective`` names the metric they are ranked by."""

    objective: str = "value"
    parameter_names: Sequence[str] = ()

    @classmethod
    def from_trials(cls, trials: Sequence["Trial"], objective: str,
                    parameter_names: Sequence[str]) -> "Leaderboard":
        board = cls(
            LeaderboardRow(rank=rank, trial_id=trial.id, state=trial.state, value=trial.value,
                           metrics=trial.metrics, parameters=dict(trial.parameters))
            for rank, trial in enumerate(trials, start=1))
        board.objective = objective or "value"
        board.parameter_names = list(parameter_names)
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

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Notebooks (IPython) show the table rather than the list."""
        printer.text(str(self))

    def __str__(self) -> str:
        values = ["-" if row.value is None else f"{row.value:.6g}" for row in self]
        width = max([len(self.objective)] + [len(value) for value in values])
        lines = [f"rank  trial  {self.objective:>{width}}  parameters"]
        for row, value in zip(self, values):
            params = " ".join(f"{name}={row.parameters[name]}" for name in row.parameters)
            lines.append(f"{row.rank:>4}  {row.trial_id:>5}  {value:>{width}}  {params}")
        return "\n".join(lines)
