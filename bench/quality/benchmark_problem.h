#ifndef VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEM_H_

#include <cstdint>
#include <string>

#include "suggest/search_space.h"
#include "vernier/v1/study.pb.h"

namespace vernier::bench {

// A test function with a known optimum, posed as a study: the quality
// benchmark lets a designer tune it and measures how far the best trial found
// stays from the optimum (the regret).
class BenchmarkProblem {
 public:
  virtual ~BenchmarkProblem() = default;

  // Short, unique, used on the command line ("branin").
  virtual std::string name() const = 0;
  // The parameters and one objective metric with its goal; the caller sets
  // the algorithm and the seed.
  virtual v1::StudySpec Spec() const = 0;
  // The objective at a point of Spec()'s space, values in the space's order:
  // its noiseless value, by which the regret is measured.
  virtual double Evaluate(const suggest::ParameterAssignment& point) const = 0;
  // The value trial `trial_id` of the study seeded `seed` reports at
  // `point`: Evaluate(point) for a noiseless problem; a noisy one adds noise
  // drawn from (seed, trial_id), so that a run repeats.
  virtual double Observe(const suggest::ParameterAssignment& point, uint64_t /*seed*/,
                         int64_t /*trial_id*/) const {
    return Evaluate(point);
  }
  // The best value of the objective over the space: its minimum under
  // MINIMIZE, its maximum under MAXIMIZE.
  virtual double OptimalValue() const = 0;
  // A point of the space where Evaluate gives OptimalValue().
  virtual suggest::ParameterAssignment Optimum() const = 0;

  // How much worse `value` is than the optimum: never negative for a value
  // the objective can take.
  double Regret(double value) const;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEM_H_
