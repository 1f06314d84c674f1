#ifndef VERNIER_BENCH_QUALITY_EXTERNAL_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_EXTERNAL_PROBLEM_H_

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// A problem evaluated by another program (the realistic suite's
// bench/realistic/evaluator.py: scikit-learn models scored by
// cross-validation, noisy and high-dimensional functions), so that the
// quality benchmark runs Vernier's designers on the very objective the
// Python baselines see. The program is started as `command name` through
// /bin/sh and speaks lines on stdin/stdout:
//   it first writes the StudySpec in protobuf text format on one line, then
//   the optimal value (the best value known for a problem whose optimum is
//   not known, so the regret stays relative to it);
//   "evaluate [v1, v2, ...]" is answered with the noiseless value;
//   "observe SEED TRIAL [v1, v2, ...]" with the value a trial reports;
// values are a JSON array in the space's order (numbers, strings for
// categorical values). A value that is not a number answers NaN: the answer
// "infeasible: WHY" for a point in the problem's failure region (a trial
// that diverged: the study records it INFEASIBLE), "error: WHY" for the
// evaluator's own failure (printed on stderr).
// Evaluations may run on several threads: each takes an idle process or
// starts one more. Starting one ignores SIGPIPE in this process (a write to
// an evaluator that ended fails instead).
class ExternalProblem : public BenchmarkProblem {
 public:
  // Starts one process and reads the problem's spec and optimum.
  static absl::StatusOr<std::unique_ptr<ExternalProblem>> Start(const std::string& command,
                                                                const std::string& name);
  ~ExternalProblem() override;

  std::string name() const override { return name_; }
  v1::StudySpec Spec() const override { return spec_; }
  double Evaluate(const suggest::ParameterAssignment& point) const override;
  double Observe(const suggest::ParameterAssignment& point, uint64_t seed,
                 int64_t trial_id) const override;
  double OptimalValue() const override { return optimal_value_; }
  // Not known to this side: an empty assignment.
  suggest::ParameterAssignment Optimum() const override { return {}; }

  // The request line for `point` (without its newline), for tests.
  static std::string PointJson(const suggest::ParameterAssignment& point);

 private:
  // One running evaluator.
  struct Process {
    pid_t pid = -1;
    FILE* to = nullptr;
    FILE* from = nullptr;
  };

  ExternalProblem(std::string command, std::string name) : command_(command), name_(name) {}
  absl::StatusOr<std::unique_ptr<Process>> Launch() const;
  static void Stop(Process& process);
  // Sends one request and reads the answer's line; NaN on any failure.
  double Ask(const std::string& request) const;

  const std::string command_;
  const std::string name_;
  v1::StudySpec spec_;
  double optimal_value_ = 0;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Process>> idle_;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_EXTERNAL_PROBLEM_H_
