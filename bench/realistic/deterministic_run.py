#!/usr/bin/env python3
"""The deterministic real-problem comparison of issue 33 in one command:
Vernier's GP (GAUSSIAN_PROCESS_BANDIT), random and quasi-random designers
against Optuna 3.1's samplers on the problems of
bench/realistic/deterministic.py (fixed folds, fixed random_state: the same
point always gives the same value), one trial at a time, seeds 1..N.

One objective (40 trials by default): Vernier's designers run in
build/bin/suggest_quality_bench, which evaluates the problem through
bench/realistic/evaluator.py (or, with --vernier-runner serve, in a vernier
serve as below); Optuna's TPESampler (default, and
multivariate=True), RandomSampler and QMCSampler (scrambled Sobol) run here.
The score of a run is its best value (an error, optimum 0). On a conditional
space Optuna's samplers run define-by-run (a parameter is asked for only
while it is active) and the multivariate TPE with group=True, as Optuna
advises for such spaces.

Three or four objectives (100 trials by default): Vernier's designers run in a
`vernier serve` of their own (build/bin/vernier, through the Python client's
LocalServer, as a user's notebook would), Optuna's MOTPESampler,
NSGAIISampler, RandomSampler and QMCSampler here. The score of a run is the
hypervolume of its trials, as the fraction of the box [ideal, reference]
they dominate, at each reference point of deterministic.REFERENCES (which no
designer is told), computed by bench/multi_objective_bench.py's exact
hypervolume (Optuna's WFG algorithm past three objectives).

Prints markdown: per problem and method, the median [quartiles] and the
worst seed, how many seeds Vernier's GP did better / worse than the method,
and the paired two-sided Wilcoxon signed-rank p between the two
(bench/realistic/compare_runs.py's test: on the log of the best value, or of
1 - hypervolume fraction; from 6 seeds). Needs Debian's python3-optuna,
python3-sklearn, python3-scipy and python3-grpcio, hence /usr/bin/python3;
run it under nice:

  nice -n 10 /usr/bin/python3 bench/realistic/deterministic_run.py [--build build]
      [--seeds 20] [--problems a,b] [--methods vernier_gp,tpe,...] [--threads 2]
      [--trials-single 40] [--trials-multi 100] [--save runs.json] [--load a.json,b.json]
      [--markdown report.md]

--save keeps every run (JSON) after each problem and method; given a file
that exists, the runs already in it are kept and not run again (an
interrupted command resumes, a run with more seeds adds only the new ones).
--load adds the runs of other --save files (several commands run apart,
merged); the report counts seeds 1..--seeds only.
"""

import argparse
import csv
import json
import math
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # bench/, for multi_objective_bench.py
import deterministic  # noqa: E402  (beside this file)
import compare_runs  # noqa: E402  (beside this file)

SINGLE_METHODS = ["vernier_gp", "vernier_random", "vernier_quasi", "tpe", "tpe_mv", "random",
                  "qmc"]
MULTI_METHODS = ["vernier_gp", "vernier_random", "vernier_quasi", "motpe", "nsga2", "random",
                 "qmc"]
LABELS = {
    "vernier_gp": "Vernier GP", "vernier_random": "Vernier random",
    "vernier_quasi": "Vernier quasi-random", "tpe": "Optuna TPE",
    "tpe_mv": "Optuna TPE multivariate", "motpe": "Optuna MOTPE", "nsga2": "Optuna NSGA-II",
    "random": "Optuna random", "qmc": "Optuna QMC (Sobol)",
}
# suggest_quality_bench's name and the Algorithm of each Vernier designer.
VERNIER = {"vernier_gp": ("gp", "GAUSSIAN_PROCESS_BANDIT"),
           "vernier_random": ("random", "RANDOM_SEARCH"),
           "vernier_quasi": ("quasi", "QUASI_RANDOM_SEARCH")}
