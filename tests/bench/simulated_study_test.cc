#include "bench/quality/simulated_study.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "bench/quality/branin.h"
#include "bench/quality/mixed_training_problem.h"
#include "suggest/designer.h"

namespace vernier::bench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What each Suggest call saw.
struct Request {
  int count;
  size_t completed;
  size_t pending;
};

// Proposes `point` shifted along the first coordinate by the trial number
// (or always `point`, when `repeat`), recording each request.
class RecordingDesigner : public suggest::Designer {
 public:
  RecordingDesigner(std::vector<Request>& requests, suggest::ParameterAssignment point, bool repeat)
      : requests_(requests), point_(std::move(point)), repeat_(repeat) {}

  absl::StatusOr<suggest::Suggestions> Suggest(const suggest::DesignerHistory& history, int count,
                                               std::mt19937_64& rng) override {
    requests_.push_back({count, history.completed.size(), history.pending.size()});
    suggest::Suggestions suggestions;
    const size_t seen = history.completed.size() + history.pending.size();
    for (int i = 0; i < count; ++i) {
      suggest::ParameterAssignment point = point_;
      if (!repeat_) point[0].set_double_value(-5 + 0.1 * static_cast<double>(seen + i));
      suggestions.points.push_back(std::move(point));
    }
    return suggestions;
  }

 private:
  std::vector<Request>& requests_;
  suggest::ParameterAssignment point_;
  bool repeat_;
};

DesignerFactory Recording(std::vector<Request>& requests, suggest::ParameterAssignment point,
                          bool repeat = false) {
  return [&requests, point, repeat](const v1::StudySpec&) {
    return absl::StatusOr<std::unique_ptr<suggest::Designer>>(
        std::make_unique<RecordingDesigner>(requests, point, repeat));
  };
}

bool operator==(const Request& a, const Request& b) {
  return a.count == b.count && a.completed == b.completed && a.pending == b.pending;
}

TEST(RunSimulatedStudyTest, SequentialAsksForOneTrialAtATime) {
  Branin branin;
  std::vector<Request> requests;
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 3, .flow = TrialFlow::kSequential}, Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(requests, ElementsAre(Request{1, 0, 0}, Request{1, 1, 0}, Request{1, 2, 0}));
  EXPECT_EQ(outcome->completed_trials, 3);
  EXPECT_EQ(outcome->suggest_calls, 3);
}

TEST(RunSimulatedStudyTest, BatchedCompletesEachBatchBeforeAskingAgain) {
  Branin branin;
  std::vector<Request> requests;
  absl::StatusOr<StudyOutcome> outcome =
      RunSimulatedStudy(branin, {.trials = 10, .flow = TrialFlow::kBatched, .parallelism = 4},
                        Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(requests, ElementsAre(Request{4, 0, 0}, Request{4, 4, 0}, Request{2, 8, 0}));
  EXPECT_EQ(outcome->completed_trials, 10);
}

TEST(RunSimulatedStudyTest, AsynchronousAsksWhileTheOtherTrialsArePending) {
  Branin branin;
  std::vector<Request> requests;
  absl::StatusOr<StudyOutcome> outcome =
      RunSimulatedStudy(branin, {.trials = 6, .flow = TrialFlow::kAsynchronous, .parallelism = 3},
                        Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(requests,
              ElementsAre(Request{3, 0, 0}, Request{1, 1, 2}, Request{1, 2, 2}, Request{1, 3, 2}));
  EXPECT_EQ(outcome->completed_trials, 6);
}

TEST(RunSimulatedStudyTest, RegretIsTheDistanceOfTheBestTrialFromTheOptimum) {
  Branin branin;
  std::vector<Request> requests;
  // x1 = -5, -4.9, ...; x2 = 2.275.
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 5, .flow = TrialFlow::kSequential}, Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  double best = INFINITY;
  for (int i = 0; i < 5; ++i)
    best = std::min(best, branin.Value(std::vector<double>{-5 + 0.1 * i, 2.275}));
  EXPECT_DOUBLE_EQ(outcome->best_value, best);
  EXPECT_DOUBLE_EQ(outcome->regret, best - branin.OptimalValue());
}

// Branin observed with noise: trial 2 looks best, but only by its noise.
class NoisyBranin : public Branin {
 public:
  double Observe(const suggest::ParameterAssignment& point, uint64_t /*seed*/,
                 int64_t trial_id) const override {
    return Evaluate(point) + (trial_id == 2 ? -1000.0 : 0.0);
  }
};

TEST(RunSimulatedStudyTest, TheBestObservedTrialIsJudgedByItsNoiselessValue) {
  NoisyBranin branin;
  std::vector<Request> requests;
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 5, .flow = TrialFlow::kSequential}, Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  const double second = branin.Value(std::vector<double>{-4.9, 2.275});
  EXPECT_DOUBLE_EQ(outcome->best_value, second - 1000.0);
  EXPECT_DOUBLE_EQ(outcome->regret, second - branin.OptimalValue());
}

