#!/usr/bin/python3
"""Early stopping on real learning curves (issue 34): the curves that
bench/early_stopping/tabulate_curves.py tabulated, replayed through a live
`vernier serve` and through Optuna 3.1's pruners, on the very same
configurations and the same schedule.

For each family and seed, `--trials` configurations (default 100) are drawn
from the family's pool without replacement (seeded by family and seed; the
same draw for every method). A loop keeps `--parallel` trials in flight
(default 4): at each tick every free slot, in slot order, takes the next
configuration, then every running trial reports its next step's value; after
each report but the last the method decides whether the trial stops. A
stopped or finished trial frees its slot for the next tick.

Methods:
  none      every trial trains every step (no server needed: nothing decides).
  Vernier   one study per run on a `vernier serve` that this script starts on
            127.0.0.1 with a temporary data directory (on /dev/shm where there
            is one: a disk's fsync per report made the run 7 times slower) and
            stops by its PID at the end. The study's spec has the family's search space,
            `enableTrialEarlyStopping: true` and the method's `earlyStopping:`
            block; each trial is queued with its configuration (add_trial) and
            handed out by suggest, reports with `trial.report(step=...)`,
            asks `trial.should_stop()`, and ends with `trial.complete()` (its
            latest measurement; STOPPED_EARLY when it was told to stop).
  Optuna    in memory: `study.ask()`, `trial.report(value, step)`,
            `trial.should_prune()`, `study.tell` (PRUNED when pruned).

Each Vernier method is `--vernier 'LABEL=BLOCK'` (repeatable; given at all, it
replaces the default list), BLOCK being the `earlyStopping:` block as JSON
(or YAML), or `default` for `enableTrialEarlyStopping: true` alone. A value
written as the string "STEPS" becomes the family's curve length. A method the
server refuses (a policy it does not know yet) is skipped with a note. Default:

  --vernier 'Vernier default=default'          (LEARNING_CURVE, minTrials 5)
  --vernier 'Vernier MEDIAN_STOPPING={"policy": "MEDIAN_STOPPING"}'
  --vernier 'Vernier ASHA g5={"policy": "ASHA", "gracePeriod": 5, "maxStep": "STEPS"}'
  --vernier 'Vernier HYPERBAND={"policy": "HYPERBAND", "maxStep": "STEPS"}'

Optuna (`--optuna`, comma-separated; default all): median = MedianPruner(),
sha = SuccessiveHalvingPruner(), hyperband = HyperbandPruner(min_resource=1,
max_resource=STEPS, reduction_factor=3), patient = PatientPruner(
MedianPruner(), patience=3).

Definitions (per run; the table gives the mean over the seeds):
  steps     steps trained by the 100 trials (100 x STEPS without stopping);
            saved = 1 - steps / (trials x STEPS).
  value     a trial's value is the best (lowest) validation value among the
            steps it actually trained: the checkpoint a user keeps, so a curve
            that rises again keeps its minimum.
  picked    the trial with the best value, as the user would pick it; the
            table's "picked" is its value.
  regret    picked value minus the best value of the whole pool (every
            configuration, full curves); "+-" is its standard error over the
            seeds; "vs none" the mean regret over the mean regret of no
            stopping on the same draws; "same pick" the share of seeds whose
            picked value equals no stopping's (the draw's best was kept).

Run it with Debian's Python (python3-optuna, python3-grpcio), under nice:

  nice -n 10 /usr/bin/python3 bench/early_stopping/replay.py [--build build]
      [--families a,b] [--seeds 20] [--trials 100] [--parallel 4] [--pool N]
      [--vernier LABEL=BLOCK ... | --no-vernier] [--optuna median,sha,hyperband,patient]
      [--jobs 2] [--save runs.jsonl] [--markdown report.md]

`--families F --seeds N --draws-out FILE` writes family F's draws instead
and runs nothing; `build/bin/early_stopping_bench --simulate
--pool=F.tsv --draws=FILE` (the pool made from the same curves) then runs
the policies in C++ on the very trials of the live replay.
"""

import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CURVES_DIR = os.path.join(HERE, "curves")

DEFAULT_VERNIER = [
    "Vernier default=default",
    'Vernier MEDIAN_STOPPING={"policy": "MEDIAN_STOPPING"}',
    'Vernier ASHA g5={"policy": "ASHA", "gracePeriod": 5, "maxStep": "STEPS"}',
    'Vernier HYPERBAND={"policy": "HYPERBAND", "maxStep": "STEPS"}',
]
OPTUNA = {
    "median": "Optuna MedianPruner",
    "sha": "Optuna SuccessiveHalvingPruner",
    "hyperband": "Optuna HyperbandPruner",
    "patient": "Optuna PatientPruner(Median, 3)",
}
NONE = "none"


