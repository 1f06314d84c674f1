#!/usr/bin/env python3
"""Tests of bench/early_stopping/decision_latency.py (run by ctest under
Debian's /usr/bin/python3 with VERNIER_BUILD_DIR set): a tiny run against a
real `vernier serve` from this build (the server started and stopped by the
script), its table's shape, and its refusals of bad arguments."""

import os
import subprocess
import sys
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                      "early_stopping", "decision_latency.py")


def run(*arguments):
    return subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True, text=True,
                          timeout=120)


class DecisionLatencyTest(unittest.TestCase):
    def test_a_tiny_run_times_its_decisions(self):
        result = run("--steps", "12", "--finished", "6", "--running", "10", "--decisions", "25")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        # The decisions that kept their trial running, and those that stopped it.
        self.assertTrue(lines[1].startswith("kept running: "), lines[1])
        self.assertTrue(lines[2].startswith("stopped (a write): "), lines[2])
        self.assertRegex(lines[3], r"^calls over 20 ms: \d+ of \d+$")
        del lines[1:4]
        self.assertIn("6 finished and 10 running trials", lines[0])
        self.assertIn("the first (the cache cold)", lines[0])
        self.assertEqual(lines[1], "| steps | running | p50 ms | p99 ms | max ms | "
                                   "server CPU ms per decision | PostgreSQL CPU ms per decision |")
        cells = [cell.strip() for cell in lines[3].strip("|").split("|")]
        self.assertEqual(cells[:2], ["12", "10"])
        # SQLite: no PostgreSQL backends to count.
        self.assertEqual(cells[-1], "-")
        p50, p99, largest, cpu = (float(cell) for cell in cells[2:-1])
        self.assertGreater(p50, 0)
        self.assertLessEqual(p50, p99)
        self.assertLessEqual(p99, largest)
        self.assertGreaterEqual(cpu, 0)

    @unittest.skipUnless(os.environ.get("VERNIER_TEST_POSTGRES_URL"),
                         "VERNIER_TEST_POSTGRES_URL names no PostgreSQL test server")
    def test_on_postgresql_it_counts_the_backends_cpu(self):
        server = os.environ["VERNIER_TEST_POSTGRES_URL"]
        name = f"latency_test_{os.getpid()}"
        base = server.rsplit("/", 1)[0]
        subprocess.run(["psql", server, "-qc", f"CREATE DATABASE {name}"], check=True,
                       capture_output=True)
        try:
            result = run("--steps", "8", "--finished", "4", "--running", "5",
                         "--decisions", "10", "--db", f"{base}/{name}")
        finally:
            subprocess.run(["psql", server, "-qc", f"DROP DATABASE {name} WITH (FORCE)"],
                           capture_output=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        cells = [cell.strip() for cell in result.stdout.splitlines()[-1].strip("|").split("|")]
        self.assertGreaterEqual(float(cells[-1]), 0)

    def test_each_decision_can_follow_a_report(self):
        result = run("--steps", "8", "--finished", "4", "--running", "5", "--decisions", "10",
                     "--report-first")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("decisions, each after a report,", result.stdout.splitlines()[0])

    def test_calls_can_wait_between_them(self):
        result = run("--steps", "8", "--finished", "4", "--running", "5", "--decisions", "10",
                     "--gap-ms", "5")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"calls over 20 ms: \d+ of \d+, each 5 ms after the last")

    def test_another_policy_is_given_as_json(self):
        result = run("--steps", "8", "--finished", "4", "--running", "5", "--decisions", "10",
                     "--early-stopping", '{"policy": "MEDIAN_STOPPING"}')
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_bad_arguments_are_refused_naming_the_flag(self):
        for arguments, flag in [(["--steps", "1"], "--steps"),
                                (["--running", "0"], "--running"),
                                (["--gap-ms", "-1"], "--gap-ms"),
                                (["--early-stopping", "{policy"], "--early-stopping")]:
            result = run(*arguments)
            self.assertEqual(result.returncode, 2, arguments)
            self.assertIn(flag, result.stderr)


if __name__ == "__main__":
    unittest.main()
