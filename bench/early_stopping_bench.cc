// Early stopping on synthetic learning curves.
//
//   early_stopping_bench --simulate [--family=power|crossing|overfit] [--seeds=1,2,3]
//                        [--noise=0.01] [--counts=N] [--curves_out=FILE] [--results_out=FILE]
//                        [--lost_out=FILE] [--settings=NAME=TEXT;...]
// runs, for each seed, a study of 100 trials with 4 in flight whose curves
// come from a known family plus noise, once without stopping and once per
// policy (driving the policies directly, as CheckEarlyStopping does on every
// report), and prints the training steps spent and the final regret. The
// curves and the results go to files for scripts/early_stopping_bench.py,
// which runs Optuna's pruners on the very same curves. --counts=N rounds
// every noisy report to a whole number of 1/N, as an accuracy on a fixed
// validation set of N samples is (the noise-free values, which the regret
// reads, stay as they are).
//
//   early_stopping_bench --simulate --pool=FILE [--seeds=1,2,3 | --draws=FILE] [--lost_out=FILE]
// does the same on tabulated curves of real training (one curve a line, the
// values of a minimised metric at steps 1, 2, ... tab-separated): each seed
// draws 100 of them with replacement, and the regret is against the best
// value of the whole pool. bench/early_stopping/replay.py runs the same
// curves through a live server; this is the quick look at the policies.
// --draws=FILE takes the seeds and their trials from FILE instead, a line
// per seed: the seed, a tab, and the 0-based pool lines of its 100 trials in
// start order, comma-separated. replay.py --draws-out writes the live
// replay's draws so, and the quick look then runs its very trials.
// --lost_out=FILE (either form) writes, tab-separated with a header, every
// trial a policy stopped whose best noise-free value would have beaten the
// trial picked in the end: the method, seed, trial, the step it stopped
// at, its best value and the picked one (as the policies see them, larger
// is better: a pool's values negated) and the policy's reason, which gives
// the chance it was given. It is how the lost winners were traced.
// --settings=NAME=TEXT;NAME=TEXT (either form) runs these policies instead of
// the built-in list: each TEXT an EarlyStoppingSpec in protobuf text format,
// "max_step: 100" standing for the curves' length, e.g.
//   --settings='asha g3 rf3=policy: ASHA grace_period: 3 max_step: 100 reduction_factor: 3'
//
//   early_stopping_bench --latency [--running=1000] [--decisions=5000] [--stopped=0]
//                        [--counts=N]
// times each policy's decisions on a report with that many trials running
// beside 200 finished ones, and prints the median and the 99th percentile
// of the CPU time each took (the thread's own, so that other work on a
// shared machine does not count). --counts=N rounds the reports to whole
// samples of N, as the synthetic form's --counts does (the learning-curve
// model then works on its log scale).
//
//   early_stopping_bench [--benchmark_filter=...]
// times one decision of each policy over a study of 100 trials x 100 steps.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "suggest/early_stopping/early_stopping_policy_factory.h"
#include "suggest/early_stopping/neighbour_fit_cache.h"

