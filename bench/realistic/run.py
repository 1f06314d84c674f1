#!/usr/bin/env python3
"""The realistic suggestion-quality suite of issue 22 in one command: Vernier's
GP designer (sequential, batches of 4 and 8), its random and quasi-random
search, and Optuna 3.1's TPE (multivariate=True; sequential and batches of 4
and 8 by ask and tell) on scikit-learn models tuned by 3-fold
cross-validation, noisy synthetic functions and 20- and 50-dimensional
functions of a few of their coordinates (bench/realistic/problems.py).
Vernier's designers run in build/bin/suggest_quality_bench, which evaluates
these problems through bench/realistic/evaluator.py, as
bench/conditional_bench.py runs them; TPE runs here on the same objective.

Prints markdown: per problem, per designer and batch size, the median final
regret [lower quartile, upper quartile] over the seeds and the worst seed
(regret on the noiseless value: for a cross-validated error, the mean error
over 5 fixed shufflings of the incumbent, i.e. the regret against 0), then
the targets of issue 22. Needs Debian's python3-optuna and python3-sklearn,
hence /usr/bin/python3; run it under nice:

  nice -n 19 /usr/bin/python3 bench/realistic/run.py [--quick] [--build build]
      [--seeds 10] [--problems a,b] [--designers gp,random,quasi,tpe] [--batches 1,4,8]
      [--reuse earlier-report.md] [--save runs.json] [--load a.json,b.json]
      [--markdown report.md]
"""

import argparse
import csv
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import problems  # noqa: E402  (beside this file)

QUICK_PROBLEMS = ["svc_cancer", "hartmann6_noisy", "deceptive3_noisy", "hartmann6_in_20d"]
VERNIER = {"RANDOM_SEARCH": "random", "QUASI_RANDOM_SEARCH": "quasi", "GAUSSIAN_PROCESS_BANDIT": "gp"}


def quartiles(values):
    if len(values) == 1:
        return values[0], values[0], values[0]
    lower, median, upper = statistics.quantiles(sorted(values), n=4, method="inclusive")
    return median, lower, upper


def run_vernier(options, names, trials, designers, modes, batch):
    """Regrets by (problem, designer, batch size) from one suggest_quality_bench run."""
    with tempfile.TemporaryDirectory() as scratch:
        runs = os.path.join(scratch, "runs.csv")
        evaluator = f"{sys.executable} {os.path.join(HERE, 'evaluator.py')}"
        command = [os.path.join(options.build, "bin", "suggest_quality_bench"),
                   "--evaluator", evaluator, "--external", ",".join(names),
                   "--problems", ",".join(names), "--designers", ",".join(designers),
                   "--modes", ",".join(modes), "--batch", str(batch),
                   "--seeds", str(options.seeds), "--trials", str(trials),
                   "--threads", str(options.threads), "--runs", runs]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        regrets = {}
        with open(runs) as table:
            for run in csv.DictReader(table):
                if run["status"] != "OK":
                    raise SystemExit(f"{run['designer']} {run['problem']} seed {run['seed']}: "
                                     f"{run['status']}")
                size = 1 if run["mode"] == "sequential" else batch
                key = (run["problem"], VERNIER[run["designer"]], size)
                regrets.setdefault(key, []).append(float(run["regret"]))
        return regrets


def tpe_run(job):
    """Optuna's TPE on one problem, one seed, one batch size: the final regret."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore")
    name, seed, batch = job
    problem = problems.by_name(name)
    distributions = {}
    for parameter in problem.space:
        pname, kind = parameter[0], parameter[1]
        if kind == "double":
            distributions[pname] = optuna.distributions.FloatDistribution(
                parameter[2], parameter[3], log=parameter[4] == "log")
        elif kind == "int":
            distributions[pname] = optuna.distributions.IntDistribution(
                parameter[2], parameter[3], log=parameter[4] == "log")
        else:
            distributions[pname] = optuna.distributions.CategoricalDistribution(parameter[2])
    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    best = None
    done = 0
    while done < problem.trials:
        asked = [study.ask(distributions) for _ in range(min(batch, problem.trials - done))]
        for trial in asked:
            done += 1
            try:
                value = problem.observe(trial.params, seed, done)
            except problems.Infeasible:
                # As a user's objective that returns NaN or raises: FAIL,
                # which TPE leaves out of its densities.
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            study.tell(trial, value)
            if best is None or value < best[0]:
                best = (value, dict(trial.params))
    return job, problem.evaluate(best[1]) - problem.optimum


def run_tpe(options, names, batches, regrets, save):
    """TPE's regrets into `regrets`, saved after each run."""
    jobs = [(name, seed, batch) for name in names for batch in batches
            for seed in range(1, options.seeds + 1)]
    with multiprocessing.Pool(options.threads) as pool:
        for (name, seed, batch), regret in pool.imap_unordered(tpe_run, jobs):
            regrets.setdefault((name, "tpe", batch), []).append(regret)
            save()


def summarise(values):
    """(median, lower quartile, upper quartile, worst, seeds) of a list of regrets."""
    median, lower, upper = quartiles(values)
    return median, lower, upper, max(values), len(values)


def read_summaries(path, designers):
    """The summaries of `designers` from an earlier report's first table."""
    summaries = {}
    with open(path) as report_file:
        for line in report_file:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 7 or cells[2] not in designers:
                continue
            median, rest = cells[5].split(" [")
            lower, upper = rest.rstrip("]").split(", ")
            summaries[(cells[0], cells[2], int(cells[3]))] = (
                float(median), float(lower), float(upper), float(cells[6]), int(cells[4]))
    return summaries


