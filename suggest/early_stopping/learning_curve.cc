#include "suggest/early_stopping/learning_curve.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vernier::suggest {
namespace {

// How many of the values of `by_step` are at steps <= `step`.
size_t CountUpTo(const StepValues& by_step, int64_t step) {
  return std::upper_bound(by_step.steps.begin(), by_step.steps.end(), step) - by_step.steps.begin();
}

// The chance that at least one of `reports` independent draws succeeds,
// each with chance `one`: 1 - (1 - one)^reports.
double ChanceOfOneIn(double one, double reports) { return -std::expm1(reports * std::log1p(-one)); }

}  // namespace

bool IsBetterValue(double a, double b, v1::MetricSpec::Goal goal) {
  return goal == v1::MetricSpec::MINIMIZE ? a < b : a > b;
}

std::optional<int64_t> LastStep(const LearningCurve& curve) {
  std::optional<int64_t> last;
  for (const CurvePoint& point : curve.points) {
    if (!last.has_value() || point.step > *last) last = point.step;
  }
  return last;
}

std::optional<double> BestValueUpTo(const LearningCurve& curve, int64_t step,
                                    v1::MetricSpec::Goal goal) {
  std::optional<double> best;
  for (const CurvePoint& point : curve.points) {
    if (point.step > step) continue;
    if (!best.has_value() || IsBetterValue(point.value, *best, goal)) best = point.value;
  }
  return best;
}

CurveReach ReachUpTo(const LearningCurve& curve, int64_t step, v1::MetricSpec::Goal goal) {
  if (curve.points.empty()) return {};
  // Reported values are finite, so the infinities stand for "none yet" and
  // the loop needs no branch but the step's (it reads every report of every
  // trial on each decision).
  const bool minimize = goal == v1::MetricSpec::MINIMIZE;
  int64_t last = curve.points.front().step;
  double best =
      minimize ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (step == std::numeric_limits<int64_t>::max()) {
    // Every report counts: two reductions without a branch.
    if (minimize) {
      for (const CurvePoint& point : curve.points) {
        last = std::max(last, point.step);
        best = std::min(best, point.value);
      }
    } else {
      for (const CurvePoint& point : curve.points) {
        last = std::max(last, point.step);
        best = std::max(best, point.value);
      }
    }
    return CurveReach{.last_step = last, .best = best};
  }
  bool any = false;
  for (const CurvePoint& point : curve.points) {
    last = std::max(last, point.step);
    if (point.step > step) continue;
    any = true;
    best = minimize ? std::min(best, point.value) : std::max(best, point.value);
  }
  CurveReach reach{.last_step = last, .best = std::nullopt};
  if (any) reach.best = best;
  return reach;
}

