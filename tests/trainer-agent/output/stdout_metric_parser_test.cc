#include "trainer-agent/output/stdout_metric_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/trainer-agent/captured_log.h"

namespace vernier::agent {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

std::vector<std::pair<std::string, double>> Metrics(const v1::Measurement& measurement) {
  std::vector<std::pair<std::string, double>> metrics;
  for (const v1::Metric& metric : measurement.metrics()) {
    metrics.emplace_back(metric.metric_id(), metric.value());
  }
  return metrics;
}

class StdoutMetricParserTest : public ::testing::Test {
 protected:
  testing::CapturedLog log_;
  StdoutMetricParser parser_{log_.logger()};
};

TEST_F(StdoutMetricParserTest, EveryNumericPairOfALineFormsOneMeasurement) {
  const std::vector<v1::Measurement> out = parser_.Feed("epoch=3 loss=0.4123 accuracy=0.8450\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].step(), 3);
  EXPECT_THAT(Metrics(out[0]),
              ElementsAre(Pair("loss", DoubleEq(0.4123)), Pair("accuracy", DoubleEq(0.845))));
}

TEST_F(StdoutMetricParserTest, StepCountsFromOneWhenNotGiven) {
  const std::vector<v1::Measurement> out =
      parser_.Feed("loss=1.0\nstarting up\nloss=0.5\naccuracy=0.7 loss=0.4\n");
  ASSERT_THAT(out, SizeIs(3));
  EXPECT_EQ(out[0].step(), 1);
  EXPECT_EQ(out[1].step(), 2);
  EXPECT_EQ(out[2].step(), 3);
}

TEST_F(StdoutMetricParserTest, StepWinsOverEpochAndImplicitStepsContinueFromIt) {
  const std::vector<v1::Measurement> out =
      parser_.Feed("epoch=2 step=300 loss=0.3\nglobal_step=400 epoch=3 loss=0.2\nloss=0.1\n");
  ASSERT_THAT(out, SizeIs(3));
  EXPECT_EQ(out[0].step(), 300);
  EXPECT_EQ(out[1].step(), 400);
  EXPECT_EQ(out[2].step(), 401);
  for (const v1::Measurement& measurement : out) {
    EXPECT_THAT(Metrics(measurement), SizeIs(1)) << "step keys are not metrics";
  }
}

TEST_F(StdoutMetricParserTest, NonIntegerStepIsIgnored) {
  const std::vector<v1::Measurement> out = parser_.Feed("epoch=0.5 loss=0.3\nstep=abc loss=0.2\n");
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_EQ(out[0].step(), 1);
  EXPECT_EQ(out[1].step(), 2);
}

TEST_F(StdoutMetricParserTest, NonNumericValuesAndBadNamesAreIgnored) {
  const std::vector<v1::Measurement> out = parser_.Feed(
      "lr=abc optimizer=adam ratio=0.5% =3 9lives=1 --learning_rate=0.1 a=1=2 x= "
      "Namespace(lr=0.01) acc=0.9]\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("acc", DoubleEq(0.9))));
}

TEST_F(StdoutMetricParserTest, LinesWithoutNumericPairsProduceNothing) {
  EXPECT_THAT(parser_.Feed("Loading data...\nmode=train\n\nepoch=4\n"), IsEmpty());
}

TEST_F(StdoutMetricParserTest, NamesMayHoldSlashesDotsAndDashes) {
  const std::vector<v1::Measurement> out =
      parser_.Feed("training/hptuning/metric=0.25, val.loss=1e-3; top-5=0.99 (eval/acc=0.5)\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]),
              UnorderedElementsAre(Pair("training/hptuning/metric", DoubleEq(0.25)),
                                   Pair("val.loss", DoubleEq(1e-3)), Pair("top-5", DoubleEq(0.99)),
                                   Pair("eval/acc", DoubleEq(0.5))));
}

TEST_F(StdoutMetricParserTest, NanAndInfinityAreDroppedWithAWarning) {
  const std::vector<v1::Measurement> out =
      parser_.Feed("loss=nan accuracy=0.5 grad=inf big=1e999\nloss=-Infinity\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.5))));
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr("warning: output line 1: metric 'loss' is nan; dropped"));
  EXPECT_THAT(log, HasSubstr("metric 'grad' is inf"));
  EXPECT_THAT(log, HasSubstr("metric 'big' is 1e999"));
  EXPECT_THAT(log, HasSubstr("output line 2: metric 'loss' is -Infinity"));
}

TEST_F(StdoutMetricParserTest, RepeatedNameKeepsTheLastValue) {
  const std::vector<v1::Measurement> out = parser_.Feed("loss=0.5 loss=0.4\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("loss", DoubleEq(0.4))));
}

TEST_F(StdoutMetricParserTest, PartialLinesWaitForTheirNewline) {
  EXPECT_THAT(parser_.Feed("epoch=1 acc"), IsEmpty());
  EXPECT_THAT(parser_.Feed("uracy=0."), IsEmpty());
  const std::vector<v1::Measurement> out = parser_.Feed("75\nepoch=2 accuracy=0.8");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.75))));
  const std::vector<v1::Measurement> rest = parser_.Finish();
  ASSERT_THAT(rest, SizeIs(1));
  EXPECT_EQ(rest[0].step(), 2);
  EXPECT_THAT(Metrics(rest[0]), ElementsAre(Pair("accuracy", DoubleEq(0.8))));
}