namespace vernier::bench {
namespace {

constexpr int kTrials = 100;
constexpr int kParallel = 4;
constexpr int kSteps = 100;
// The noise of a report unless --noise says otherwise.
constexpr double kDefaultNoise = 0.01;

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

// "overfit": validation accuracy that rises and then falls again. Fast
// learners (large x1) peak within a few steps and lose most of it by the
// end; slow ones climb longest and peak highest, late, as gradient
// boosting's validation curves do across learning rates.
double Overfit(const Hyperparameters& x, int step) {
  const double time_constant = 2 + 30 * (1 - x.x1) * (1 - x.x1);
  const double decline = 0.25 * x.x1 * x.x1 * std::pow(step / static_cast<double>(kSteps), 1.5);
  return 0.5 + (Asymptote(x) - 0.5) * (1 - std::exp(-step / time_constant)) - decline;
}

using Family = double (*)(const Hyperparameters&, int);

// The best noise-free value of a family at any step, by a grid.
double FamilyOptimum(Family family) {
  double best = 0;
  for (int i = 0; i <= 400; ++i) {
    for (int j = 0; j <= 400; ++j) {
      for (int step = 1; step <= kSteps; ++step) {
        best = std::max(best, family({i / 400.0, j / 400.0}, step));
      }
    }
  }
  return best;
}

struct SyntheticTrial {
  // Index s - 1 holds step s.
  std::vector<double> noisy;
  std::vector<double> truth;
};

std::vector<SyntheticTrial> MakeStudy(Family family, uint64_t seed, double sd = kDefaultNoise,
                                      int count = kTrials, int64_t samples = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> noise(0, sd);
  std::vector<SyntheticTrial> trials(count);
  for (SyntheticTrial& trial : trials) {
    const Hyperparameters x{unit(rng), unit(rng)};
    for (int step = 1; step <= kSteps; ++step) {
      trial.truth.push_back(family(x, step));
      trial.noisy.push_back(trial.truth.back() + noise(rng));
      if (samples > 0) {
        trial.noisy.back() = std::round(trial.noisy.back() * static_cast<double>(samples)) /
                             static_cast<double>(samples);
      }
    }
  }
  return trials;
}

// A stopped trial that would have beaten the pick.
struct LostTrial {
  int trial = 0;
  int step = 0;
  double best = 0;
  std::string reason;
};

struct Outcome {
  int64_t steps = 0;
  int stopped = 0;
  double regret = 0;
  // The picked trial's noise-free value at its best report.
  double picked = 0;
  std::vector<LostTrial> lost;
};

// 4 trials in flight, each reporting one step per tick in slot order; a
// stopped or finished trial frees its slot for the next trial at the next
// tick. The best trial is the one with the best report (the checkpoint a
// user keeps); its regret is the family optimum minus its noise-free value
// at the step of that report.
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
  // The trial and step of the best report so far.
  std::optional<std::pair<int, int>> best;
  // Each stopped trial: the step and the policy's reason.
  std::map<int, std::pair<int, std::string>> stops;
  auto finish = [&](int trial) {
    curves[trial].completed = true;
    ++finished;
    for (const suggest::CurvePoint& point : curves[trial].points) {
      if (!best.has_value() || point.value > trials[best->first].noisy[best->second - 1]) {
        best = {trial, static_cast<int>(point.step)};
      }
    }
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
      if (step == static_cast<int>(trials[slot.trial].noisy.size())) {
        finish(slot.trial);
        slot.trial = -1;
      } else if (suggest::StoppingDecision decision = policy != nullptr
                                                          ? policy->Decide(curve, curves)
                                                          : suggest::StoppingDecision{};
                 decision.should_stop) {
        stops[slot.trial] = {step, std::move(decision.reason)};
        ++outcome.stopped;
        finish(slot.trial);
        slot.trial = -1;
      }
    }
  }
  outcome.picked = trials[best->first].truth[best->second - 1];
  outcome.regret = optimum - outcome.picked;
  for (auto& [trial, stop] : stops) {
    const double trial_best =
        *std::max_element(trials[trial].truth.begin(), trials[trial].truth.end());
    if (trial_best > outcome.picked) {
      outcome.lost.push_back({trial, stop.first, trial_best, std::move(stop.second)});
    }
  }
  return outcome;
}

struct Method {
  std::string name;
  std::unique_ptr<suggest::EarlyStoppingPolicy> policy;
};

// The policy a study runs with the `earlyStopping:` settings `text` (max_step
// 100 replaced by `steps`), with `fits` as a server keeps them; an error
// when the text does not parse or the settings are refused.
absl::StatusOr<std::unique_ptr<suggest::EarlyStoppingPolicy>> TryMakePolicy(
    absl::string_view text, int steps, suggest::NeighbourFitCache* fits) {
  v1::StudySpec spec;
  v1::MetricSpec* metric = spec.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_goal(v1::MetricSpec::MAXIMIZE);
  const std::string settings_text =
      absl::StrReplaceAll(text, {{"max_step: 100", absl::StrCat("max_step: ", steps)}});
  if (!google::protobuf::TextFormat::ParseFromString(settings_text,
                                                     spec.mutable_early_stopping())) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not an EarlyStoppingSpec in text format"));
  }
  spec.mutable_early_stopping()->set_enabled(true);
  return suggest::MakeEarlyStoppingPolicy(spec, fits);
}

