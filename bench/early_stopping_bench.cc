// Early stopping on synthetic learning curves.
//
//   early_stopping_bench --simulate [--family=power|crossing] [--seeds=1,2,3]
//                        [--curves_out=FILE] [--results_out=FILE]
// runs, for each seed, a study of 100 trials with 4 in flight whose curves
// come from a known family plus noise, once without stopping and once per
// policy (driving the policies directly, as CheckEarlyStopping does on every
// report), and prints the training steps spent and the final regret. The
// curves and the results go to files for scripts/early_stopping_bench.py,
// which runs Optuna's pruners on the very same curves.
//
//   early_stopping_bench [--benchmark_filter=...]
// times one decision of each policy over a study of 100 trials x 100 steps.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "suggest/early_stopping/early_stopping_policy_factory.h"

namespace vernier::bench {
namespace {

constexpr int kTrials = 100;
constexpr int kParallel = 4;
constexpr int kSteps = 100;
constexpr double kNoise = 0.01;

// A trial's hyperparameters, x in [0,1]^2.
struct Hyperparameters {
  double x1 = 0;
  double x2 = 0;
};

// The curve families: accuracy after `step` steps, noise-free. Both rise
// from 0.5 towards an asymptote that peaks at x = (0.35, 0.6), at a speed
// set by x1 (a learning rate): fast learners plateau lower, so curves cross.
double Asymptote(const Hyperparameters& x) {
  return 0.92 - 0.45 * (x.x1 - 0.35) * (x.x1 - 0.35) - 0.3 * (x.x2 - 0.6) * (x.x2 - 0.6);
}

// "power": a saturating power law (Domhan et al.'s pow3), most of the rise
// in the first steps, as deep-learning curves mostly are.
double PowerLaw(const Hyperparameters& x, int step) {
  const double asymptote = Asymptote(x);
  return asymptote - (asymptote - 0.5) * std::pow(1.0 + step, -(0.3 + 0.9 * x.x1));
}

// "crossing": an exponential approach whose time constant grows as x1
// falls: the best trials start slowly and overtake the fast mediocre ones
// only after 10 to 25 steps, which is where early stopping goes wrong.
double Crossing(const Hyperparameters& x, int step) {
  const double time_constant = 8 + 16 * (1 - x.x1) * (1 - x.x1);
  return 0.5 + (Asymptote(x) - 0.5) * (1 - std::exp(-step / time_constant));
}

using Family = double (*)(const Hyperparameters&, int);

// The best noise-free final value of a family, by a dense grid.
double FamilyOptimum(Family family) {
  double best = 0;
  for (int i = 0; i <= 1000; ++i) {
    for (int j = 0; j <= 1000; ++j) best = std::max(best, family({i / 1000.0, j / 1000.0}, kSteps));
  }
  return best;
}

struct SyntheticTrial {
  // Index s - 1 holds step s.
  std::vector<double> noisy;
  std::vector<double> truth;
};

std::vector<SyntheticTrial> MakeStudy(Family family, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> noise(0, kNoise);
  std::vector<SyntheticTrial> trials(kTrials);
  for (SyntheticTrial& trial : trials) {
    const Hyperparameters x{unit(rng), unit(rng)};
    for (int step = 1; step <= kSteps; ++step) {
      trial.truth.push_back(family(x, step));
      trial.noisy.push_back(trial.truth.back() + noise(rng));
    }
  }
  return trials;
}

struct Outcome {
  int64_t steps = 0;
  int stopped = 0;
  double regret = 0;
};

// 4 trials in flight, each reporting one step per tick in slot order; a
// stopped or finished trial frees its slot for the next trial at the next
// tick. The best trial is the one whose last report is best (what a user
// picks); its regret is the family optimum minus its noise-free value at
// the step it reached.
Outcome Simulate(const std::vector<SyntheticTrial>& trials,
                 const suggest::EarlyStoppingPolicy* policy, double optimum) {
  std::vector<suggest::LearningCurve> curves;
  curves.reserve(kTrials);
  struct Slot {
    int trial = -1;
  };
  std::vector<Slot> slots(kParallel);
  int next = 0;
  int finished = 0;
  Outcome outcome;
  std::optional<int> best;
  auto finish = [&](int trial) {
    curves[trial].completed = true;
    ++finished;
    const double last = curves[trial].points.back().value;
    if (!best.has_value() || last > curves[*best].points.back().value) best = trial;
  };
  while (finished < kTrials) {
    for (Slot& slot : slots) {
      if (slot.trial < 0 && next < kTrials) {
        slot.trial = next++;
        curves.push_back({.trial_id = slot.trial + 1, .points = {}, .completed = false});
      }
    }
    for (Slot& slot : slots) {
      if (slot.trial < 0) continue;
      suggest::LearningCurve& curve = curves[slot.trial];
      const int step = static_cast<int>(curve.points.size()) + 1;
      curve.points.push_back({step, trials[slot.trial].noisy[step - 1]});
      ++outcome.steps;
      if (step == kSteps) {
        finish(slot.trial);
        slot.trial = -1;
      } else if (policy != nullptr && policy->Decide(curve, curves).should_stop) {
        ++outcome.stopped;
        finish(slot.trial);
        slot.trial = -1;
      }
    }
  }
  const int reached = static_cast<int>(curves[*best].points.size());
  outcome.regret = optimum - trials[*best].truth[reached - 1];
  return outcome;
}

struct Method {
  std::string name;
  std::unique_ptr<suggest::EarlyStoppingPolicy> policy;
};

// Each policy as a study would run it with these `earlyStopping:` settings.
std::vector<Method> Methods() {
  const std::pair<const char*, const char*> settings[] = {
      {"vernier MEDIAN_STOPPING", "policy: MEDIAN_STOPPING"},
      {"vernier ASHA g5", "policy: ASHA grace_period: 5 max_step: 100"},
      {"vernier ASHA g5 rf3", "policy: ASHA grace_period: 5 max_step: 100 reduction_factor: 3"},
      {"vernier ASHA g10", "policy: ASHA grace_period: 10 max_step: 100"},
  };
  std::vector<Method> methods;
  methods.push_back({"none", nullptr});
  for (const auto& [name, text] : settings) {
    v1::StudySpec spec;
    v1::MetricSpec* metric = spec.add_metrics();
    metric->set_metric_id("accuracy");
    metric->set_goal(v1::MetricSpec::MAXIMIZE);
    if (!google::protobuf::TextFormat::ParseFromString(text, spec.mutable_early_stopping())) {
      std::fprintf(stderr, "bad settings: %s\n", text);
      std::exit(1);
    }
    spec.mutable_early_stopping()->set_enabled(true);
    absl::StatusOr<std::unique_ptr<suggest::EarlyStoppingPolicy>> made =
        suggest::MakeEarlyStoppingPolicy(spec);
    if (!made.ok()) {
      std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
      std::exit(1);
    }
    methods.push_back({name, *std::move(made)});
  }
  return methods;
}

void WriteCurves(const std::string& path, const std::string& family,
                 const std::map<uint64_t, std::vector<SyntheticTrial>>& studies, double optimum) {
  std::ofstream out(path);
  out.precision(17);
  out << "# family " << family << " trials " << kTrials << " parallel " << kParallel << " steps "
      << kSteps << " noise " << kNoise << " optimum " << optimum << "\n";
  for (const auto& [seed, trials] : studies) {
    for (size_t i = 0; i < trials.size(); ++i) {
      for (const auto& [kind, values] :
           {std::pair{"noisy", &trials[i].noisy}, std::pair{"true", &trials[i].truth}}) {
        out << seed << "\t" << i << "\t" << kind;
        for (double value : *values) out << "\t" << value;
        out << "\n";
      }
    }
  }
}

std::optional<std::string> Flag(int argc, char** argv, const char* name) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  }
  return std::nullopt;
}

