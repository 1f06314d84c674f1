#ifndef VERNIER_BENCH_QUALITY_NOISY_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_NOISY_PROBLEM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// Another problem observed with Gaussian noise: each trial reports the
// noiseless value plus noise of standard deviation `relative_noise` times
// the spread (standard deviation) of the values at 1,000 random points of
// the space, drawn from (seed, trial id) so that a run repeats. The regret
// stays the noiseless one: a trial that was lucky is not better.
class NoisyProblem : public BenchmarkProblem {
 public:
  NoisyProblem(std::unique_ptr<BenchmarkProblem> problem, double relative_noise);

  std::string name() const override;
  v1::StudySpec Spec() const override { return problem_->Spec(); }
  double Evaluate(const suggest::ParameterAssignment& point) const override {
    return problem_->Evaluate(point);
  }
  double Observe(const suggest::ParameterAssignment& point, uint64_t seed,
                 int64_t trial_id) const override;
  double OptimalValue() const override { return problem_->OptimalValue(); }
  suggest::ParameterAssignment Optimum() const override { return problem_->Optimum(); }

  double noise_standard_deviation() const { return noise_standard_deviation_; }

 private:
  std::unique_ptr<BenchmarkProblem> problem_;
  double relative_noise_;
  double noise_standard_deviation_;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_NOISY_PROBLEM_H_