// TryMakePolicy for settings known to be good: exits on an error.
std::unique_ptr<suggest::EarlyStoppingPolicy> MakePolicy(absl::string_view text, int steps,
                                                         suggest::NeighbourFitCache* fits) {
  absl::StatusOr<std::unique_ptr<suggest::EarlyStoppingPolicy>> made =
      TryMakePolicy(text, steps, fits);
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(made);
}

// --settings=NAME=TEXT;NAME=TEXT... in place of the built-in list below, or
// nothing when the flag is absent. TEXT is an EarlyStoppingSpec in text
// format ("max_step: 100" stands for the curves' length); a malformed entry
// is an error naming it.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SettingsFlag(int argc,
                                                                              char** argv);

// Each policy as a study would run it with these `earlyStopping:` settings
// (those of --settings instead, when given).
std::vector<Method> Methods(int steps = kSteps,
                            const std::vector<std::pair<std::string, std::string>>& chosen = {}) {
  if (!chosen.empty()) {
    std::vector<Method> methods;
    methods.push_back({"none", nullptr});
    for (const auto& [name, text] : chosen) {
      methods.push_back({name, MakePolicy(text, steps, nullptr)});
    }
    return methods;
  }
  const std::pair<const char*, const char*> settings[] = {
      {"vernier MEDIAN_STOPPING", "policy: MEDIAN_STOPPING"},
      {"vernier ASHA g5", "policy: ASHA grace_period: 5 max_step: 100"},
      {"vernier ASHA g5 rf3", "policy: ASHA grace_period: 5 max_step: 100 reduction_factor: 3"},
      {"vernier ASHA g10", "policy: ASHA grace_period: 10 max_step: 100"},
      {"vernier ASHA g25", "policy: ASHA grace_period: 25 max_step: 100"},
      {"vernier HYPERBAND", "policy: HYPERBAND max_step: 100"},
      {"vernier LEARNING_CURVE", "policy: LEARNING_CURVE"},
      {"vernier LEARNING_CURVE t1", "policy: LEARNING_CURVE tie_margin: 1"},
      {"vernier LEARNING_CURVE m10", "policy: LEARNING_CURVE min_trials: 10"},
      {"vernier LEARNING_CURVE s30", "policy: LEARNING_CURVE start_step: 30"},
      {"vernier LEARNING_CURVE s50", "policy: LEARNING_CURVE start_step: 50"},
  };
  std::vector<Method> methods;
  methods.push_back({"none", nullptr});
  for (const auto& [name, text] : settings) {
    methods.push_back({name, MakePolicy(text, steps, nullptr)});
  }
  return methods;
}

void WriteCurves(const std::string& path, const std::string& family, double noise,
                 const std::map<uint64_t, std::vector<SyntheticTrial>>& studies, double optimum) {
  std::ofstream out(path);
  out.precision(17);
  out << "# family " << family << " trials " << kTrials << " parallel " << kParallel << " steps "
      << kSteps << " noise " << noise << " optimum " << optimum << "\n";
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

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SettingsFlag(int argc,
                                                                              char** argv) {
  std::vector<std::pair<std::string, std::string>> chosen;
  const std::optional<std::string> flag = Flag(argc, argv, "settings");
  if (!flag.has_value()) return chosen;
  for (absl::string_view entry : absl::StrSplit(*flag, ';', absl::SkipWhitespace())) {
    const size_t equals = entry.find('=');
    if (equals == absl::string_view::npos || equals == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--settings: \"", entry, "\" is not NAME=SETTINGS (e.g. asha=policy: ASHA)"));
    }
    const absl::string_view name = entry.substr(0, equals);
    const absl::string_view text = entry.substr(equals + 1);
    if (absl::StatusOr<std::unique_ptr<suggest::EarlyStoppingPolicy>> made =
            TryMakePolicy(text, kSteps, nullptr);
        !made.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--settings: \"", name, "\": ", made.status().message()));
    }
    chosen.emplace_back(std::string(name), std::string(text));
  }
  if (chosen.empty()) return absl::InvalidArgumentError("--settings: no NAME=SETTINGS given");
  return chosen;
}

