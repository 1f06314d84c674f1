"""`pip install --no-deps --no-build-isolation ./python`, offline, from a copy
of the checkout, and the installed package used against the real server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

import vernier

SOURCE_DIR = Path(os.environ.get("VERNIER_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD_DIR = Path(os.environ.get("VERNIER_BUILD_DIR", SOURCE_DIR / "build"))


def checkout_copy(tmp_path: Path) -> Path:
    """python/ and proto/ as a fresh clone has them, so that pip's in-tree
    build leaves the real checkout alone."""
    root = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests")
    shutil.copytree(SOURCE_DIR / "python", root / "python", ignore=ignore)
    shutil.copytree(SOURCE_DIR / "proto", root / "proto")
    return root


def clean_env(**extra: str) -> Dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VERNIER_BUILD_DIR")}
    env.update(extra)
    return env


def pip_install(python: str, args: List[str], env: Dict[str, str], cwd: Path
                ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
         "--no-cache-dir", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


SMOKE = textwrap.dedent("""
    import sys
    import vernier

    print(vernier.__file__)
    client = vernier.Client(sys.argv[1])
    study = client.create_study(sys.argv[2], {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "params": [{"parameterName": "x", "type": "INTEGER", "minValue": 0, "maxValue": 9}]})
    trial = study.suggest()[0]
    trial.complete(loss=float(trial.parameters["x"]))
    print(study.best_trial.value == trial.parameters["x"])
""")


def test_pip_install_into_a_venv(tmp_path: Path, server: vernier.LocalServer,
                                 study_name: str) -> None:
    root = checkout_copy(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    python = str(venv / "bin" / "python")
    installed = pip_install(python, ["./python"], clean_env(), cwd=root)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    script = tmp_path / "smoke.py"
    script.write_text(SMOKE)
    ran = subprocess.run([python, str(script), server.target, study_name], env=clean_env(),
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    location, result = ran.stdout.split()
    assert location.startswith(str(venv))
    assert result == "True"


def test_without_protoc_the_stubs_of_the_build_are_copied(tmp_path: Path) -> None:
    if not (BUILD_DIR / "python" / "vernier" / "v1" / "study_pb2.py").is_file():
        pytest.skip("no CMake build with generated stubs")
    root = checkout_copy(tmp_path)
    env = clean_env(PATH=str(tmp_path / "empty"), VERNIER_BUILD_DIR=str(BUILD_DIR))
    installed = pip_install(sys.executable, ["--target", str(tmp_path / "site"), "./python"],
                            env, cwd=root)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    stubs = tmp_path / "site" / "vernier" / "v1"
    assert (stubs / "study_service_pb2_grpc.py").is_file()
    imported = subprocess.run(
        [sys.executable, "-c", "import vernier; print(vernier.Client, vernier.__file__)"],
        env=clean_env(PYTHONPATH=str(tmp_path / "site")), cwd=tmp_path, capture_output=True,
        text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    assert str(tmp_path / "site") in imported.stdout


def test_without_protoc_or_a_build_the_install_says_why(tmp_path: Path) -> None:
    root = checkout_copy(tmp_path)
    env = clean_env(PATH=str(tmp_path / "empty"), VERNIER_BUILD_DIR=str(tmp_path / "nobuild"))
    installed = pip_install(sys.executable, ["--target", str(tmp_path / "site"), "./python"],
                            env, cwd=root)
    assert installed.returncode != 0
    assert "cannot generate the protobuf stubs" in installed.stdout + installed.stderr
