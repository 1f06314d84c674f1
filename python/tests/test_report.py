"""vernier.report: the hypertune file and stdout formats, and a real job whose
trainer reports through the real agent."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import vernier
from vernier.reporting import METRIC_FILE_VARIABLE, TRIAL_ID_VARIABLE


@pytest.fixture
def metric_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hypertune" / "output.metric"
    path.parent.mkdir()
    monkeypatch.setenv(METRIC_FILE_VARIABLE, str(path))
    monkeypatch.setenv(TRIAL_ID_VARIABLE, "3")
    return path


def records(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_report_appends_hypertune_records(metric_file: Path) -> None:
    before = time.time()
    vernier.report(step=120, accuracy=0.91)
    vernier.report({"training/hptuning/metric": 0.5}, step=121, loss=2)
    vernier.report(loss=1e-05)
    first, second, third = records(metric_file)
    assert first["global_step"] == "120" and first["accuracy"] == "0.91"
    assert first["trial"] == "3"
    assert before <= first["timestamp"] <= time.time()
    assert list(first) == ["global_step", "accuracy", "timestamp", "trial"]
    assert second["training/hptuning/metric"] == "0.5" and second["loss"] == "2"
    # No step: 0, which the agent reads as "the previous step plus one".
    assert third["global_step"] == "0" and float(third["loss"]) == 1e-05
    assert metric_file.read_text().endswith("}\n")


def test_report_without_a_metric_file_prints_name_value(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(METRIC_FILE_VARIABLE, raising=False)
    vernier.report(step=7, accuracy=0.91, loss=0.25)
    vernier.report(loss=3)
    assert capsys.readouterr().out == "step=7 accuracy=0.91 loss=0.25\nloss=3\n"
    stream = io.StringIO()
    vernier.report(step=1, loss=1.5, stream=stream)
    assert stream.getvalue() == "step=1 loss=1.5\n"


@pytest.mark.parametrize("kwargs, problem", [
    ({}, "give at least one metric"),
    ({"step": -1, "loss": 1.0}, "step must be a whole number >= 0"),
    ({"step": 1.5, "loss": 1.0}, "step must be a whole number >= 0"),
    ({"loss": math.nan}, 'metric "loss" is nan; values must be finite'),
    ({"loss": math.inf}, 'metric "loss" is inf; values must be finite'),
    ({"loss": "0.3"}, 'metric "loss" must be a number'),
    ({"loss": None}, 'metric "loss" must be a number'),
    ({"trial": 1.0}, "metric name 'trial' cannot be read by the agent"),
    ({"epoch": 1.0}, "metric name 'epoch' cannot be read by the agent"),
])
def test_report_refuses_what_the_agent_cannot_read(metric_file: Path, kwargs: dict,
                                                   problem: str) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.report(**kwargs)
    assert problem in caught.value.message
    assert not metric_file.exists()


@pytest.mark.parametrize("name", ["9lives", "has space", "a=b", ""])
def test_report_refuses_bad_metric_names(metric_file: Path, name: str) -> None:
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.report({name: 1.0})
    assert "cannot be read by the agent" in caught.value.message


TRAINER = textwrap.dedent("""
    import os
    import sys

    import vernier

    flags = dict(arg[2:].split("=", 1) for arg in sys.argv[1:] if arg.startswith("--"))
    if flags["mode"] == "stdout":
        del os.environ["CLOUD_ML_HP_METRIC_FILE"]
    vernier.report(step=1, score=0.25)
    vernier.report({"score": 0.5}, step=2, other=1.0)
""")


def test_a_trainer_reports_through_the_agent(server: vernier.LocalServer,
                                             client: vernier.Client, study_name: str,
                                             tmp_path: Path) -> None:
    job_id = study_name.replace("-", "_")
    trainer = tmp_path / "trainer.py"
    trainer.write_text(TRAINER)
    config = tmp_path / "hptuning.yaml"
    config.write_text(textwrap.dedent("""
        trainingInput:
          hyperparameters:
            goal: MAXIMIZE
            hyperparameterMetricTag: score
            maxTrials: 2
            algorithm: GRID_SEARCH
            params:
              - parameterName: mode
                type: CATEGORICAL
                categoricalValues: [file, stdout]
    """))
    submit = subprocess.run(
        [server.binary, "jobs", "submit", "training", job_id, "--config", str(config),
         "--job-dir", str(tmp_path / "runs"), "--server", server.target, "--",
         sys.executable, str(trainer)],
        capture_output=True, text=True, timeout=60)
    assert submit.returncode == 0, submit.stderr

    study = client.get_study(job_id)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        trials = study.trials(include_measurements=True)
        if len(trials) == 2 and all(trial.is_done for trial in trials):
            break
        time.sleep(0.2)
    # Replica logs only: the agent's measurement buffer (.vernier/*/measurements.log) is binary.
    logs = "\n".join(path.read_text() for path in (tmp_path / "runs").glob("*/logs/*.log"))
    assert len(trials) == 2, logs
    modes = set()
    for trial in trials:
        assert trial.state == "SUCCEEDED", f"{trial.status_reason}\n{logs}"
        modes.add(trial.parameters["mode"])
        assert [m.step for m in trial.measurements] == [1, 2]
        assert trial.measurements[0].metrics == {"score": 0.25}
        assert trial.measurements[1].metrics == {"score": 0.5, "other": 1.0}
        assert trial.value == 0.5
    assert modes == {"file", "stdout"}


def test_a_trainer_reports_with_the_standard_library_alone(tmp_path: Path) -> None:
    # grpc and protobuf made unimportable: what a trainer's environment
    # without them sees.
    metric = tmp_path / "output.metric"
    script = textwrap.dedent(f"""
        import os, sys
        for name in ("grpc", "google.protobuf"):
            sys.modules[name] = None
        os.environ["CLOUD_ML_HP_METRIC_FILE"] = {str(metric)!r}
        from vernier import report
        report(step=2, accuracy=0.5)
        try:
            report(step=3)
        except ValueError as error:
            print("refused:", error)
        assert not [m for m in sys.modules if m.startswith("grpc") and sys.modules[m]]
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"PYTHONPATH": ":".join(sys.path)}, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "refused: report: give at least one metric" in run.stdout
    assert [(r["global_step"], r["accuracy"]) for r in records(metric)] == [("2", "0.5")]
    # With grpc there, the same mistake is the client's InvalidArgument.
    with pytest.raises(vernier.InvalidArgument):
        vernier.report(step=3)
