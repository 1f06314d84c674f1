#ifndef VERNIER_TUNER_STORAGE_STORED_ROWS_H_
#define VERNIER_TUNER_STORAGE_STORED_ROWS_H_

// What every store shares about its rows: the serialized vernier.v1 message
// in a `body` column, the columns derived from it, the store-owned fields of
// a trial, and the errors that name what is missing.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/timestamp.pb.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/auth.pb.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {

int64_t ToMicros(const google::protobuf::Timestamp& time);

absl::Status StudyNotFound(std::string_view study_name);
absl::Status TrialNotFound(std::string_view study_name, int64_t trial_id);
absl::Status JobNotFound(std::string_view job_id);
// "no API token with id \"ID\"" (NOT_FOUND); FindApiToken's NOT_FOUND says
// "no such token" and never shows the hash.
absl::Status ApiTokenNotFound(std::string_view token_id);
absl::Status NoTokenWithThatHash();
// INVALID_ARGUMENT for an empty hash or id: CreateApiToken's checks.
absl::Status CheckApiTokenToCreate(std::string_view token_hash, const v1::ApiToken& token);
absl::Status ApiTokenExists(std::string_view token_id);
// The states of a job that has not ended: its replicas may still run and
// report, so its study must stay.
inline constexpr v1::Job::State kUnfinishedJobStates[] = {v1::Job::QUEUED, v1::Job::PREPARING,
                                                          v1::Job::RUNNING, v1::Job::CANCELLING};
// FAILED_PRECONDITION refusing to delete `study_name` if one of `jobs` (read
// in the deleting transaction) runs it and has not ended, naming the job
// and saying to cancel it first; else OK.
absl::Status CheckNoUnfinishedJobRuns(std::string_view study_name, std::span<const v1::Job> jobs);
// ALREADY_EXISTS naming the job if one of `jobs` (every job, read in the
// creating transaction) has or had a study named `study_name`: a job's
// study name is never reused, even once its study is deleted, so a late
// report from the job's replicas never lands in another study.
// OK when the job has ended; else FAILED_PRECONDITION naming its state and
// saying to cancel it first (Storage::DeleteJob).
absl::Status CheckJobDeletable(const v1::Job& job);

absl::Status CheckStudyNameOfNoJob(std::string_view study_name, std::span<const v1::Job> jobs);
// "trial 3 of study \"s1\"".
std::string DescribeTrial(std::string_view study_name, int64_t trial_id);
// Whether AddMeasurements takes measurements for a trial in `state`.
bool AcceptsMeasurements(v1::Trial::State state, std::span<const v1::Trial::State> accepting);
// FAILED_PRECONDITION: "study \"s1\" trial 3 is SUCCEEDED; it accepts
// measurements only while it is ACTIVE or STOPPING".
absl::Status NotAcceptingMeasurements(std::string_view study_name, int64_t trial_id,
                                      v1::Trial::State state,
                                      std::span<const v1::Trial::State> accepting);

// INVALID_ARGUMENT for a negative page size.
absl::Status CheckPageSize(int page_size);
// INVALID_ARGUMENT for a negative limit.
absl::Status CheckLimit(int limit);
// Rows to ask for: one more than the page, to learn whether another page
// follows; no limit for page size 0.
int64_t RowLimit(int page_size);
// Cuts the extra row RowLimit() asked for, and says whether there was one.
template <typename Message>
bool TrimToPage(std::vector<Message>& items, int page_size) {
  if (page_size == 0 || static_cast<int64_t>(items.size()) <= page_size) return false;
  items.resize(page_size);
  return true;
}

// Where a listing resumes, from its page size and token (both checked):
// after this study name ("" on the first page), trial id (0 on the first
// page), or job (none on the first page).
absl::StatusOr<std::string> StudiesAfter(int page_size, std::string_view page_token);
absl::StatusOr<int64_t> TrialsAfter(const TrialQuery& query);
absl::StatusOr<std::optional<JobPageCursor>> JobsAfter(int page_size, std::string_view page_token);
// Trims the extra row of RowLimit() and sets next_page_token when there was one.
void FinishStudyPage(Page<v1::Study>& page, int page_size);
void FinishJobPage(Page<v1::Job>& page, int page_size);
// FinishStudyPage for ListTrialBodies: the page trimmed, then its bodies'
// framing checked (CheckTrialBodies), then the token of its last trial set.
absl::Status FinishTrialBodyPage(std::string_view study_name, Page<SerializedTrial>& page,
                                 int page_size);

std::string SerializeBody(const google::protobuf::MessageLite& message);
// INTERNAL naming `what` when the bytes are not a `Message`.
template <typename Message>
absl::StatusOr<Message> ParseBody(std::string_view bytes, absl::string_view what) {
  Message message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InternalError(absl::StrCat("the stored ", what, " does not parse as ",
                                            Message::descriptor()->full_name(),
                                            "; the database is damaged"));
  }
  return message;
}

// INTERNAL naming `what` when the bytes are not a well-framed message (tags,
// lengths and varints that end where the bytes do): the check a body passed
// on unparsed gets. Field contents are not checked.
absl::Status CheckBodyFraming(std::string_view bytes, absl::string_view what,
                              absl::string_view message_name);
// CheckBodyFraming of each of a study's trials, naming the first broken one.
absl::Status CheckTrialBodies(std::string_view study_name, std::span<const SerializedTrial> trials);
// Each trial of `page`, serialized: ListTrialBodies from ListTrials.
Page<SerializedTrial> SerializeTrials(const Page<v1::Trial>& page);

// The `rank_key` column of a trial row, which orders the leaderboard
// ascending: the final value of the study's first metric, negated unless the
// goal is MINIMIZE; none for a trial without a final objective.
std::optional<double> RankKey(const v1::Trial& trial, const v1::StudySpec& spec);

// A trial as CreateTrials stores it: the given id and study, no measurements.
v1::Trial NewTrialRow(const v1::Trial& requested, std::string_view study_name, int64_t id);
// Undoes a mutator's changes to the fields the store owns (id, study name,
// measurements, latest_measurement, measurement_count).
void KeepStoreOwnedFields(const v1::Trial& stored, v1::Trial& mutated);

// The argument checks CreateJob makes before touching the store; returns the
// job as stored, its study_name filled from `study`.
absl::StatusOr<v1::Job> JobToCreate(const v1::Job& job, const v1::Study& study);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_STORED_ROWS_H_
