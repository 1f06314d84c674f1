// How long one SuggestTrials takes in the designer: a fresh designer from
// MakeDesigner (as StudyManager builds one per call) over a history of n
// ended trials in 10 dimensions, count 1 or 8. Random search is the baseline.
// Results and machine in docs/benchmarks.md ("Suggestion speed"):
//
//   scripts/bench.sh suggest_speed_bench -- --benchmark_repetitions=10
//       --benchmark_report_aggregates_only=true   (one line)
//
// Read the _median rows: p50 over the repetitions. The process keeps its
// freed heap as `vernier serve` does (RetainFreedHeap); --default_malloc
// leaves malloc's defaults, to measure what that saves.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>

#include "suggest/designers/designer_factory.h"
#include "suggest/designers/gp_bandit_designer.h"
#include "suggest/designers/random_search_designer.h"
#include "suggest/heap_retention.h"
#include "suggest/search_space.h"

namespace vernier::suggest {
namespace {

constexpr int kDimension = 10;

v1::StudySpec Spec(v1::Algorithm algorithm) {
  v1::StudySpec spec;
  for (int i = 0; i < kDimension; ++i) {
    v1::ParameterSpec& parameter = *spec.add_parameters();
    parameter.set_parameter_name("x" + std::to_string(i));
    parameter.set_type(v1::ParameterSpec::DOUBLE);
    parameter.set_min_value(0);
    parameter.set_max_value(1);
  }
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id("loss");
  metric.set_goal(v1::MetricSpec::MINIMIZE);
  spec.set_algorithm(algorithm);
  spec.set_seed(7);
  return spec;
}

// n ended trials at random points, with a smooth, bumpy loss; with
// `failures`, those with x0 + x1 > 1.2 (about a third) end INFEASIBLE
// without one, as trials that diverged.
DesignerHistory History(int n, bool failures = false) {
  const v1::StudySpec spec = Spec(v1::RANDOM_SEARCH);
  absl::StatusOr<SearchSpace> space = SearchSpace::Create(spec.parameters());
  RandomSearchDesigner random(*space);
  std::mt19937_64 rng(11);
  DesignerHistory history;
  absl::StatusOr<Suggestions> points = random.Suggest({}, n, rng);
  for (ParameterAssignment& point : points->points) {
    double loss = 0;
    for (int i = 0; i < kDimension; ++i) {
      const double x = point[i].double_value();
      loss += (x - 0.3) * (x - 0.3) + 0.1 * std::sin(7 * x + i);
    }
    TrialObservation trial;
    trial.trial_id = static_cast<int64_t>(history.completed.size()) + 1;
    const bool failed = failures && point[0].double_value() + point[1].double_value() > 1.2;
    trial.parameters = std::move(point);
    trial.state = failed ? v1::Trial::INFEASIBLE : v1::Trial::SUCCEEDED;
    if (!failed) trial.objective = loss;
    history.completed.push_back(std::move(trial));
  }
  return history;
}

void Suggest(benchmark::State& state, v1::Algorithm algorithm, bool failures = false) {
  const int history_size = static_cast<int>(state.range(0));
  const int count = static_cast<int>(state.range(1));
  const DesignerHistory history = History(history_size, failures);
  const v1::StudySpec spec = Spec(algorithm);
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(spec);
    std::mt19937_64 rng(static_cast<uint64_t>(history_size));
    absl::StatusOr<Suggestions> suggestions = (*designer)->Suggest(history, count, rng);
    if (!suggestions.ok() || static_cast<int>(suggestions->points.size()) != count ||
        !suggestions->fallback_reason.empty()) {
      state.SkipWithError("the designer did not give its points from the model");
      break;
    }
    benchmark::DoNotOptimize(suggestions->points.data());
  }
}

void BM_GaussianProcessSuggest(benchmark::State& state) {
  Suggest(state, v1::GAUSSIAN_PROCESS_BANDIT);
}

// The GP designer with `options`, one point over a history of state.range(0).
void SuggestWith(benchmark::State& state, const GpBanditDesigner::Options& options) {
  const int history_size = static_cast<int>(state.range(0));
  const DesignerHistory history = History(history_size);
  const v1::StudySpec spec = Spec(v1::GAUSSIAN_PROCESS_BANDIT);
  absl::StatusOr<SearchSpace> space = SearchSpace::Create(spec.parameters());
  for (auto _ : state) {
    GpBanditDesigner designer(*space, v1::MetricSpec::MINIMIZE, spec.seed(), options);
    std::mt19937_64 rng(static_cast<uint64_t>(history_size));
    absl::StatusOr<Suggestions> suggestions = designer.Suggest(history, 1, rng);
    if (!suggestions.ok() || suggestions->points.size() != 1 ||
        !suggestions->fallback_reason.empty()) {
      state.SkipWithError("the designer did not give its point from the model");
      break;
    }
    benchmark::DoNotOptimize(suggestions->points.data());
  }
}

// The GP designer with every trial past its capacity projected onto the
// model's points (GpBanditDesigner::Options::project_history = 8, not the
// default): what modelling the whole history costs over the window.
void BM_GaussianProcessProjectedSuggest(benchmark::State& state) {
  GpBanditDesigner::Options options;
  options.project_history = 8;
  SuggestWith(state, options);
}

// The GP designer without the input warp's fit (GpBanditDesigner::Options::
// input_warping = false): what fitting the warp costs, in the same run.
void BM_GaussianProcessUnwarpedSuggest(benchmark::State& state) {
  GpBanditDesigner::Options options;
  options.input_warping = false;
  SuggestWith(state, options);
}

void BM_RandomSearchSuggest(benchmark::State& state) { Suggest(state, v1::RANDOM_SEARCH); }

// A third of the trials failed: the GP designer also fits the chance of a
// value (FeasibilityModel).
void BM_GaussianProcessSuggestWithFailures(benchmark::State& state) {
  Suggest(state, v1::GAUSSIAN_PROCESS_BANDIT, /*failures=*/true);
}

void Sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"history", "count"});
  // 100: the largest history the outlier filter sees (max_fit_points).
  for (int n : {50, 100, 200, 1000, 2000, 5000, 10000}) benchmark->Args({n, 1});
  // Multiples of 3 whose latest trial is not the best: the GP designer's
  // exploration step, a batch of two of which it returns the second.
  for (int n : {201, 2001}) benchmark->Args({n, 1});
  benchmark->Args({200, 8});
  benchmark->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_GaussianProcessSuggest)->Apply(Sizes);
BENCHMARK(BM_RandomSearchSuggest)->Apply(Sizes);
BENCHMARK(BM_GaussianProcessSuggestWithFailures)
    ->ArgNames({"history", "count"})
    ->Args({50, 1})
    ->Args({200, 1})
    ->Args({1000, 1})
    ->Args({10000, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GaussianProcessUnwarpedSuggest)
    ->ArgName("history")
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GaussianProcessProjectedSuggest)
    ->ArgName("history")
    ->Arg(200)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vernier::suggest

// As `vernier serve` does at start-up (RetainFreedHeap); `--default_malloc`
// measures with malloc's defaults instead.
int main(int argc, char** argv) {
  bool default_malloc = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--default_malloc") {
      default_malloc = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (!default_malloc) vernier::suggest::RetainFreedHeap();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
