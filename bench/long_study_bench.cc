// Long studies: whether the GP designer's model of a history longer than its
// capacity (GpBanditDesigner::Options::max_model_points, 400) finds better
// trials with the neighbourhood of its best point modelled in full
// (neighbourhood_share 0.5) than with the best, latest and spread trials
// alone (neighbourhood_share 0, the default), or with every other trial
// folded into its nearest model point (--folded: fold_history), or projected
// onto its nearest model points (--projected: project_history), or with a
// larger capacity (--capacities: one at least the history is the exact GP of
// every trial, the model every approximation aims at), on noisy,
// multimodal problems, one trial at a time, seed by seed (paired). The
// regret at each checkpoint is the noiseless regret of the best trial as
// observed. Results and machine in docs/benchmarks.md ("Long studies"):
//
//   build/bin/long_study_bench --seeds 20 --trials 2000 --checkpoints 200,1000,2000

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "bench/quality/hartmann6.h"
#include "bench/quality/noisy_problem.h"
#include "bench/quality/quartiles.h"
#include "bench/quality/shifted_ackley.h"
#include "bench/quality/styblinski_tang.h"
#include "suggest/designers/gp_bandit_designer.h"

namespace vernier::bench {
namespace {

struct Variant {
  std::string name;
  double neighbourhood_share;
  bool fold_history = false;
  int project_history = 0;
  // max_model_points (--capacities, else --capacity); 0: the designer's
  // default.
  int capacity = 0;
};

struct Run {
  int problem;
  int variant;
  int seed;
  // Regret at each checkpoint, and the mean suggest time of the last 100
  // requests.
  std::vector<double> regrets;
  double late_suggest_seconds = 0;
};

std::vector<std::unique_ptr<NoisyProblem>> Problems(double noise) {
  std::vector<std::unique_ptr<NoisyProblem>> problems;
  problems.push_back(std::make_unique<NoisyProblem>(std::make_unique<Hartmann6>(), noise));
  problems.push_back(std::make_unique<NoisyProblem>(std::make_unique<ShiftedAckley>(), noise));
  problems.push_back(std::make_unique<NoisyProblem>(std::make_unique<StyblinskiTang>(8), noise));
  return problems;
}

absl::Status RunStudy(const BenchmarkProblem& problem, const Variant& variant,
                      const std::vector<int>& checkpoints, Run& run) {
  v1::StudySpec spec = problem.Spec();
  absl::StatusOr<suggest::SearchSpace> space = suggest::SearchSpace::Create(spec.parameters());
  if (!space.ok()) return space.status();
  suggest::GpBanditDesigner::Options options;
  options.neighbourhood_share = variant.neighbourhood_share;
  options.fold_history = variant.fold_history;
  options.project_history = variant.project_history;
  if (variant.capacity > 0) options.max_model_points = variant.capacity;
  const bool maximize = spec.metrics(0).goal() == v1::MetricSpec::MAXIMIZE;
  suggest::DesignerHistory history;
  std::optional<double> best;
  suggest::ParameterAssignment best_point;
  const int trials = checkpoints.back();
  double late_seconds = 0;
  int late_calls = 0;
  for (int t = 0; t < trials; ++t) {
    // A fresh designer per request, seeded as StudyManager seeds it.
    suggest::GpBanditDesigner designer(*space, spec.metrics(0).goal(),
                                       static_cast<uint64_t>(run.seed), options);
    std::seed_seq seeds{static_cast<uint32_t>(run.seed), 0u, static_cast<uint32_t>(t)};
    std::mt19937_64 rng(seeds);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<suggest::Suggestions> suggestions = designer.Suggest(history, 1, rng);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t >= trials - 100) {
      late_seconds += seconds;
      ++late_calls;
    }
    if (!suggestions.ok()) return suggestions.status();
    if (suggestions->points.empty()) return absl::InternalError("no point suggested");
    suggest::TrialObservation trial;
    trial.trial_id = t + 1;
    trial.parameters = std::move(suggestions->points.front());
    trial.state = v1::Trial::SUCCEEDED;
    const double value =
        problem.Observe(trial.parameters, static_cast<uint64_t>(run.seed), trial.trial_id);
    trial.objective = value;
    if (!best.has_value() || (maximize ? value > *best : value < *best)) {
      best = value;
      best_point = trial.parameters;
    }
    history.completed.push_back(std::move(trial));
    if (std::find(checkpoints.begin(), checkpoints.end(), t + 1) != checkpoints.end()) {
      run.regrets.push_back(problem.Regret(problem.Evaluate(best_point)));
    }
  }
  run.late_suggest_seconds = late_calls > 0 ? late_seconds / late_calls : 0;
  return absl::OkStatus();
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  using namespace vernier::bench;
  CLI::App app("Long studies: the GP's model of a long history, paired by seed");
  int seeds = 20;
  int threads = 2;
  double noise = 0.1;
  std::vector<int> checkpoints = {200, 1000, 2000};
  std::vector<double> shares = {0.0, 0.5};
  std::vector<std::string> only;
  int capacity = 0;
  std::vector<double> folded_shares;
  std::vector<int> projected_neighbours;
  std::vector<int> capacities;
  app.add_option("--seeds", seeds, "Studies per problem and variant, seeds 1..N");
  app.add_option("--threads", threads, "Studies run at once");
  app.add_option("--noise", noise, "Noise standard deviation, relative to the values' spread");
  app.add_option("--checkpoints", checkpoints, "Trial counts at which the regret is read")
      ->delimiter(',');
  app.add_option("--shares", shares,
                 "neighbourhood_share of each variant; the first is the baseline")
      ->delimiter(',');
  app.add_option("--folded", folded_shares,
                 "neighbourhood_share of each further variant with fold_history on (after "
                 "those of --shares)")
      ->delimiter(',');
  app.add_option("--projected", projected_neighbours,
                 "project_history (neighbours) of each further variant, share 0 (after those "
                 "of --folded)")
      ->delimiter(',');
  app.add_option("--capacities", capacities,
                 "max_model_points of each further variant, share 0 (after those of "
                 "--projected): one at least the last checkpoint models the whole history "
                 "exactly, what every approximation of it aims at")
      ->delimiter(',');
  app.add_option("--problems", only, "Problems to run (names), all by default")->delimiter(',');
  app.add_option("--capacity", capacity,
                 "max_model_points (0: the designer's default, 400); a smaller one stands "
                 "for a longer study at a fraction of the time");
  CLI11_PARSE(app, argc, argv);
  std::sort(checkpoints.begin(), checkpoints.end());