int RunSimulation(int argc, char** argv) {
  std::vector<uint64_t> seeds;
  for (absl::string_view text :
       absl::StrSplit(Flag(argc, argv, "seeds").value_or("1,2,3,4,5"), ',')) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(text, &seed)) {
      std::fprintf(stderr, "--seeds: \"%s\" is not a seed\n", std::string(text).c_str());
      return 2;
    }
    seeds.push_back(seed);
  }
  const std::string family_name = Flag(argc, argv, "family").value_or("power");
  Family family = nullptr;
  if (family_name == "power") family = PowerLaw;
  if (family_name == "crossing") family = Crossing;
  if (family == nullptr) {
    std::fprintf(stderr, "--family: \"%s\" is not power or crossing\n", family_name.c_str());
    return 2;
  }
  const double optimum = FamilyOptimum(family);
  std::map<uint64_t, std::vector<SyntheticTrial>> studies;
  for (uint64_t seed : seeds) studies[seed] = MakeStudy(family, seed);
  if (std::optional<std::string> path = Flag(argc, argv, "curves_out")) {
    WriteCurves(*path, family_name, studies, optimum);
  }
  std::ofstream results;
  if (std::optional<std::string> path = Flag(argc, argv, "results_out")) results.open(*path);
  results.precision(17);

  std::printf("%-26s %5s %8s %7s %8s %9s\n", "method", "seed", "steps", "saved", "stopped",
              "regret");
  for (const Method& method : Methods()) {
    for (uint64_t seed : seeds) {
      const Outcome outcome = Simulate(studies[seed], method.policy.get(), optimum);
      const double saved = 1 - static_cast<double>(outcome.steps) / (kTrials * kSteps);
      std::printf("%-26s %5llu %8lld %6.1f%% %8d %9.5f\n", method.name.c_str(),
                  static_cast<unsigned long long>(seed), static_cast<long long>(outcome.steps),
                  100 * saved, outcome.stopped, outcome.regret);
      if (results.is_open()) {
        results << method.name << "\t" << seed << "\t" << outcome.steps << "\t" << outcome.stopped
                << "\t" << outcome.regret << "\n";
      }
    }
  }
  return 0;
}

// One decision over a full study: 99 completed trials of 100 steps.
void BM_Decision(benchmark::State& state, v1::EarlyStoppingSpec::Policy policy) {
  v1::StudySpec spec;
  spec.add_metrics()->set_goal(v1::MetricSpec::MAXIMIZE);
  spec.mutable_early_stopping()->set_enabled(true);
  spec.mutable_early_stopping()->set_policy(policy);
  std::unique_ptr<suggest::EarlyStoppingPolicy> made = *suggest::MakeEarlyStoppingPolicy(spec);
  const std::vector<SyntheticTrial> trials = MakeStudy(PowerLaw, 1);
  std::vector<suggest::LearningCurve> curves;
  for (int i = 0; i < kTrials; ++i) {
    suggest::LearningCurve curve{.trial_id = i + 1, .points = {}, .completed = i + 1 < kTrials};
    for (int step = 1; step <= kSteps; ++step)
      curve.points.push_back({step, trials[i].noisy[step - 1]});
    curves.push_back(std::move(curve));
  }
  for (auto _ : state) benchmark::DoNotOptimize(made->Decide(curves.back(), curves));
}
BENCHMARK_CAPTURE(BM_Decision, median, v1::EarlyStoppingSpec::MEDIAN_STOPPING);
BENCHMARK_CAPTURE(BM_Decision, asha, v1::EarlyStoppingSpec::ASHA);

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--simulate") == 0) return vernier::bench::RunSimulation(argc, argv);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
