#!/usr/bin/env python3
"""Tests of bench/early_stopping_bench.cc's --settings (run by ctest under
Debian's /usr/bin/python3 against $VERNIER_BUILD_DIR/bin/early_stopping_bench):
the policies named there run instead of the built-in list, each exactly as
the built-in row with the same settings; an entry that is not NAME=SETTINGS,
settings that do not parse and settings a study would refuse are errors
naming the entry, before any simulation."""

import subprocess
import unittest

from early_stopping_bench_output import bench_path, needs_build, rows


@needs_build
class SettingsTest(unittest.TestCase):
    def setUp(self):
        self.bench = bench_path()

    def run_bench(self, *flags):
        return subprocess.run([self.bench, "--simulate", "--family=crossing", "--seeds=1,2",
                               *flags], capture_output=True, text=True, timeout=120)

    def test_the_named_policies_run_as_the_built_in_rows(self):
        built_in = self.run_bench()
        self.assertEqual(built_in.returncode, 0, built_in.stderr)
        chosen = self.run_bench(
            "--settings=asha=policy: ASHA grace_period: 5 max_step: 100;"
            " median=policy: MEDIAN_STOPPING")
        self.assertEqual(chosen.returncode, 0, chosen.stderr)
        expected, got = rows(built_in.stdout), rows(chosen.stdout)
        self.assertEqual(list(got), ["none", "asha", "median"])
        self.assertEqual(got["none"], expected["none"])
        self.assertEqual(got["asha"], expected["vernier ASHA g5"])
        self.assertEqual(got["median"], expected["vernier MEDIAN_STOPPING"])
        # A different setting gives different steps: the text is not ignored.
        other = rows(self.run_bench(
            "--settings=asha=policy: ASHA grace_period: 25 max_step: 100").stdout)
        self.assertNotEqual(other["asha"], expected["vernier ASHA g5"])

    def assert_refused(self, flag, message):
        done = self.run_bench(flag)
        self.assertEqual(done.returncode, 2)
        self.assertIn(message, done.stderr)
        self.assertEqual(done.stdout, "")

    def test_an_entry_without_a_name_is_refused(self):
        self.assert_refused("--settings=policy: ASHA",
                            '--settings: "policy: ASHA" is not NAME=SETTINGS')
        self.assert_refused("--settings==policy: ASHA",
                            '--settings: "=policy: ASHA" is not NAME=SETTINGS')

    def test_no_entry_is_refused(self):
        self.assert_refused("--settings=;", "--settings: no NAME=SETTINGS given")

    def test_settings_that_do_not_parse_are_refused(self):
        self.assert_refused("--settings=odd=policy: ASHAX",
                            '--settings: "odd": "policy: ASHAX" is not an EarlyStoppingSpec')

    def test_settings_a_study_refuses_are_refused(self):
        self.assert_refused("--settings=ok=policy: ASHA;bad=policy: ASHA reduction_factor: -1",
                            "--settings: \"bad\": ASHA's reduction factor must be")


if __name__ == "__main__":
    unittest.main()
