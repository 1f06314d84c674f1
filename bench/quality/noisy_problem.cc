#include "bench/quality/noisy_problem.h"

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "suggest/designers/random_search_designer.h"
#include "suggest/search_space.h"

namespace vernier::bench {
namespace {

constexpr int kSpreadPoints = 1000;

double Spread(const BenchmarkProblem& problem) {
  const v1::StudySpec spec = problem.Spec();
  absl::StatusOr<suggest::SearchSpace> space = suggest::SearchSpace::Create(spec.parameters());
  if (!space.ok()) return 0;
  suggest::RandomSearchDesigner random(*space);
  std::mt19937_64 rng(1);
  absl::StatusOr<suggest::Suggestions> points = random.Suggest({}, kSpreadPoints, rng);
  if (!points.ok() || points->points.empty()) return 0;
  double sum = 0;
  double sum_of_squares = 0;
  for (const suggest::ParameterAssignment& point : points->points) {
    const double value = problem.Evaluate(point);
    sum += value;
    sum_of_squares += value * value;
  }
  const double n = static_cast<double>(points->points.size());
  return std::sqrt(std::max(0.0, sum_of_squares / n - (sum / n) * (sum / n)));
}

}  // namespace

NoisyProblem::NoisyProblem(std::unique_ptr<BenchmarkProblem> problem, double relative_noise)
    : problem_(std::move(problem)),
      relative_noise_(relative_noise),
      noise_standard_deviation_(relative_noise * Spread(*problem_)) {}

std::string NoisyProblem::name() const {
  return absl::StrFormat("%s_noise%g", problem_->name(), relative_noise_);
}

double NoisyProblem::Observe(const suggest::ParameterAssignment& point, uint64_t seed,
                             int64_t trial_id) const {
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(trial_id), static_cast<uint32_t>(trial_id >> 32)};
  std::mt19937_64 rng(seeds);
  std::normal_distribution<double> noise(0.0, noise_standard_deviation_);
  return problem_->Evaluate(point) + noise(rng);
}

}  // namespace vernier::bench
