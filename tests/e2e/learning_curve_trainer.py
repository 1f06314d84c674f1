#!/usr/bin/env python3
"""A trainer whose accuracy curve is set by its --quality flag.

For the early-stopping end-to-end test: every step prints
`step=N accuracy=QUALITY+0.001*N`, so a trial's rank among the others is the
same at every step and the policy's decisions do not depend on timing.
"""

import argparse
import sys
import time


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quality", type=float, required=True)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seconds_per_step", type=float, default=0.1)
    parser.add_argument("--job-dir", dest="job_dir", default="")
    args = parser.parse_args(argv)
    for step in range(1, args.steps + 1):
        print(f"step={step} accuracy={args.quality + 0.001 * step:.4f}", flush=True)
        time.sleep(args.seconds_per_step)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
