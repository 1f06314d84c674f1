// Suggestion quality: how close each designer gets to the known optimum of
// test functions within a trial budget (the final regret), sequentially, in
// batches and with trials running in parallel. A plain program, not a Google
// Benchmark: it measures regret; time is reported only alongside.
//
//   build/bin/suggest_quality_bench --threads 2 --markdown quality.md

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/quality/benchmark_problem.h"
#include "bench/quality/benchmark_problems.h"
#include "bench/quality/regret_table.h"
#include "bench/quality/simulated_study.h"

namespace vernier::bench {
namespace {

struct Options {
  std::vector<std::string> problems;
  std::vector<std::string> designers = {"random", "quasi", "gp"};
  std::vector<std::string> flows = {"sequential", "batched", "asynchronous"};
  int seeds = 10;
  int trials = 60;
  int parallelism = 4;
  int threads = 2;
  std::string markdown_path;
  std::string runs_path;
};

std::optional<v1::Algorithm> ParseDesigner(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "random") return v1::RANDOM_SEARCH;
  if (lower == "quasi" || lower == "quasi-random") return v1::QUASI_RANDOM_SEARCH;
  if (lower == "gp") return v1::GAUSSIAN_PROCESS_BANDIT;
  if (lower == "grid") return v1::GRID_SEARCH;
  v1::Algorithm algorithm;
  if (v1::Algorithm_Parse(absl::AsciiStrToUpper(name), &algorithm) &&
      algorithm != v1::ALGORITHM_UNSPECIFIED) {
    return algorithm;
  }
  return std::nullopt;
}

std::optional<TrialFlow> ParseFlow(const std::string& name) {
  for (TrialFlow flow : {TrialFlow::kSequential, TrialFlow::kBatched, TrialFlow::kAsynchronous}) {
    if (TrialFlowName(flow) == name) return flow;
  }
  return std::nullopt;
}

std::string FlowDescription(TrialFlow flow, int parallelism) {
  switch (flow) {
    case TrialFlow::kSequential:
      return "one trial at a time (count=1)";
    case TrialFlow::kBatched:
      return absl::StrCat("batches of ", parallelism, " (count=", parallelism,
                          ", each batch completed before the next is asked for)");
    case TrialFlow::kAsynchronous:
      return absl::StrCat(parallelism, " trials running: each completion asks for count=1 with ",
                          parallelism - 1, " trials pending");
  }
  return "";
}

// Everything one (designer, flow, problem, seed) run left.
struct RunSlot {
  std::optional<absl::StatusOr<StudyOutcome>> outcome;
};

struct DesignerTime {
  v1::Algorithm algorithm;
  // False when the designer is not in this build.
  bool available = true;
  int runs = 0;
  double wall_seconds = 0;
  int suggest_calls = 0;
  double suggest_seconds = 0;
  double max_suggest_seconds = 0;
  int duplicate_points = 0;
  int short_runs = 0;
};

// Runs every task on `threads` threads; each writes only its own slot, so
// the results do not depend on the number of threads.
template <typename Task>
void RunInParallel(size_t task_count, int threads, const Task& task) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < task_count; i = next++) task(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
}