// Branin whose trials with x1 below `below` fail: they report no value.
class FailingBranin : public Branin {
 public:
  explicit FailingBranin(double below) : below_(below) {}
  double Observe(const suggest::ParameterAssignment& point, uint64_t /*seed*/,
                 int64_t /*trial_id*/) const override {
    if (point[0].double_value() < below_) return std::numeric_limits<double>::quiet_NaN();
    return Evaluate(point);
  }

 private:
  double below_;
};

TEST(RunSimulatedStudyTest, ATrialWithoutAValueIsInfeasibleAndNeverTheBest) {
  const FailingBranin branin(-4.75);
  std::vector<Request> requests;
  // x1 = -5, -4.9, -4.8 fail; -4.7 and -4.6 report.
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 5, .flow = TrialFlow::kSequential}, Recording(requests, branin.Optimum()));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->completed_trials, 5);
  EXPECT_EQ(outcome->infeasible_trials, 3);
  const double best = std::min(branin.Value(std::vector<double>{-4.7, 2.275}),
                               branin.Value(std::vector<double>{-4.6, 2.275}));
  EXPECT_DOUBLE_EQ(outcome->best_value, best);
  EXPECT_DOUBLE_EQ(outcome->regret, best - branin.OptimalValue());
}

TEST(RunSimulatedStudyTest, AStudyWhoseEveryTrialFailedHasNoBest) {
  // Every trial fails: x1 is at most 10.
  const FailingBranin branin(11);
  std::vector<Request> requests;
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 3, .flow = TrialFlow::kSequential}, Recording(requests, branin.Optimum()));
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(outcome.status().message(), HasSubstr("no trial completed with a value"));
}

TEST(RunSimulatedStudyTest, OnAMaximizedProblemTheBestIsTheLargest) {
  MixedTrainingProblem mixed;
  std::vector<Request> requests;
  suggest::ParameterAssignment optimum = mixed.Optimum();
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      mixed, {.trials = 2, .flow = TrialFlow::kSequential}, Recording(requests, optimum, true));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_DOUBLE_EQ(outcome->best_value, 1);
  EXPECT_NEAR(outcome->regret, 0, 1e-12);
  EXPECT_EQ(outcome->duplicate_points, 1);
}

TEST(RunSimulatedStudyTest, APointOutsideTheSpaceIsAnInternalError) {
  Branin branin;
  std::vector<Request> requests;
  suggest::ParameterAssignment outside = branin.Optimum();
  outside[1].set_double_value(99);
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(
      branin, {.trials = 2, .flow = TrialFlow::kSequential}, Recording(requests, outside, true));
  EXPECT_TRUE(absl::IsInternal(outcome.status())) << outcome.status();
  EXPECT_THAT(outcome.status().message(), HasSubstr("outside the space"));
}

TEST(RunSimulatedStudyTest, ADesignerThatCannotServeTheSpaceFailsTheRun) {
  Branin branin;
  EXPECT_TRUE(absl::IsInvalidArgument(CheckDesigner(branin, v1::GRID_SEARCH)));
  EXPECT_TRUE(absl::IsInvalidArgument(
      RunSimulatedStudy(branin, {.algorithm = v1::GRID_SEARCH, .trials = 2}).status()));
  EXPECT_TRUE(CheckDesigner(branin, v1::RANDOM_SEARCH).ok());
}

TEST(RunSimulatedStudyTest, ADesignerThatProposesNothingEndsTheStudyWithoutATrial) {
  Branin branin;
  DesignerFactory empty =
      [](const v1::StudySpec&) -> absl::StatusOr<std::unique_ptr<suggest::Designer>> {
    class EmptyDesigner : public suggest::Designer {
      absl::StatusOr<suggest::Suggestions> Suggest(const suggest::DesignerHistory&, int,
                                                   std::mt19937_64&) override {
        return suggest::Suggestions{{}, "nothing left"};
      }
    };
    return std::make_unique<EmptyDesigner>();
  };
  absl::StatusOr<StudyOutcome> outcome = RunSimulatedStudy(branin, {.trials = 3}, empty);
  EXPECT_TRUE(absl::IsFailedPrecondition(outcome.status())) << outcome.status();
  EXPECT_THAT(outcome.status().message(), HasSubstr("nothing left"));
}

TEST(RunSimulatedStudyTest, RandomSearchIsReproducibleFromTheSeed) {
  Branin branin;
  auto run = [&](uint64_t seed, TrialFlow flow) {
    absl::StatusOr<StudyOutcome> outcome =
        RunSimulatedStudy(branin, {.seed = seed, .trials = 20, .flow = flow});
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    EXPECT_EQ(outcome->completed_trials, 20);
    EXPECT_GE(outcome->regret, 0);
    return outcome->best_value;
  };
  for (TrialFlow flow : {TrialFlow::kSequential, TrialFlow::kBatched, TrialFlow::kAsynchronous}) {
    SCOPED_TRACE(TrialFlowName(flow));
    EXPECT_EQ(run(3, flow), run(3, flow));
    EXPECT_NE(run(3, flow), run(4, flow));
  }
}

}  // namespace
}  // namespace vernier::bench
