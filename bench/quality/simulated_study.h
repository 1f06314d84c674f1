#ifndef VERNIER_BENCH_QUALITY_SIMULATED_STUDY_H_
#define VERNIER_BENCH_QUALITY_SIMULATED_STUDY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bench/quality/benchmark_problem.h"
#include "suggest/designer.h"
#include "suggest/designers/designer_factory.h"
#include "vernier/v1/study.pb.h"

namespace vernier::bench {

// How trials are asked for and completed, as the job controller would with
// `parallelism` replicas.
enum class TrialFlow {
  // One trial at a time: ask for 1, complete it, ask again.
  kSequential,
  // Ask for `parallelism` at once, complete them all together, ask again.
  kBatched,
  // `parallelism` trials always running: each time the oldest completes,
  // ask for 1 more while the others are still pending.
  kAsynchronous,
};

std::string TrialFlowName(TrialFlow flow);

struct StudyRun {
  v1::Algorithm algorithm = v1::RANDOM_SEARCH;
  uint64_t seed = 1;
  int trials = 60;
  TrialFlow flow = TrialFlow::kSequential;
  int parallelism = 4;
};

struct StudyOutcome {
  // The best objective value among the completed trials as observed, and
  // the regret of that trial's noiseless value (BenchmarkProblem::Evaluate;
  // the same for a noiseless problem).
  double best_value = 0;
  double regret = 0;
  int completed_trials = 0;
  // Completed trials that reported no value (the problem's failure region).
  int infeasible_trials = 0;
  // Points proposed that were already in the study or earlier in the batch.
  int duplicate_points = 0;
  // Why the designer gave fewer points than asked for, if it did.
  std::string shortfall_reason;
  int suggest_calls = 0;
  double suggest_seconds = 0;
  double max_suggest_seconds = 0;
};

using DesignerFactory =
    std::function<absl::StatusOr<std::unique_ptr<suggest::Designer>>(const v1::StudySpec&)>;

// Whether the designer of `algorithm` can tune `problem`: OK, UNIMPLEMENTED
// for a designer not in this build, INVALID_ARGUMENT for one that cannot
// serve the space (GRID_SEARCH over a DOUBLE parameter).
absl::Status CheckDesigner(const BenchmarkProblem& problem, v1::Algorithm algorithm);

// Tunes `problem` the way the service does: a fresh designer from
// `make_designer` (the service's suggest::MakeDesigner; tests pass fakes) for
// every request, the completed and pending trials
// as its history and an rng seeded from the study's seed and its number of
// trials. Errors come from the designer, or INTERNAL for a point outside the
// space.
absl::StatusOr<StudyOutcome> RunSimulatedStudy(
    const BenchmarkProblem& problem, const StudyRun& run,
    const DesignerFactory& make_designer = suggest::MakeDesigner);

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_SIMULATED_STUDY_H_
