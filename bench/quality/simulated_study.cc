#include "bench/quality/simulated_study.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "suggest/search_space.h"

namespace vernier::bench {
namespace {

v1::StudySpec SpecFor(const BenchmarkProblem& problem, v1::Algorithm algorithm, uint64_t seed) {
  v1::StudySpec spec = problem.Spec();
  spec.set_algorithm(algorithm);
  spec.set_seed(seed);
  return spec;
}

// One study in progress: its trials, the designer's view of them and the
// best value so far.
class Study {
 public:
  Study(const BenchmarkProblem& problem, v1::StudySpec spec, suggest::SearchSpace space,
        const DesignerFactory& make_designer)
      : problem_(problem),
        make_designer_(make_designer),
        spec_(std::move(spec)),
        space_(std::move(space)),
        maximize_(spec_.metrics(0).goal() == v1::MetricSpec::MAXIMIZE) {}

  int trial_count() const { return static_cast<int>(next_trial_id_ - 1); }
  bool has_pending() const { return !history_.pending.empty(); }
  bool exhausted() const { return !outcome_.shortfall_reason.empty(); }

  // Asks the designer for `count` new trials, which become pending.
  absl::Status Ask(int count) {
    absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = make_designer_(spec_);
    if (!designer.ok()) return designer.status();
    // As StudyManager::SuggestTrials seeds it.
    const uint64_t seed = spec_.seed();
    std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                        static_cast<uint32_t>(trial_count())};
    std::mt19937_64 rng(seeds);

    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<suggest::Suggestions> suggestions = (*designer)->Suggest(history_, count, rng);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++outcome_.suggest_calls;
    outcome_.suggest_seconds += seconds;
    outcome_.max_suggest_seconds = std::max(outcome_.max_suggest_seconds, seconds);
    if (!suggestions.ok()) return suggestions.status();

    if (suggestions->points.size() < static_cast<size_t>(count)) {
      outcome_.shortfall_reason =
          suggestions->shortfall_reason.empty()
              ? absl::StrCat("asked for ", count, " points, got ", suggestions->points.size())
              : suggestions->shortfall_reason;
    }
    for (suggest::ParameterAssignment& point : suggestions->points) {
      if (absl::Status valid = space_.Encode(point).status(); !valid.ok()) {
        return absl::InternalError(absl::StrCat("the designer proposed a point outside the space (",
                                                suggest::FormatAssignment(point),
                                                "): ", valid.message()));
      }
      if (!proposed_.insert(suggest::SearchSpace::Key(point)).second) ++outcome_.duplicate_points;
      suggest::TrialObservation& trial = history_.pending.emplace_back();
      trial.trial_id = next_trial_id_++;
      trial.parameters = std::move(point);
      trial.state = v1::Trial::ACTIVE;
    }
    return absl::OkStatus();
  }

  // Evaluates the oldest pending trial and records it as SUCCEEDED, or as
  // INFEASIBLE without a value where the problem reports none (a point of
  // its failure region: a training run that diverged).
  void CompleteOldest() {
    suggest::TrialObservation trial = std::move(history_.pending.front());
    history_.pending.erase(history_.pending.begin());
    const double value = problem_.Observe(trial.parameters, spec_.seed(), trial.trial_id);
    if (std::isnan(value)) {
      trial.state = v1::Trial::INFEASIBLE;
      history_.completed.push_back(std::move(trial));
      ++outcome_.completed_trials;
      ++outcome_.infeasible_trials;
      return;
    }
    trial.state = v1::Trial::SUCCEEDED;
    trial.objective = value;
    if (!best_.has_value() || (maximize_ ? value > *best_ : value < *best_)) {
      best_ = value;
      best_point_ = trial.parameters;
    }
    history_.completed.push_back(std::move(trial));
    ++outcome_.completed_trials;
  }

  absl::StatusOr<StudyOutcome> Finish() {
    if (!best_.has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("no trial completed with a value: ", outcome_.shortfall_reason));
    }
    outcome_.best_value = *best_;
    outcome_.regret = problem_.Regret(problem_.Evaluate(best_point_));
    return outcome_;
  }

 private:
  const BenchmarkProblem& problem_;
  const DesignerFactory& make_designer_;
  const v1::StudySpec spec_;
  const suggest::SearchSpace space_;
  const bool maximize_;
  suggest::DesignerHistory history_;
  int64_t next_trial_id_ = 1;
  absl::flat_hash_set<std::string> proposed_;
  std::optional<double> best_;
  suggest::ParameterAssignment best_point_;
  StudyOutcome outcome_;
};

}  // namespace

std::string TrialFlowName(TrialFlow flow) {
  switch (flow) {
    case TrialFlow::kSequential:
      return "sequential";
    case TrialFlow::kBatched:
      return "batched";
    case TrialFlow::kAsynchronous:
      return "asynchronous";
  }
  return "unknown";
}

absl::Status CheckDesigner(const BenchmarkProblem& problem, v1::Algorithm algorithm) {
  return suggest::MakeDesigner(SpecFor(problem, algorithm, 1)).status();
}

absl::StatusOr<StudyOutcome> RunSimulatedStudy(const BenchmarkProblem& problem, const StudyRun& run,
                                               const DesignerFactory& make_designer) {
  v1::StudySpec spec = SpecFor(problem, run.algorithm, run.seed);
  absl::StatusOr<suggest::SearchSpace> space = suggest::SearchSpace::Create(spec.parameters());
  if (!space.ok()) return space.status();
  Study study(problem, std::move(spec), *std::move(space), make_designer);
  const int step = run.flow == TrialFlow::kSequential ? 1 : std::max(1, run.parallelism);

  while (study.trial_count() < run.trials && !study.exhausted()) {
    const int count = std::min(step, run.trials - study.trial_count());
    if (absl::Status asked = study.Ask(count); !asked.ok()) return asked;
    if (run.flow == TrialFlow::kAsynchronous) {
      // From here on one trial completes and one is asked for, the others
      // still running.
      while (study.has_pending()) {
        study.CompleteOldest();
        if (study.trial_count() < run.trials && !study.exhausted()) {
          if (absl::Status asked = study.Ask(1); !asked.ok()) return asked;
        }
      }
    }
    while (study.has_pending()) study.CompleteOldest();
  }
  return study.Finish();
}

}  // namespace vernier::bench
