#!/usr/bin/env python3
"""Tests of early_stopping_bench's --draws and replay.py's --draws-out (run by
ctest under Debian's /usr/bin/python3 with VERNIER_BUILD_DIR set): replay.py
writes a family's draws, a line per seed, exactly as its live replay draws
them; the bench then runs those very trials (its no-stopping regret is the
draw's, computed here from the curves), the same twice; a malformed draws
file is refused before any simulation, naming the file, the line and what is
wrong."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
REPLAY = os.path.join(REPO, "bench", "early_stopping", "replay.py")
CURVES = os.path.join(REPO, "bench", "early_stopping", "curves")
FAMILY = "mlp_cancer"
SEEDS = 3


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/early_stopping_bench) is not set")
class DrawsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bench = os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin", "early_stopping_bench")
        cls.dir = tempfile.TemporaryDirectory()
        with open(os.path.join(CURVES, f"{FAMILY}.json")) as f:
            cls.curves = [config["curve"] for config in json.load(f)["configs"]]
        cls.pool = os.path.join(cls.dir.name, "pool.tsv")
        with open(cls.pool, "w") as f:
            for curve in cls.curves:
                f.write("\t".join(repr(value) for value in curve) + "\n")
        cls.draws = os.path.join(cls.dir.name, "draws.txt")
        done = subprocess.run([sys.executable, REPLAY, "--families", FAMILY, "--seeds",
                               str(SEEDS), "--draws-out", cls.draws],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise AssertionError(f"replay.py --draws-out failed:\n{done.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_bench(self, draws):
        return subprocess.run([self.bench, "--simulate", f"--pool={self.pool}",
                               f"--draws={draws}"], capture_output=True, text=True, timeout=300)

    def test_the_draws_are_the_live_replays(self):
        sys.path.insert(0, os.path.dirname(REPLAY))
        import replay
        family = replay.load_family(os.path.join(CURVES, f"{FAMILY}.json"))
        with open(self.draws) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), SEEDS)
        for seed, line in enumerate(lines, start=1):
            text_seed, trials = line.split("\t")
            self.assertEqual(int(text_seed), seed)
            self.assertEqual([int(t) for t in trials.split(",")], replay.draw(family, seed, 100))

    def test_the_bench_runs_the_drawn_trials(self):
        done = self.run_bench(self.draws)
        self.assertEqual(done.returncode, 0, done.stderr)
        pool_best = min(min(curve) for curve in self.curves)
        rows = [line.split() for line in done.stdout.splitlines()[1:]]
        none = {int(row[1]): float(row[-1]) for row in rows if row[0] == "none"}
        self.assertEqual(sorted(none), list(range(1, SEEDS + 1)))
        with open(self.draws) as f:
            for line in f:
                seed, trials = line.rstrip("\n").split("\t")
                picked = min(min(self.curves[int(t)]) for t in trials.split(","))
                self.assertAlmostEqual(none[int(seed)], picked - pool_best, delta=1e-5)
        # Every policy ran every seed, and the run repeats exactly.
        methods = {" ".join(row[:-5]) for row in rows}
        self.assertIn("vernier LEARNING_CURVE", methods)
        self.assertEqual(len(rows), len(methods) * SEEDS)
        self.assertEqual(self.run_bench(self.draws).stdout, done.stdout)

    def test_malformed_draws_are_refused_naming_the_line(self):
        hundred = ",".join(["0"] * 100)
        cases = [
            ("no_tab.txt", f"1 {hundred}\n", "no_tab.txt:1: expected a seed, a tab"),
            ("bad_seed.txt", f"one\t{hundred}\n", "bad_seed.txt:1: expected a seed, a tab"),
            ("range.txt", f"# a comment\n1\t{hundred}\n2\t{hundred[:-1]}200\n",
             'range.txt:3: "200" is not a line of the pool (0 to 199)'),
            ("word.txt", f"1\t{hundred[:-1]}x\n", 'word.txt:1: "x" is not a line of the pool'),
            ("count.txt", "1\t" + ",".join(["0"] * 99) + "\n",
             "count.txt:1: 99 trials, the simulation runs 100"),
            ("empty.txt", "\n# nothing\n", "empty.txt holds no seed"),
        ]
        for name, text, message in cases:
            with self.subTest(name):
                done = self.run_bench(self.write(name, text))
                self.assertEqual(done.returncode, 2)
                self.assertIn("--draws: ", done.stderr)
                self.assertIn(message, done.stderr)
                self.assertEqual(done.stdout, "")

    def test_a_missing_draws_file_is_refused(self):
        path = os.path.join(self.dir.name, "missing.txt")
        done = self.run_bench(path)
        self.assertEqual(done.returncode, 2)
        self.assertIn(f"--draws: cannot read {path}", done.stderr)

    def test_draws_out_takes_one_family(self):
        done = subprocess.run([sys.executable, REPLAY, "--families", "mlp_cancer,mlp_digits",
                               "--draws-out", os.path.join(self.dir.name, "two.txt")],
                              capture_output=True, text=True, timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--draws-out: name exactly one family", done.stderr)


if __name__ == "__main__":
    unittest.main()
