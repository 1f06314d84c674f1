#ifndef VERNIER_TESTS_SUGGEST_LEARNING_CURVES_H_
#define VERNIER_TESTS_SUGGEST_LEARNING_CURVES_H_

// Short builders for hand-made learning curves in the early-stopping tests.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "suggest/early_stopping/learning_curve.h"

namespace vernier::suggest::testing {

// A curve with values at steps 1, 2, 3, ...
inline LearningCurve Steps(int64_t trial_id, std::initializer_list<double> values, bool completed) {
  LearningCurve curve{.trial_id = trial_id, .points = {}, .completed = completed};
  int64_t step = 0;
  for (double value : values) curve.points.push_back({++step, value});
  return curve;
}

inline LearningCurve Running(int64_t trial_id, std::initializer_list<double> values) {
  return Steps(trial_id, values, /*completed=*/false);
}

inline LearningCurve Completed(int64_t trial_id, std::initializer_list<double> values) {
  return Steps(trial_id, values, /*completed=*/true);
}

// A curve with f(step) at steps 1 .. steps.
inline LearningCurve FromFunction(int64_t trial_id, const std::function<double(int)>& f, int steps,
                                  bool completed) {
  LearningCurve curve{.trial_id = trial_id, .points = {}, .completed = completed};
  for (int step = 1; step <= steps; ++step) curve.points.push_back({step, f(step)});
  return curve;
}

// A curve with the given (step, value) points, in the order given.
inline LearningCurve At(int64_t trial_id, std::initializer_list<CurvePoint> points,
                        bool completed = false) {
  return LearningCurve{.trial_id = trial_id, .points = points, .completed = completed};
}

// `curve` with f applied to each of its values (steps as they are).
inline LearningCurve Mapped(LearningCurve curve, const std::function<double(double)>& f) {
  for (CurvePoint& point : curve.points) point.value = f(point.value);
  return curve;
}

// Each of `curves` Mapped by f.
inline std::vector<LearningCurve> Mapped(std::vector<LearningCurve> curves,
                                         const std::function<double(double)>& f) {
  for (LearningCurve& curve : curves) curve = Mapped(std::move(curve), f);
  return curves;
}

// Pointers to each of `curves`, as a model's Fit takes finished curves.
inline std::vector<const LearningCurve*> Pointers(const std::vector<LearningCurve>& curves) {
  std::vector<const LearningCurve*> pointers;
  for (const LearningCurve& curve : curves) pointers.push_back(&curve);
  return pointers;
}

}  // namespace vernier::suggest::testing

#endif  // VERNIER_TESTS_SUGGEST_LEARNING_CURVES_H_
