#include "trainer-agent/output/hypertune_file_reader.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/trainer-agent/captured_log.h"

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

class HypertuneFileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "hypertune_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/output.metrics";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes the whole file as the library does (truncate, write) and moves its
  // modification time forward, so that every write changes the stamp even
  // within one tick of the file system clock.
  void Rewrite(const std::string& content) {
    {
      std::ofstream out(path_, std::ios::trunc | std::ios::binary);
      out << content;
    }
    ++fake_mtime_;
    const timespec times[2] = {{fake_mtime_, 0}, {fake_mtime_, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path_.c_str(), times, 0), 0);
  }

  // Appends as vernier.report and vernier/report.h do; the modification time
  // moves forward as in Rewrite.
  void Append(const std::string& text) {
    {
      std::ofstream out(path_, std::ios::app | std::ios::binary);
      out << text;
    }
    ++fake_mtime_;
    const timespec times[2] = {{fake_mtime_, 0}, {fake_mtime_, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path_.c_str(), times, 0), 0);
  }

  // A record as cloudml-hypertune writes it: the value as a string.
  static std::string Record(int step, double accuracy) {
    return absl::StrCat(R"({"accuracy": ")", accuracy, R"(", "checkpoint_path": "", )",
                        R"("global_step": ")", step, R"(", "timestamp": 1700000000.)", step,
                        R"(, "trial": "3"})");
  }

  // The library's report(): append to a bounded history, rewrite the file.
  void Report(int step, double accuracy) {
    history_.push_back(Record(step, accuracy));
    if (history_.size() > 100) history_.pop_front();
    std::string content;
    for (const std::string& line : history_) absl::StrAppend(&content, line, "\n");
    Rewrite(content);
  }

  static std::vector<int64_t> Steps(const std::vector<v1::Measurement>& measurements) {
    std::vector<int64_t> steps;
    for (const v1::Measurement& m : measurements) steps.push_back(m.step());
    return steps;
  }

  testing::CapturedLog log_;
  std::string dir_;
  std::string path_;
  std::deque<std::string> history_;
  time_t fake_mtime_ = 1'000'000;
};

TEST_F(HypertuneFileReaderTest, MissingFileYieldsNothingQuietly) {
  HypertuneFileReader reader(path_, log_.logger());
  EXPECT_THAT(reader.Poll(), IsEmpty());
  EXPECT_THAT(reader.Finish(), IsEmpty());
  EXPECT_EQ(log_.Text(), "");
}

TEST_F(HypertuneFileReaderTest, ReadsTheLibraryFormat) {
  HypertuneFileReader reader(path_, log_.logger());
  Report(120, 0.91);
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].step(), 120);
  ASSERT_THAT(out[0].metrics(), SizeIs(1));
  EXPECT_EQ(out[0].metrics(0).metric_id(), "accuracy");
  EXPECT_DOUBLE_EQ(out[0].metrics(0).value(), 0.91);
}

TEST_F(HypertuneFileReaderTest, WholeFileRewritesGiveEachRecordOnce) {
  HypertuneFileReader reader(path_, log_.logger());
  std::vector<v1::Measurement> all;
  for (int step = 1; step <= 30; ++step) {
    Report(step, step / 100.0);
    std::vector<v1::Measurement> out = reader.Poll();
    ASSERT_THAT(out, SizeIs(1)) << "after report " << step;
    all.insert(all.end(), out.begin(), out.end());
    // Polling again without a write yields nothing.
    EXPECT_THAT(reader.Poll(), IsEmpty());
  }
  std::vector<int64_t> expected;
  for (int step = 1; step <= 30; ++step) expected.push_back(step);
  EXPECT_THAT(Steps(all), ElementsAreArray(expected));
  EXPECT_THAT(reader.Finish(), IsEmpty());
}

