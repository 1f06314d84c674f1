#!/usr/bin/python3
"""The cost of an early-stopping decision on a live `vernier serve` (issue 34:
a report's decision within 5 ms at p99 with 1,000 trials running).

`early_stopping_bench --latency` times the policy alone, in process. This
times what a trial waits for: `trial.should_stop()`, one CheckEarlyStopping
call to a server that this script starts on 127.0.0.1 (its data on /dev/shm
where there is one, stopped by its PID at the end), which reads the study's
curves from its store and decides.

The study (one DOUBLE parameter, `enableTrialEarlyStopping: true`, or the
`--early-stopping` block given as JSON) gets `--finished` trials that report
`--steps` steps and complete, then `--running` trials that each report a
number of steps drawn from 1 .. steps - 1 and stay running. The curves are
noisy power laws (loss = a + b (step + 1)^-c + N(0, 0.01)), seeded, so a run
is the same study every time. Then `--decisions` times a running trial drawn
at random (one already told to stop is not asked again) asks should_stop(),
timed on the client's clock, one call at a time; the first call, which
fills the server's cache of the study's curves, is timed apart, and the
decisions that kept their trial running are timed apart from those that
stopped it (a stop also commits the trial's STOPPING state). The server's
own CPU time over the timed calls (from /proc) is divided among them:
unlike the client's clock, it does not count the client, or other work on a
shared machine. With `--db postgresql://...` on a server of this machine,
the CPU time of the PostgreSQL backends serving that database is divided
among them too (a column of its own; "-" where they cannot be seen).
With `--report-first`, each asked trial first reports its next step, untimed,
as a training loop does before it asks: the decision then reads the trial
that just changed (the CPU times include the reports). With `--gap-ms`, the
client waits that long before each timed call, as trials that train between
their reports leave the server idle between calls (back to back, a server
that stops reading its sockets now and then delays one call in hundreds; at
a gap, every call that arrives meanwhile). The calls over 20 ms are counted.

    /usr/bin/python3 bench/early_stopping/decision_latency.py --build build
    /usr/bin/python3 bench/early_stopping/decision_latency.py --build build --steps 400
    /usr/bin/python3 bench/early_stopping/decision_latency.py --build build --db "$(cat DIR/url)"

Run it with Debian's Python (python3-grpcio), like the replay beside it.
"""

import argparse
import gc
import json
import os
import random
import shutil
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=None,
                        help="build folder with bin/vernier and python/ (default "
                             "$VERNIER_BUILD_DIR, else build/ of this checkout)")
    parser.add_argument("--steps", type=int, default=100, help="a finished trial's steps")
    parser.add_argument("--running", type=int, default=1000)
    parser.add_argument("--finished", type=int, default=200)
    parser.add_argument("--decisions", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the server's store (`vernier serve --db`, e.g. a postgresql:// "
                             "URL); default its SQLite database in the data directory")
    parser.add_argument("--report-first", action="store_true",
                        help="each asked trial first reports its next step (not timed), as a "
                             "training loop does; the CPU times then include the reports")
    parser.add_argument("--gap-ms", type=float, default=0,
                        help="milliseconds the client waits before each timed call (default 0: "
                             "back to back)")
    parser.add_argument("--early-stopping", default=None, metavar="JSON",
                        help="the earlyStopping block (default: enableTrialEarlyStopping "
                             "alone, the default policy)")
    options = parser.parse_args(argv)
    if options.steps < 2:
        parser.error("--steps must be at least 2")
    if options.running < 1 or options.finished < 0 or options.decisions < 1:
        parser.error("--running and --decisions must be positive, --finished not negative")
    if options.gap_ms < 0:
        parser.error("--gap-ms must not be negative")
    if options.early_stopping is not None:
        try:
            options.early_stopping = json.loads(options.early_stopping)
        except ValueError as error:
            parser.error(f"--early-stopping: not JSON: {error}")
    return options


