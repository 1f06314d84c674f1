// Several objectives and outcome constraints (issue 21 part 4): runs
// Vernier's designers (through MakeDesigner, as a study would) on the
// problems of bench/multi_objective_bench.py one trial at a time and writes
// every trial, its parameters and its metrics, as CSV. The Python script
// computes the hypervolumes (one implementation for every optimizer) and
// runs Optuna on the same problems. A plain program, not a Google Benchmark.
//
//   build/bin/multi_objective_bench --problems zdt3,dtlz1 --seeds 10 --trials 100 --out runs.csv
//   build/bin/multi_objective_bench --problems dtlz2_m4 --designers gp --batch 4 --out runs.csv

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "suggest/designer.h"
#include "suggest/designers/designer_factory.h"
#include "suggest/search_space.h"
#include "vernier/v1/study.pb.h"

namespace vernier::bench {
namespace {

// A problem: its study spec (parameters and metrics, without the algorithm)
// and its metrics at a point, in the spec's metric order.
struct Problem {
  v1::StudySpec spec;
  std::function<std::vector<double>(const suggest::ParameterAssignment&)> evaluate;
};

v1::ParameterSpec Double(const std::string& name, double low, double high, bool log = false) {
  v1::ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(v1::ParameterSpec::DOUBLE);
  spec.set_min_value(low);
  spec.set_max_value(high);
  if (log) spec.set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  return spec;
}

v1::MetricSpec Minimize(const std::string& id) {
  v1::MetricSpec metric;
  metric.set_metric_id(id);
  metric.set_goal(v1::MetricSpec::MINIMIZE);
  return metric;
}

// The value of a parameter by name; every parameter of these problems is
// always active.
const v1::ParameterValue& Get(const suggest::ParameterAssignment& point, const std::string& name) {
  for (const v1::ParameterValue& value : point) {
    if (value.parameter_name() == name) return value;
  }
  std::cerr << "no parameter " << name << "\n";
  std::abort();
}

Problem UnitCubeProblem(int d, int objectives) {
  Problem problem;
  for (int i = 0; i < d; ++i) *problem.spec.add_parameters() = Double(absl::StrCat("x", i), 0, 1);
  for (int k = 0; k < objectives; ++k)
    *problem.spec.add_metrics() = Minimize(absl::StrCat("f", k + 1));
  return problem;
}

// ZDT3 (Zitzler, Deb and Thiele 2000): a front in five disconnected pieces.
Problem Zdt3() {
  Problem problem = UnitCubeProblem(6, 2);
  problem.evaluate = [](const suggest::ParameterAssignment& p) {
    const double f1 = p[0].double_value();
    double sum = 0;
    for (size_t i = 1; i < p.size(); ++i) sum += p[i].double_value();
    const double g = 1 + 9 * sum / static_cast<double>(p.size() - 1);
    const double h = 1 - std::sqrt(f1 / g) - (f1 / g) * std::sin(10 * std::numbers::pi * f1);
    return std::vector<double>{f1, g * h};
  };
  return problem;
}

// DTLZ1 (Deb, Thiele, Laumanns and Zitzler 2002) with 3 objectives: a
// linear front f1 + f2 + f3 = 0.5 behind a highly multimodal g (11^4 - 1
// local fronts in the last 4 coordinates).
Problem Dtlz1() {
  Problem problem = UnitCubeProblem(6, 3);
  problem.evaluate = [](const suggest::ParameterAssignment& p) {
    double g = 0;
    for (size_t i = 2; i < p.size(); ++i) {
      const double x = p[i].double_value() - 0.5;
      g += x * x - std::cos(20 * std::numbers::pi * x);
    }
    g = 100 * (static_cast<double>(p.size() - 2) + g);
    const double x1 = p[0].double_value();
    const double x2 = p[1].double_value();
    return std::vector<double>{0.5 * x1 * x2 * (1 + g), 0.5 * x1 * (1 - x2) * (1 + g),
                               0.5 * (1 - x1) * (1 + g)};
  };
  return problem;
}

// The DTLZ problems below (Deb, Thiele, Laumanns and Zitzler 2002) in M
// objectives and M + 3 coordinates: k = 4 distance coordinates after the
// M - 1 position coordinates, as the 3-objective ones.
constexpr int kDistanceCoordinates = 4;

std::vector<double> Coordinates(const suggest::ParameterAssignment& p) {
  std::vector<double> x;
  for (const v1::ParameterValue& value : p) x.push_back(value.double_value());
  return x;
}

// sum of (x_i - 1/2)^2 over the distance coordinates (DTLZ2's and DTLZ5's g).
double SquaredDistanceFromCentre(const std::vector<double>& x, int objectives) {
  double g = 0;
  for (size_t i = objectives - 1; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
  return g;
}

// A point on the sphere of the given radius by its angles theta_0 ..
// theta_{M-2}: f_1 = r cos(theta_0) ... cos(theta_{M-2}), and f_i = r
// cos(theta_0) ... cos(theta_{M-1-i}) sin(theta_{M-i}) for i > 1.
std::vector<double> SpherePoint(double radius, const std::vector<double>& theta) {
  const int m = static_cast<int>(theta.size()) + 1;
  std::vector<double> f(m, radius);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j + i < m - 1; ++j) f[i] *= std::cos(theta[j]);
    if (i > 0) f[i] *= std::sin(theta[m - 1 - i]);
  }
  return f;
}

// DTLZ2: a curved front, the positive orthant of the unit sphere (where g
// = 0), behind a unimodal g.
Problem Dtlz2(int objectives) {
  Problem problem = UnitCubeProblem(objectives - 1 + kDistanceCoordinates, objectives);
  problem.evaluate = [objectives](const suggest::ParameterAssignment& p) {
    const std::vector<double> x = Coordinates(p);
    std::vector<double> theta(objectives - 1);
    for (int i = 0; i + 1 < objectives; ++i) theta[i] = x[i] * std::numbers::pi / 2;
    return SpherePoint(1 + SquaredDistanceFromCentre(x, objectives), theta);
  };
  return problem;
}

// DTLZ5: a degenerate front, a curve on the unit sphere (the objectives are
// dependent, as a model's size and cost often are): every angle after the
// first tends to pi/4 as g falls to 0.
Problem Dtlz5(int objectives) {
  Problem problem = UnitCubeProblem(objectives - 1 + kDistanceCoordinates, objectives);
  problem.evaluate = [objectives](const suggest::ParameterAssignment& p) {
    const std::vector<double> x = Coordinates(p);
    const double g = SquaredDistanceFromCentre(x, objectives);
    std::vector<double> theta(objectives - 1);
    theta[0] = x[0] * std::numbers::pi / 2;
    for (int i = 1; i + 1 < objectives; ++i)
      theta[i] = std::numbers::pi / (4 * (1 + g)) * (1 + 2 * g * x[i]);
    return SpherePoint(1 + g, theta);
  };
  return problem;
}

// DTLZ7: a front in 2^(M-1) disconnected pieces; the first M - 1
// objectives are the position coordinates themselves.
Problem Dtlz7(int objectives) {
  Problem problem = UnitCubeProblem(objectives - 1 + kDistanceCoordinates, objectives);
  problem.evaluate = [objectives](const suggest::ParameterAssignment& p) {
    const std::vector<double> x = Coordinates(p);
    double sum = 0;
    for (size_t i = objectives - 1; i < x.size(); ++i) sum += x[i];
    const double g = 1 + 9 * sum / kDistanceCoordinates;
    std::vector<double> f(x.begin(), x.begin() + (objectives - 1));
    double h = objectives;
    for (double fi : f) h -= fi / (1 + g) * (1 + std::sin(3 * std::numbers::pi * fi));
    f.push_back((1 + g) * h);
    return f;
  };
  return problem;
}

// A training run's validation loss against its serving latency (ms): a
// mixed space with log, integer, discrete and categorical parameters, where
// a bigger network learns better but serves slower.
std::vector<double> TrainingSurrogate(const suggest::ParameterAssignment& p) {
  const double learning_rate = Get(p, "learning_rate").double_value();
  const auto layers = static_cast<double>(Get(p, "layers").int_value());
  const double width = Get(p, "width").double_value();
  const double batch = Get(p, "batch_size").double_value();
  const double dropout = Get(p, "dropout").double_value();
  const std::string& optimizer = Get(p, "optimizer").string_value();
  const double best_log_rate = optimizer == "adam" ? -3.0 : optimizer == "rmsprop" ? -3.5 : -1.5;
  const double optimizer_penalty = optimizer == "sgd" ? 0.08 : optimizer == "rmsprop" ? 0.03 : 0.0;
  const double capacity = std::log2(width) * std::sqrt(layers);  // 6 .. 28
  const double loss = 0.25 + 1.2 / capacity * 6 +
                      0.15 * std::pow(std::log10(learning_rate) - best_log_rate, 2) +
                      0.6 * std::pow(dropout - 0.2 * std::min(layers, 5.0) / 5.0, 2) +
                      0.02 * std::log2(batch / 64) * std::log2(batch / 64) + optimizer_penalty;
  const double latency = 0.5 + layers * width * width / 1.0e5 * (1 + 32.0 / batch);
  return {loss, latency};
}

Problem Surrogate() {
  Problem problem;
  v1::StudySpec& spec = problem.spec;
  *spec.add_parameters() = Double("learning_rate", 1e-5, 1e-1, /*log=*/true);
  v1::ParameterSpec* layers = spec.add_parameters();
  layers->set_parameter_name("layers");
  layers->set_type(v1::ParameterSpec::INTEGER);
  layers->set_min_value(1);
  layers->set_max_value(8);
  v1::ParameterSpec* width = spec.add_parameters();
  width->set_parameter_name("width");
  width->set_type(v1::ParameterSpec::DISCRETE);
  for (double value : {32, 64, 128, 256, 512, 1024}) width->add_discrete_values(value);
  v1::ParameterSpec* batch = spec.add_parameters();
  batch->set_parameter_name("batch_size");
  batch->set_type(v1::ParameterSpec::DISCRETE);
  for (double value : {16, 32, 64, 128, 256}) batch->add_discrete_values(value);
  *spec.add_parameters() = Double("dropout", 0, 0.5);
  v1::ParameterSpec* optimizer = spec.add_parameters();
  optimizer->set_parameter_name("optimizer");
  optimizer->set_type(v1::ParameterSpec::CATEGORICAL);
  for (const char* name : {"adam", "sgd", "rmsprop"}) optimizer->add_categorical_values(name);
  *spec.add_metrics() = Minimize("loss");
  *spec.add_metrics() = Minimize("latency_ms");
  problem.evaluate = TrainingSurrogate;
  return problem;
}

// The surrogate with one objective and an outcome constraint: the lowest
// loss with a latency of at most 20 ms.
Problem ConstrainedSurrogate() {
  Problem problem = Surrogate();
  v1::MetricSpec* latency = problem.spec.mutable_metrics(1);
  latency->clear_goal();
  latency->mutable_constraint()->set_max_value(20);
  return problem;
}

Problem MakeProblem(const std::string& name) {
  if (name == "zdt3") return Zdt3();
  if (name == "dtlz1") return Dtlz1();
  if (name == "dtlz2") return Dtlz2(3);
  if (name == "dtlz2_m4") return Dtlz2(4);
  if (name == "dtlz2_m5") return Dtlz2(5);
  if (name == "dtlz5_m4") return Dtlz5(4);
  if (name == "dtlz7_m4") return Dtlz7(4);
  if (name == "surrogate") return Surrogate();
  if (name == "constrained") return ConstrainedSurrogate();
  std::cerr << "unknown problem " << name
            << " (zdt3, dtlz1, dtlz2, dtlz2_m4, dtlz2_m5, dtlz5_m4, dtlz7_m4, surrogate, "
               "constrained)\n";
  std::exit(2);
}

std::string FormatValue(const v1::ParameterValue& value) {
  switch (value.value_case()) {
    case v1::ParameterValue::kDoubleValue:
      return absl::StrFormat("%.17g", value.double_value());
    case v1::ParameterValue::kIntValue:
      return absl::StrCat(value.int_value());
    default:
      return value.string_value();
  }
}

int Run(const std::vector<std::string>& problems, const std::vector<std::string>& designers,
        int seeds, int trials, int batch, const std::string& out_path) {
  std::ofstream out(out_path);
  out << "problem,designer,seed,trial,parameters,metrics\n";
  for (const std::string& problem_name : problems) {
    const Problem problem = MakeProblem(problem_name);
    for (const std::string& designer_name : designers) {
      for (int seed = 1; seed <= seeds; ++seed) {
        v1::StudySpec spec = problem.spec;
        spec.set_algorithm(designer_name == "random" ? v1::RANDOM_SEARCH
                                                     : v1::GAUSSIAN_PROCESS_BANDIT);
        spec.set_seed(static_cast<uint64_t>(seed));
        auto designer = suggest::MakeDesigner(spec);
        if (!designer.ok()) {
          std::cerr << designer.status() << "\n";
          return 1;
        }
        std::mt19937_64 rng(static_cast<uint64_t>(seed));
        suggest::DesignerHistory history;
        for (int first = 1; first <= trials; first += batch) {
          // A batch is asked for at once and completed before the next.
          const int count = std::min(batch, trials - first + 1);
          auto suggestions = (*designer)->Suggest(history, count, rng);
          if (!suggestions.ok() || static_cast<int>(suggestions->points.size()) != count) {
            std::cerr << problem_name << " " << designer_name << " seed " << seed << ": "
                      << (suggestions.ok() ? "too few points" : suggestions.status().ToString())
                      << "\n";
            return 1;
          }
          if (!suggestions->fallback_reason.empty()) {
            std::cerr << "fallback: " << suggestions->fallback_reason << "\n";
          }
          for (int i = 0; i < count; ++i) {
            const int t = first + i;
            suggest::TrialObservation trial;
            trial.trial_id = t;
            trial.parameters = suggestions->points[i];
            trial.state = v1::Trial::SUCCEEDED;
            const std::vector<double> metrics = problem.evaluate(trial.parameters);
            for (double value : metrics) trial.metrics.emplace_back(value);
            trial.objective = metrics[0];
            out << problem_name << "," << designer_name << "," << seed << "," << t << ","
                << absl::StrJoin(trial.parameters, ";",
                                 [](std::string* text, const v1::ParameterValue& value) {
                                   absl::StrAppend(text, value.parameter_name(), "=",
                                                   FormatValue(value));
                                 })
                << ","
                << absl::StrJoin(metrics, ";",
                                 [](std::string* text, double value) {
                                   absl::StrAppend(text, absl::StrFormat("%.17g", value));
                                 })
                << "\n";
            history.completed.push_back(std::move(trial));
          }
        }
        out.flush();
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  CLI::App app{"Vernier's designers on several objectives and outcome constraints"};
  std::vector<std::string> problems = {"zdt3", "dtlz1", "dtlz2", "surrogate", "constrained"};
  std::vector<std::string> designers = {"random", "gp"};
  int seeds = 10;
  int trials = 100;
  int batch = 1;
  std::string out_path = "multi_objective_runs.csv";
  app.add_option(
         "--problems", problems,
         "zdt3, dtlz1, dtlz2, dtlz2_m4, dtlz2_m5, dtlz5_m4, dtlz7_m4, surrogate, constrained")
      ->delimiter(',');
  app.add_option("--designers", designers, "random, gp")->delimiter(',');
  app.add_option("--seeds", seeds);
  app.add_option("--trials", trials);
  app.add_option("--batch", batch,
                 "points asked for at once, each batch completed before the next");
  app.add_option("--out", out_path, "the CSV of every trial");
  CLI11_PARSE(app, argc, argv);
  if (batch < 1) {
    std::cerr << "--batch: " << batch << " is not a number of points per request\n";
    return 2;
  }
  return vernier::bench::Run(problems, designers, seeds, trials, batch, out_path);
}
