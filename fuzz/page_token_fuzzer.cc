// Fuzzes the page-token decoders with any text as a token: each gives a
// cursor or INVALID_ARGUMENT, and a decoded cursor encodes to a token that
// decodes to the same cursor. The input is also encoded as a study name and
// must come back unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tuner/storage/page_token.h"

namespace storage = vernier::storage;

namespace {

void CheckError(const absl::Status& status) {
  if (!absl::IsInvalidArgument(status)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view token(reinterpret_cast<const char*>(data), size);

  if (absl::StatusOr<std::string> name = storage::DecodeStudyPageToken(token); name.ok()) {
    absl::StatusOr<std::string> again =
        storage::DecodeStudyPageToken(storage::EncodeStudyPageToken(*name));
    if (!again.ok() || *again != *name) std::abort();
  } else {
    CheckError(name.status());
  }

  if (absl::StatusOr<int64_t> id = storage::DecodeTrialPageToken(token); id.ok()) {
    absl::StatusOr<int64_t> again =
        storage::DecodeTrialPageToken(storage::EncodeTrialPageToken(*id));
    if (!again.ok() || *again != *id) std::abort();
  } else {
    CheckError(id.status());
  }

  if (absl::StatusOr<storage::JobPageCursor> job = storage::DecodeJobPageToken(token); job.ok()) {
    absl::StatusOr<storage::JobPageCursor> again =
        storage::DecodeJobPageToken(storage::EncodeJobPageToken(*job));
    if (!again.ok() || again->create_time_micros != job->create_time_micros ||
        again->job_id != job->job_id) {
      std::abort();
    }
  } else {
    CheckError(job.status());
  }

  if (!token.empty()) {
    absl::StatusOr<std::string> name =
        storage::DecodeStudyPageToken(storage::EncodeStudyPageToken(token));
    if (!name.ok() || *name != token) std::abort();
  }
  return 0;
}
