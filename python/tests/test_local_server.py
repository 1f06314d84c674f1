"""LocalServer and find_vernier_binary: how notebooks and tests get a server."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import vernier
from specs import quadratic_spec


def test_a_local_server_serves_and_cleans_up(study_name: str) -> None:
    with vernier.LocalServer() as server:
        assert server.running and server.port > 0 and server.pid
        assert server.target == f"127.0.0.1:{server.port}"
        assert "vernier serve listening on" in server.log()
        assert os.path.isdir(server.data_dir)
        client = vernier.Client(server.target)
        assert client.ping()
        client.create_study(study_name, quadratic_spec())
        assert repr(server).startswith(f"LocalServer(target='{server.target}', running")
        data_dir = server.data_dir
    assert not server.running
    assert not os.path.exists(data_dir)
    assert not client.ping(timeout=0.5)


def test_a_kept_data_dir_survives_a_restart(tmp_path: Path, study_name: str) -> None:
    server = vernier.LocalServer(data_dir=str(tmp_path / "data"))
    server.start()
    assert server.start() is server  # Already running: nothing happens.
    vernier.Client(server.target).create_study(study_name, quadratic_spec())
    server.kill()
    assert not server.running
    server.port = 0
    server.start()
    try:
        assert vernier.Client(server.target).get_study(study_name).name == study_name
    finally:
        server.stop()
    assert (tmp_path / "data").is_dir()


def fake_binary(directory: Path, script: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "vernier"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_server_that_exits_at_start(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "bin", "echo 'cannot open the database' >&2; exit 3")
    server = vernier.LocalServer(binary=str(binary))
    with pytest.raises(vernier.Unavailable) as caught:
        server.start()
    assert "exited at start with status 3" in caught.value.message
    assert "cannot open the database" in caught.value.message
    assert not os.path.exists(server.data_dir)


def test_a_server_that_never_listens(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "bin", "exec sleep 30")
    server = vernier.LocalServer(binary=str(binary), startup_timeout=0.5)
    with pytest.raises(vernier.Unavailable) as caught:
        server.start()
    assert "did not listen within 0.5 s" in caught.value.message
    assert not server.running


def test_the_binary_comes_from_the_build_dir(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    binary = fake_binary(tmp_path / "custom" / "bin", "exit 0")
    monkeypatch.setenv("VERNIER_BUILD_DIR", str(tmp_path / "custom"))
    assert vernier.find_vernier_binary() == str(binary)


def test_the_binary_comes_from_a_parent_checkout(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    binary = fake_binary(tmp_path / "build" / "bin", "exit 0")
    (tmp_path / "examples" / "notebooks").mkdir(parents=True)
    monkeypatch.delenv("VERNIER_BUILD_DIR", raising=False)
    monkeypatch.chdir(tmp_path / "examples" / "notebooks")
    assert vernier.find_vernier_binary() == str(binary)


def test_the_binary_comes_from_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = fake_binary(tmp_path / "tools", "exit 0")
    monkeypatch.delenv("VERNIER_BUILD_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "tools"))
    assert vernier.find_vernier_binary() == str(binary)


def test_no_binary_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERNIER_BUILD_DIR", str(tmp_path / "missing"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(vernier.NotFound) as caught:
        vernier.find_vernier_binary()
    assert "cannot find the vernier binary" in caught.value.message


def test_a_forgotten_server_is_stopped_when_python_exits(tmp_path: Path) -> None:
    script = tmp_path / "forget.py"
    script.write_text(
        "import vernier\n"
        "server = vernier.LocalServer().start()\n"
        "print(server.pid, server.data_dir, flush=True)\n")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0, ran.stderr
    pid, data_dir = ran.stdout.split()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}")
    assert not os.path.exists(data_dir)
