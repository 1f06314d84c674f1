#!/usr/bin/env python3
"""A trainer whose output is not valid UTF-8.

For the end-to-end test of untrusted output: it reports its metric, then
prints a line of Chinese text so long that the 1,024-byte cut of the agent's
log tail splits a character, then a byte that is no UTF-8 at all, and exits
with --exit_code.
"""

import argparse
import sys


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exit_code", type=int, default=0)
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--job-dir", dest="job_dir", default="")
    args = parser.parse_args(argv)
    out = sys.stdout.buffer
    out.write(b"step=1 loss=0.5 accuracy=%f\n" % (1.0 - args.learning_rate))
    # 2 + 3 * 400 bytes: the cut at 1,024 falls inside the 341st character.
    out.write(b"ab" + "\u8bad".encode("utf-8") * 400 + b"\n")
    out.write(b"bad \xff byte\n")
    out.flush()
    return args.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
