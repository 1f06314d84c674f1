// Suggestion quality: how close each designer gets to the known optimum of
// test functions within a trial budget (the final regret), sequentially, in
// batches and with trials running in parallel. A plain program, not a Google
// Benchmark: it measures regret; time is reported only alongside.
//
//   build/bin/suggest_quality_bench --threads 2 --markdown quality.md

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include "bench/quality/external_problem.h"
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
  std::string evaluator;
  std::vector<std::string> external_problems;
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

// The studies to run, resolved from the options.
struct Selection {
  std::vector<const BenchmarkProblem*> problems;
  std::vector<v1::Algorithm> designers;
  std::vector<TrialFlow> flows;
  size_t seeds = 0;

  size_t RunCount() const { return designers.size() * flows.size() * problems.size() * seeds; }
  // Where the run of (designer, flow, problem, seed) keeps its outcome.
  size_t RunIndex(size_t designer, size_t flow, size_t problem, size_t seed) const {
    return ((designer * flows.size() + flow) * problems.size() + problem) * seeds + seed;
  }
};

// The selection, or the error to print for an unknown name.
absl::StatusOr<Selection> Select(
    const Options& options, const std::vector<std::unique_ptr<BenchmarkProblem>>& all_problems) {
  Selection selection;
  selection.seeds = static_cast<size_t>(options.seeds);
  std::vector<std::string> problem_names;
  for (const auto& problem : all_problems) problem_names.push_back(problem->name());
  for (const std::string& name : options.problems) {
    auto found = std::find(problem_names.begin(), problem_names.end(), name);
    if (found == problem_names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown problem \"", name, "\"; the problems are ", absl::StrJoin(problem_names, ", ")));
    }
    selection.problems.push_back(all_problems[found - problem_names.begin()].get());
  }
  if (options.problems.empty()) {
    for (const auto& problem : all_problems) selection.problems.push_back(problem.get());
  }
  for (const std::string& name : options.designers) {
    std::optional<v1::Algorithm> algorithm = ParseDesigner(name);
    if (!algorithm.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown designer \"", name,
                       "\"; use random, quasi, gp, grid or an Algorithm name such as "
                       "RANDOM_SEARCH"));
    }
    selection.designers.push_back(*algorithm);
  }
  for (const std::string& name : options.flows) {
    std::optional<TrialFlow> flow = ParseFlow(name);
    if (!flow.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown mode \"", name, "\"; use sequential, batched or asynchronous"));
    }
    selection.flows.push_back(*flow);
  }
  return selection;
}

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

using Outcomes = std::vector<std::optional<absl::StatusOr<StudyOutcome>>>;

std::string FormatRegretTables(const Options& options, const Selection& selection,
                               const std::vector<std::vector<absl::Status>>& availability,
                               const Outcomes& outcomes) {
  std::string report;
  for (size_t f = 0; f < selection.flows.size(); ++f) {
    std::vector<ProblemRegrets> rows;
    for (size_t p = 0; p < selection.problems.size(); ++p) {
      const BenchmarkProblem& problem = *selection.problems[p];
      ProblemRegrets& row = rows.emplace_back();
      row.problem = problem.name();
      row.optimal_value = problem.OptimalValue();
      row.goal = problem.Spec().metrics(0).goal();
      for (size_t d = 0; d < selection.designers.size(); ++d) {
        DesignerRegrets& cell = row.designers.emplace_back();
        cell.algorithm = selection.designers[d];
        cell.status = availability[d][p];
        for (size_t s = 0; s < selection.seeds && cell.status.ok(); ++s) {
          const absl::StatusOr<StudyOutcome>& outcome = *outcomes[selection.RunIndex(d, f, p, s)];
          if (outcome.ok()) {
            cell.regrets.push_back(outcome->regret);
          } else {
            cell.status = outcome.status();
            cell.regrets.clear();
          }
        }
      }
    }
    absl::StrAppend(&report, "\n### ", TrialFlowName(selection.flows[f]), ": ",
                    FlowDescription(selection.flows[f], options.parallelism), "\n\n",
                    FormatRegretTable(rows));
  }
  return report;
}

std::string FormatTimeTable(const std::vector<DesignerTime>& times) {
  std::string table =
      "\n### Time per designer\n\n| designer | runs | wall (s) | Suggest calls | in Suggest (s) | "
      "mean per call (ms) | max per call (ms) | duplicate points | runs cut short |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const DesignerTime& time : times) {
    if (time.runs == 0) {
      absl::StrAppend(&table, "| ", DesignerShortName(time.algorithm), " | ",
                      time.available ? "n/a" : "not available", " | | | | | | | |\n");
      continue;
    }
    const double mean_ms =
        time.suggest_calls > 0 ? 1e3 * time.suggest_seconds / time.suggest_calls : 0.0;
    absl::StrAppend(
        &table,
        absl::StrFormat("| %s | %d | %.2f | %d | %.2f | %.3g | %.3g | %d | %d |\n",
                        DesignerShortName(time.algorithm), time.runs, time.wall_seconds,
                        time.suggest_calls, time.suggest_seconds, mean_ms,
                        1e3 * time.max_suggest_seconds, time.duplicate_points, time.short_runs));
  }
  return table;
}

