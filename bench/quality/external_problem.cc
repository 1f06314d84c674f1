#include "bench/quality/external_problem.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/text_format.h"

extern char** environ;

namespace vernier::bench {
namespace {

// One line without its newline; false at end of file.
bool ReadLine(FILE* from, std::string& line) {
  line.clear();
  int c;
  while ((c = std::fgetc(from)) != EOF && c != '\n') line.push_back(static_cast<char>(c));
  return c != EOF || !line.empty();
}

std::string JsonString(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted.push_back('\\');
    quoted.push_back(c);
  }
  return quoted + "\"";
}

}  // namespace

std::string ExternalProblem::PointJson(const suggest::ParameterAssignment& point) {
  std::string json = "[";
  for (size_t i = 0; i < point.size(); ++i) {
    if (i > 0) json += ", ";
    const v1::ParameterValue& value = point[i];
    switch (value.value_case()) {
      case v1::ParameterValue::kDoubleValue:
        json += absl::StrFormat("%.17g", value.double_value());
        break;
      case v1::ParameterValue::kIntValue:
        json += absl::StrCat(value.int_value());
        break;
      case v1::ParameterValue::kStringValue:
        json += JsonString(value.string_value());
        break;
      default:
        json += "null";
    }
  }
  return json + "]";
}

absl::StatusOr<std::unique_ptr<ExternalProblem>> ExternalProblem::Start(const std::string& command,
                                                                        const std::string& name) {
  std::unique_ptr<ExternalProblem> problem(new ExternalProblem(command, name));
  absl::StatusOr<std::unique_ptr<Process>> process = problem->Launch();
  if (!process.ok()) return process.status();
  std::string spec_line;
  std::string optimum_line;
  if (!ReadLine((*process)->from, spec_line) || !ReadLine((*process)->from, optimum_line)) {
    Stop(**process);
    return absl::FailedPreconditionError(absl::StrCat(
        "the evaluator \"", command, " ", name, "\" ended before describing the problem"));
  }
  if (!google::protobuf::TextFormat::ParseFromString(spec_line, &problem->spec_)) {
    Stop(**process);
    return absl::InvalidArgumentError(absl::StrCat("the evaluator of problem \"", name,
                                                   "\" wrote a StudySpec that does not parse: ",
                                                   spec_line));
  }
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(optimum_line), &problem->optimal_value_)) {
    Stop(**process);
    return absl::InvalidArgumentError(absl::StrCat(
        "the evaluator of problem \"", name, "\" wrote an optimal value that is not a number: \"",
        optimum_line, "\""));
  }
  problem->idle_.push_back(*std::move(process));
  return problem;
}

ExternalProblem::~ExternalProblem() {
  for (std::unique_ptr<Process>& process : idle_) Stop(*process);
}

absl::StatusOr<std::unique_ptr<ExternalProblem::Process>> ExternalProblem::Launch() const {
  // An evaluator that ended must not end the benchmark with SIGPIPE when it
  // is written to: the write fails instead, and the value is NaN.
  std::signal(SIGPIPE, SIG_IGN);
  int to_child[2];
  int from_child[2];
  // Close-on-exec: no other evaluator holds this one's stdin open, so that
  // closing it ends the process.
  if (pipe2(to_child, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return absl::InternalError("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  const std::string line = absl::StrCat(command_, " ", name_);
  std::string shell = "/bin/sh";
  std::string flag = "-c";
  std::string script = line;
  char* argv[] = {shell.data(), flag.data(), script.data(), nullptr};
  auto process = std::make_unique<Process>();
  const int spawned = posix_spawn(&process->pid, "/bin/sh", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    return absl::InternalError(absl::StrCat("cannot start \"", line, "\""));
  }
  process->to = fdopen(to_child[1], "w");
  process->from = fdopen(from_child[0], "r");
  return process;
}

void ExternalProblem::Stop(Process& process) {
  if (process.to != nullptr) std::fclose(process.to);
  if (process.from != nullptr) std::fclose(process.from);
  process.to = nullptr;
  process.from = nullptr;
  if (process.pid > 0) waitpid(process.pid, nullptr, 0);
  process.pid = -1;
}

double ExternalProblem::Ask(const std::string& request) const {
  std::unique_ptr<Process> process;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      process = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (process == nullptr) {
    absl::StatusOr<std::unique_ptr<Process>> launched = Launch();
    if (!launched.ok()) {
      std::cerr << name_ << ": " << launched.status().message() << "\n";
      return std::numeric_limits<double>::quiet_NaN();
    }
    process = *std::move(launched);
    std::string skipped;  // A new process describes the problem first.
    ReadLine(process->from, skipped);
    ReadLine(process->from, skipped);
  }
  std::string answer;
  double value = std::numeric_limits<double>::quiet_NaN();
  const bool answered = std::fputs((request + "\n").c_str(), process->to) >= 0 &&
                        std::fflush(process->to) == 0 && ReadLine(process->from, answer);
  if (!answered) {
    std::cerr << name_ << ": the evaluator ended\n";
    Stop(*process);
    return value;
  }
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(answer), &value)) {
    // A trial in the problem's failure region reports no value; anything
    // else is the evaluator's error, shown.
    if (!absl::StartsWith(answer, "infeasible")) std::cerr << name_ << ": " << answer << "\n";
    value = std::numeric_limits<double>::quiet_NaN();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(process));
  return value;
}

double ExternalProblem::Evaluate(const suggest::ParameterAssignment& point) const {
  return Ask(absl::StrCat("evaluate ", PointJson(point)));
}

double ExternalProblem::Observe(const suggest::ParameterAssignment& point, uint64_t seed,
                                int64_t trial_id) const {
  return Ask(absl::StrCat("observe ", seed, " ", trial_id, " ", PointJson(point)));
}

}  // namespace vernier::bench
