#include "tuner/user_attributes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;
using Attributes = google::protobuf::Map<std::string, std::string>;
using Keys = google::protobuf::RepeatedPtrField<std::string>;

TEST(ApplyUserAttributesTest, SetsReplacesAndRemoves) {
  Attributes attributes;
  attributes["kept"] = "1";
  attributes["replaced"] = "\"old\"";
  attributes["gone"] = "true";
  Attributes set;
  set["replaced"] = "\"new\"";
  set["added"] = "[1, 2]";
  Keys remove;
  remove.Add("gone");
  remove.Add("never-there");
  ASSERT_TRUE(ApplyUserAttributes(set, remove, "study \"s\"", attributes).ok());
  EXPECT_EQ(attributes.size(), 3u);
  EXPECT_EQ(attributes.at("kept"), "1");
  EXPECT_EQ(attributes.at("replaced"), "\"new\"");
  EXPECT_EQ(attributes.at("added"), "[1, 2]");
}

TEST(ApplyUserAttributesTest, RefusesAnEmptyKeyNamingTheOwnerAndChangesNothing) {
  Attributes attributes;
  attributes["a"] = "1";
  Attributes set;
  set[""] = "1";
  set["b"] = "2";
  const absl::Status status = ApplyUserAttributes(set, Keys(), "study \"s\" trial 3", attributes);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("empty key"));
  EXPECT_THAT(status.message(), HasSubstr("study \"s\" trial 3"));
  EXPECT_EQ(attributes.size(), 1u);
}

TEST(ApplyUserAttributesTest, RefusesTooLongKeysAndValuesNamingThem) {
  Attributes attributes;
  Attributes long_key;
  long_key[std::string(kMaxUserAttributeKeyBytes + 1, 'k')] = "1";
  absl::Status status = ApplyUserAttributes(long_key, Keys(), "study \"s\"", attributes);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("at most 256"));
  Attributes long_value;
  long_value["notes"] = std::string(kMaxUserAttributeValueBytes + 1, 'v');
  status = ApplyUserAttributes(long_value, Keys(), "study \"s\"", attributes);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("attributes[\"notes\"]"));
  EXPECT_TRUE(attributes.empty());
}

TEST(ApplyUserAttributesTest, RefusesMoreThanTheLimitCountingWhatIsStored) {
  Attributes attributes;
  for (int i = 0; i < kMaxUserAttributes; ++i) attributes["a" + std::to_string(i)] = "1";
  Attributes one_more;
  one_more["extra"] = "1";
  const absl::Status status = ApplyUserAttributes(one_more, Keys(), "study \"s\"", attributes);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("at most 100"));
  // Replacing one while removing another stays within it.
  Keys remove;
  remove.Add("a0");
  EXPECT_TRUE(ApplyUserAttributes(one_more, remove, "study \"s\"", attributes).ok());
  EXPECT_EQ(attributes.size(), static_cast<size_t>(kMaxUserAttributes));
}

}  // namespace
}  // namespace vernier::tuner
