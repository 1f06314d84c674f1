// The golden corpus of study specs, tests/data/spec_corpus: every spec file
// NAME.yaml or NAME.json there has exactly one expectation beside it,
// NAME.textproto (the StudySpec it reads as) or NAME.error (the whole message
// of the INVALID_ARGUMENT it fails with, the file named by its base name).
// This runs the C++ reader over it; python/tests/test_spec_corpus.py runs the
// same files through the Python client and a real server's ParseStudySpec,
// so that the two agree on every case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "tuner/config/training_input_parser.h"

namespace vernier::config {
namespace {

namespace fs = std::filesystem;

constexpr char kSpecSuffix[] = ".textproto";
constexpr char kErrorSuffix[] = ".error";

fs::path CorpusDir() {
  const char* source_dir = std::getenv("VERNIER_SOURCE_DIR");
  const fs::path root = source_dir != nullptr ? fs::path(source_dir) : fs::path(".");
  return root / "tests" / "data" / "spec_corpus";
}

bool IsSpecFile(const fs::path& path) {
  return path.extension() == ".yaml" || path.extension() == ".json";
}

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(CorpusDir(), error)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The spec files' names, which name the test cases too.
std::vector<std::string> SpecFileNames() {
  std::vector<std::string> names;
  for (const fs::path& file : CorpusFiles()) {
    if (IsSpecFile(file)) names.push_back(file.filename().string());
  }
  return names;
}

std::string ReadText(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

fs::path Expectation(const fs::path& spec, const char* suffix) {
  fs::path expectation = spec;
  expectation.replace_extension(suffix);
  return expectation;
}

TEST(SpecCorpusTest, EveryFileHasExactlyOneCounterpart) {
  const std::vector<fs::path> files = CorpusFiles();
  ASSERT_FALSE(files.empty()) << "no corpus at " << CorpusDir();
  std::set<fs::path> stems;
  int valid = 0;
  int invalid = 0;
  for (const fs::path& file : files) {
    if (IsSpecFile(file)) {
      const bool has_spec = fs::exists(Expectation(file, kSpecSuffix));
      const bool has_error = fs::exists(Expectation(file, kErrorSuffix));
      EXPECT_NE(has_spec, has_error)
          << file << " needs exactly one of " << Expectation(file, kSpecSuffix).filename()
          << " and " << Expectation(file, kErrorSuffix).filename();
      EXPECT_TRUE(stems.insert(fs::path(file).replace_extension()).second)
          << file << ": another spec file has the same name";
      (has_spec ? valid : invalid) += 1;
    } else if (file.extension() == kSpecSuffix || file.extension() == kErrorSuffix) {
      const bool has_source = fs::exists(fs::path(file).replace_extension(".yaml")) ||
                              fs::exists(fs::path(file).replace_extension(".json"));
      EXPECT_TRUE(has_source) << file << " expects something of a spec file that is not there";
    } else {
      ADD_FAILURE() << file << " is neither a spec (.yaml, .json) nor an expectation";
    }
  }
  // The corpus is only worth its name with both kinds in numbers.
  EXPECT_GE(valid, 8);
  EXPECT_GE(invalid, 20);
}

class SpecCorpusFileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecCorpusFileTest, ReadsAsExpected) {
  const std::string& name = GetParam();
  const fs::path spec_file = CorpusDir() / name;
  const absl::StatusOr<v1::StudySpec> spec =
      ParseStudySpecText(ReadText(spec_file), SpecFormatForFileName(name), name);
  const fs::path expected_spec = Expectation(spec_file, kSpecSuffix);
  if (fs::exists(expected_spec)) {
    ASSERT_TRUE(spec.ok()) << spec.status();
    v1::StudySpec expected;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadText(expected_spec), &expected))
        << expected_spec;
    google::protobuf::util::MessageDifferencer differencer;
    std::string differences;
    differencer.ReportDifferencesToString(&differences);
    EXPECT_TRUE(differencer.Compare(expected, *spec)) << differences << "\nread:\n"
                                                      << spec->DebugString();
    return;
  }
  const fs::path expected_error = Expectation(spec_file, kErrorSuffix);
  ASSERT_TRUE(fs::exists(expected_error)) << spec_file << " has no expectation";
  ASSERT_FALSE(spec.ok()) << "read as:\n" << spec->DebugString();
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string expected_message(absl::StripTrailingAsciiWhitespace(ReadText(expected_error)));
  EXPECT_EQ(std::string(spec.status().message()), expected_message);
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!absl::ascii_isalnum(c)) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, SpecCorpusFileTest, ::testing::ValuesIn(SpecFileNames()),
                         TestName);

TEST(ParseStudySpecTextTest, JsonFormatIsToldByTheFileName) {
  EXPECT_EQ(SpecFormatForFileName("spec.json"), SpecFormat::kJson);
  EXPECT_EQ(SpecFormatForFileName("dir/SPEC.JSON"), SpecFormat::kJson);
  EXPECT_EQ(SpecFormatForFileName("spec.yaml"), SpecFormat::kYaml);
  EXPECT_EQ(SpecFormatForFileName("json"), SpecFormat::kYaml);
  EXPECT_EQ(SpecFormatForFileName(""), SpecFormat::kYaml);
}

TEST(ParseStudySpecTextTest, EmptyTextIsInvalidInEitherFormat) {
  for (const auto& [text, format] :
       {std::pair{"", SpecFormat::kYaml}, std::pair{"", SpecFormat::kJson},
        std::pair{"  \n\n", SpecFormat::kJson}, std::pair{"# nothing\n", SpecFormat::kYaml}}) {
    const absl::StatusOr<v1::StudySpec> spec = ParseStudySpecText(text, format, "s");
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(spec.status().message()),
              "s:1:1: the document is empty; expected a hyperparameters mapping");
  }
}

TEST(ParseStudySpecTextTest, JsonTextMustBeAnObject) {
  const absl::StatusOr<v1::StudySpec> spec =
      ParseStudySpecText("\n  [1, 2]\n", SpecFormat::kJson, "s.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(spec.status().message()),
            "s.json:2:3: expected a JSON object, starting with \"{\"");
  // The same text read as YAML is a list where a mapping belongs.
  const absl::StatusOr<v1::StudySpec> yaml =
      ParseStudySpecText("\n  [1, 2]\n", SpecFormat::kYaml, "s.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_THAT(std::string(yaml.status().message()),
              ::testing::StartsWith("s.yaml:2:3: expected a mapping"));
}

// The job path keeps its own defaults: a study's "no limit" stays a study's.
TEST(ParseStudySpecTextTest, AJobKeepsAiPlatformsDefaultLimits) {
  const std::string text =
      "hyperparameters:\n"
      "  params:\n"
      "    - {parameterName: x, type: INTEGER, minValue: 0, maxValue: 9}\n";
  const absl::StatusOr<v1::StudySpec> study = ParseStudySpecText(text, SpecFormat::kYaml, "s");
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->max_trials(), 0);
  EXPECT_EQ(study->max_parallel_trials(), 0);
  EXPECT_EQ(study->max_failed_trials(), 0);
  const absl::StatusOr<v1::TrainingInput> job = ParseTrainingInputYaml(text, "s");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->hyperparameters().max_trials(), 1);
  EXPECT_EQ(job->hyperparameters().max_parallel_trials(), 1);
}

}  // namespace
}  // namespace vernier::config