TEST_F(HypertuneFileReaderTest, SlidingHistoryWindowNeitherRepeatsNorMisses) {
  HypertuneFileReader reader(path_, log_.logger());
  std::vector<v1::Measurement> all;
  for (int step = 1; step <= 250; ++step) {
    Report(step, 0.5);
    // Irregular polling: sometimes after every report, sometimes after many.
    if (step % 7 == 0 || (step > 120 && step < 140) || step == 230) {
      std::vector<v1::Measurement> out = reader.Poll();
      all.insert(all.end(), out.begin(), out.end());
    }
  }
  std::vector<v1::Measurement> rest = reader.Finish();
  all.insert(all.end(), rest.begin(), rest.end());
  std::vector<int64_t> expected;
  for (int step = 1; step <= 250; ++step) expected.push_back(step);
  EXPECT_THAT(Steps(all), ElementsAreArray(expected));
}

TEST_F(HypertuneFileReaderTest, AppendedRecordsArrive) {
  HypertuneFileReader reader(path_, log_.logger());
  std::string content;
  for (int step = 1; step <= 3; ++step) {
    absl::StrAppend(&content, R"({"loss": )", step * 0.5, R"(, "global_step": )", step * 10, "}\n");
    Rewrite(content);
  }
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(10, 20, 30));
  absl::StrAppend(&content, R"({"loss": 0.1, "global_step": 40})", "\n");
  Rewrite(content);
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(40));
}

TEST_F(HypertuneFileReaderTest, PartialLastLineWaitsUntilComplete) {
  HypertuneFileReader reader(path_, log_.logger());
  const std::string first = Record(1, 0.5) + "\n";
  const std::string second = Record(2, 0.6);
  Rewrite(first + second.substr(0, 20));
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1));
  Rewrite(first + second.substr(0, 40));
  EXPECT_THAT(reader.Poll(), IsEmpty());
  Rewrite(first + second + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(2));
}

TEST_F(HypertuneFileReaderTest, ReadDuringARewriteYieldsNothingTwice) {
  HypertuneFileReader reader(path_, log_.logger());
  const std::string a = Record(1, 0.1), b = Record(2, 0.2), c = Record(3, 0.3), d = Record(4, 0.4);
  Rewrite(a + "\n" + b + "\n" + c + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1, 2, 3));
  // Caught just after the truncate, then part-way through the new content.
  Rewrite("");
  EXPECT_THAT(reader.Poll(), IsEmpty());
  Rewrite(a + "\n" + b + "\n" + c.substr(0, 10));
  EXPECT_THAT(reader.Poll(), IsEmpty());
  Rewrite(a + "\n" + b + "\n" + c + "\n" + d + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(4));
}

TEST_F(HypertuneFileReaderTest, FinishTakesAnUnterminatedLastRecord) {
  HypertuneFileReader reader(path_, log_.logger());
  Rewrite(Record(1, 0.5) + "\n" + Record(2, 0.7));
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1));
  const std::vector<v1::Measurement> rest = reader.Finish();
  ASSERT_THAT(rest, SizeIs(1));
  EXPECT_EQ(rest[0].step(), 2);
  EXPECT_DOUBLE_EQ(rest[0].metrics(0).value(), 0.7);
}

