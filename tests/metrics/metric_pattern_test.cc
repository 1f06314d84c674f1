#include "metrics/metric_pattern.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace vernier::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

std::vector<std::pair<std::string, std::string>> Found(const MetricPattern& pattern,
                                                       std::string_view line) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const MetricToken& token : pattern.Extract(line)) {
    found.emplace_back(std::string(token.name), std::string(token.value));
  }
  return found;
}

MetricPattern Compiled(std::string_view text) {
  absl::StatusOr<MetricPattern> pattern = MetricPattern::Compile(text);
  EXPECT_TRUE(pattern.ok()) << pattern.status();
  return *std::move(pattern);
}

TEST(MetricPatternTest, NameAndValueGroupsFindEveryMatchOfALine) {
  const MetricPattern pattern = Compiled(R"((?P<name>[\w/]+)\s*:\s*(?P<value>\S+))");
  EXPECT_THAT(Found(pattern, "Epoch 3 | val/loss: 0.25 | accuracy: 0.91"),
              ElementsAre(Pair("val/loss", "0.25"), Pair("accuracy", "0.91")));
  EXPECT_THAT(Found(pattern, "no metrics here"), IsEmpty());
}

TEST(MetricPatternTest, GroupsNamedAfterMetricsGiveOneMetricEach) {
  const MetricPattern pattern =
      Compiled(R"(epoch (?P<epoch>\d+) .*loss (?P<loss>[-+.\deE]+)(?: acc (?P<accuracy>\S+))?)");
  EXPECT_THAT(Found(pattern, "epoch 4 train loss 0.5 acc 0.75"),
              ElementsAre(Pair("accuracy", "0.75"), Pair("epoch", "4"), Pair("loss", "0.5")));
  // A group that took no part in the match gives nothing.
  EXPECT_THAT(Found(pattern, "epoch 5 train loss 0.4"),
              ElementsAre(Pair("epoch", "5"), Pair("loss", "0.4")));
}

TEST(MetricPatternTest, UnnamedGroupsAreNameThenValueAsInKatib) {
  // Katib's default metricsFormat.
  const MetricPattern pattern = Compiled(R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))");
  EXPECT_THAT(Found(pattern, "loss=0.5 accuracy = 1e-3"),
              ElementsAre(Pair("loss", "0.5"), Pair("accuracy", "1e-3")));
}

TEST(MetricPatternTest, AnchorsKeepTheirMeaningAcrossMatches) {
  const MetricPattern pattern = Compiled(R"(^(?P<name>\w+)=(?P<value>\S+))");
  EXPECT_THAT(Found(pattern, "loss=0.5 acc=0.9"), ElementsAre(Pair("loss", "0.5")));
}

TEST(MetricPatternTest, FindsAMetricAfterMegabytesOfText) {
  const MetricPattern pattern = Compiled(R"((?P<name>\w+)=(?P<value>[\d.]+))");
  std::string line(4 << 20, 'a');
  line += " loss=0.5";
  EXPECT_THAT(Found(pattern, line), ElementsAre(Pair("loss", "0.5")));
}

struct BadPattern {
  std::string pattern;
  std::string problem;
};

class MetricPatternErrorTest : public ::testing::TestWithParam<BadPattern> {};

TEST_P(MetricPatternErrorTest, NamesTheProblem) {
  const absl::StatusOr<MetricPattern> pattern = MetricPattern::Compile(GetParam().pattern);
  ASSERT_FALSE(pattern.ok());
  EXPECT_EQ(pattern.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pattern.status().message(), HasSubstr(GetParam().problem));
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, MetricPatternErrorTest,
    ::testing::Values(
        BadPattern{"", "the pattern is empty"},
        BadPattern{"loss=(?P<value>[0-9.]+", "not a valid RE2 regular expression: missing )"},
        BadPattern{R"((?P<name>\w+)=([0-9.]+))", "has a group named 'name' but none named 'value'"},
        BadPattern{R"(\w+=(?P<value>[0-9.]+))", "has a group named 'value' but none named 'name'"},
        BadPattern{R"((?P<name>\w+)=(?P<value>\S+) lr (?P<lr>\S+))",
                   "mixes (?P<name>...)/(?P<value>...) with metric groups 'lr'"},
        BadPattern{R"(loss=([0-9.]+))", "has 1 capturing group(s) and no named ones"},
        BadPattern{R"((?P<loss>[0-9.]*))", "matches the empty string"},
        // RE2 has no backreferences: no pattern can take exponential time.
        BadPattern{R"((a)\1)", "not a valid RE2 regular expression"}));

}  // namespace
}  // namespace vernier::metrics
