#!/usr/bin/python3
"""The load of bench/load_bench.cc run through Optuna's RDB storage: the
baseline the load benchmark is compared with (issue 4).

N worker processes each run trials back to back against one study:
study.ask(), k trial.report(value, step) calls, study.tell(trial, value).
Prints trials/s, reports/s and p50/p99 per call.

  /usr/bin/python3 bench/optuna_rdb_baseline.py --url postgresql://vernier@127.0.0.1:PORT/DB \
      --workers 32 --reports 10 --seconds 10

Needs Debian's python3-optuna (and python3-psycopg2 for PostgreSQL), hence
/usr/bin/python3 rather than the first python3 on PATH.
"""

import argparse
import multiprocessing
import os
import time

import optuna


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * len(values)))]


def worker(url, study_name, reports, start, stop, results):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.RDBStorage(url)
    # Random search, as the Vernier load uses.
    study = optuna.load_study(study_name=study_name, storage=storage,
                              sampler=optuna.samplers.RandomSampler())
    timings = {"ask": [], "report": [], "tell": []}
    trials = 0
    while time.time() < start:
        time.sleep(0.01)
    while time.time() < stop:
        began = time.time()
        trial = study.ask()
        timings["ask"].append(time.time() - began)
        x = trial.suggest_float("x", 0.0, 1.0)
        for step in range(1, reports + 1):
            began = time.time()
            trial.report(x * step / reports, step)
            timings["report"].append(time.time() - began)
        began = time.time()
        study.tell(trial, x)
        timings["tell"].append(time.time() - began)
        if time.time() < stop:
            trials += 1
    results.put((trials, timings))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="SQLAlchemy URL of the database")
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--reports", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup-seconds", type=float, default=5,
                        help="time the workers get to start and connect")
    options = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study_name = f"baseline_{os.getpid()}_{int(time.time())}"
    optuna.create_study(study_name=study_name, storage=options.url, direction="maximize")
    start = time.time() + options.warmup_seconds
    stop = start + options.seconds
    results = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(
            target=worker, args=(options.url, study_name, options.reports, start, stop, results))
        for _ in range(options.workers)
    ]
    for process in workers:
        process.start()
    trials = 0
    timings = {"ask": [], "report": [], "tell": []}
    for _ in workers:
        done, times = results.get()
        trials += done
        for name, values in times.items():
            timings[name].extend(values)
    for process in workers:
        process.join()

    print(f"Optuna {optuna.__version__} RDB storage, {options.workers} worker processes, "
          f"{options.reports} reports per trial, {options.seconds:.1f} s measured")
    print(f"  {trials / options.seconds:.0f} trials/s, "
          f"{trials * options.reports / options.seconds:.0f} reports/s")
    for name, values in timings.items():
        if values:
            print(f"  {name:8} n={len(values):<7} p50 {1000 * percentile(values, 0.5):7.2f} ms  "
                  f"p99 {1000 * percentile(values, 0.99):7.2f} ms")


if __name__ == "__main__":
    main()