std::optional<double> RunningAverageUpTo(const LearningCurve& curve, int64_t step) {
  double sum = 0;
  int count = 0;
  for (const CurvePoint& point : curve.points) {
    if (point.step > step) continue;
    sum += point.value;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

StepValues ValuesByStep(const LearningCurve& curve) {
  // Reports come in step order, one a step, nearly always: read as they
  // are, without a sorted copy.
  const auto before = [](const CurvePoint& a, const CurvePoint& b) { return a.step < b.step; };
  std::vector<CurvePoint> sorted;
  const std::vector<CurvePoint>* in_order = &curve.points;
  if (std::adjacent_find(curve.points.begin(), curve.points.end(),
                         [&](const CurvePoint& a, const CurvePoint& b) { return !before(a, b); }) !=
      curve.points.end()) {
    sorted = curve.points;
    std::sort(sorted.begin(), sorted.end(), before);
    in_order = &sorted;
  }
  const std::vector<CurvePoint>& points = *in_order;
  StepValues by_step;
  by_step.steps.reserve(points.size());
  by_step.values.reserve(points.size());
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    double sum = 0;
    while (j < points.size() && points[j].step == points[i].step) sum += points[j++].value;
    by_step.steps.push_back(points[i].step);
    by_step.values.push_back(sum / static_cast<double>(j - i));
    i = j;
  }
  return by_step;
}

double Roughness(const StepValues& by_step, int64_t step) {
  const size_t count = CountUpTo(by_step, step);
  if (count < 3) return 0;
  const std::vector<double>& values = by_step.values;
  double travelled = 0;
  for (size_t i = 1; i < count; ++i) travelled += std::abs(values[i] - values[i - 1]);
  const double net = std::abs(values[count - 1] - values[0]);
  return std::max(0.0, travelled - net) / static_cast<double>(count - 1);
}

double StepNoise(std::span<const double> values) {
  if (values.size() < 2) return 0;
  std::vector<double> differences;
  differences.reserve(values.size() - 1);
  for (size_t i = 1; i < values.size(); ++i) {
    differences.push_back(std::abs(values[i] - values[i - 1]));
  }
  return Median(std::move(differences)) / (0.6745 * std::sqrt(2.0));
}

bool AreCountValues(double noise, double lattice) {
  return lattice > 0 && lattice >= kCountLattice * noise;
}

double LatticeStep(std::vector<double> values) {
  if (values.size() > static_cast<size_t>(kLatticeMaxValues)) {
    // Every stride-th value: a count's distinct values are a few hundred,
    // and a fit of thousands of curves stays cheap.
    const size_t stride = (values.size() + kLatticeMaxValues - 1) / kLatticeMaxValues;
    size_t kept = 0;
    for (size_t i = 0; i < values.size(); i += stride) values[kept++] = values[i];
    values.resize(kept);
  }
  std::sort(values.begin(), values.end());
  std::vector<double> gaps;
  double previous = 0;
  bool first = true;
  for (double value : values) {
    if (!std::isfinite(value)) continue;
    if (!first && value - previous <= 1e-9 * (1 + std::abs(value))) continue;
    if (!first) gaps.push_back(value - previous);
    previous = value;
    first = false;
  }
  if (static_cast<int>(gaps.size()) < kLatticeMinGaps) return 0;
  // The smallest gaps, each a candidate step: a value off the lattice (an
  // average) makes the smallest gaps a fraction of the step.
  std::vector<double> candidates;  // Ascending, distinct.
  for (double gap : gaps) {
    const auto at = std::lower_bound(candidates.begin(), candidates.end(), gap);
    const bool equal = (at != candidates.end() && *at - gap <= 1e-9 * *at) ||
                       (at != candidates.begin() && gap - *(at - 1) <= 1e-9 * gap);
    if (equal) continue;
    if (static_cast<int>(candidates.size()) == kLatticeCandidates) {
      if (at == candidates.end()) continue;
      candidates.pop_back();
    }
    candidates.insert(std::lower_bound(candidates.begin(), candidates.end(), gap), gap);
  }
  // Whether at least kLatticeShare of the gaps are whole numbers of `step`.
  const auto on_lattice = [&gaps](double step) {
    int on = 0;
    for (double gap : gaps) {
      const double steps = gap / step;
      if (steps >= 0.5 && std::abs(steps - std::round(steps)) <= kLatticeTolerance) ++on;
    }
    return on >= kLatticeShare * static_cast<double>(gaps.size());
  };
  for (double smallest : candidates) {
    // A candidate carries its two values' rounding; the mean over the
    // short gaps carries much less of it.
    double length = 0;
    double steps = 0;
    for (double gap : gaps) {
      const double count = std::round(gap / smallest);
      if (count >= 1 && count <= kLatticeRefineSteps) {
        length += gap;
        steps += count;
      }
    }
    const double step = length / steps;
    if (!on_lattice(step)) continue;
    // Values on a lattice lie on every finer one too: the coarsest of its
    // multiples that they still lie on (with a value between two counts,
    // the candidates are fractions of a count).
    double coarsest = step;
    for (int multiple = 2; multiple <= kLatticeCandidates * kLatticeRefineSteps; ++multiple) {
      if (on_lattice(multiple * step)) coarsest = multiple * step;
    }
    return coarsest;
  }
  return 0;
}

double ReportNoise(const StepValues& by_step, int64_t step) {
  const size_t count = CountUpTo(by_step, step);
  if (count < 4) return 0;
  const size_t first = count - std::max<size_t>(3, count / 2);
  return StepNoise(std::span<const double>(by_step.values).subspan(first, count - first));
}

double ChanceOfALuckyReport(double last, double noise, double bar, double reports,
                            v1::MetricSpec::Goal goal) {
  if (!(noise > 0) || !(reports > 0)) return 0;
  // How far the bar lies on the better side of the last value, in noises.
  const double z = (goal == v1::MetricSpec::MINIMIZE ? last - bar : bar - last) / noise;
  const double one = 0.5 * std::erfc(z / std::sqrt(2.0));
  return ChanceOfOneIn(one, reports);
}

LuckySwings ChanceOfALuckySwing(const StepValues& by_step, int64_t step, double bar, double reports,
                                v1::MetricSpec::Goal goal) {
  const size_t count = CountUpTo(by_step, step);
  LuckySwings swings;
  if (count < 4 || !(reports > 0)) return swings;
  const std::vector<double>& values = by_step.values;
  const double gap =
      goal == v1::MetricSpec::MINIMIZE ? values[count - 1] - bar : bar - values[count - 1];
  if (!(gap > 0)) return swings;
  for (size_t i = std::max<size_t>(1, count / 2); i < count; ++i) {
    ++swings.changes;
    if (std::abs(values[i] - values[i - 1]) >= std::sqrt(2.0) * gap) ++swings.large;
  }
  const double one = 0.5 * swings.large / static_cast<double>(swings.changes);
  swings.chance = ChanceOfOneIn(one, reports);
  return swings;
}

double Median(std::vector<double> values) {
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

}  // namespace vernier::suggest