ALGORITHM_METHOD = {algorithm: method for method, (_, algorithm) in VERNIER.items()}
# The paired test needs this many seeds (as compare_runs.py's main).
MIN_PAIRED_SEEDS = 6


def trials_of(problem, options):
    return options.trials_multi if len(problem.metric_names) > 1 else options.trials_single


def methods_of(problem, options):
    allowed = MULTI_METHODS if len(problem.metric_names) > 1 else SINGLE_METHODS
    return [m for m in options.methods if m in allowed]


# Vernier ---------------------------------------------------------------------

def vernier_single(options, problem, methods, seeds):
    """{(method, seed): best value} from one suggest_quality_bench run."""
    with tempfile.TemporaryDirectory() as scratch:
        runs = os.path.join(scratch, "runs.csv")
        evaluator = f"{sys.executable} {os.path.join(HERE, 'evaluator.py')}"
        command = [os.path.join(options.build, "bin", "suggest_quality_bench"),
                   "--evaluator", evaluator, "--external", problem.name,
                   "--problems", problem.name,
                   "--designers", ",".join(VERNIER[m][0] for m in methods),
                   "--modes", "sequential", "--seeds", str(seeds),
                   "--trials", str(trials_of(problem, options)),
                   "--threads", str(options.threads), "--runs", runs]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        results = {}
        with open(runs) as table:
            for run in csv.DictReader(table):
                if run["status"] != "OK":
                    raise SystemExit(f"{run['designer']} {problem.name} seed {run['seed']}: "
                                     f"{run['status']}")
                results[(ALGORITHM_METHOD[run["designer"]], int(run["seed"]))] = float(
                    run["best_value"])
        return results


def _import_client(build):
    for path in (os.path.join(build, "python"), os.path.join(SOURCE, "python")):
        if path not in sys.path:
            sys.path.insert(0, path)
    import vernier  # noqa: PLC0415
    return vernier


def _typed(problem, parameters):
    """A Vernier trial's parameters with the types the problem expects (only
    the active ones of a conditional space)."""
    point = {}
    for parameter in deterministic.active_parameters(problem.space, parameters):
        name, kind = parameter[0], parameter[1]
        value = parameters[name]
        point[name] = (int(value) if kind == "int" else float(value)
                       if kind in ("double", "discrete") else str(value))
    return point


def vernier_serve_run(job):
    """One Vernier study in a `vernier serve` of its own, driven by the
    Python client: the objectives' values of every trial with values (a trial
    in a failure region is completed infeasible)."""
    name, method, seed, trials, build = job
    vernier = _import_client(build)
    problem = deterministic.by_name(name)
    spec = dict(problem.spec(), algorithm=VERNIER[method][1])
    history = []
    with vernier.LocalServer(binary=os.path.join(build, "bin", "vernier")) as server:
        with vernier.Client(server.target) as client:
            study = client.create_study(f"{name}-{method}-{seed}", spec, seed=seed)
            for number in range(1, trials + 1):
                trial = study.suggest()[0]
                try:
                    if problem.lost(seed, number):
                        raise deterministic.Infeasible("the trial's node was lost")
                    values = problem.values(_typed(problem, trial.parameters))
                except deterministic.Infeasible as failure:
                    # A trial in the problem's failure region: no value.
                    trial.complete(infeasible=str(failure))
                    continue
                reported = problem.report(values, seed, number)
                trial.complete(**dict(zip(problem.metric_names, reported)))
                history.append(values)
    return job, history


# Optuna ----------------------------------------------------------------------

def _distributions(problem):
    """Every parameter's distribution, a conditional space's children
    included."""
    import optuna  # noqa: PLC0415
    distributions = {}
    for parameter, _, _ in deterministic.flat_parameters(problem.space):
        name, kind = parameter[0], parameter[1]
        if kind == "double":
            distributions[name] = optuna.distributions.FloatDistribution(
                parameter[2], parameter[3], log=parameter[4] == "log")
        elif kind == "int":
            distributions[name] = optuna.distributions.IntDistribution(
                parameter[2], parameter[3], log=parameter[4] == "log")
        else:  # discrete values and categories, as a user would pass them
            distributions[name] = optuna.distributions.CategoricalDistribution(parameter[2])
    return distributions


