"""A ``vernier serve`` of your own, for notebooks and tests.

:class:`LocalServer` starts the server binary on a free loopback port with a
data directory of its own (a temporary one by default, removed when the
server stops) and stops it again; :func:`find_vernier_binary` says which
binary it runs.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from pathlib import Path
from typing import List, Optional, Sequence

from vernier._transport import KNOWN_HTTP_URLS
from vernier.errors import NotFound, Unavailable

LISTENING = re.compile(r"vernier serve listening on (\S+):(\d+)")
# Printed before the line above (unless --no-http).
HTTP_AT = re.compile(r"dashboard and HTTP API at (https?://\S+?)/?\s")


def find_vernier_binary() -> str:
    """The ``vernier`` executable to start: ``$VERNIER_BUILD_DIR/bin/vernier``
    when that variable is set, else ``build/bin/vernier`` in the working
    directory or the nearest parent that has one (a source checkout), else
    ``vernier`` on PATH.

    Raises:
        NotFound: none of them exists.
    """
    candidates: List[Path] = []
    build_dir = os.environ.get("VERNIER_BUILD_DIR")
    if build_dir:
        candidates.append(Path(build_dir) / "bin" / "vernier")
    cwd = Path.cwd().resolve()
    candidates.extend(directory / "build" / "bin" / "vernier"
                      for directory in (cwd, *cwd.parents))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which("vernier")
    if on_path:
        return on_path
    raise NotFound(
        "cannot find the vernier binary: set VERNIER_BUILD_DIR to the build directory, run "
        "from a checkout with build/bin/vernier (bash scripts/build.sh), or put vernier on PATH")


class LocalServer:
    """A ``vernier serve`` process on 127.0.0.1, owned by this object.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`; a
    server still running when Python exits is stopped then (and its
    temporary data directory removed)::

        with vernier.LocalServer() as server:
            client = vernier.Client(server.target)

    Args:
        binary: the ``vernier`` executable (default: :func:`find_vernier_binary`).
        data_dir: where the server keeps its SQLite database and job files;
            default: a temporary directory, deleted by :meth:`stop`.
        port: 0 picks a free port.
        extra_args: more ``vernier serve`` flags, e.g. ``["--log-level", "debug"]``.
        startup_timeout: seconds to wait for the server to listen.
    """

    def __init__(self, binary: Optional[str] = None, data_dir: Optional[str] = None,
                 port: int = 0, extra_args: Sequence[str] = (),
                 startup_timeout: float = 30.0) -> None:
        self.binary = binary or find_vernier_binary()
        self._owns_data_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="vernier-serve-")
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_path = os.path.join(self.data_dir, "serve.log")
        self.port = port
        self.host = "127.0.0.1"
        self.extra_args = list(extra_args)
        self.startup_timeout = startup_timeout
        self._process: Optional[subprocess.Popen] = None
        self.http_url: Optional[str] = None
        self._finalizer: Optional[weakref.finalize] = None

    @property
    def target(self) -> str:
        """``HOST:PORT`` for :class:`vernier.Client`."""
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        """Everything the server has written so far."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as file:
                return file.read()
        except FileNotFoundError:
            return ""

    def start(self) -> "LocalServer":
        """Starts the server and waits until it listens.

        Raises:
            Unavailable: it exited at start or did not listen in time (the
                message holds its log).
        """
        if self.running:
            return self
        log_start = len(self.log())
        command = [self.binary, "serve", "--host", self.host, "--port", str(self.port),
                   "--data-dir", self.data_dir, *self.extra_args]
        with open(self.log_path, "ab") as log:
            # Its own session: a Ctrl-C in a notebook interrupts the cell, not the server.
            self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT, start_new_session=True)
        # A server left running when Python exits (or this object goes away)
        # is stopped then, and its temporary data directory removed.
        self._finalizer = weakref.finalize(self, _shut_down, self._process,
                                           self.data_dir if self._owns_data_dir else None)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            output = self.log()[log_start:]
            match = LISTENING.search(output)
            if match:
                self.port = int(match.group(2))
                http = HTTP_AT.search(output)
                if http:
                    # Its dashboard's views (vernier.plot) for a Client of it.
                    self.http_url = http.group(1)
                    KNOWN_HTTP_URLS[self.target] = self.http_url
                return self
            if self._process.poll() is not None:
                code = self._process.returncode
                output = self.log()[log_start:]
                self.stop()
                raise Unavailable(f"vernier serve exited at start with status {code}:\n{output}")
            time.sleep(0.05)
        output = self.log()[log_start:]
        self.stop()
        raise Unavailable(f"vernier serve did not listen within {self.startup_timeout:g} s:\n"
                          f"{output}")

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; removes the data
        directory if it was a temporary one."""
        if self._process is not None:
            _terminate(self._process, grace)
            self._process = None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._owns_data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL, as a crash would; the data directory is kept."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalServer(target={self.target!r}, {state}, data_dir={self.data_dir!r})"


def _shut_down(process: subprocess.Popen, temporary_data_dir: Optional[str]) -> None:
    _terminate(process, 5.0)
    if temporary_data_dir is not None:
        shutil.rmtree(temporary_data_dir, ignore_errors=True)


def _terminate(process: subprocess.Popen, grace: float) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