TEST_F(HypertuneFileReaderTest, MissingOrZeroGlobalStepCountsOn) {
  HypertuneFileReader reader(path_, log_.logger());
  Rewrite(
      "{\"training/hptuning/metric\": \"0.5\", \"global_step\": \"0\"}\n"
      "{\"training/hptuning/metric\": 0.6}\n"
      "{\"training/hptuning/metric\": 0.7, \"global_step\": 10.0}\n"
      "{\"training/hptuning/metric\": 0.8}\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  EXPECT_THAT(Steps(out), ElementsAre(1, 2, 10, 11));
  EXPECT_EQ(out[0].metrics(0).metric_id(), "training/hptuning/metric");
}

TEST_F(HypertuneFileReaderTest, BadRecordsAndValuesAreSkippedWithWarnings) {
  HypertuneFileReader reader(path_, log_.logger());
  Rewrite(
      "{\"accuracy\": \"0.5\"}\n"
      "not json at all\n"
      "{\"accuracy\": NaN, \"loss\": \"inf\", \"auc\": 0.75}\n"
      "{\"note\": \"hello\", \"flag\": true, \"accuracy\": \"abc\"}\n"
      "\n"
      "{\"nested\": {\"a\": 1}}\n"
      "{\"accuracy\": 0.9}\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(3));
  ASSERT_THAT(out[1].metrics(), SizeIs(1));
  EXPECT_EQ(out[1].metrics(0).metric_id(), "auc");
  EXPECT_DOUBLE_EQ(out[2].metrics(0).value(), 0.9);
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr(absl::StrCat("hypertune metrics file ", path_,
                                          " record 2: INVALID_ARGUMENT: JSON column 1: expected "
                                          "'{' to open an object; skipped")));
  EXPECT_THAT(log, HasSubstr("record 3: metric 'accuracy' is nan; dropped"));
  EXPECT_THAT(log, HasSubstr("record 3: metric 'loss' is inf; dropped"));
  EXPECT_THAT(log, HasSubstr("record 5: INVALID_ARGUMENT: JSON column 12: value of key "
                             "\"nested\" is an object or array"));
}

TEST_F(HypertuneFileReaderTest, UnreadableFileIsReportedOnceAndReadWhenFixed) {
  HypertuneFileReader reader(path_, log_.logger());
  // A directory opens but cannot be read, whoever runs the test.
  std::filesystem::create_directory(path_);
  EXPECT_THAT(reader.Poll(), IsEmpty());
  EXPECT_THAT(reader.Poll(), IsEmpty());
  const std::string log = log_.Text();
  const std::string expected =
      absl::StrCat(path_, " is a directory; only a regular file is read");
  EXPECT_THAT(log, HasSubstr(expected));
  EXPECT_EQ(log.find(expected), log.rfind(expected)) << "logged more than once";
  std::filesystem::remove(path_);
  Rewrite(Record(1, 0.5) + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1));
}

TEST_F(HypertuneFileReaderTest, AFreshWriterAfterARestartIsRead) {
  HypertuneFileReader reader(path_, log_.logger());
  Rewrite(Record(1, 0.1) + "\n" + Record(2, 0.2) + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1, 2));
  std::filesystem::remove(path_);
  EXPECT_THAT(reader.Poll(), IsEmpty());
  Rewrite(Record(7, 0.7) + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(7));
}

TEST_F(HypertuneFileReaderTest, AppendedRecordsAreReadExactlyOnceWhateverThePollTiming) {
  HypertuneFileReader reader(path_, log_.logger());
  std::vector<v1::Measurement> all;
  // Far past the tail that is compared, so most polls read only new bytes;
  // some appends are cut in the middle of a record.
  std::string pending;
  for (int step = 1; step <= 4000; ++step) {
    pending += Record(step, step / 4000.0) + "\n";
    if (step % 7 == 0) {
      const size_t cut = pending.size() - 13;
      Append(pending.substr(0, cut));
      pending = pending.substr(cut);
    }
    if (step % 50 == 0) {
      for (v1::Measurement& m : reader.Poll()) all.push_back(m);
    }
  }
  Append(pending);
  for (v1::Measurement& m : reader.Finish()) all.push_back(m);
  ASSERT_THAT(all, SizeIs(4000));
  for (int i = 0; i < 4000; ++i) ASSERT_EQ(all[static_cast<size_t>(i)].step(), i + 1);
  EXPECT_GT(std::filesystem::file_size(path_), HypertuneFileReader::kTailCheckBytes);
  EXPECT_THAT(log_.Text(), Not(HasSubstr("warning")));
}

