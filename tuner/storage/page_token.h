#ifndef VERNIER_TUNER_STORAGE_PAGE_TOKEN_H_
#define VERNIER_TUNER_STORAGE_PAGE_TOKEN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::storage {

// Page tokens name the last item of the page before, so a listing resumes
// after it even when rows are added meanwhile. They are URL-safe base64 of a
// tagged text, opaque to callers; a token that does not decode, or that
// another listing issued, is INVALID_ARGUMENT. Any store may use them.

std::string EncodeStudyPageToken(std::string_view last_study_name);
absl::StatusOr<std::string> DecodeStudyPageToken(std::string_view token);

std::string EncodeTrialPageToken(int64_t last_trial_id);
absl::StatusOr<int64_t> DecodeTrialPageToken(std::string_view token);

// Jobs are listed newest first, by create time then job id.
struct JobPageCursor {
  int64_t create_time_micros = 0;
  std::string job_id;
};
std::string EncodeJobPageToken(const JobPageCursor& last_job);
absl::StatusOr<JobPageCursor> DecodeJobPageToken(std::string_view token);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_PAGE_TOKEN_H_
