#include "tuner/storage/stored_rows.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "text/absl_view.h"
#include "tuner/storage/trial_ranking.h"

namespace vernier::storage {

int64_t ToMicros(const google::protobuf::Timestamp& time) {
  return time.seconds() * 1000000 + time.nanos() / 1000;
}

absl::Status StudyNotFound(std::string_view study_name) {
  return absl::NotFoundError(absl::StrCat("study \"", text::AbslView(study_name), "\" not found"));
}

absl::Status TrialNotFound(std::string_view study_name, int64_t trial_id) {
  return absl::NotFoundError(
      absl::StrCat("study \"", text::AbslView(study_name), "\" has no trial ", trial_id));
}

absl::Status JobNotFound(std::string_view job_id) {
  return absl::NotFoundError(absl::StrCat("job \"", text::AbslView(job_id), "\" not found"));
}

absl::Status ApiTokenNotFound(std::string_view token_id) {
  return absl::NotFoundError(
      absl::StrCat("no API token with id \"", text::AbslView(token_id), "\""));
}

absl::Status NoTokenWithThatHash() { return absl::NotFoundError("no such API token"); }

absl::Status CheckApiTokenToCreate(std::string_view token_hash, const v1::ApiToken& token) {
  if (token_hash.empty()) return absl::InvalidArgumentError("an API token needs its hash");
  if (token.id().empty()) return absl::InvalidArgumentError("an API token needs an id");
  return absl::OkStatus();
}

absl::Status ApiTokenExists(std::string_view token_id) {
  return absl::AlreadyExistsError(
      absl::StrCat("an API token with id \"", text::AbslView(token_id), "\" or its hash exists"));
}

absl::Status CheckNoUnfinishedJobRuns(std::string_view study_name, std::span<const v1::Job> jobs) {
  for (const v1::Job& job : jobs) {
    if (job.study_name() != study_name) continue;
    if (std::find(std::begin(kUnfinishedJobStates), std::end(kUnfinishedJobStates), job.state()) ==
        std::end(kUnfinishedJobStates)) {
      continue;
    }
    return absl::FailedPreconditionError(
        absl::StrCat("study \"", text::AbslView(study_name), "\" is run by job \"", job.job_id(),
                     "\", which is ", v1::Job::State_Name(job.state()),
                     "; cancel the job first (`vernier jobs cancel ", job.job_id(),
                     "`), wait for it to end, then delete the study"));
  }
  return absl::OkStatus();
}

absl::Status CheckJobDeletable(const v1::Job& job) {
  if (std::find(std::begin(kUnfinishedJobStates), std::end(kUnfinishedJobStates), job.state()) ==
      std::end(kUnfinishedJobStates)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("job \"", job.job_id(), "\" is ", v1::Job::State_Name(job.state()),
                   " and cannot be deleted until it ends; cancel it first (`vernier jobs cancel ",
                   job.job_id(), "`) and wait for it to end"));
}

absl::Status CheckStudyNameOfNoJob(std::string_view study_name, std::span<const v1::Job> jobs) {
  for (const v1::Job& job : jobs) {
    if (job.study_name() != study_name) continue;
    return absl::AlreadyExistsError(absl::StrCat(
        "study name \"", text::AbslView(study_name), "\" belongs to job \"", job.job_id(),
        "\" (for good, even once its study is deleted, so that no late report from the job's "
        "replicas lands in another study); choose another name"));
  }
  return absl::OkStatus();
}

std::string DescribeTrial(std::string_view study_name, int64_t trial_id) {
  return absl::StrCat("trial ", trial_id, " of study \"", text::AbslView(study_name), "\"");
}

bool AcceptsMeasurements(v1::Trial::State state, std::span<const v1::Trial::State> accepting) {
  return accepting.empty() ||
         std::find(accepting.begin(), accepting.end(), state) != accepting.end();
}

absl::Status NotAcceptingMeasurements(std::string_view study_name, int64_t trial_id,
                                      v1::Trial::State state,
                                      std::span<const v1::Trial::State> accepting) {
  return absl::FailedPreconditionError(absl::StrCat(
      "study \"", text::AbslView(study_name), "\" trial ", trial_id, " is ",
      v1::Trial::State_Name(state), "; it accepts measurements only while it is ",
      absl::StrJoin(accepting, " or ", [](std::string* out, v1::Trial::State accepted) {
        absl::StrAppend(out, v1::Trial::State_Name(accepted));
      })));
}

absl::Status CheckPageSize(int page_size) {
  if (page_size >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("page_size is ", page_size, "; it must be positive, or 0 for no limit"));
}

absl::Status CheckLimit(int limit) {
  if (limit >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("limit is ", limit, "; it must be positive, or 0 for no limit"));
}

int64_t RowLimit(int page_size) {
  return page_size == 0 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(page_size) + 1;
}

absl::StatusOr<std::string> StudiesAfter(int page_size, std::string_view page_token) {
  VERNIER_RETURN_IF_ERROR(CheckPageSize(page_size));
  if (page_token.empty()) return "";
  return DecodeStudyPageToken(page_token);
}

absl::StatusOr<int64_t> TrialsAfter(const TrialQuery& query) {
  VERNIER_RETURN_IF_ERROR(CheckPageSize(query.page_size));
  if (query.page_token.empty()) return 0;
  return DecodeTrialPageToken(query.page_token);
}

absl::StatusOr<std::optional<JobPageCursor>> JobsAfter(int page_size, std::string_view page_token) {
  VERNIER_RETURN_IF_ERROR(CheckPageSize(page_size));
  if (page_token.empty()) return std::nullopt;
  absl::StatusOr<JobPageCursor> cursor = DecodeJobPageToken(page_token);
  if (!cursor.ok()) return cursor.status();
  return *std::move(cursor);
}

void FinishStudyPage(Page<v1::Study>& page, int page_size) {
  if (TrimToPage(page.items, page_size)) {
    page.next_page_token = EncodeStudyPageToken(page.items.back().name());
  }
}

void FinishJobPage(Page<v1::Job>& page, int page_size) {
  if (TrimToPage(page.items, page_size)) {
    const v1::Job& last = page.items.back();
    page.next_page_token = EncodeJobPageToken(
        JobPageCursor{.create_time_micros = ToMicros(last.create_time()), .job_id = last.job_id()});
  }
}

std::string SerializeBody(const google::protobuf::MessageLite& message) {
  std::string bytes;
  message.SerializeToString(&bytes);
  return bytes;
}

absl::Status CheckBodyFraming(std::string_view bytes, absl::string_view what,
                              absl::string_view message_name) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      // The end of the bytes, or a zero tag, which no message has.
      if (in.ConsumedEntireMessage()) return absl::OkStatus();
      break;
    }
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) break;
  }
  return absl::InternalError(absl::StrCat("the stored ", what, " does not parse as ", message_name,
                                          "; the database is damaged"));
}

