"""Every trial of a study as a pandas DataFrame (``Study.trials_dataframe``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Sequence

from vernier._pandas import import_pandas

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from vernier.trial import Trial


def trials_dataframe(trials: Sequence["Trial"], objective: str,
                     include_intermediate: bool) -> "pandas.DataFrame":
    """One row per trial, in id order, with Optuna's column names: ``number``
    (the trial id), ``value`` (the objective), ``datetime_start``,
    ``datetime_complete``, ``duration``, ``params_NAME`` per parameter (NaN
    where a conditional parameter is inactive), ``state``, ``metrics_NAME``
    per metric of the final measurement (the latest one for a trial that has
    none yet), ``status_reason``, and with ``include_intermediate`` the
    objective's ``intermediate_values`` as ``{step: value}``.

    Raises:
        ImportError: pandas is not installed (Debian: python3-pandas).
    """
    pandas = import_pandas("trials_dataframe()", "study.trials() gives the same trials as objects")
    records: List[Dict[str, Any]] = []
    parameter_names: List[str] = []
    metric_names: List[str] = []
    for trial in trials:
        shown = trial.final_measurement or trial.latest_measurement
        metrics = dict(shown.metrics) if shown else {}
        record: Dict[str, Any] = {
            "number": trial.id,
            "value": metrics.get(objective),
            "datetime_start": trial.start_time,
            "datetime_complete": trial.end_time,
            "duration": (trial.end_time - trial.start_time
                         if trial.start_time and trial.end_time else None),
        }
        for name, parameter in trial.parameters.items():
            record["params_" + name] = parameter
            if name not in parameter_names:
                parameter_names.append(name)
        record["state"] = trial.state
        for name, value in metrics.items():
            record["metrics_" + name] = value
            if name not in metric_names:
                metric_names.append(name)
        record["status_reason"] = trial.status_reason
        if include_intermediate:
            record["intermediate_values"] = {
                measurement.step: measurement.metrics[objective]
                for measurement in trial.measurements if objective in measurement.metrics}
        records.append(record)
    columns = (["number", "value", "datetime_start", "datetime_complete", "duration"]
               + ["params_" + name for name in parameter_names] + ["state"]
               + ["metrics_" + name for name in metric_names] + ["status_reason"]
               + (["intermediate_values"] if include_intermediate else []))
    return pandas.DataFrame.from_records(records, columns=columns)
