#include "bench/quality/mixed_training_problem.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace vernier::bench {
namespace {

struct Optimizer {
  const char* name;
  // log10 of the learning rate this optimizer works best with.
  double best_log_learning_rate;
  // How much accuracy it loses at its best against the best optimizer.
  double penalty;
};

constexpr Optimizer kOptimizers[] = {
    {"sgd", -1.0, 0.05}, {"momentum", -1.5, 0.03}, {"adam", -3.0, 0.0}, {"rmsprop", -3.5, 0.02}};
constexpr double kBatchSizes[] = {16, 32, 64, 128, 256};

v1::ParameterValue Value(const char* name) {
  v1::ParameterValue value;
  value.set_parameter_name(name);
  return value;
}

}  // namespace

std::string MixedTrainingProblem::name() const { return "mixed"; }

v1::StudySpec MixedTrainingProblem::Spec() const {
  v1::StudySpec spec;
  v1::ParameterSpec* learning_rate = spec.add_parameters();
  learning_rate->set_parameter_name("learning_rate");
  learning_rate->set_type(v1::ParameterSpec::DOUBLE);
  learning_rate->set_min_value(1e-5);
  learning_rate->set_max_value(1);
  learning_rate->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);

  v1::ParameterSpec* layers = spec.add_parameters();
  layers->set_parameter_name("layers");
  layers->set_type(v1::ParameterSpec::INTEGER);
  layers->set_min_value(1);
  layers->set_max_value(8);
  layers->set_scale_type(v1::ParameterSpec::UNIT_LINEAR_SCALE);

  v1::ParameterSpec* batch_size = spec.add_parameters();
  batch_size->set_parameter_name("batch_size");
  batch_size->set_type(v1::ParameterSpec::DISCRETE);
  for (double size : kBatchSizes) batch_size->add_discrete_values(size);
  batch_size->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);

  v1::ParameterSpec* optimizer = spec.add_parameters();
  optimizer->set_parameter_name("optimizer");
  optimizer->set_type(v1::ParameterSpec::CATEGORICAL);
  for (const Optimizer& choice : kOptimizers) optimizer->add_categorical_values(choice.name);

  v1::MetricSpec* metric = spec.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_goal(v1::MetricSpec::MAXIMIZE);
  return spec;
}

double MixedTrainingProblem::Evaluate(const suggest::ParameterAssignment& point) const {
  const double log_learning_rate = std::log10(point[0].double_value());
  const double layers = static_cast<double>(point[1].int_value());
  const double log_batch_size = std::log2(point[2].double_value());
  const Optimizer* optimizer =
      std::find_if(std::begin(kOptimizers), std::end(kOptimizers),
                   [&](const Optimizer& choice) { return point[3].string_value() == choice.name; });
  // Not a point of the space: no value rather than a plausible wrong one.
  if (optimizer == std::end(kOptimizers)) return std::numeric_limits<double>::quiet_NaN();
  const double learning_rate_miss = log_learning_rate - optimizer->best_log_learning_rate;
  return 1 - optimizer->penalty - 0.04 * learning_rate_miss * learning_rate_miss -
         0.01 * (layers - 5) * (layers - 5) - 0.015 * (log_batch_size - 6) * (log_batch_size - 6);
}

double MixedTrainingProblem::OptimalValue() const { return 1; }

suggest::ParameterAssignment MixedTrainingProblem::Optimum() const {
  suggest::ParameterAssignment point = {Value("learning_rate"), Value("layers"),
                                        Value("batch_size"), Value("optimizer")};
  point[0].set_double_value(1e-3);
  point[1].set_int_value(5);
  point[2].set_double_value(64);
  point[3].set_string_value("adam");
  return point;
}

}  // namespace vernier::bench