TEST_F(StdoutMetricParserTest, ByteAtATimeGivesTheSameResult) {
  const std::string text = "epoch=1 loss=0.5\nnoise\nepoch=2 loss=0.25\n";
  std::vector<v1::Measurement> out;
  for (char c : text) {
    for (v1::Measurement& m : parser_.Feed(std::string(1, c))) out.push_back(m);
  }
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_EQ(out[1].step(), 2);
  EXPECT_THAT(Metrics(out[1]), ElementsAre(Pair("loss", DoubleEq(0.25))));
}

TEST_F(StdoutMetricParserTest, VeryLongLineIsTruncatedLoggedAndParsingContinues) {
  StdoutMetricParser parser(log_.logger(), /*max_line_bytes=*/1024);
  std::string line = "accuracy=0.5 ";
  line += std::string(5000, 'x');
  line += " late=1.0\n";
  std::vector<v1::Measurement> out;
  for (size_t i = 0; i < line.size(); i += 700) {
    for (v1::Measurement& m : parser.Feed(line.substr(i, 700))) out.push_back(m);
  }
  for (v1::Measurement& m : parser.Feed("loss=0.1\n")) out.push_back(m);
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.5))))
      << "the part of the line past the cap is not parsed";
  EXPECT_THAT(Metrics(out[1]), ElementsAre(Pair("loss", DoubleEq(0.1))));
  EXPECT_THAT(log_.Text(),
              HasSubstr("output line 1 is longer than 1024 bytes; parsed its first 1024 bytes"));
  EXPECT_THAT(log_.Text(), Not(HasSubstr("output line 2 is longer")));
}

TEST_F(StdoutMetricParserTest, ProgressBarYieldsItsFinalState) {
  std::vector<v1::Measurement> out = parser_.Feed("10%| loss=0.9\r50%| loss=0.5\r");
  EXPECT_THAT(out, IsEmpty());
  out = parser_.Feed("100%| 10/10 [00:01<00:00, 9.5it/s, loss=0.3, acc=0.9]\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]),
              ElementsAre(Pair("loss", DoubleEq(0.3)), Pair("acc", DoubleEq(0.9))));
}

TEST_F(StdoutMetricParserTest, MegabytesWithoutANewlineKeepOnlyTheCapAndParsingContinues) {
  // A progress bar without '\r', a dumped tensor: 3 MB before the newline.
  const std::string chunk(64 * 1024, 'x');
  std::vector<v1::Measurement> out = parser_.Feed("accuracy=0.25 ");
  for (int i = 0; i < 48; ++i) {
    for (v1::Measurement& m : parser_.Feed(chunk)) out.push_back(m);
  }
  EXPECT_THAT(out, IsEmpty());
  for (v1::Measurement& m : parser_.Feed(" loss=9\nstep=7 accuracy=0.5\n")) out.push_back(m);
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.25))));
  EXPECT_EQ(out[1].step(), 7);
  EXPECT_THAT(log_.Text(), HasSubstr("output line 1 is longer than 65536 bytes"));
}

TEST_F(StdoutMetricParserTest, NonNumericObjectiveIsRejectedWithAReason) {
  StdoutMetricParserOptions options;
  options.objective = "accuracy";
  StdoutMetricParser parser(log_.logger(), options);
  EXPECT_THAT(parser.Feed("mode=train accuracy=high loss=0.5\n"), SizeIs(1));
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr("output line 1: metric 'accuracy' is high; dropped (not a number)"));
  EXPECT_THAT(log, Not(HasSubstr("'mode'"))) << "free text is not a metric";
}

