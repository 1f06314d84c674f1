#!/usr/bin/env python3
"""The evaluator that build/bin/suggest_quality_bench starts for a problem of
bench/realistic/problems.py (--evaluator ... --external NAME; see
bench/quality/external_problem.h for the line protocol):

  /usr/bin/python3 bench/realistic/evaluator.py NAME
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import problems  # noqa: E402  (beside this file)


def main(argv):
    problem = problems.by_name(argv[0])
    out = sys.stdout
    out.write(problem.describe() + "\n")
    out.write(repr(float(problem.optimum)) + "\n")
    out.flush()
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        try:
            if command == "evaluate":
                value = problem.evaluate(problem.point(json.loads(rest)))
            elif command == "observe":
                seed, trial, values = rest.split(" ", 2)
                value = problem.observe(problem.point(json.loads(values)), int(seed), int(trial))
            else:
                raise ValueError(f"unknown request {command!r}")
            out.write(repr(float(value)) + "\n")
        except problems.Infeasible as failure:
            out.write(f"infeasible: {failure}".replace("\n", " ") + "\n")
        except Exception as error:  # noqa: BLE001  (answered, the run goes on)
            out.write(f"error: {type(error).__name__}: {error}".replace("\n", " ") + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