def _sampler(method, seed, conditional=False):
    import optuna  # noqa: PLC0415
    samplers = optuna.samplers
    if method == "tpe":
        return samplers.TPESampler(seed=seed)
    if method == "tpe_mv":
        # group=True: the multivariate model per set of parameters sampled
        # together, for a space whose parameters come and go.
        return samplers.TPESampler(seed=seed, multivariate=True, group=conditional)
    if method == "motpe":
        return samplers.MOTPESampler(seed=seed)
    if method == "nsga2":
        return samplers.NSGAIISampler(seed=seed)
    if method == "random":
        return samplers.RandomSampler(seed=seed)
    if method == "qmc":
        return samplers.QMCSampler(seed=seed, scramble=True, warn_independent_sampling=False)
    raise ValueError(f"unknown method {method!r}")


def _ask_active(trial, parameters, distributions):
    """Define-by-run: asks `trial` for each parameter of `parameters` and,
    under each value, for the children it makes active."""
    import optuna  # noqa: PLC0415
    for parameter in parameters:
        name = parameter[0]
        distribution = distributions[name]
        if isinstance(distribution, optuna.distributions.FloatDistribution):
            value = trial.suggest_float(name, distribution.low, distribution.high,
                                        log=distribution.log)
        elif isinstance(distribution, optuna.distributions.IntDistribution):
            value = trial.suggest_int(name, distribution.low, distribution.high,
                                      log=distribution.log)
        else:
            value = trial.suggest_categorical(name, distribution.choices)
        for values, child_parameters in deterministic.children(parameter):
            if value in values:
                _ask_active(trial, child_parameters, distributions)


def optuna_run(job):
    """One Optuna study: the objectives' values of every trial with values (a
    trial in a failure region is told FAIL)."""
    import optuna  # noqa: PLC0415
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")  # experimental samplers, QMC on categories
    name, method, seed, trials = job
    problem = deterministic.by_name(name)
    distributions = _distributions(problem)
    conditional = any(deterministic.children(p) for p in problem.space)
    study = optuna.create_study(directions=["minimize"] * len(problem.metric_names),
                                sampler=_sampler(method, seed, conditional))
    history = []
    for number in range(1, trials + 1):
        if conditional:
            trial = study.ask()
            _ask_active(trial, problem.space, distributions)
        else:
            trial = study.ask(distributions)
        try:
            if problem.lost(seed, number):
                raise deterministic.Infeasible("the trial's node was lost")
            values = problem.values(dict(trial.params))
        except deterministic.Infeasible:
            # As a user's objective that returns NaN or raises: FAIL.
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        reported = problem.report(values, seed, number)
        study.tell(trial, reported if len(reported) > 1 else reported[0])
        history.append(values)
    return job, history


# Scores ----------------------------------------------------------------------

def hypervolume_fraction(history, name, reference):
    """The fraction of the box [ideal, reference] the trials dominate."""
    from multi_objective_bench import hypervolume  # noqa: PLC0415  (bench/)
    ideal = deterministic.REFERENCES[name]["ideal"]
    corner = deterministic.REFERENCES[name][reference]
    box = math.prod(r - i for r, i in zip(corner, ideal))
    return hypervolume([tuple(v) for v in history], corner) / box