# Curves ----------------------------------------------------------------------

def load_family(path, pool=None):
    with open(path) as file:
        family = json.load(file)
    if pool:
        if pool > len(family["configs"]):
            sys.exit(f"{path}: --pool {pool} is more than its {len(family['configs'])} "
                     "configurations")
        family["configs"] = family["configs"][:pool]
    steps = family["steps"]
    for index, config in enumerate(family["configs"]):
        if len(config["curve"]) != steps:
            sys.exit(f"{path}: configuration {index} has {len(config['curve'])} values, "
                     f"not {steps}")
    family["pool_best"] = min(min(config["curve"]) for config in family["configs"])
    return family


def draw(family, seed, trials):
    """The configurations (indices into the pool) a seed's trials run, in order."""
    configs = family["configs"]
    if trials > len(configs):
        sys.exit(f"{family['family']}: --trials {trials} is more than the pool of "
                 f"{len(configs)}")
    return random.Random(f"{family['family']}/{seed}").sample(range(len(configs)), trials)


# The schedule ----------------------------------------------------------------

def replay(curves, parallel, agent):
    """Runs `curves` (one per trial, in start order) with `parallel` in flight;
    `agent` decides. Returns the steps each trial trained."""
    steps = len(curves[0])
    trained = [0] * len(curves)
    slots = [None] * parallel
    next_trial = 0
    while next_trial < len(curves) or any(slot is not None for slot in slots):
        for slot in range(parallel):
            if slots[slot] is None and next_trial < len(curves):
                slots[slot] = (next_trial, agent.start(next_trial))
                next_trial += 1
        for slot in range(parallel):
            if slots[slot] is None:
                continue
            index, handle = slots[slot]
            step = trained[index] + 1
            trained[index] = step
            value = curves[index][step - 1]
            if step == steps:
                agent.report(handle, step, value, ask=False)
                agent.finish(handle, value, stopped=False)
                slots[slot] = None
            elif agent.report(handle, step, value, ask=True):
                agent.finish(handle, value, stopped=True)
                slots[slot] = None
    return trained


class NoStopping:
    def start(self, index):
        return index

    def report(self, handle, step, value, ask):
        return False

    def finish(self, handle, value, stopped):
        pass


class VernierAgent:
    """One study on the live server; the client's report and should_stop."""

    def __init__(self, client, name, spec, configs, seed):
        self.study = client.create_study(name, spec, seed=seed)
        self.configs = configs

    def start(self, index):
        queued = self.study.add_trial(self.configs[index])
        suggested = self.study.suggest(1)
        if len(suggested) != 1 or suggested[0].id != queued.id:
            raise RuntimeError(f"study {self.study.name}: suggest did not hand out the queued "
                               f"trial {queued.id}: {suggested!r} ({suggested.reason})")
        return suggested[0]

    def report(self, trial, step, value, ask):
        trial.report(step=step, **{self.study.objective: value})
        return trial.should_stop() if ask else False

    def finish(self, trial, value, stopped):
        trial.complete()
        expected = "STOPPED_EARLY" if stopped else "SUCCEEDED"
        if trial.state != expected:
            raise RuntimeError(f"study {self.study.name} trial {trial.id}: {trial.state}, "
                               f"expected {expected}")


def optuna_pruner(key, steps):
    import warnings
    import optuna
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    if key == "median":
        return optuna.pruners.MedianPruner()
    if key == "sha":
        return optuna.pruners.SuccessiveHalvingPruner()
    if key == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=steps,
                                              reduction_factor=3)
    if key == "patient":
        return optuna.pruners.PatientPruner(optuna.pruners.MedianPruner(), patience=3)
    raise ValueError(key)


class OptunaAgent:
    def __init__(self, key, steps, name):
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        # HyperbandPruner puts trials in brackets by a hash of the study name
        # and the trial number: a fixed name makes the run repeatable.
        self.study = optuna.create_study(study_name=name, direction="minimize",
                                         pruner=optuna_pruner(key, steps),
                                         sampler=optuna.samplers.RandomSampler(seed=0))

    def start(self, index):
        return self.study.ask()

    def report(self, trial, step, value, ask):
        trial.report(value, step)
        return trial.should_prune() if ask else False

    def finish(self, trial, value, stopped):
        import optuna
        if stopped:
            self.study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        else:
            self.study.tell(trial, value)


# Methods and runs ------------------------------------------------------------