absl::Status CheckTrialBodies(std::string_view study_name,
                              std::span<const SerializedTrial> trials) {
  for (const SerializedTrial& trial : trials) {
    VERNIER_RETURN_IF_ERROR(CheckBodyFraming(trial.bytes, DescribeTrial(study_name, trial.id),
                                             v1::Trial::descriptor()->full_name()));
  }
  return absl::OkStatus();
}

Page<SerializedTrial> SerializeTrials(const Page<v1::Trial>& page) {
  Page<SerializedTrial> bodies;
  bodies.items.reserve(page.items.size());
  for (const v1::Trial& trial : page.items) {
    bodies.items.push_back({trial.id(), SerializeBody(trial)});
  }
  bodies.next_page_token = page.next_page_token;
  return bodies;
}

absl::Status FinishTrialBodyPage(std::string_view study_name, Page<SerializedTrial>& page,
                                 int page_size) {
  const bool more_pages = TrimToPage(page.items, page_size);
  VERNIER_RETURN_IF_ERROR(CheckTrialBodies(study_name, page.items));
  if (more_pages) page.next_page_token = EncodeTrialPageToken(page.items.back().id);
  return absl::OkStatus();
}

std::optional<double> RankKey(const v1::Trial& trial, const v1::StudySpec& spec) {
  const std::optional<double> objective = tuner::FinalObjective(trial, spec);
  if (!objective.has_value()) return std::nullopt;
  return spec.metrics(0).goal() == v1::MetricSpec::MINIMIZE ? *objective : -*objective;
}

v1::Trial NewTrialRow(const v1::Trial& requested, std::string_view study_name, int64_t id) {
  v1::Trial trial = requested;
  trial.set_id(id);
  trial.set_study_name(std::string(study_name));
  trial.clear_measurements();
  trial.clear_latest_measurement();
  trial.set_measurement_count(0);
  return trial;
}

void KeepStoreOwnedFields(const v1::Trial& stored, v1::Trial& mutated) {
  mutated.set_id(stored.id());
  mutated.set_study_name(stored.study_name());
  mutated.clear_measurements();
  if (stored.has_latest_measurement()) {
    *mutated.mutable_latest_measurement() = stored.latest_measurement();
  } else {
    mutated.clear_latest_measurement();
  }
  mutated.set_measurement_count(stored.measurement_count());
}

absl::StatusOr<v1::Job> JobToCreate(const v1::Job& job, const v1::Study& study) {
  if (job.job_id().empty()) return absl::InvalidArgumentError("job.job_id is empty");
  if (study.name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the study of job \"", job.job_id(), "\" has an empty name"));
  }
  if (!job.study_name().empty() && job.study_name() != study.name()) {
    return absl::InvalidArgumentError(absl::StrCat("job \"", job.job_id(), "\" names study \"",
                                                   job.study_name(), "\" but comes with study \"",
                                                   study.name(), "\""));
  }
  v1::Job stored = job;
  stored.set_study_name(study.name());
  return stored;
}

}  // namespace vernier::storage