std::string FormatRunsCsv(const Selection& selection, const Outcomes& outcomes) {
  std::string csv =
      "designer,mode,problem,seed,status,best_value,regret,completed_trials,duplicate_points,"
      "suggest_calls,suggest_seconds,infeasible_trials\n";
  for (size_t d = 0; d < selection.designers.size(); ++d) {
    for (size_t f = 0; f < selection.flows.size(); ++f) {
      for (size_t p = 0; p < selection.problems.size(); ++p) {
        for (size_t s = 0; s < selection.seeds; ++s) {
          const auto& slot = outcomes[selection.RunIndex(d, f, p, s)];
          if (!slot.has_value()) continue;
          absl::StrAppend(&csv, v1::Algorithm_Name(selection.designers[d]), ",",
                          TrialFlowName(selection.flows[f]), ",", selection.problems[p]->name(),
                          ",", s + 1, ",");
          if (!slot->ok()) {
            absl::StrAppend(&csv, absl::StatusCodeToString(slot->status().code()), ",,,,,,,\n");
            continue;
          }
          const StudyOutcome& outcome = **slot;
          absl::StrAppend(&csv,
                          absl::StrFormat("OK,%.17g,%.17g,%d,%d,%d,%.6f,%d\n", outcome.best_value,
                                          outcome.regret, outcome.completed_trials,
                                          outcome.duplicate_points, outcome.suggest_calls,
                                          outcome.suggest_seconds, outcome.infeasible_trials));
        }
      }
    }
  }
  return csv;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) std::cerr << "cannot write " << path << "\n";
  return static_cast<bool>(file);
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
  app.add_option("--runs", options.runs_path, "Write every study's result as CSV to this file");
  app.add_option("--evaluator", options.evaluator,
                 "A program evaluating more problems (ExternalProblem), e.g. \"/usr/bin/python3 "
                 "bench/realistic/evaluator.py\"");
  app.add_option("--external", options.external_problems,
                 "Problems of --evaluator to add, comma-separated")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  if (!options.external_problems.empty() && options.evaluator.empty()) {
    std::cerr << "--external needs --evaluator\n";
    return 2;
  }
  for (const std::string& name : options.external_problems) {
    absl::StatusOr<std::unique_ptr<ExternalProblem>> problem =
        ExternalProblem::Start(options.evaluator, name);
    if (!problem.ok()) {
      std::cerr << problem.status().message() << "\n";
      return 2;
    }
    all_problems.push_back(*std::move(problem));
  }

  absl::StatusOr<Selection> selected = Select(options, all_problems);
  if (!selected.ok()) {
    std::cerr << selected.status().message() << "\n";
    return 2;
  }
  const Selection& selection = *selected;
  Outcomes outcomes(selection.RunCount());
  // Per designer and problem: OK, or why the designer cannot run there.
  std::vector<std::vector<absl::Status>> availability(selection.designers.size());
  std::vector<DesignerTime> times;

  // One designer after the other, so that each has its own wall time.
  for (size_t d = 0; d < selection.designers.size(); ++d) {
    DesignerTime& time = times.emplace_back();
    time.algorithm = selection.designers[d];
    std::vector<size_t> runs;
    for (size_t p = 0; p < selection.problems.size(); ++p) {
      availability[d].push_back(CheckDesigner(*selection.problems[p], time.algorithm));
      if (!availability[d][p].ok()) continue;
      for (size_t f = 0; f < selection.flows.size(); ++f) {
        for (size_t s = 0; s < selection.seeds; ++s) runs.push_back(selection.RunIndex(d, f, p, s));
      }
    }
    if (absl::IsUnimplemented(availability[d].front())) {
      time.available = false;
      std::cerr << v1::Algorithm_Name(time.algorithm) << ": not available ("
                << availability[d].front().message() << ")\n";
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    RunInParallel(runs.size(), options.threads, [&](size_t i) {
      const size_t index = runs[i];
      const size_t seed = index % selection.seeds;
      const size_t problem = index / selection.seeds % selection.problems.size();
      const size_t flow =
          index / selection.seeds / selection.problems.size() % selection.flows.size();
      const StudyRun run{.algorithm = time.algorithm,
                         .seed = seed + 1,
                         .trials = options.trials,
                         .flow = selection.flows[flow],
                         .parallelism = options.parallelism};
      outcomes[index] = RunSimulatedStudy(*selection.problems[problem], run);
    });
    time.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t index : runs) {
      const absl::StatusOr<StudyOutcome>& outcome = *outcomes[index];
      ++time.runs;
      if (!outcome.ok()) continue;
      time.suggest_calls += outcome->suggest_calls;
      time.suggest_seconds += outcome->suggest_seconds;
      time.max_suggest_seconds = std::max(time.max_suggest_seconds, outcome->max_suggest_seconds);
      time.duplicate_points += outcome->duplicate_points;
      if (!outcome->shortfall_reason.empty()) ++time.short_runs;
    }
    std::cerr << absl::StrFormat("%s: %d runs in %.2f s\n", v1::Algorithm_Name(time.algorithm),
                                 time.runs, time.wall_seconds);
  }

  const std::string report = absl::StrCat(
      absl::StrFormat("%d trials per study, %d seeds (1..%d), %d thread(s). Cells: median final "
                      "regret [lower quartile, upper quartile] over the seeds; regret = best value "
                      "found − f* (f* − best for max).\n",
                      options.trials, options.seeds, options.seeds, options.threads),
      FormatRegretTables(options, selection, availability, outcomes), FormatTimeTable(times));
  std::cout << report << std::flush;
  if (!options.markdown_path.empty() && !WriteFile(options.markdown_path, report)) return 1;
  if (!options.runs_path.empty() &&
      !WriteFile(options.runs_path, FormatRunsCsv(selection, outcomes))) {
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) { return vernier::bench::Main(argc, argv); }