def substitute_steps(block, steps):
    if isinstance(block, dict):
        return {key: substitute_steps(value, steps) for key, value in block.items()}
    if isinstance(block, list):
        return [substitute_steps(value, steps) for value in block]
    return steps if block == "STEPS" else block


def parse_vernier(text):
    """'LABEL=BLOCK' -> (label, block or None for the default policy)."""
    label, separator, body = text.partition("=")
    label, body = label.strip(), body.strip()
    if not separator or not label or not body:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write LABEL=BLOCK, e.g. 'ASHA g5={{\"policy\": \"ASHA\"}}' or "
            "'Vernier default=default'")
    if body == "default":
        return label, None
    try:
        block = json.loads(body)
    except ValueError as json_error:
        try:
            import yaml
            block = yaml.safe_load(body)
        except Exception:  # noqa: BLE001 - report the JSON error, the likelier intent
            raise argparse.ArgumentTypeError(f"{label}: not JSON or YAML: {json_error}")
    if not isinstance(block, dict):
        raise argparse.ArgumentTypeError(f"{label}: the earlyStopping block must be a mapping")
    return label, block


def study_spec(family, block):
    spec = {"goal": "MINIMIZE", "hyperparameterMetricTag": family["metric"],
            "algorithm": "RANDOM_SEARCH", "params": family["params"],
            "enableTrialEarlyStopping": True}
    if block is not None:
        spec["earlyStopping"] = substitute_steps(block, family["steps"])
    return spec


_worker = {}


def _init_worker(target, families_paths, pool):
    _worker["target"] = target
    _worker["families"] = {name: load_family(path, pool) for name, path in families_paths}


def _client():
    if "client" not in _worker:
        sys.path[:0] = _python_paths(None)
        import vernier
        _worker["client"] = vernier.Client(_worker["target"])
    return _worker["client"]


def run_one(task):
    """One (family, seed, method) run; the per-run result."""
    family_name, seed, method, kind, detail, trials, parallel, tag = task
    family = _worker["families"][family_name]
    order = draw(family, seed, trials)
    curves = [family["configs"][index]["curve"] for index in order]
    started = time.time()
    if kind == "none":
        agent = NoStopping()
    elif kind == "optuna":
        agent = OptunaAgent(detail, family["steps"], f"{family_name}-seed{seed}")
    else:
        slug = re.sub(r"[^A-Za-z0-9]+", "_", method).strip("_")[:40]
        agent = VernierAgent(_client(), f"r{tag}_{family_name}_{slug}_s{seed}",
                             study_spec(family, detail),
                             [family["configs"][index]["params"] for index in order], seed)
    trained = replay(curves, parallel, agent)
    values = [min(curve[:steps]) for curve, steps in zip(curves, trained)]
    picked = min(range(len(values)), key=lambda i: values[i])
    return {"family": family_name, "seed": seed, "method": method, "steps": sum(trained),
            "stopped": sum(1 for steps in trained if steps < family["steps"]),
            "picked_config": order[picked], "picked_value": values[picked],
            "regret": values[picked] - family["pool_best"], "seconds": time.time() - started}


# Tables ----------------------------------------------------------------------

def fmt(value):
    return f"{value:.4g}"


