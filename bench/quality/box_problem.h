#ifndef VERNIER_BENCH_QUALITY_BOX_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_BOX_PROBLEM_H_

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// A function of d real variables x1..xd on a box, to be minimised: the
// classic continuous test functions. Subclasses give the function and where
// its minimum lies.
class BoxProblem : public BenchmarkProblem {
 public:
  struct Bounds {
    double min;
    double max;
  };

  v1::StudySpec Spec() const override;
  double Evaluate(const suggest::ParameterAssignment& point) const override;
  suggest::ParameterAssignment Optimum() const override;

  // The function itself, at a point of the box.
  virtual double Value(std::span<const double> x) const = 0;
  // A minimiser of Value inside the box.
  virtual std::vector<double> Minimizer() const = 0;

 protected:
  explicit BoxProblem(std::vector<Bounds> bounds) : bounds_(std::move(bounds)) {}

 private:
  std::vector<Bounds> bounds_;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_BOX_PROBLEM_H_