def scores(runs, problem, method, seeds):
    """{row name: {seed: (score, loss)}}: loss is what the paired test and the
    better / worse counts compare (lower is better): the best value for one
    objective, 1 - the hypervolume fraction for several. Seeds 1..seeds only."""
    result = {}
    for (name, m, seed), run in runs.items():
        if name != problem.name or m != method or seed > seeds:
            continue
        if len(problem.metric_names) == 1:
            result.setdefault(problem.name, {})[seed] = (run, run)
        else:
            for reference in ("wide", "tight"):
                fraction = hypervolume_fraction(run, problem.name, reference)
                result.setdefault(f"{problem.name} ({reference})", {})[seed] = (
                    fraction, 1.0 - fraction)
    return result


def quartiles(values):
    if len(values) == 1:
        return values[0], values[0], values[0]
    lower, median, upper = statistics.quantiles(sorted(values), n=4, method="inclusive")
    return median, lower, upper


def paired(gp, other):
    """(GP better, GP worse, p or None) over the seeds both have."""
    seeds = sorted(set(gp) & set(other))
    before = {s: other[s][1] for s in seeds}
    after = {s: gp[s][1] for s in seeds}
    if len(seeds) < MIN_PAIRED_SEEDS:
        better = sum(1 for s in seeds if after[s] < before[s] * (1 - compare_runs.TIE))
        worse = sum(1 for s in seeds if after[s] > before[s] * (1 + compare_runs.TIE))
        return better, worse, None
    _, _, _, better, worse, p = compare_runs.compare(before, after)
    return better, worse, p


def report(options, selected, runs, seconds):
    lines = [
        f"One trial at a time, seeds 1..{options.seeds}; one objective: best value after "
        f"{options.trials_single} trials (lower is better); several objectives: hypervolume "
        f"fraction after {options.trials_multi} trials at the wide and the tight reference "
        "(higher is better). median [lower quartile, upper quartile]; worst seed; GP better / "
        "worse: seeds where Vernier's GP did better / worse than the method (by more than "
        "0.1%); p: paired two-sided Wilcoxon signed-rank, GP against the method (— under "
        f"{MIN_PAIRED_SEEDS} seeds; bold under 0.05). The best median of each problem is bold.",
        "",
        "| problem | method | seeds | median [quartiles] | worst | GP better / worse | p |",
        "|---|---|---|---|---|---|---|",
    ]
    losses = []
    for problem in selected:
        methods = methods_of(problem, options)
        per_method = {m: scores(runs, problem, m, options.seeds) for m in methods}
        rows = sorted({row for s in per_method.values() for row in s},
                      key=lambda r: (r.endswith("(tight)"), r))
        higher = len(problem.metric_names) > 1
        for row in rows:
            summaries = {}
            for method in methods:
                values = per_method[method].get(row)
                if values:
                    summaries[method] = quartiles([v[0] for v in values.values()])
            medians = [s[0] for s in summaries.values()]
            best = (max if higher else min)(medians) if medians else None
            gp = per_method.get("vernier_gp", {}).get(row)
            for method in methods:
                values = per_method[method].get(row)
                if not values:
                    continue
                median, lower, upper = summaries[method]
                worst = (min if higher else max)(v[0] for v in values.values())
                cell = f"{median:.4g}"
                if median == best:
                    cell = f"**{cell}**"
                comparison = "—"
                p_cell = "—"
                if gp is not None and method != "vernier_gp":
                    better, worse, p = paired(gp, values)
                    comparison = f"{better} / {worse}"
                    if p is not None:
                        p_cell = f"**{p:.3f}**" if p < 0.05 else f"{p:.3f}"
                    gp_median = summaries["vernier_gp"][0]
                    if (gp_median < median) if higher else (gp_median > median):
                        losses.append((row, method, gp_median, median, p))
                lines.append(f"| {row} | {LABELS[method]} | {len(values)} | {cell} "
                             f"[{lower:.4g}, {upper:.4g}] | {worst:.4g} | {comparison} "
                             f"| {p_cell} |")
    lines += ["", "Where Vernier's GP median is worse than a method's:", ""]
    if not losses:
        lines.append("- nowhere")
    for row, method, gp_median, median, p in losses:
        p_text = "" if p is None else f", p = {p:.3f}"
        lines.append(f"- {row}: GP {gp_median:.4g}, {LABELS[method]} {median:.4g}{p_text}")
    lines += ["", f"Wall time: {seconds / 60:.1f} min, {options.threads} processes."]
    return "\n".join(lines)