def family_table(family, methods, runs, trials, seeds):
    full = trials * family["steps"]
    by_method = {method: sorted((r for r in runs if r["method"] == method),
                                key=lambda r: r["seed"]) for method in methods}
    none_runs = {r["seed"]: r for r in by_method[NONE]}
    baseline = statistics.mean(r["regret"] for r in by_method[NONE])
    lines = ["| method | steps | saved | stopped | picked | regret | +- | vs none | same pick |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary = {}
    for method in methods:
        method_runs = by_method[method]
        if not method_runs:
            continue
        steps = statistics.mean(r["steps"] for r in method_runs)
        regrets = [r["regret"] for r in method_runs]
        regret = statistics.mean(regrets)
        error = statistics.stdev(regrets) / len(regrets) ** 0.5 if len(regrets) > 1 else 0.0
        ratio = f"{regret / baseline:.2f}" if baseline > 0 else ("1.00" if regret == 0 else "inf")
        same = sum(1 for r in method_runs
                   if r["picked_value"] == none_runs[r["seed"]]["picked_value"])
        saved = 1 - steps / full
        summary[method] = (saved, ratio)
        lines.append(
            f"| {method} | {steps:.0f} | {100 * saved:.1f}% | "
            f"{statistics.mean(r['stopped'] for r in method_runs):.1f} | "
            f"{fmt(statistics.mean(r['picked_value'] for r in method_runs))} | {fmt(regret)} | "
            f"{fmt(error)} | {ratio} | {100 * same / len(method_runs):.0f}% |")
    return lines, summary


def report(families, methods, runs, options, skipped, seconds, started_at):
    out = []
    seeds = options.seed_list
    out.append(f"{options.trials} trials per seed drawn from each pool, {options.parallel} in "
               f"flight, {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}); mean over the seeds.")
    out.append("")
    summaries = {}
    for family in families:
        name = family["family"]
        out.append(f"Family `{name}`: {family['description']}; objective "
                   f"{family['objective']}; pool of {len(family['configs'])} configurations x "
                   f"{family['steps']} steps, best {fmt(family['pool_best'])}.")
        out.append("")
        lines, summaries[name] = family_table(
            family, methods, [r for r in runs if r["family"] == name], options.trials, seeds)
        out.extend(lines)
        out.append("")
        if max(r["regret"] for r in runs if r["family"] == name and r["method"] == NONE) == 0:
            out.append("No stopping's regret is 0 on every seed here (the pool's best value "
                       "is in every draw), so any regret is an infinite ratio: read the "
                       "regret and same-pick columns.")
            out.append("")
    if len(families) > 1:
        out.append("Summary: steps saved, and regret vs no stopping, per family.")
        out.append("")
        out.append("| method | " + " | ".join(f["family"] for f in families) + " |")
        out.append("|---|" + "---:|" * len(families))
        for method in methods:
            cells = []
            for family in families:
                saved, ratio = summaries[family["family"]].get(method, (None, None))
                cells.append("" if saved is None else
                             f"{100 * saved:.0f}%, {ratio}" + ("" if ratio == "inf" else "x"))
            out.append(f"| {method} | " + " | ".join(cells) + " |")
        out.append("")
    for label, reason in skipped:
        out.append(f"Skipped {label}: the server refused its spec: {reason}")
    if skipped:
        out.append("")
    per_method = {}
    for r in runs:
        per_method[r["method"]] = per_method.get(r["method"], 0.0) + r["seconds"]
    out.append(f"Wall time {seconds:.0f} s with {options.jobs} worker(s), started "
               f"{started_at}; seconds spent per method (summed over runs): " +
               ", ".join(f"{m} {per_method.get(m, 0):.0f}" for m in methods) + ".")
    return "\n".join(out) + "\n"


# Main ------------------------------------------------------------------------

def _python_paths(build):
    build = build or os.environ.get("VERNIER_BUILD_DIR") or os.path.join(REPO, "build")
    return [os.path.join(REPO, "python"), os.path.join(build, "python")]


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Replays tabulated learning curves through Vernier's early stopping "
                    "(a live server) and Optuna's pruners; see the module's docstring.")
    parser.add_argument("--build", default=None,
                        help="build folder with bin/vernier and python/ (default "
                             "$VERNIER_BUILD_DIR, else build/ of this checkout)")
    parser.add_argument("--curves", default=CURVES_DIR, help="folder of the FAMILY.json files")
    parser.add_argument("--families", default=None, help="comma-separated (default: all)")
    parser.add_argument("--seeds", type=int, default=20, help="seeds 1..N")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=4, help="trials in flight")
    parser.add_argument("--pool", type=int, default=None,
                        help="use only the first N configurations of each family")
    parser.add_argument("--vernier", action="append", type=parse_vernier, default=None,
                        metavar="LABEL=BLOCK", help="a Vernier method (repeatable)")
    parser.add_argument("--no-vernier", action="store_true",
                        help="no Vernier method (and no server)")
    parser.add_argument("--optuna", default=",".join(OPTUNA),
                        help="comma-separated of " + ", ".join(OPTUNA) + "; '' for none")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--save", default=None, help="write every run as a JSON line here")
    parser.add_argument("--markdown", default=None, help="write the tables here too")
    parser.add_argument("--draws-out", default=None, metavar="FILE",
                        help="write the one family's draws (a line per seed: the seed, a tab, "
                             "its trials' 0-based configurations in start order) for "
                             "early_stopping_bench --draws, and run nothing")
    options = parser.parse_args(argv)
    if options.no_vernier:
        options.vernier = []
    elif options.vernier is None:
        options.vernier = [parse_vernier(text) for text in DEFAULT_VERNIER]
    options.optuna = [key for key in options.optuna.split(",") if key]
    unknown = [key for key in options.optuna if key not in OPTUNA]
    if unknown:
        parser.error(f"--optuna: unknown {', '.join(unknown)}; known: {', '.join(OPTUNA)}")
    labels = [label for label, _ in options.vernier] + [OPTUNA[k] for k in options.optuna]
    if len(set(labels)) != len(labels) or NONE in labels:
        parser.error(f"method labels must be distinct and not {NONE!r}: {labels}")
    if options.seeds < 1 or options.trials < 1 or options.parallel < 1 or options.jobs < 1:
        parser.error("--seeds, --trials, --parallel and --jobs must be positive")
    options.seed_list = list(range(1, options.seeds + 1))
    return options


