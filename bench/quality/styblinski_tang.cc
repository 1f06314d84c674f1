#include "bench/quality/styblinski_tang.h"

#include "absl/strings/str_cat.h"

namespace vernier::bench {
namespace {

constexpr double kMinimizer = -2.903534027771177;

double Term(double x) { return 0.5 * (x * x * x * x - 16 * x * x + 5 * x); }

}  // namespace

StyblinskiTang::StyblinskiTang(int dimension)
    : BoxProblem(std::vector<Bounds>(dimension, {-5, 5})), dimension_(dimension) {}

std::string StyblinskiTang::name() const { return absl::StrCat("styblinski_tang", dimension_); }

double StyblinskiTang::OptimalValue() const { return dimension_ * Term(kMinimizer); }

double StyblinskiTang::Value(std::span<const double> x) const {
  double total = 0;
  for (double xi : x) total += Term(xi);
  return total;
}

std::vector<double> StyblinskiTang::Minimizer() const {
  return std::vector<double>(dimension_, kMinimizer);
}

}  // namespace vernier::bench