// The curves of a --pool file, negated so that larger is better as in the
// synthetic families.
absl::StatusOr<std::vector<std::vector<double>>> ReadPool(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("--pool: cannot read " + path);
  std::vector<std::vector<double>> pool;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<double> curve;
    for (absl::string_view field : absl::StrSplit(line, '\t')) {
      double value = 0;
      if (!absl::SimpleAtod(field, &value)) {
        return absl::InvalidArgumentError(absl::StrFormat("--pool: %s:%d: \"%s\" is not a number",
                                                          path, number, std::string(field)));
      }
      curve.push_back(-value);
    }
    if (!pool.empty() && curve.size() != pool.front().size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--pool: %s:%d: %d values, the first curve had %d", path, number,
                          curve.size(), pool.front().size()));
    }
    pool.push_back(std::move(curve));
  }
  if (pool.empty()) return absl::InvalidArgumentError("--pool: " + path + " holds no curve");
  return pool;
}

// The seeds and each seed's trials (pool lines, in start order) of a
// --draws file, checked against a pool of `pool_size` curves.
absl::StatusOr<std::vector<std::pair<uint64_t, std::vector<size_t>>>> ReadDraws(
    const std::string& path, size_t pool_size) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("--draws: cannot read " + path);
  std::vector<std::pair<uint64_t, std::vector<size_t>>> draws;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    uint64_t seed = 0;
    if (fields.size() != 2 || !absl::SimpleAtoi(fields[0], &seed)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--draws: %s:%d: expected a seed, a tab and the trials' pool lines", path, number));
    }
    std::vector<size_t> trials;
    for (absl::string_view field : absl::StrSplit(fields[1], ',')) {
      size_t index = 0;
      if (!absl::SimpleAtoi(field, &index) || index >= pool_size) {
        return absl::InvalidArgumentError(
            absl::StrFormat("--draws: %s:%d: \"%s\" is not a line of the pool (0 to %d)", path,
                            number, std::string(field), pool_size - 1));
      }
      trials.push_back(index);
    }
    if (trials.size() != kTrials) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--draws: %s:%d: %d trials, the simulation runs %d", path, number,
                          trials.size(), kTrials));
    }
    draws.emplace_back(seed, std::move(trials));
  }
  if (draws.empty()) return absl::InvalidArgumentError("--draws: " + path + " holds no seed");
  return draws;
}

// Opens --lost_out's file, if asked for, and writes its header; false (with
// the error printed) when it cannot be written.
bool OpenLostOut(int argc, char** argv, std::ofstream& out) {
  const std::optional<std::string> path = Flag(argc, argv, "lost_out");
  if (!path.has_value()) return true;
  if (!path->empty()) out.open(*path);
  if (path->empty() || !out) {
    std::fprintf(stderr, "--lost_out: cannot write \"%s\"\n", path->c_str());
    return false;
  }
  out.precision(10);
  out << "method\tseed\ttrial\tstopped_at\tbest\tpicked\treason\n";
  return true;
}

void WriteLost(std::ofstream& out, const std::string& method, uint64_t seed,
               const Outcome& outcome) {
  if (!out.is_open()) return;
  for (const LostTrial& lost : outcome.lost) {
    out << method << "\t" << seed << "\t" << lost.trial << "\t" << lost.step << "\t" << lost.best
        << "\t" << outcome.picked << "\t"
        << absl::StrReplaceAll(lost.reason, {{"\t", " "}, {"\n", " "}}) << "\n";
  }
}

