// The C++ push API, <vernier/report.h>, read back by the agent's reader.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <vernier/report.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/trainer-agent/captured_log.h"
#include "trainer-agent/output/hypertune_file_reader.h"

namespace vernier {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

class ReportHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_.path() + "/output.metrics"; }

  agent::testing::CapturedLog log_;
  testing::TempDir dir_;
  std::string path_;
};

TEST_F(ReportHeaderTest, RecordsAreReadWithTheirStepsMetricsAndTimes) {
  MetricReporter reporter(path_, "7");
  agent::HypertuneFileReader reader(path_, log_.logger());
  ASSERT_TRUE(reporter.Report(10, {{"accuracy", 0.5}, {"val/loss", 1.25e-3}})) << reporter.error();
  std::vector<v1::Measurement> first = reader.Poll();
  ASSERT_TRUE(reporter.Report(20, {{"accuracy", 0.1 + 0.2}}));
  std::vector<v1::Measurement> second = reader.Poll();
  ASSERT_THAT(first, SizeIs(1));
  ASSERT_THAT(second, SizeIs(1));
  EXPECT_EQ(first[0].step(), 10);
  ASSERT_THAT(first[0].metrics(), SizeIs(2));
  EXPECT_EQ(first[0].metrics(0).metric_id(), "accuracy");
  EXPECT_EQ(first[0].metrics(0).value(), 0.5);
  EXPECT_EQ(first[0].metrics(1).metric_id(), "val/loss");
  EXPECT_EQ(first[0].metrics(1).value(), 1.25e-3);
  EXPECT_GT(first[0].report_time().seconds(), 1'600'000'000);
  EXPECT_EQ(second[0].step(), 20);
  EXPECT_EQ(second[0].metrics(0).value(), 0.1 + 0.2) << "values keep every bit";
  EXPECT_THAT(std::string((std::istreambuf_iterator<char>(std::ifstream(path_).rdbuf())),
                          std::istreambuf_iterator<char>()),
              HasSubstr("\"trial\": \"7\""));
}

TEST_F(ReportHeaderTest, RecordsOfManyThreadsNeitherInterleaveNorGetLost) {
  MetricReporter reporter(path_, "");
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&reporter, thread] {
      for (int i = 1; i <= 500; ++i) {
        reporter.Report(thread * 1000 + i, {{"loss", 1.0 / i}, {"thread", thread * 1.0}});
      }
    });
  }
  agent::HypertuneFileReader reader(path_, log_.logger());
  std::vector<v1::Measurement> all;
  for (std::thread& thread : threads) thread.join();
  for (v1::Measurement& m : reader.Finish()) all.push_back(m);
  ASSERT_THAT(all, SizeIs(2000));
  std::set<int64_t> steps;
  for (const v1::Measurement& m : all) steps.insert(m.step());
  EXPECT_THAT(steps, SizeIs(2000));
  EXPECT_THAT(log_.Text(), ::testing::Not(HasSubstr("warning")));
}

TEST_F(ReportHeaderTest, NonFiniteValuesReachTheAgentWhichDropsThem) {
  MetricReporter reporter(path_, "");
  ASSERT_TRUE(reporter.Report(1, {{"loss", std::nan("")}, {"accuracy", 0.5}}));
  ASSERT_TRUE(reporter.Report(2, {{"loss", -INFINITY}}));
  agent::HypertuneFileReader reader(path_, log_.logger());
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].metrics(0).metric_id(), "accuracy");
  EXPECT_THAT(log_.Text(), HasSubstr("metric 'loss' is nan; dropped"));
  EXPECT_THAT(log_.Text(), HasSubstr("metric 'loss' is -inf; dropped"));
}

TEST_F(ReportHeaderTest, BadReportsFailWithTheReason) {
  MetricReporter reporter(path_, "");
  EXPECT_FALSE(reporter.Report(1, {{"top 5", 0.5}}));
  EXPECT_THAT(reporter.error(), HasSubstr("metric name 'top 5' is invalid"));
  EXPECT_FALSE(reporter.Report(1, {{"global_step", 3}}));
  EXPECT_THAT(reporter.error(), HasSubstr("'global_step' is reserved"));
  EXPECT_FALSE(reporter.Report(1, {}));
  EXPECT_THAT(reporter.error(), HasSubstr("no metrics given"));
  MetricReporter unwritable(dir_.path() + "/missing/dir/output.metrics", "");
  EXPECT_FALSE(unwritable.Report(1, {{"loss", 1}}));
  EXPECT_THAT(unwritable.error(), HasSubstr("cannot open"));
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(ReportHeaderTest, OutsideVernierReportsDoNothing) {
  unsetenv("CLOUD_ML_HP_METRIC_FILE");
  MetricReporter reporter;
  EXPECT_FALSE(reporter.enabled());
  EXPECT_TRUE(reporter.Report(1, {{"loss", 1}}));
  setenv("CLOUD_ML_HP_METRIC_FILE", path_.c_str(), 1);
  MetricReporter from_environment;
  EXPECT_TRUE(from_environment.enabled());
  EXPECT_EQ(from_environment.path(), path_);
  unsetenv("CLOUD_ML_HP_METRIC_FILE");
}

}  // namespace
}  // namespace vernier
