"""What the early-stopping bench tests share: the path of
$VERNIER_BUILD_DIR/bin/early_stopping_bench, the guard that skips a test
without it, and the rows of a run's table."""

import os
import unittest

needs_build = unittest.skipUnless(
    os.environ.get("VERNIER_BUILD_DIR"),
    "VERNIER_BUILD_DIR (the build with bin/early_stopping_bench) is not set")


def bench_path():
    """The early_stopping_bench binary of $VERNIER_BUILD_DIR."""
    return os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin", "early_stopping_bench")


def rows(stdout):
    """{method: [(seed, steps, saved, stopped, regret), ...]} of a run."""
    table = {}
    for line in stdout.splitlines()[1:]:
        fields = line.split()
        table.setdefault(" ".join(fields[:-5]), []).append(tuple(fields[-5:]))
    return table
