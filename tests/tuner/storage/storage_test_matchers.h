#ifndef VERNIER_TESTS_TUNER_STORAGE_STORAGE_TEST_MATCHERS_H_
#define VERNIER_TESTS_TUNER_STORAGE_STORAGE_TEST_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"

namespace vernier::storage::testing {

inline absl::Status StatusOf(const absl::Status& status) { return status; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// An absl::Status or absl::StatusOr that is OK.
MATCHER(IsOk, "is OK") {
  const absl::Status status = StatusOf(arg);
  if (!status.ok()) *result_listener << "whose status is " << status;
  return status.ok();
}

// An OK absl::StatusOr whose value matches `value_matcher`.
MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

// An absl::Status or absl::StatusOr with `code` whose message matches
// `message_matcher`, e.g. StatusIs(absl::StatusCode::kNotFound, HasSubstr("s1")).
MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + absl::StatusCodeToString(code) + " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const absl::Status status = StatusOf(arg);
  *result_listener << "whose status is " << status;
  if (status.code() != code) return false;
  return ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

// A protocol buffer message equal, field by field, to `expected`.
MATCHER_P(EqualsProto, expected, "equals " + expected.ShortDebugString()) {
  *result_listener << "which is " << arg.ShortDebugString();
  return google::protobuf::util::MessageDifferencer::Equals(arg, expected);
}

}  // namespace vernier::storage::testing

#endif  // VERNIER_TESTS_TUNER_STORAGE_STORAGE_TEST_MATCHERS_H_