def server_cpu_seconds(pid):
    """User plus system time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_seconds(database):
    """User plus system time so far of the PostgreSQL backends on this machine
    that serve `database` (their title reads "postgres: USER DATABASE ..."),
    by process id; none when the server is elsewhere or hides its titles."""
    seconds = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                title = cmdline.read().split(b"\0")[0].decode(errors="replace").split()
            if len(title) >= 3 and title[0] == "postgres:" and title[2] == database:
                seconds[pid] = server_cpu_seconds(pid)
        except OSError:
            continue
    return seconds


def main(argv):
    options = parse_arguments(argv)
    build = os.path.abspath(options.build or os.environ.get("VERNIER_BUILD_DIR") or
                            os.path.join(REPO, "build"))
    sys.path[:0] = [os.path.join(REPO, "python"), os.path.join(build, "python")]
    import vernier

    rng = random.Random(options.seed)

    def draw_curve():
        return rng.uniform(0.05, 0.3), rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.2)

    def value(shape, step):
        a, b, c = shape
        return a + b * (step + 1) ** -c + rng.gauss(0, 0.01)

    shm = "/dev/shm"
    scratch = tempfile.mkdtemp(prefix="vernier-latency-",
                               dir=shm if os.path.isdir(shm) and os.access(shm, os.W_OK)
                               else None)
    extra = ["--no-http"] + (["--db", options.db] if options.db else [])
    # A PostgreSQL store's database name, for its backends' CPU time.
    database = None
    if options.db and options.db.startswith(("postgresql://", "postgres://")):
        database = urllib.parse.urlparse(options.db).path.lstrip("/") or None
    server = vernier.LocalServer(binary=os.path.join(build, "bin", "vernier"), data_dir=scratch,
                                 extra_args=extra)
    server.start()
    try:
        with vernier.Client(server.target) as client:
            spec = {"goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
                    "algorithm": "RANDOM_SEARCH",
                    "params": [{"parameterName": "x", "type": "DOUBLE",
                                "minValue": 0, "maxValue": 1}],
                    "enableTrialEarlyStopping": True}
            if options.early_stopping is not None:
                spec["earlyStopping"] = options.early_stopping
            # A name of its own: a PostgreSQL database may hold earlier runs.
            study = client.create_study(f"latency_{os.getpid()}_{int(time.time())}", spec)
            started = time.time()
            running = []
            # A running trial's curve and its last step so far.
            progress = {}
            for i in range(options.finished + options.running):
                study.add_trial({"x": rng.random()})
                trial = study.suggest(1)[0]
                finished = i < options.finished
                steps = options.steps if finished else rng.randint(1, options.steps - 1)
                shape = draw_curve()
                with trial.batched_reports(max_pending=1000):
                    for step in range(1, steps + 1):
                        trial.report(step=step, loss=value(shape, step))
                if finished:
                    trial.complete()
                else:
                    running.append(trial)
                    progress[trial.id] = [shape, steps]
            setup = time.time() - started

            # The client's garbage collector would stop the clock at random.
            gc.collect()
            gc.disable()
            first_started = time.perf_counter()
            running[0].should_stop()
            first = time.perf_counter() - first_started
            cpu_before = server_cpu_seconds(server.pid)
            store_before = postgres_cpu_seconds(database) if database else {}
            times = []
            # Apart: a stop also writes the trial's STOPPING state (a commit).
            by_outcome = {False: [], True: []}
            told = set()
            for _ in range(options.decisions):
                trial = rng.choice(running)
                if trial.id in told:
                    continue
                if options.report_first:
                    shape, last = progress[trial.id]
                    progress[trial.id][1] = last + 1
                    trial.report(step=last + 1, loss=value(shape, last + 1))
                if options.gap_ms > 0:
                    time.sleep(options.gap_ms / 1e3)
                call_started = time.perf_counter()
                stop = trial.should_stop()
                times.append(time.perf_counter() - call_started)
                by_outcome[stop].append(times[-1])
                if stop:
                    told.add(trial.id)
            server_cpu = server_cpu_seconds(server.pid) - cpu_before
            # The backends of the server's pooled connections, open throughout.
            store_after = postgres_cpu_seconds(database) if database else {}
            store_cpu = sum(store_after[pid] - store_before.get(pid, 0.0) for pid in store_after)
            gc.enable()
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    times.sort()

    def at(q, among=None):
        among = sorted(among) if among is not None else times
        return 1e3 * among[min(len(among) - 1, int(q * len(among)))] if among else float("nan")

    print(f"steps {options.steps}, {options.finished} finished and {options.running} running "
          f"trials (set up in {setup:.0f} s); {len(times)} decisions"
          f"{', each after a report' if options.report_first else ''}, {len(told)} stopped; "
          f"the first (the cache cold) {1e3 * first:.1f} ms")
    for stop, label in [(False, "kept running"), (True, "stopped (a write)")]:
        print(f"{label}: {len(by_outcome[stop])} decisions, p50 {at(0.5, by_outcome[stop]):.2f} "
              f"ms, p99 {at(0.99, by_outcome[stop]):.2f} ms")
    slow = [t for t in times if t > 0.020]
    print(f"calls over 20 ms: {len(slow)} of {len(times)}"
          f"{f', each {options.gap_ms:g} ms after the last' if options.gap_ms > 0 else ''}")
    store = (f"{1e3 * store_cpu / len(times):.2f}" if database and store_after else "-")
    print("| steps | running | p50 ms | p99 ms | max ms | server CPU ms per decision "
          "| PostgreSQL CPU ms per decision |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {options.steps} | {options.running} | {at(0.5):.2f} | {at(0.99):.2f} | "
          f"{1e3 * times[-1]:.2f} | {1e3 * server_cpu / len(times):.2f} | {store} |")


if __name__ == "__main__":
    main(sys.argv[1:])