def main(argv):
    options = parse_arguments(argv)
    available = sorted(f[:-5] for f in os.listdir(options.curves) if f.endswith(".json"))
    names = options.families.split(",") if options.families else available
    missing = [name for name in names if name not in available]
    if missing:
        sys.exit(f"no curves for {', '.join(missing)} in {options.curves}; "
                 f"there are: {', '.join(available)}")
    paths = [(name, os.path.join(options.curves, f"{name}.json")) for name in names]
    families = [load_family(path, options.pool) for _, path in paths]
    if options.draws_out:
        if len(families) != 1:
            sys.exit("--draws-out: name exactly one family with --families")
        with open(options.draws_out, "w") as out:
            for seed in options.seed_list:
                trials = draw(families[0], seed, options.trials)
                out.write(f"{seed}\t{','.join(map(str, trials))}\n")
        return

    build = os.path.abspath(options.build or os.environ.get("VERNIER_BUILD_DIR") or
                            os.path.join(REPO, "build"))
    os.environ["VERNIER_BUILD_DIR"] = build  # for the spawned workers
    sys.path[:0] = _python_paths(build)
    import vernier
    binary = os.path.join(build, "bin", "vernier")
    started_at = time.strftime("%Y-%m-%d %H:%M")
    started = time.time()
    skipped = []
    server = None
    scratch = None
    if options.vernier:
        # The study store on tmpfs where there is one: each report is a
        # committed SQLite write, and a disk's fsync would be most of the run.
        shm = "/dev/shm"
        scratch = tempfile.mkdtemp(prefix="vernier-replay-",
                                   dir=shm if os.path.isdir(shm) and os.access(shm, os.W_OK)
                                   else None)
        server = vernier.LocalServer(binary=binary, data_dir=scratch, extra_args=["--no-http"])
    try:
        if server is not None:
            server.start()
            print(f"vernier serve pid {server.pid} on {server.target}, data in "
                  f"{server.data_dir}", file=sys.stderr)
        vernier_methods = []
        if server is not None:
            with vernier.Client(server.target) as client:
                for label, block in options.vernier:
                    try:
                        for family in families:
                            client.parse_study_spec(study_spec(family, block))
                        vernier_methods.append((label, block))
                    except vernier.InvalidArgument as error:
                        skipped.append((label, str(error)))
                        print(f"skipping {label}: the server refused its spec: {error}",
                              file=sys.stderr)
        methods = [NONE] + [label for label, _ in vernier_methods] + \
            [OPTUNA[key] for key in options.optuna]
        tag = f"{int(started) % 100000}"
        tasks = []
        for seed in options.seed_list:
            for family in families:
                tasks.append((family["family"], seed, NONE, "none", None, options.trials,
                              options.parallel, tag))
                for label, block in vernier_methods:
                    tasks.append((family["family"], seed, label, "vernier", block,
                                  options.trials, options.parallel, tag))
                for key in options.optuna:
                    tasks.append((family["family"], seed, OPTUNA[key], "optuna", key,
                                  options.trials, options.parallel, tag))
        target = server.target if server is not None else ""
        runs = []
        if options.jobs == 1:
            _init_worker(target, paths, options.pool)
            for task in tasks:
                runs.append(run_one(task))
        else:
            # Spawned, not forked: gRPC does not survive a fork of a process that used it.
            context = multiprocessing.get_context("spawn")
            with context.Pool(options.jobs, initializer=_init_worker,
                              initargs=(target, paths, options.pool)) as pool:
                for done, result in enumerate(pool.imap_unordered(run_one, tasks), start=1):
                    runs.append(result)
                    if done % 50 == 0:
                        print(f"{done}/{len(tasks)} runs, {time.time() - started:.0f} s",
                              file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    text = report(families, methods, runs, options, skipped, time.time() - started, started_at)
    sys.stdout.write(text)
    if options.markdown:
        with open(options.markdown, "w") as out:
            out.write(text)
    if options.save:
        with open(options.save, "w") as out:
            for run in sorted(runs, key=lambda r: (r["family"], r["method"], r["seed"])):
                out.write(json.dumps(run) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