TEST_F(StdoutMetricParserTest, KerasProgressLinesAreReadByDefault) {
  // Keras 2 with verbose=1: the bar is redrawn with "\r", then the epoch's
  // final line ends with "\n"; only the last drawing counts.
  std::vector<v1::Measurement> out = parser_.Feed(
      "Epoch 1/2\n"
      "  1/1875 [..............................] - ETA: 5:02 - loss: 2.3026 - accuracy: 0.0938\r"
      "1875/1875 [==============================] - 3s 1ms/step - loss: 0.2975 - accuracy: "
      "0.9136 - val_loss: 0.1405 - val_accuracy: 0.9580\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].step(), 1);
  EXPECT_THAT(Metrics(out[0]),
              ElementsAre(Pair("loss", DoubleEq(0.2975)), Pair("accuracy", DoubleEq(0.9136)),
                          Pair("val_loss", DoubleEq(0.1405)),
                          Pair("val_accuracy", DoubleEq(0.958))));
  // Keras 3 draws its bar with box characters and no "[...]".
  out = parser_.Feed(
      "1875/1875 \xe2\x94\x81\xe2\x94\x81 2s 1ms/step - accuracy: 0.9700 - loss: 0.1001\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].step(), 2);
  EXPECT_THAT(Metrics(out[0]),
              ElementsAre(Pair("accuracy", DoubleEq(0.97)), Pair("loss", DoubleEq(0.1001))));
  EXPECT_THAT(log_.Text(), IsEmpty());
}

TEST_F(StdoutMetricParserTest, ColonsInFreeTextAreNotKerasMetrics) {
  EXPECT_THAT(parser_.Feed("Note: 5 files; mode: 3 - rate:4\n"), IsEmpty());
  EXPECT_THAT(parser_.Feed("loading-data: 12\n"), IsEmpty());
  EXPECT_THAT(log_.Text(), IsEmpty());
}

TEST_F(StdoutMetricParserTest, RepeatedWarningsAreThinnedOut) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "loss=nan accuracy=0.5\n";
  EXPECT_THAT(parser_.Feed(text), SizeIs(40));
  const std::string log = log_.Text();
  size_t warnings = 0;
  for (size_t at = log.find("metric 'loss' is nan"); at != std::string::npos;
       at = log.find("metric 'loss' is nan", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 5u);
  EXPECT_THAT(log, HasSubstr("(5 so far; only some are logged)"));
}

class PatternParserTest : public StdoutMetricParserTest {
 protected:
  StdoutMetricParser Parser(std::string_view regex) {
    absl::StatusOr<metrics::MetricPattern> pattern = metrics::MetricPattern::Compile(regex);
    EXPECT_TRUE(pattern.ok()) << pattern.status();
    StdoutMetricParserOptions options;
    options.pattern = std::make_shared<const metrics::MetricPattern>(*std::move(pattern));
    return StdoutMetricParser(log_.logger(), options);
  }
};

TEST_F(PatternParserTest, MetricGroupsAndAStepGroupMakeOneMeasurementPerLine) {
  StdoutMetricParser parser = Parser(R"(Epoch (?P<epoch>\d+)/\d+ .* val_acc: (?P<accuracy>\S+))");
  const std::vector<v1::Measurement> out = parser.Feed(
      "Epoch 1/10 - loss: 0.9 - val_acc: 0.51\nsomething else\nEpoch 2/10 - loss: 0.5 - "
      "val_acc: 0.62\n");
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_EQ(out[0].step(), 1);
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.51))));
  EXPECT_EQ(out[1].step(), 2);
  EXPECT_THAT(Metrics(out[1]), ElementsAre(Pair("accuracy", DoubleEq(0.62))));
}

TEST_F(PatternParserTest, NameValuePairsKeepEveryMetricOfTheLine) {
  StdoutMetricParser parser = Parser(R"((?P<name>[a-z_/]+): (?P<value>[^ |]+))");
  const std::vector<v1::Measurement> out =
      parser.Feed("step: 30 | train/loss: 0.4 | eval/acc: 0.8\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].step(), 30);
  EXPECT_THAT(Metrics(out[0]),
              ElementsAre(Pair("train/loss", DoubleEq(0.4)), Pair("eval/acc", DoubleEq(0.8))));
}

TEST_F(PatternParserTest, MatchesThatAreNotNumbersOrNotFiniteAreRejectedWithAReason) {
  StdoutMetricParser parser = Parser(R"((?P<name>[\w ]+)=(?P<value>\S+))");
  const std::vector<v1::Measurement> out =
      parser.Feed("loss=abc\nacc=nan\nauc=inf\ntop k=0.5\nrecall=0.25\n");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("recall", DoubleEq(0.25))));
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr("output line 1: metric 'loss' is abc; dropped (not a number)"));
  EXPECT_THAT(log, HasSubstr("output line 2: metric 'acc' is nan; dropped (only finite"));
  EXPECT_THAT(log, HasSubstr("output line 3: metric 'auc' is inf; dropped"));
  EXPECT_THAT(log, HasSubstr("output line 4: metric 'top k' is 0.5; dropped (not a metric name"));
}

TEST_F(PatternParserTest, PartialLinesWaitForTheirNewline) {
  StdoutMetricParser parser = Parser(R"(acc (?P<accuracy>[\d.]+))");
  EXPECT_THAT(parser.Feed("acc 0."), IsEmpty());
  const std::vector<v1::Measurement> out = parser.Feed("75\nacc 0.8");
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_THAT(Metrics(out[0]), ElementsAre(Pair("accuracy", DoubleEq(0.75))));
  const std::vector<v1::Measurement> rest = parser.Finish();
  ASSERT_THAT(rest, SizeIs(1));
  EXPECT_THAT(Metrics(rest[0]), ElementsAre(Pair("accuracy", DoubleEq(0.8))));
}

}  // namespace
}  // namespace vernier::agent
