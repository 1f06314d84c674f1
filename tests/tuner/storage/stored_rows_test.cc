#include "tuner/storage/stored_rows.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::vernier::storage::testing::EqualsProto;
using ::vernier::storage::testing::IsOk;
using ::vernier::storage::testing::StatusIs;

constexpr char kTrial[] = "vernier.v1.Trial";

TEST(CheckBodyFramingTest, TakesWhatAMessageSerializesTo) {
  v1::Trial trial;
  trial.set_id(7);
  trial.set_study_name("s1");
  v1::ParameterValue& lr = *trial.add_parameters();
  lr.set_parameter_name("lr");
  lr.set_double_value(0.1);
  trial.mutable_final_measurement()->add_metrics()->set_value(1.5);
  EXPECT_THAT(CheckBodyFraming(SerializeBody(trial), "trial 7", kTrial), IsOk());
  EXPECT_THAT(CheckBodyFraming("", "trial 7", kTrial), IsOk());
}

TEST(CheckBodyFramingTest, RefusesBrokenFramingNamingTheRowAndTheMessage) {
  v1::Trial trial;
  trial.set_study_name("a study name");
  const std::string whole = SerializeBody(trial);
  const std::string cases[] = {
      whole.substr(0, whole.size() - 3),        // a length past the end
      std::string("\x00\x01", 2),               // tag 0
      std::string(11, '\xff'),                  // a varint of 11 bytes
      "\x0c",                                   // an end-group with no group
      "\x0f",                                   // wire type 7
      "\x09\x01\x02",                           // a fixed64 cut short
  };
  for (const std::string& bytes : cases) {
    EXPECT_THAT(CheckBodyFraming(bytes, "trial 3 of study \"s1\"", kTrial),
                StatusIs(absl::StatusCode::kInternal,
                         AllOf(HasSubstr("trial 3 of study \"s1\""), HasSubstr(kTrial),
                               HasSubstr("damaged"))))
        << ::testing::PrintToString(bytes);
  }
}

TEST(SerializeTrialsTest, KeepsIdsOrderAndToken) {
  Page<v1::Trial> page;
  page.items.resize(2);
  page.items[0].set_id(4);
  page.items[1].set_id(9);
  page.items[1].set_study_name("s1");
  page.next_page_token = "next";
  const Page<SerializedTrial> serialized = SerializeTrials(page);
  ASSERT_EQ(serialized.items.size(), 2u);
  EXPECT_EQ(serialized.items[0].id, 4);
  EXPECT_EQ(serialized.items[1].id, 9);
  v1::Trial parsed;
  ASSERT_TRUE(parsed.ParseFromString(serialized.items[1].bytes));
  EXPECT_THAT(parsed, EqualsProto(page.items[1]));
  EXPECT_EQ(serialized.next_page_token, "next");
}

}  // namespace
}  // namespace vernier::storage
