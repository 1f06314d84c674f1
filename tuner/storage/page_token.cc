#include "tuner/storage/page_token.h"

#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "text/absl_view.h"

namespace vernier::storage {
namespace {

constexpr std::string_view kStudyTag = "study:";
constexpr std::string_view kTrialTag = "trial:";
constexpr std::string_view kJobTag = "job:";

absl::Status MalformedToken(std::string_view token, std::string_view listing) {
  constexpr size_t kShownLength = 64;
  return absl::InvalidArgumentError(
      absl::StrCat("page_token \"", text::AbslView(token.substr(0, kShownLength)),
                   token.size() > kShownLength ? "..." : "", "\" is not a token that a ",
                   text::AbslView(listing),
                   " listing returned; pass next_page_token unchanged or leave it empty"));
}

// The tagged text inside `token`, without the tag, or nothing when the token
// is not base64 or carries another tag.
std::optional<std::string> Unwrap(std::string_view token, std::string_view tag) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(text::AbslView(token), &text)) return std::nullopt;
  if (!std::string_view(text).starts_with(tag)) return std::nullopt;
  return text.substr(tag.size());
}

}  // namespace

std::string EncodeStudyPageToken(std::string_view last_study_name) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(text::AbslView(kStudyTag), text::AbslView(last_study_name)));
}

absl::StatusOr<std::string> DecodeStudyPageToken(std::string_view token) {
  std::optional<std::string> name = Unwrap(token, kStudyTag);
  if (!name.has_value() || name->empty()) return MalformedToken(token, "study");
  return *std::move(name);
}

std::string EncodeTrialPageToken(int64_t last_trial_id) {
  return absl::WebSafeBase64Escape(absl::StrCat(text::AbslView(kTrialTag), last_trial_id));
}

absl::StatusOr<int64_t> DecodeTrialPageToken(std::string_view token) {
  std::optional<std::string> text = Unwrap(token, kTrialTag);
  int64_t id = 0;
  if (!text.has_value() || !absl::SimpleAtoi(*text, &id) || id < 0) {
    return MalformedToken(token, "trial");
  }
  return id;
}

std::string EncodeJobPageToken(const JobPageCursor& last_job) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(text::AbslView(kJobTag), last_job.create_time_micros, ":", last_job.job_id));
}

absl::StatusOr<JobPageCursor> DecodeJobPageToken(std::string_view token) {
  std::optional<std::string> text = Unwrap(token, kJobTag);
  if (!text.has_value()) return MalformedToken(token, "job");
  const size_t colon = text->find(':');
  JobPageCursor cursor;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(absl::string_view(*text).substr(0, colon), &cursor.create_time_micros) ||
      colon + 1 == text->size()) {
    return MalformedToken(token, "job");
  }
  cursor.job_id = text->substr(colon + 1);
  return cursor;
}

}  // namespace vernier::storage