TEST_F(HypertuneFileReaderTest, RecordsKeepTheirTimestamps) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(R"({"accuracy": 0.5, "global_step": "3", "timestamp": 1700000000.25})"
         "\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].report_time().seconds(), 1700000000);
  EXPECT_EQ(out[0].report_time().nanos(), 250000000);
}

// Found by fuzz/hypertune_file_reader_fuzzer (seed timestamp_1e300): the
// seconds were cast to int64 out of range, undefined behaviour that stored a
// nonsense time.
TEST_F(HypertuneFileReaderTest, ATimestampPastTheYear9999IsIgnoredWithAWarning) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(R"({"timestamp": 1e300, "loss": 1})"
         "\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_FALSE(out[0].has_report_time());
  ASSERT_THAT(out[0].metrics(), SizeIs(1));
  EXPECT_EQ(out[0].metrics(0).metric_id(), "loss");
  EXPECT_THAT(log_.Text(), HasSubstr("record 1: timestamp 1e+300 is after the year 9999; the "
                                     "time the record was read is used instead"));
}

TEST_F(HypertuneFileReaderTest, AMegabytesLongRecordIsSkippedAndReadingGoesOn) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(Record(1, 0.1) + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1));
  // A writer gone wrong: 3 MB without a newline, polled as it grows.
  const std::string junk(512 * 1024, 'x');
  for (int i = 0; i < 6; ++i) {
    Append(junk);
    EXPECT_THAT(reader.Poll(), IsEmpty());
  }
  Append("\n" + Record(2, 0.2) + "\n");
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(2));
  EXPECT_THAT(log_.Text(), HasSubstr("grew past 1048576 bytes without a newline; skipped"));
}

TEST_F(HypertuneFileReaderTest, AWholeOversizedRecordIsSkipped) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(absl::StrCat(R"({"accuracy": 0.5, "note": ")", std::string(2 << 20, 'n'), "\"}\n",
                      Record(4, 0.4), "\n"));
  EXPECT_THAT(Steps(reader.Finish()), ElementsAre(4));
  EXPECT_THAT(log_.Text(), HasSubstr("record 1 is 2097181 bytes, over the limit of 1048576"));
}

TEST_F(HypertuneFileReaderTest, NonNumericMetricValuesAreRejectedWithAReason) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(R"({"accuracy": "high", "loss": null, "flag": true, "bad name": 1, "auc": "0.5"})"
         "\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  ASSERT_THAT(out[0].metrics(), SizeIs(1));
  EXPECT_EQ(out[0].metrics(0).metric_id(), "auc");
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr("record 1: metric 'accuracy' is \"high\"; dropped (not a number)"));
  EXPECT_THAT(log, HasSubstr("record 1: metric 'loss' is null; dropped (not a number)"));
  EXPECT_THAT(log, HasSubstr("record 1: metric 'flag' is true; dropped (not a number)"));
  EXPECT_THAT(log, HasSubstr("record 1: key 'bad name' is not a metric name"));
}

TEST_F(HypertuneFileReaderTest, AKeyGivenTwiceIsOneMetricWithTheLastValue) {
  HypertuneFileReader reader(path_, log_.logger());
  Append(R"({"accuracy": 0.1, "accuracy": 0.7, "global_step": "1"})" "\n");
  const std::vector<v1::Measurement> out = reader.Poll();
  ASSERT_THAT(out, SizeIs(1));
  ASSERT_THAT(out[0].metrics(), SizeIs(1));
  EXPECT_DOUBLE_EQ(out[0].metrics(0).value(), 0.7);
}

// The metrics file is the trainer's: none of these may hang the agent, make
// it read without bound or read what the trainer pointed it at.