// Flushes --lost_out's file; false (with the error printed) when a write
// failed.
bool CloseLostOut(std::ofstream& out) {
  if (!out.is_open()) return true;
  out.close();
  if (out.fail()) {
    std::fprintf(stderr, "--lost_out: a write failed\n");
    return false;
  }
  return true;
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
  const absl::StatusOr<std::vector<std::pair<std::string, std::string>>> chosen =
      SettingsFlag(argc, argv);
  if (!chosen.ok()) {
    std::fprintf(stderr, "%s\n", std::string(chosen.status().message()).c_str());
    return 2;
  }
  std::ofstream lost_out;
  if (!OpenLostOut(argc, argv, lost_out)) return 2;
  if (std::optional<std::string> pool_path = Flag(argc, argv, "pool")) {
    if (Flag(argc, argv, "counts").has_value()) {
      std::fprintf(stderr, "--counts: only for the synthetic families, not with --pool\n");
      return 2;
    }
    absl::StatusOr<std::vector<std::vector<double>>> pool = ReadPool(*pool_path);
    if (!pool.ok()) {
      std::fprintf(stderr, "%s\n", std::string(pool.status().message()).c_str());
      return 2;
    }
    double optimum = -std::numeric_limits<double>::infinity();
    for (const std::vector<double>& curve : *pool) {
      for (double value : curve) optimum = std::max(optimum, value);
    }
    const int steps = static_cast<int>(pool->front().size());
    // Each seed's trials: from --draws, else drawn with replacement.
    std::vector<std::pair<uint64_t, std::vector<size_t>>> draws;
    if (std::optional<std::string> draws_path = Flag(argc, argv, "draws")) {
      absl::StatusOr<std::vector<std::pair<uint64_t, std::vector<size_t>>>> read =
          ReadDraws(*draws_path, pool->size());
      if (!read.ok()) {
        std::fprintf(stderr, "%s\n", std::string(read.status().message()).c_str());
        return 2;
      }
      draws = *std::move(read);
    } else {
      for (uint64_t seed : seeds) {
        std::mt19937_64 rng(seed);
        std::uniform_int_distribution<size_t> draw(0, pool->size() - 1);
        std::vector<size_t> trials(kTrials);
        for (size_t& trial : trials) trial = draw(rng);
        draws.emplace_back(seed, std::move(trials));
      }
    }
    std::printf("%-26s %5s %8s %7s %8s %9s\n", "method", "seed", "steps", "saved", "stopped",
                "regret");
    for (const Method& method : Methods(steps, *chosen)) {
      for (const auto& [seed, indices] : draws) {
        std::vector<SyntheticTrial> trials(kTrials);
        for (size_t i = 0; i < trials.size(); ++i) {
          trials[i].noisy = trials[i].truth = (*pool)[indices[i]];
        }
        const Outcome outcome = Simulate(trials, method.policy.get(), optimum);
        WriteLost(lost_out, method.name, seed, outcome);
        const double saved = 1 - static_cast<double>(outcome.steps) / (kTrials * steps);
        std::printf("%-26s %5llu %8lld %6.1f%% %8d %9.5f\n", method.name.c_str(),
                    static_cast<unsigned long long>(seed), static_cast<long long>(outcome.steps),
                    100 * saved, outcome.stopped, outcome.regret);
      }
    }
    return CloseLostOut(lost_out) ? 0 : 1;
  }
  const std::string family_name = Flag(argc, argv, "family").value_or("power");
  Family family = nullptr;
  if (family_name == "power") family = PowerLaw;
  if (family_name == "crossing") family = Crossing;
  if (family_name == "overfit") family = Overfit;
  if (family == nullptr) {
    std::fprintf(stderr, "--family: \"%s\" is not power, crossing or overfit\n",
                 family_name.c_str());
    return 2;
  }
  double noise = kDefaultNoise;
  const std::string noise_text = Flag(argc, argv, "noise").value_or("0.01");
  if (!absl::SimpleAtod(noise_text, &noise) || !(noise >= 0)) {
    std::fprintf(stderr, "--noise: \"%s\" is not a standard deviation\n", noise_text.c_str());
    return 2;
  }
  int64_t samples = 0;
  if (std::optional<std::string> counts = Flag(argc, argv, "counts")) {
    if (!absl::SimpleAtoi(*counts, &samples) || samples <= 0) {
      std::fprintf(stderr, "--counts: \"%s\" is not a positive number of samples\n",
                   counts->c_str());
      return 2;
    }
  }
  const double optimum = FamilyOptimum(family);
  std::map<uint64_t, std::vector<SyntheticTrial>> studies;
  for (uint64_t seed : seeds) studies[seed] = MakeStudy(family, seed, noise, kTrials, samples);
  if (std::optional<std::string> path = Flag(argc, argv, "curves_out")) {
    WriteCurves(*path, family_name, noise, studies, optimum);
  }
  std::ofstream results;
  if (std::optional<std::string> path = Flag(argc, argv, "results_out")) results.open(*path);
  results.precision(17);

  std::printf("%-26s %5s %8s %7s %8s %9s\n", "method", "seed", "steps", "saved", "stopped",
              "regret");
  for (const Method& method : Methods(kSteps, *chosen)) {
    for (uint64_t seed : seeds) {
      const Outcome outcome = Simulate(studies[seed], method.policy.get(), optimum);
      WriteLost(lost_out, method.name, seed, outcome);
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
  return CloseLostOut(lost_out) ? 0 : 1;
}

double ThreadCpuMicros() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// The cost of a decision on a report while `running` trials run (each at a
// step drawn from 1..99) beside 200 trials that finished all 100 steps:
// each policy decides for `decisions` reports of running trials drawn at
// random, each timed alone.
int RunLatency(int argc, char** argv) {
  int running = 1000;
  int decisions = 5000;
  int stopped_trials = 0;
  int samples = 0;
  for (const auto& [name, value, least] :
       {std::tuple{"running", &running, 1}, std::tuple{"decisions", &decisions, 1},
        std::tuple{"stopped", &stopped_trials, 0}, std::tuple{"counts", &samples, 1}}) {
    const std::optional<std::string> text = Flag(argc, argv, name);
    if (text.has_value() && (!absl::SimpleAtoi(*text, value) || *value < least)) {
      std::fprintf(stderr, "--%s: \"%s\" is not a %s count\n", name, text->c_str(),
                   least > 0 ? "positive" : "non-negative");
      return 2;
    }
  }
  constexpr int kFinished = 200;
  const int ended = kFinished + stopped_trials;
  const std::vector<SyntheticTrial> trials =
      MakeStudy(PowerLaw, 1, kDefaultNoise, ended + running, samples);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> length(1, kSteps - 1);
  std::vector<suggest::LearningCurve> curves;
  for (int i = 0; i < ended + running; ++i) {
    // 200 finished, then the stopped ones (completed before the horizon),
    // then the running ones.
    const bool finished = i < kFinished;
    suggest::LearningCurve curve{.trial_id = i + 1, .points = {}, .completed = i < ended};
    const int steps = finished ? kSteps : length(rng);
    for (int step = 1; step <= steps; ++step) {
      curve.points.push_back({step, trials[i].noisy[step - 1]});
    }
    curves.push_back(std::move(curve));
  }
  std::uniform_int_distribution<int> pick(ended, ended + running - 1);
  std::printf("%-34s %8s %9s %9s %9s %8s\n", "method", "running", "p50 cpu us", "p99 cpu us",
              "max us", "stopped");
  // The learning-curve policy as `vernier serve` runs it too: its fits of
  // the finished curves kept between reports (NeighbourFitCache).
  suggest::NeighbourFitCache fits;
  std::vector<Method> methods = Methods();
  methods.push_back(
      {"vernier LEARNING_CURVE, fits kept", MakePolicy("policy: LEARNING_CURVE", kSteps, &fits)});
  for (const Method& method : methods) {
    if (method.policy == nullptr) continue;
    std::vector<double> micros;
    int stopped = 0;
    for (int d = 0; d < decisions; ++d) {
      const suggest::LearningCurve& trial = curves[pick(rng)];
      const double start = ThreadCpuMicros();
      const suggest::StoppingDecision decision = method.policy->Decide(trial, curves);
      micros.push_back(ThreadCpuMicros() - start);
      stopped += decision.should_stop ? 1 : 0;
    }
    std::sort(micros.begin(), micros.end());
    auto at = [&micros](double q) {
      return micros[std::min(micros.size() - 1, static_cast<size_t>(q * micros.size()))];
    };
    std::printf("%-34s %8d %9.1f %9.1f %9.1f %8d\n", method.name.c_str(), running, at(0.5),
                at(0.99), micros.back(), stopped);
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
BENCHMARK_CAPTURE(BM_Decision, hyperband, v1::EarlyStoppingSpec::HYPERBAND);
BENCHMARK_CAPTURE(BM_Decision, learning_curve, v1::EarlyStoppingSpec::LEARNING_CURVE);

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--simulate") == 0) return vernier::bench::RunSimulation(argc, argv);
    if (std::strcmp(argv[i], "--latency") == 0) return vernier::bench::RunLatency(argc, argv);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