def report(options, selected, summaries, seconds):
    lines = ["Final regret on the noiseless value over seeds 1..N: "
             "median [lower quartile, upper quartile] | worst seed. Batch 1 = sequential. "
             "Random and quasi-random search do not depend on the batch size (run sequentially).",
             ""]
    header = "| problem | trials | designer | batch | seeds | median [quartiles] | worst |"
    lines += [header, "|---|---|---|---|---|---|---|"]
    for problem in selected:
        for designer in ["gp", "tpe", "random", "quasi"]:
            for batch in options.batches:
                summary = summaries.get((problem.name, designer, batch))
                if summary is None:
                    continue
                median, lower, upper, worst, seeds = summary
                lines.append(f"| {problem.name} | {problem.trials} | {designer} | {batch} "
                             f"| {seeds} | {median:.4g} [{lower:.4g}, {upper:.4g}] | {worst:.4g} |")
    lines += ["", "Targets (issue 22): GP sequential median ≤ the best baseline median; no GP "
              "seed worse than random's median; GP batch-4 median ≤ 1.2 × GP sequential median.",
              "", "| problem | GP seq median | best baseline median | GP seq worst | random median "
              "| median target | worst-seed target | GP b4 / seq | GP b8 / seq |",
              "|---|---|---|---|---|---|---|---|---|"]
    for problem in selected:
        gp = summaries.get((problem.name, "gp", 1))
        if not gp:
            continue
        baselines = [summaries[(problem.name, d, 1)][0]
                     for d in ["tpe", "random", "quasi"] if (problem.name, d, 1) in summaries]
        random_runs = summaries.get((problem.name, "random", 1))
        gp_median, gp_worst = gp[0], gp[3]
        best = min(baselines) if baselines else None
        random_median = random_runs[0] if random_runs else None

        def ratio(batch):
            summary = summaries.get((problem.name, "gp", batch))
            if not summary:
                return "—"
            if gp_median == 0:
                return "0 seq"
            return f"{summary[0] / gp_median:.2f}"

        median_met = "—" if best is None else ("yes" if gp_median <= best else
                                               f"no ({gp_median / best:.2f}x)" if best > 0 else "no")
        worst_met = "—" if random_median is None else ("yes" if gp_worst <= random_median else "no")
        lines.append(f"| {problem.name} | {gp_median:.4g} | "
                     f"{'—' if best is None else f'{best:.4g}'} | {gp_worst:.4g} | "
                     f"{'—' if random_median is None else f'{random_median:.4g}'} | {median_met} | "
                     f"{worst_met} | {ratio(4)} | {ratio(8)} |")
    lines += ["", f"Wall time: {seconds / 60:.1f} min, {options.threads} processes."]
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--quick", action="store_true",
                        help=f"3 seeds, batches 1 and 4, problems {','.join(QUICK_PROBLEMS)}")
    parser.add_argument("--problems", default=None, help="comma-separated (default all)")
    parser.add_argument("--designers", default="gp,tpe,random,quasi")
    parser.add_argument("--batches", default=None, help="comma-separated batch sizes (1,4,8)")
    parser.add_argument("--threads", type=int, default=2, help="runs at once")
    parser.add_argument("--markdown", default=None, help="also write the report here")
    parser.add_argument("--reuse", default=None,
                        help="an earlier report whose rows stand in for the designers not run "
                             "(the baselines, when only the GP changed)")
    parser.add_argument("--save", default=None,
                        help="write every run's regret here (JSON), after each phase")
    parser.add_argument("--load", default=None,
                        help="comma-separated --save files whose runs are reported as well "
                             "(with --designers none, only reported)")
    options = parser.parse_args(argv)
    options.seeds = options.seeds or (3 if options.quick else 10)
    options.designers = [] if options.designers == "none" else options.designers.split(",")
    batches = options.batches or ("1,4" if options.quick else "1,4,8")
    options.batches = [int(b) for b in batches.split(",")]
    names = (options.problems.split(",") if options.problems else
             QUICK_PROBLEMS if options.quick else [p.name for p in problems.all_problems()])
    selected = [problems.by_name(name) for name in names]

    start = time.time()
    regrets = {}
    for path in (options.load.split(",") if options.load else []):
        with open(path) as saved:
            for name, designer, batch, values in json.load(saved):
                regrets.setdefault((name, designer, batch), []).extend(values)

    def save():
        # After every phase, so that an interrupted run keeps what it did.
        if options.save:
            with open(options.save, "w") as out:
                json.dump([[*key, values] for key, values in sorted(regrets.items())], out)
    for trials in sorted({p.trials for p in selected}) if options.designers else []:
        group = [p.name for p in selected if p.trials == trials]
        plain = [d for d in ["random", "quasi"] if d in options.designers]
        if plain:
            regrets.update(run_vernier(options, group, trials, plain, ["sequential"], 4))
            save()
        if "gp" in options.designers:
            for batch in options.batches:
                if batch == 1:
                    regrets.update(run_vernier(options, group, trials, ["gp"], ["sequential"], 4))
                else:
                    regrets.update(run_vernier(options, group, trials, ["gp"], ["batched"], batch))
                save()
        save()
        print(f"vernier {trials} trials done after {time.time() - start:.0f} s", file=sys.stderr)
    if "tpe" in options.designers:
        run_tpe(options, names, options.batches, regrets, save)
    save()
    summaries = {}
    if options.reuse:
        others = {"gp", "tpe", "random", "quasi"} - set(options.designers) - {
            key[1] for key in regrets}
        summaries.update(read_summaries(options.reuse, others))
    summaries.update({key: summarise(values) for key, values in regrets.items()})
    text = report(options, selected, summaries, time.time() - start)
    print(text)
    if options.markdown:
        with open(options.markdown, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