# The command -----------------------------------------------------------------

def load(path):
    runs = {}
    if path and os.path.exists(path):
        with open(path) as saved:
            for name, method, seed, run in json.load(saved):
                runs[(name, method, int(seed))] = run
    return runs


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--problems", default=None, help="comma-separated (default all)")
    parser.add_argument("--methods", default=",".join(dict.fromkeys(SINGLE_METHODS +
                                                                    MULTI_METHODS)),
                        help="comma-separated; each problem runs those that fit it")
    parser.add_argument("--trials-single", type=int, default=40)
    parser.add_argument("--trials-multi", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2, help="runs at once")
    parser.add_argument("--vernier-runner", choices=["bench", "serve"], default="bench",
                        help="where Vernier's designers tune a one-objective problem: "
                             "suggest_quality_bench (default), or a vernier serve as for three "
                             "objectives (the same designers; without the benchmark binaries)")
    parser.add_argument("--save", default=None,
                        help="every run (JSON), written after each step; runs already in it "
                             "are not run again")
    parser.add_argument("--markdown", default=None, help="also write the report here")
    parser.add_argument("--load", default=None,
                        help="comma-separated --save files of other runs, reported (and not "
                             "run again) as well")
    options = parser.parse_args(argv)
    options.build = os.path.abspath(options.build)
    options.methods = options.methods.split(",")
    for method in options.methods:
        if method not in LABELS:
            parser.error(f"unknown method {method!r}; the methods are {', '.join(LABELS)}")
    names = (options.problems.split(",") if options.problems else
             [p.name for p in deterministic.all_problems()])
    selected = [deterministic.by_name(name) for name in names]

    start = time.time()
    runs = load(options.save)
    for path in options.load.split(",") if options.load else []:
        runs.update({key: run for key, run in load(path).items() if key not in runs})

    def save():
        if options.save:
            with open(options.save + ".tmp", "w") as out:
                json.dump([[*key, run] for key, run in sorted(runs.items())], out)
            os.replace(options.save + ".tmp", options.save)

    def missing(problem, method):
        return [s for s in range(1, options.seeds + 1) if (problem.name, method, s) not in runs]

    for problem in selected:
        methods = methods_of(problem, options)
        trials = trials_of(problem, options)
        phase = time.time()
        vernier = [m for m in methods if m in VERNIER and missing(problem, m)]
        in_bench = len(problem.metric_names) == 1 and options.vernier_runner == "bench"
        if vernier and in_bench:
            for (method, seed), best in vernier_single(options, problem, vernier,
                                                       options.seeds).items():
                runs[(problem.name, method, seed)] = best
            save()
        jobs = [(problem.name, m, s, trials) for m in methods if m not in VERNIER
                for s in missing(problem, m)]
        server_jobs = [] if in_bench else [
            (problem.name, m, s, trials, options.build) for m in vernier
            for s in missing(problem, m)]
        with multiprocessing.Pool(options.threads) as pool:
            results = [pool.imap_unordered(vernier_serve_run, server_jobs),
                       pool.imap_unordered(optuna_run, jobs)]
            for stream in results:
                for job, history in stream:
                    name, method, seed = job[:3]
                    runs[(name, method, seed)] = (min(v[0] for v in history)
                                                  if len(problem.metric_names) == 1
                                                  else history)
                    save()
        print(f"{problem.name}: {time.time() - phase:.0f} s", file=sys.stderr, flush=True)
    save()
    text = report(options, selected, runs, time.time() - start)
    print(text)
    if options.markdown:
        with open(options.markdown, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