TEST_F(HypertuneFileReaderTest, AFifoDoesNotBlockAndIsRefused) {
  ASSERT_EQ(mkfifo(path_.c_str(), 0600), 0) << strerror(errno);
  HypertuneFileReader reader(path_, log_.logger());
  // Before the fix the open waited for a writer forever; a writer opened
  // after a while lets a blocked reader go, so the test ends either way.
  std::atomic<bool> done{false};
  std::thread poller([&] {
    reader.Poll();
    reader.Finish();
    done = true;
  });
  for (int i = 0; i < 500 && !done; ++i) absl::SleepFor(absl::Milliseconds(20));
  const bool finished_alone = done;
  while (!done) {
    const int writer = open(path_.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) close(writer);
    absl::SleepFor(absl::Milliseconds(10));
  }
  poller.join();
  EXPECT_TRUE(finished_alone) << "the reader blocked on a FIFO";
  EXPECT_THAT(log_.Text(), HasSubstr(absl::StrCat(path_, " is a FIFO; only a regular file is read")));
}

TEST_F(HypertuneFileReaderTest, ASymlinkToDevZeroIsNotFollowed) {
  ASSERT_EQ(symlink("/dev/zero", path_.c_str()), 0) << strerror(errno);
  HypertuneFileReader reader(path_, log_.logger());
  EXPECT_THAT(reader.Poll(), IsEmpty());
  EXPECT_THAT(reader.Finish(), IsEmpty());
  EXPECT_LE(reader.buffer_capacity(), 2 * HypertuneFileReader::kMaxReadBytes);
  const std::string log = log_.Text();
  const std::string expected = absl::StrCat(path_, " is a symbolic link; not followed");
  EXPECT_THAT(log, HasSubstr(expected));
  EXPECT_EQ(log.find(expected), log.rfind(expected)) << "logged more than once";
}

TEST_F(HypertuneFileReaderTest, ASymlinkOutOfTheTrialDirIsNotFollowed) {
  const std::string outside = dir_ + "/outside.metrics";
  { std::ofstream(outside) << Record(1, 0.5) << "\n"; }
  const std::string trial_dir = dir_ + "/trial";
  std::filesystem::create_directories(trial_dir);
  const std::string path = trial_dir + "/output.metrics";
  ASSERT_EQ(symlink(outside.c_str(), path.c_str()), 0) << strerror(errno);
  HypertuneFileReader reader(path, log_.logger());
  EXPECT_THAT(reader.Poll(), IsEmpty());
  EXPECT_THAT(reader.Finish(), IsEmpty());
  EXPECT_THAT(log_.Text(), HasSubstr(absl::StrCat(path, " is a symbolic link; not followed")));
  // Once the trainer writes the file itself, it is read.
  std::filesystem::remove(path);
  { std::ofstream(path) << Record(2, 0.6) << "\n"; }
  EXPECT_THAT(Steps(reader.Finish()), ElementsAre(2));
}

TEST_F(HypertuneFileReaderTest, AHugeSparseFileIsReadInBoundedMemoryWithoutLosingRecords) {
  // A record, a 1 GiB hole (NUL bytes), and a record after it.
  constexpr off_t kHole = off_t{1} << 30;
  Append(Record(1, 0.1) + "\n");
  HypertuneFileReader reader(path_, log_.logger());
  EXPECT_THAT(Steps(reader.Poll()), ElementsAre(1));
  {
    const int fd = open(path_.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    const std::string last = Record(2, 0.2) + "\n";
    ASSERT_EQ(pwrite(fd, last.data(), last.size(), kHole), static_cast<ssize_t>(last.size()));
    close(fd);
  }
  // A poll reads one window, not the whole file.
  EXPECT_THAT(reader.Poll(), IsEmpty());
  EXPECT_LE(reader.buffer_capacity(), 2 * HypertuneFileReader::kMaxReadBytes);
  EXPECT_THAT(Steps(reader.Finish()), ElementsAre(2));
  EXPECT_LE(reader.buffer_capacity(), 2 * HypertuneFileReader::kMaxReadBytes);
}

}  // namespace
}  // namespace vernier::agent
