#include "scheduler/slurm/slurm_output_parser.h"

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace vernier::scheduler {
namespace {

absl::Status Unreadable(absl::string_view what, absl::string_view text, absl::string_view why) {
  return absl::InternalError(
      absl::StrCat("cannot read ", what, " '", absl::StripAsciiWhitespace(text), "': ", why));
}

// "CODE:SIGNAL" as in ExitCode=0:15.
absl::Status ParseExitCode(absl::string_view text, SlurmJobInfo& job) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &job.exit_code) ||
      !absl::SimpleAtoi(parts[1], &job.term_signal)) {
    return Unreadable("the exit code", text, "expected CODE:SIGNAL");
  }
  return absl::OkStatus();
}

// GRES=gpu:3(IDX:0-2) or gpu:a100:2(IDX:1,3),mps:...: the GPU indexes.
absl::Status AppendGpuIndexes(absl::string_view gres, std::vector<int>& gpus) {
  // Commas separate both entries and indexes inside IDX:..., so walk the
  // entries by their "gpu" name and closing parenthesis.
  size_t at = 0;
  while ((at = gres.find("gpu", at)) != absl::string_view::npos) {
    const size_t open = gres.find("(IDX:", at);
    if (open == absl::string_view::npos) break;
    const size_t close = gres.find(')', open);
    if (close == absl::string_view::npos) return Unreadable("GRES", gres, "unclosed (IDX:");
    absl::StatusOr<std::vector<int>> indexes =
        ParseIndexList(gres.substr(open + 5, close - open - 5));
    if (!indexes.ok()) return indexes.status();
    gpus.insert(gpus.end(), indexes->begin(), indexes->end());
    at = close;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ParseSbatchJobId(absl::string_view output) {
  absl::string_view line = absl::StripAsciiWhitespace(output);
  line = line.substr(0, line.find(';'));
  uint64_t id = 0;
  if (line.empty() || !absl::SimpleAtoi(line, &id)) {
    return Unreadable("sbatch's answer", output, "expected a job id");
  }
  return std::string(line);
}

absl::StatusOr<SlurmJobInfo> ParseScontrolJob(absl::string_view output) {
  SlurmJobInfo job;
  std::string batch_host;
  for (absl::string_view word : absl::StrSplit(output, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    const size_t equals = word.find('=');
    if (equals == absl::string_view::npos) continue;
    const absl::string_view key = word.substr(0, equals);
    const absl::string_view value = word.substr(equals + 1);
    if (key == "JobId") {
      // -d -o also prints the job's array or het ids; the first JobId counts.
      if (job.job_id.empty()) job.job_id = std::string(value);
    } else if (key == "JobState") {
      job.state = std::string(value);
    } else if (key == "Reason") {
      job.reason = std::string(value);
    } else if (key == "ExitCode") {
      VERNIER_RETURN_IF_ERROR(ParseExitCode(value, job));
    } else if (key == "NodeList") {
      if (value != "(null)") job.node_list = std::string(value);
    } else if (key == "BatchHost") {
      batch_host = std::string(value);
    } else if (key == "GRES") {
      VERNIER_RETURN_IF_ERROR(AppendGpuIndexes(value, job.gpus));
    }
  }
  if (job.job_id.empty() || job.state.empty()) {
    return Unreadable("scontrol's job record", output.substr(0, 200), "no JobId or JobState");
  }
  if (job.node_list.empty()) job.node_list = batch_host;
  return job;
}

absl::StatusOr<SlurmJobInfo> ParseSacctJob(absl::string_view output) {
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '|');
    if (fields.size() < 4)
      return Unreadable("sacct's row", line, "expected JobID|State|ExitCode|NodeList");
    SlurmJobInfo job;
    job.job_id = std::string(fields[0]);
    // "CANCELLED by 0" names who cancelled it.
    job.state = std::string(fields[1].substr(0, fields[1].find(' ')));
    VERNIER_RETURN_IF_ERROR(ParseExitCode(fields[2], job));
    if (fields[3] != "None assigned") job.node_list = std::string(fields[3]);
    return job;
  }
  return absl::NotFoundError("sacct has no row for the job");
}

absl::StatusOr<std::vector<SlurmNodeInfo>> ParseSinfoNodes(absl::string_view output) {
  std::vector<SlurmNodeInfo> nodes;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> fields =
        absl::StrSplit(absl::StripAsciiWhitespace(line), '|');
    if (fields.size() != 3)
      return Unreadable("sinfo's node line", line, "expected NODE|GRES|STATE");
    absl::StatusOr<int> gpus = ParseGresGpuCount(fields[1]);
    if (!gpus.ok()) return gpus.status();
    nodes.push_back({std::string(fields[0]), *gpus, std::string(fields[2])});
  }
  return nodes;
}

absl::StatusOr<int> ParseGresGpuCount(absl::string_view gres) {
  int total = 0;
  // Entries are NAME[:TYPE]:COUNT[(S:...)]; a socket list in parentheses
  // may itself hold commas, so drop parenthesised parts first.
  std::string flat;
  int depth = 0;
  for (char c : gres) {
    if (c == '(') ++depth;
    if (depth == 0) flat.push_back(c);
    if (c == ')' && depth > 0) --depth;
  }
  for (absl::string_view entry : absl::StrSplit(flat, ',', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    if (parts[0] != "gpu") continue;
    int count = 1;
    if (parts.size() > 1 && !absl::SimpleAtoi(parts.back(), &count)) {
      // gpu:TYPE with no count means one.
      if (parts.size() != 2) return Unreadable("Gres", gres, "a GPU count is not a number");
      count = 1;
    }
    total += count;
  }
  return total;
}

absl::StatusOr<std::vector<int>> ParseIndexList(absl::string_view text) {
  std::vector<int> indexes;
  for (absl::string_view range : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> ends = absl::StrSplit(range, '-');
    int first = 0;
    int last = 0;
    if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &first) ||
        !absl::SimpleAtoi(ends.back(), &last) || first < 0 || last < first) {
      return Unreadable("the index list", text, absl::StrCat("'", range, "' is not N or N-M"));
    }
    for (int index = first; index <= last; ++index) indexes.push_back(index);
  }
  return indexes;
}

bool IsEndedJobState(absl::string_view state) {
  constexpr std::array<absl::string_view, 11> kEnded = {
      "BOOT_FAIL",     "CANCELLED", "COMPLETED", "DEADLINE",     "FAILED", "NODE_FAIL",
      "OUT_OF_MEMORY", "PREEMPTED", "REVOKED",   "SPECIAL_EXIT", "TIMEOUT"};
  return std::find(kEnded.begin(), kEnded.end(), state) != kEnded.end();
}

bool IsWaitingJobState(absl::string_view state) {
  return state == "PENDING" || state == "CONFIGURING" || state == "REQUEUED" ||
         state == "REQUEUE_HOLD" || state == "REQUEUE_FED" || state == "RESV_DEL_HOLD";
}

}  // namespace vernier::scheduler
