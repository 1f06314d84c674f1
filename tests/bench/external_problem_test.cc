#include "bench/quality/external_problem.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::bench {
namespace {

using ::testing::HasSubstr;

// A shell script as the evaluator: `body` after the description lines
// `spec` and `optimum`.
std::string Evaluator(const std::string& file, const std::string& spec, const std::string& optimum,
                      const std::string& body) {
  const std::string path = ::testing::TempDir() + "/" + file;
  std::ofstream script(path);
  script << "printf '%s\\n' '" << spec << "' '" << optimum << "'\n" << body;
  return "/bin/sh " + path;
}

constexpr char kSpec[] =
    "parameters { parameter_name: \"x\" type: DOUBLE min_value: 0 max_value: 1 } "
    "metrics { metric_id: \"value\" goal: MINIMIZE }";
// Answers "evaluate" with the length of its request and "observe" with the
// seed plus the trial, so the test sees what was sent.
constexpr char kAnswers[] =
    "while read command a b rest; do\n"
    "  case $command in\n"
    "    evaluate) echo ${#a} ;;\n"
    "    observe) echo $((a + b)) ;;\n"
    "    *) echo \"error: $command\" ;;\n"
    "  esac\n"
    "done\n";

suggest::ParameterAssignment Point(double x) {
  suggest::ParameterAssignment point(1);
  point[0].set_parameter_name("x");
  point[0].set_double_value(x);
  return point;
}

TEST(ExternalProblemTest, ReadsTheProblemAndAnswersEvaluations) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start(Evaluator("answers.sh", kSpec, "-1.5", kAnswers), "toy");
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_EQ((*problem)->name(), "toy");
  ASSERT_EQ((*problem)->Spec().parameters_size(), 1);
  EXPECT_EQ((*problem)->Spec().parameters(0).parameter_name(), "x");
  EXPECT_EQ((*problem)->OptimalValue(), -1.5);
  // "[0.25]" is 6 characters.
  EXPECT_EQ((*problem)->Evaluate(Point(0.25)), 6);
  EXPECT_EQ((*problem)->Observe(Point(0.25), 7, 3), 10);
}

TEST(ExternalProblemTest, EvaluatesOnSeveralThreadsAtOnce) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start(Evaluator("threads.sh", kSpec, "0", kAnswers), "toy");
  ASSERT_TRUE(problem.ok()) << problem.status();
  std::vector<double> sums(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) sums[t] += (*problem)->Observe(Point(0.5), t, i);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(sums[t], 5 * t + 10) << t;
}

TEST(ExternalProblemTest, AnAnswerThatIsNotANumberIsNaN) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem = ExternalProblem::Start(
      Evaluator("words.sh", kSpec, "0", "while read line; do echo 'error: no'; done\n"), "toy");
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_TRUE(std::isnan((*problem)->Evaluate(Point(0.5))));
}

TEST(ExternalProblemTest, AnInfeasibleAnswerIsNaNAndNotAnError) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem = ExternalProblem::Start(
      Evaluator("infeasible.sh", kSpec, "0",
                "while read line; do echo 'infeasible: training diverged'; done\n"),
      "toy");
  ASSERT_TRUE(problem.ok()) << problem.status();
  ::testing::internal::CaptureStderr();
  const double value = (*problem)->Observe(Point(0.5), 1, 1);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::isnan(value));
  // An evaluator's error is shown; a trial that fails by design is not.
  EXPECT_EQ(printed, "");
}

TEST(ExternalProblemTest, AnEvaluatorThatEndsGivesNaN) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start(Evaluator("ends.sh", kSpec, "0", "exit 0\n"), "toy");
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_TRUE(std::isnan((*problem)->Evaluate(Point(0.5))));
}

TEST(ExternalProblemTest, ASpecThatDoesNotParseIsInvalid) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start(Evaluator("spec.sh", "parameters {", "0", ""), "toy");
  EXPECT_TRUE(absl::IsInvalidArgument(problem.status())) << problem.status();
  EXPECT_THAT(problem.status().message(), HasSubstr("does not parse"));
}

TEST(ExternalProblemTest, AnOptimumThatIsNotANumberIsInvalid) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start(Evaluator("optimum.sh", kSpec, "best", ""), "toy");
  EXPECT_TRUE(absl::IsInvalidArgument(problem.status())) << problem.status();
  EXPECT_THAT(problem.status().message(), HasSubstr("not a number"));
}

TEST(ExternalProblemTest, AnEvaluatorThatDescribesNothingFails) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
      ExternalProblem::Start("/bin/true", "toy");
  EXPECT_TRUE(absl::IsFailedPrecondition(problem.status())) << problem.status();
  EXPECT_THAT(problem.status().message(), HasSubstr("ended before describing"));
}

TEST(ExternalProblemTest, PointsAreJsonArrays) {
  suggest::ParameterAssignment point(3);
  point[0].set_double_value(0.5);
  point[1].set_int_value(-3);
  point[2].set_string_value("a\"b");
  EXPECT_EQ(ExternalProblem::PointJson(point), "[0.5, -3, \"a\\\"b\"]");
}

}  // namespace
}  // namespace vernier::bench