int Main(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Suggestion quality: the final regret of each designer on test functions with known "
      "optima, median and quartiles over seeds, in markdown tables."};
  std::vector<std::unique_ptr<BenchmarkProblem>> all_problems = AllBenchmarkProblems();
  std::vector<std::string> problem_names;
  for (const auto& problem : all_problems) problem_names.push_back(problem->name());
  app.add_option("--problems", options.problems,
                 absl::StrCat("Problems, comma-separated (default all: ",
                              absl::StrJoin(problem_names, ","), ")"))
      ->delimiter(',');
  app.add_option("--designers", options.designers,
                 "Designers, comma-separated: random, quasi, gp, grid or an Algorithm name")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--modes", options.flows, "sequential, batched, asynchronous")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--seeds", options.seeds, "Studies per problem, seeds 1..N")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--trials", options.trials, "Trials per study")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--batch", options.parallelism,
                 "Trials per batch (batched) or running at once (asynchronous)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--threads", options.threads, "Studies run at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--markdown", options.markdown_path, "Also write the tables to this file");
  app.add_option("--runs", options.runs_path, "Write every run's result as CSV to this file");
  CLI11_PARSE(app, argc, argv);

  std::vector<const BenchmarkProblem*> problems;
  if (options.problems.empty()) options.problems = problem_names;
  for (const std::string& name : options.problems) {
    const BenchmarkProblem* found = nullptr;
    for (const auto& problem : all_problems) {
      if (problem->name() == name) found = problem.get();
    }
    if (found == nullptr) {
      std::cerr << "unknown problem \"" << name << "\"; the problems are "
                << absl::StrJoin(problem_names, ", ") << "\n";
      return 2;
    }
    problems.push_back(found);
  }
  std::vector<v1::Algorithm> designers;
  for (const std::string& name : options.designers) {
    std::optional<v1::Algorithm> algorithm = ParseDesigner(name);
    if (!algorithm.has_value()) {
      std::cerr << "unknown designer \"" << name
                << "\"; use random, quasi, gp, grid or an Algorithm name such as RANDOM_SEARCH\n";
      return 2;
    }
    designers.push_back(*algorithm);
  }
  std::vector<TrialFlow> flows;
  for (const std::string& name : options.flows) {
    std::optional<TrialFlow> flow = ParseFlow(name);
    if (!flow.has_value()) {
      std::cerr << "unknown mode \"" << name << "\"; use sequential, batched or asynchronous\n";
      return 2;
    }
    flows.push_back(*flow);
  }

  const size_t seeds = static_cast<size_t>(options.seeds);
  auto slot_index = [&](size_t designer, size_t flow, size_t problem, size_t seed) {
    return ((designer * flows.size() + flow) * problems.size() + problem) * seeds + seed;
  };
  std::vector<RunSlot> slots(designers.size() * flows.size() * problems.size() * seeds);
  // Per designer and problem: OK, or why it cannot run there.
  std::vector<std::vector<absl::Status>> availability(designers.size());
  std::vector<DesignerTime> times;

  for (size_t d = 0; d < designers.size(); ++d) {
    DesignerTime& time = times.emplace_back();
    time.algorithm = designers[d];
    std::vector<size_t> tasks;
    for (size_t p = 0; p < problems.size(); ++p) {
      availability[d].push_back(CheckDesigner(*problems[p], designers[d]));
      if (!availability[d][p].ok()) continue;
      for (size_t f = 0; f < flows.size(); ++f) {
        for (size_t s = 0; s < seeds; ++s) tasks.push_back(slot_index(d, f, p, s));
      }
    }
    if (absl::IsUnimplemented(availability[d].front())) {
      time.available = false;
      std::cerr << v1::Algorithm_Name(designers[d]) << ": not available ("
                << availability[d].front().message() << ")\n";
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    RunInParallel(tasks.size(), options.threads, [&](size_t task) {
      const size_t index = tasks[task];
      const size_t seed = index % seeds;
      const size_t problem = index / seeds % problems.size();
      const size_t flow = index / seeds / problems.size() % flows.size();
      StudyRun run{.algorithm = designers[d],
                   .seed = seed + 1,
                   .trials = options.trials,
                   .flow = flows[flow],
                   .parallelism = options.parallelism};
      slots[index].outcome = RunSimulatedStudy(*problems[problem], run);
    });
    time.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t index : tasks) {
      const absl::StatusOr<StudyOutcome>& outcome = *slots[index].outcome;
      ++time.runs;
      if (!outcome.ok()) continue;
      time.suggest_calls += outcome->suggest_calls;
      time.suggest_seconds += outcome->suggest_seconds;
      time.max_suggest_seconds = std::max(time.max_suggest_seconds, outcome->max_suggest_seconds);
      time.duplicate_points += outcome->duplicate_points;
      if (!outcome->shortfall_reason.empty()) ++time.short_runs;
    }
    std::cerr << absl::StrFormat("%s: %d runs in %.2f s\n", v1::Algorithm_Name(designers[d]),
                                 time.runs, time.wall_seconds);
  }

  std::string report = absl::StrFormat(
      "%d trials per study, %d seeds (1..%d), %d thread(s). Cells: median final regret "
      "[lower quartile, upper quartile] over the seeds; regret = best value found − f* "
      "(f* − best for max).\n",
      options.trials, options.seeds, options.seeds, options.threads);
  for (size_t f = 0; f < flows.size(); ++f) {
    std::vector<ProblemRegrets> rows;
    for (size_t p = 0; p < problems.size(); ++p) {
      ProblemRegrets& row = rows.emplace_back();
      const v1::StudySpec spec = problems[p]->Spec();
      row.problem = problems[p]->name();
      row.optimal_value = problems[p]->OptimalValue();
      row.goal = spec.metrics(0).goal();
      for (size_t d = 0; d < designers.size(); ++d) {
        DesignerRegrets& cell = row.designers.emplace_back();
        cell.algorithm = designers[d];
        cell.status = availability[d][p];
        if (!cell.status.ok()) continue;
        for (size_t s = 0; s < seeds; ++s) {
          const absl::StatusOr<StudyOutcome>& outcome = *slots[slot_index(d, f, p, s)].outcome;
          if (!outcome.ok()) {
            cell.status = outcome.status();
            cell.regrets.clear();
            break;
          }
          cell.regrets.push_back(outcome->regret);
        }
      }
    }
    absl::StrAppend(&report, "\n### ", TrialFlowName(flows[f]), ": ",
                    FlowDescription(flows[f], options.parallelism), "\n\n",
                    FormatRegretTable(rows));
  }

  absl::StrAppend(&report,
                  "\n### Time per designer\n\n| designer | runs | wall (s) | Suggest calls | "
                  "in Suggest (s) | mean per call (ms) | max per call (ms) | duplicate points | "
                  "runs cut short |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const DesignerTime& time : times) {
    if (time.runs == 0) {
      absl::StrAppend(&report, "| ", DesignerShortName(time.algorithm), " | ",
                      time.available ? "n/a" : "not available", " | | | | | | | |\n");
      continue;
    }
    absl::StrAppend(
        &report, absl::StrFormat(
                     "| %s | %d | %.2f | %d | %.2f | %.3g | %.3g | %d | %d |\n",
                     DesignerShortName(time.algorithm), time.runs, time.wall_seconds,
                     time.suggest_calls, time.suggest_seconds,
                     time.suggest_calls > 0 ? 1e3 * time.suggest_seconds / time.suggest_calls : 0.0,
                     1e3 * time.max_suggest_seconds, time.duplicate_points, time.short_runs));
  }

  std::cout << report;
  if (!options.markdown_path.empty()) {
    std::ofstream file(options.markdown_path);
    file << report;
    if (!file) {
      std::cerr << "cannot write " << options.markdown_path << "\n";
      return 1;
    }
  }
  if (!options.runs_path.empty()) {
    std::ofstream file(options.runs_path);
    file << "designer,mode,problem,seed,status,best_value,regret,completed_trials,"
            "duplicate_points,suggest_calls,suggest_seconds\n";
    for (size_t d = 0; d < designers.size(); ++d) {
      for (size_t f = 0; f < flows.size(); ++f) {
        for (size_t p = 0; p < problems.size(); ++p) {
          for (size_t s = 0; s < seeds; ++s) {
            const RunSlot& slot = slots[slot_index(d, f, p, s)];
            if (!slot.outcome.has_value()) continue;
            const absl::StatusOr<StudyOutcome>& outcome = *slot.outcome;
            file << absl::StrFormat(
                "%s,%s,%s,%d,%s,%.17g,%.17g,%d,%d,%d,%.6f\n", v1::Algorithm_Name(designers[d]),
                TrialFlowName(flows[f]), problems[p]->name(), s + 1,
                outcome.ok() ? "OK" : absl::StatusCodeToString(outcome.status().code()),
                outcome.ok() ? outcome->best_value : 0.0, outcome.ok() ? outcome->regret : 0.0,
                outcome.ok() ? outcome->completed_trials : 0,
                outcome.ok() ? outcome->duplicate_points : 0,
                outcome.ok() ? outcome->suggest_calls : 0,
                outcome.ok() ? outcome->suggest_seconds : 0.0);
          }
        }
      }
    }
    if (!file) {
      std::cerr << "cannot write " << options.runs_path << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) { return vernier::bench::Main(argc, argv); }