  std::vector<std::unique_ptr<NoisyProblem>> problems = Problems(noise);
  std::vector<Variant> variants;
  for (double share : shares) variants.push_back({absl::StrFormat("share %g", share), share});
  for (double share : folded_shares) {
    variants.push_back({absl::StrFormat("share %g, folded", share), share, true});
  }
  for (int neighbours : projected_neighbours) {
    variants.push_back({absl::StrFormat("projected onto %d", neighbours), 0.0, false, neighbours});
  }
  for (Variant& variant : variants) variant.capacity = capacity;
  for (int points : capacities) {
    if (points <= 0) {
      std::cerr << "--capacities: " << points << " is not a number of model points\n";
      return 2;
    }
    variants.push_back({absl::StrFormat("capacity %d", points), 0.0, false, 0, points});
  }
  std::vector<Run> runs;
  for (int p = 0; p < static_cast<int>(problems.size()); ++p) {
    if (!only.empty() && std::find(only.begin(), only.end(), problems[p]->name()) == only.end()) {
      continue;
    }
    for (int s = 1; s <= seeds; ++s) {
      for (int v = 0; v < static_cast<int>(variants.size()); ++v) runs.push_back({p, v, s, {}, 0});
    }
  }
  std::atomic<size_t> next{0};
  std::mutex mutex;
  bool failed = false;
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < runs.size(); i = next++) {
        Run& run = runs[i];
        absl::Status status =
            RunStudy(*problems[run.problem], variants[run.variant], checkpoints, run);
        std::lock_guard<std::mutex> lock(mutex);
        if (!status.ok()) {
          std::cerr << problems[run.problem]->name() << " seed " << run.seed << ": " << status
                    << "\n";
          failed = true;
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  if (failed) return 1;

  std::cout << "| problem | trials | variant | median regret | quartiles | geo-mean ratio to "
               "baseline | wins/ties/losses vs baseline | suggest at the end |\n"
               "|---|---|---|---|---|---|---|---|\n";
  for (int p = 0; p < static_cast<int>(problems.size()); ++p) {
    for (size_t c = 0; c < checkpoints.size(); ++c) {
      std::vector<std::vector<double>> regrets(variants.size());
      std::vector<double> seconds(variants.size(), 0);
      for (const Run& run : runs) {
        if (run.problem != p) continue;
        regrets[run.variant].push_back(run.regrets[c]);
        seconds[run.variant] += run.late_suggest_seconds;
      }
      if (regrets[0].empty()) continue;
      for (size_t v = 0; v < variants.size(); ++v) {
        const Quartiles q = ComputeQuartiles(regrets[v]);
        double log_ratio = 0;
        int wins = 0, ties = 0, losses = 0;
        for (size_t i = 0; i < regrets[v].size(); ++i) {
          const double a = regrets[v][i], b = regrets[0][i];
          log_ratio += std::log((a + 1e-9) / (b + 1e-9));
          if (a < b)
            ++wins;
          else if (a == b)
            ++ties;
          else
            ++losses;
        }
        std::cout << absl::StrFormat(
            "| %s | %d | %s | %.4g | %.4g–%.4g | %.3f | %d/%d/%d | %.1f ms |\n",
            problems[p]->name(), checkpoints[c], variants[v].name, q.median, q.lower, q.upper,
            std::exp(log_ratio / regrets[v].size()), wins, ties, losses,
            1000 * seconds[v] / regrets[v].size());
      }
    }
  }
  return 0;
}
