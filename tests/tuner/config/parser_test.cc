#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "tuner/config/training_input_parser.h"

namespace vernier::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kFile[] = "hptuning.yaml";

// One line per element, so that element i is line i + 1 of the document.
std::string DocumentLines(const std::vector<std::string>& lines) {
  return absl::StrCat(absl::StrJoin(lines, "\n"), "\n");
}

// A document whose hyperparameters block holds `lines`, each indented four
// columns: lines[i] is line i + 3 of the document, and a key at the start of
// lines[i] is at column 5.
std::vector<std::string> Hp(const std::vector<std::string>& lines) {
  std::vector<std::string> document = {"trainingInput:", "  hyperparameters:"};
  for (const std::string& line : lines) document.push_back(absl::StrCat("    ", line));
  return document;
}

v1::TrainingInput TextProto(const std::string& text) {
  v1::TrainingInput message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

void ExpectProtoEq(const google::protobuf::Message& actual,
                   const google::protobuf::Message& expected) {
  google::protobuf::util::MessageDifferencer differencer;
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differencer.Compare(expected, actual)) << differences;
}

TEST(TrainingInputParserTest, ReadsEveryField) {
  const std::string yaml = DocumentLines({
      "trainingInput:",
      "  scaleTier: CUSTOM",
      "  masterType: complex_model_m_gpu",
      "  masterConfig:",
      "    acceleratorConfig:",
      "      count: 2",
      "      type: NVIDIA_TESLA_V100",
      "    imageUri: gcr.io/project/trainer:latest",
      "  workerType: complex_model_m",
      "  workerCount: 4",
      "  workerConfig:",
      "    acceleratorConfig: {count: '1', type: NVIDIA_TESLA_T4}",
      "  parameterServerType: large_model",
      "  parameterServerCount: '3'",
      "  parameterServerConfig:",
      "    imageUri: gcr.io/project/ps:1",
      "  evaluatorType: n1-standard-4",
      "  evaluatorCount: 1",
      "  evaluatorConfig:",
      "    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}",
      "  useChiefInTfConfig: true",
      "  args: [--epochs=3, 10, --verbose]",
      "  jobDir: /data/jobs/mnist",
      "  region: us-central1",
      "  runtimeVersion: 2.11",
      "  pythonVersion: '3.7'",
      "  hyperparameters:",
      "    goal: MINIMIZE",
      "    hyperparameterMetricTag: val_loss",
      "    maxTrials: 40",
      "    maxParallelTrials: 4",
      "    maxFailedTrials: 3",
      "    enableTrialEarlyStopping: True",
      "    resumePreviousJobId: mnist_v1",
      "    metricRegex: 'val_loss=(?P<val_loss>[-+.0-9eE]+)'",
      "    algorithm: GAUSSIAN_PROCESS_BANDIT",
      "    earlyStopping:",
      "      policy: ASHA",
      "      minTrials: 5",
      "      startStep: 100",
      "      reductionFactor: 2",
      "      gracePeriod: 10",
      "      maxStep: 1000",
      "    params:",
      "      - parameterName: learning_rate",
      "        type: DOUBLE",
      "        minValue: 1e-4",
      "        maxValue: 0.1",
      "        scaleType: UNIT_LOG_SCALE",
      "      - parameterName: hidden_units",
      "        type: INTEGER",
      "        minValue: 16",
      "        maxValue: 512",
      "        scaleType: UNIT_LINEAR_SCALE",
      "      - parameterName: activation",
      "        type: CATEGORICAL",
      "        categoricalValues: [relu, tanh, 'true']",
      "      - parameterName: batch_size",
      "        type: DISCRETE",
      "        discreteValues: [16, 32.5, 64]",
      "        scaleType: UNIT_REVERSE_LOG_SCALE",
      "      - parameterName: momentum",
      "        type: DOUBLE",
      "        minValue: -0.5",
      "        maxValue: +0.99",
      "        scaleType: NONE",
  });
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(yaml, kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  ExpectProtoEq(*input, TextProto(R"pb(
    scale_tier: "CUSTOM"
    master_type: "complex_model_m_gpu"
    master_config {
      accelerator_config { count: 2 type: "NVIDIA_TESLA_V100" }
      image_uri: "gcr.io/project/trainer:latest"
    }
    worker_type: "complex_model_m"
    worker_count: 4
    worker_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_T4" } }
    parameter_server_type: "large_model"
    parameter_server_count: 3
    parameter_server_config { image_uri: "gcr.io/project/ps:1" }
    evaluator_type: "n1-standard-4"
    evaluator_count: 1
    evaluator_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_T4" } }
    use_chief_in_tf_config: true
    args: [ "--epochs=3", "10", "--verbose" ]
    job_dir: "/data/jobs/mnist"
    region: "us-central1"
    runtime_version: "2.11"
    python_version: "3.7"
    hyperparameters {
      goal: MINIMIZE
      hyperparameter_metric_tag: "val_loss"
      max_trials: 40
      max_parallel_trials: 4
      max_failed_trials: 3
      enable_trial_early_stopping: true
      resume_previous_job_id: "mnist_v1"
      metric_regex: "val_loss=(?P<val_loss>[-+.0-9eE]+)"
      algorithm: GAUSSIAN_PROCESS_BANDIT
      early_stopping {
        policy: ASHA
        min_trials: 5
        start_step: 100
        reduction_factor: 2
        grace_period: 10
        max_step: 1000
      }
      params {
        parameter_name: "learning_rate"
        type: DOUBLE
        min_value: 0.0001
        max_value: 0.1
        scale_type: UNIT_LOG_SCALE
      }
      params {
        parameter_name: "hidden_units"
        type: INTEGER
        min_value: 16
        max_value: 512
        scale_type: UNIT_LINEAR_SCALE
      }
      params {
        parameter_name: "activation"
        type: CATEGORICAL
        categorical_values: [ "relu", "tanh", "true" ]
      }
      params {
        parameter_name: "batch_size"
        type: DISCRETE
        discrete_values: [ 16, 32.5, 64 ]
        scale_type: UNIT_REVERSE_LOG_SCALE
      }
      params {
        parameter_name: "momentum"
        type: DOUBLE
        min_value: -0.5
        max_value: 0.99
        scale_type: NONE
      }
    }
  )pb"));
}

TEST(TrainingInputParserTest, BareMappingReadsLikeTheWrappedOne) {
  const std::vector<std::string> body = {
      "scaleTier: BASIC_GPU",
      "args: [--data=/tmp/mnist]",
      "hyperparameters:",
      "  maxTrials: 6",
      "  params:",
      "    - parameterName: dropout",
      "      type: DOUBLE",
      "      minValue: 0",
      "      maxValue: 0.5",
  };
  std::vector<std::string> wrapped = {"trainingInput:"};
  for (const std::string& line : body) wrapped.push_back(absl::StrCat("  ", line));

  absl::StatusOr<v1::TrainingInput> bare = ParseTrainingInputYaml(DocumentLines(body), kFile);
  absl::StatusOr<v1::TrainingInput> inside = ParseTrainingInputYaml(DocumentLines(wrapped), kFile);
  ASSERT_TRUE(bare.ok()) << bare.status();
  ASSERT_TRUE(inside.ok()) << inside.status();
  ExpectProtoEq(*bare, *inside);
  EXPECT_EQ(bare->scale_tier(), "BASIC_GPU");
  EXPECT_EQ(bare->hyperparameters().max_trials(), 6);
  ASSERT_EQ(bare->hyperparameters().params_size(), 1);
  EXPECT_EQ(bare->hyperparameters().params(0).max_value(), 0.5);
}

TEST(TrainingInputParserTest, BareMappingErrorsNameFieldsWithoutWrapper) {
  absl::StatusOr<v1::TrainingInput> input =
      ParseTrainingInputYaml(DocumentLines({"scaleTier: BASIC", "workerCount: -1"}), kFile);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(input.status().message()),
            "hptuning.yaml:2:1: workerCount: must not be negative, got -1");
}

TEST(TrainingInputParserTest, ReadsEachRolesEnvAndThePackagedTrainer) {
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
      DocumentLines(
          {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-4",
           "  masterConfig:", "    env:", "      WANDB_MODE: offline", "      RETRIES: 3",
           "  packageUris: [dist/trainer-0.1.tar.gz, 'file:///wheels/extra-1.0-py3-none-any.whl']",
           "  pythonModule: trainer.task"}),
      kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->master_config().env().at("WANDB_MODE"), "offline");
  EXPECT_EQ(input->master_config().env().at("RETRIES"), "3");
  ASSERT_EQ(input->package_uris_size(), 2);
  EXPECT_EQ(input->package_uris(1), "file:///wheels/extra-1.0-py3-none-any.whl");
  EXPECT_EQ(input->python_module(), "trainer.task");
}

TEST(TrainingInputParserTest, AnEnvThatVernierSetsOrThatIsNoMappingIsRefusedWhereItIs) {
  absl::StatusOr<v1::TrainingInput> vernier = ParseTrainingInputYaml(
      DocumentLines({"trainingInput:", "  scaleTier: BASIC",
                     "  masterConfig:", "    env:", "      FINE: 1", "      TF_CONFIG: '{}'"}),
      kFile);
  EXPECT_EQ(vernier.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(vernier.status().message()),
              StartsWith("hptuning.yaml:6:7: trainingInput.masterConfig.env.TF_CONFIG: TF_CONFIG "
                         "is set by Vernier for every replica"));
  absl::StatusOr<v1::TrainingInput> list = ParseTrainingInputYaml(
      DocumentLines({"trainingInput:", "  scaleTier: BASIC", "  masterConfig:", "    env: [A=1]"}),
      kFile);
  EXPECT_EQ(list.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(list.status().message()),
              HasSubstr("hptuning.yaml:4:10: trainingInput.masterConfig.env: expected a mapping of "
                        "names to values, got a list"));
  absl::StatusOr<v1::TrainingInput> nested =
      ParseTrainingInputYaml(DocumentLines({"trainingInput:", "  scaleTier: BASIC",
                                            "  masterConfig:", "    env:", "      A: {b: 1}"}),
                             kFile);
  EXPECT_THAT(std::string(nested.status().message()),
              HasSubstr("hptuning.yaml:5:10: trainingInput.masterConfig.env.A: expected a string"));
}

TEST(TrainingInputParserTest, JsonIsReadToo) {
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
      R"({"trainingInput": {"scaleTier": "BASIC", "hyperparameters": {"maxTrials": "2",
          "params": [{"parameterName": "x", "type": "INTEGER", "minValue": 1, "maxValue": 3}]}}})",
      "config.json");
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->hyperparameters().max_trials(), 2);
  EXPECT_EQ(input->hyperparameters().params(0).type(), v1::ParameterSpec::INTEGER);
}

TEST(TrainingInputParserTest, AppliesAiPlatformDefaults) {
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
      DocumentLines(Hp({"params:", "  - parameterName: lr", "    type: DOUBLE",
                        "    minValue: 0.01", "    maxValue: 0.1"})),
      kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->scale_tier(), "BASIC");
  EXPECT_FALSE(input->has_master_config());
  EXPECT_FALSE(input->has_worker_config());
  EXPECT_FALSE(input->has_parameter_server_config());
  const v1::HyperparameterSpec& spec = input->hyperparameters();
  EXPECT_EQ(spec.goal(), v1::MetricSpec::MAXIMIZE);
  EXPECT_EQ(spec.hyperparameter_metric_tag(), "training/hptuning/metric");
  EXPECT_EQ(spec.max_trials(), 1);
  EXPECT_EQ(spec.max_parallel_trials(), 1);
  EXPECT_EQ(spec.max_failed_trials(), 0);
  EXPECT_EQ(spec.algorithm(), v1::ALGORITHM_UNSPECIFIED);
  EXPECT_FALSE(spec.enable_trial_early_stopping());
  EXPECT_FALSE(spec.has_early_stopping());
  EXPECT_EQ(spec.params(0).scale_type(), v1::ParameterSpec::NONE);
}

TEST(TrainingInputParserTest, NoHyperparametersIsAPlainTrainingJob) {
  absl::StatusOr<v1::TrainingInput> input =
      ParseTrainingInputYaml(DocumentLines({"trainingInput:", "  jobDir: /tmp/job"}), kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_FALSE(input->has_hyperparameters());
  EXPECT_EQ(input->scale_tier(), "BASIC");
}

TEST(TrainingInputParserTest, ReadsMaxRetries) {
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
      DocumentLines({"trainingInput:", "  scheduling:", "    maxRetries: 2"}), kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->scheduling().max_retries(), 2);
}

TEST(TrainingInputParserTest, MasterTypeWithoutScaleTierMeansCustom) {
  absl::StatusOr<v1::TrainingInput> input =
      ParseTrainingInputYaml(DocumentLines({"trainingInput:", "  masterType: n1-standard-8",
                                            "  workerType: n1-standard-4", "  workerCount: '2'"}),
                             kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->scale_tier(), "CUSTOM");
  EXPECT_EQ(input->worker_count(), 2);
}

TEST(TrainingInputParserTest, ReadsTheTopLevelLabelsAndFindLinks) {
  const std::filesystem::path directory =
      std::filesystem::path(::testing::TempDir()) / "vernier_parser_labels_test";
  std::filesystem::create_directories(directory);
  const std::string path = (directory / "labelled.yaml").string();
  std::ofstream(path) << DocumentLines({"labels:", "  team: vision", "  owner: dora",
                                        "trainingInput:", "  pythonModule: trainer.task",
                                        "  findLinks: [wheels/]"});
  absl::StatusOr<std::map<std::string, std::string>> labels = ParseJobLabelsFile(path);
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(*labels, (std::map<std::string, std::string>{{"owner", "dora"}, {"team", "vision"}}));
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(path);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_THAT(input->find_links(), ::testing::ElementsAre("wheels/"));
  // None in the bare form.
  std::ofstream(path) << DocumentLines({"scaleTier: BASIC"});
  labels = ParseJobLabelsFile(path);
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_TRUE(labels->empty());
}

TEST(TrainingInputParserTest, ReadsFileAndNamesItInErrors) {
  const std::filesystem::path directory =
      std::filesystem::path(::testing::TempDir()) / "vernier_parser_test";
  std::filesystem::create_directories(directory);
  const std::string good = (directory / "good.yaml").string();
  const std::string bad = (directory / "bad.yaml").string();
  std::ofstream(good) << DocumentLines({"trainingInput:", "  region: europe-west4"});
  std::ofstream(bad) << DocumentLines({"trainingInput:", "  regoin: europe-west4"});

  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(good);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->region(), "europe-west4");

  absl::StatusOr<v1::TrainingInput> broken = ParseTrainingInputFile(bad);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(broken.status().message()),
            absl::StrCat(bad,
                         ":2:3: trainingInput.regoin: unknown key \"regoin\"; did you mean "
                         "\"region\"?"));
}

std::filesystem::path SourceDir() {
  const char* source_dir = std::getenv("VERNIER_SOURCE_DIR");
  return source_dir != nullptr ? std::filesystem::path(source_dir) : std::filesystem::path(".");
}

// The reference's complete example is what users copy: it must stay valid.
TEST(TrainingInputParserTest, ReadsTheReferenceExample) {
  std::ifstream reference(SourceDir() / "docs" / "yaml-reference.md");
  ASSERT_TRUE(reference) << "docs/yaml-reference.md not found under " << SourceDir();
  std::string line;
  while (std::getline(reference, line) && line != "## A complete example") {
  }
  while (std::getline(reference, line) && line != "```yaml") {
  }
  std::string example;
  while (std::getline(reference, line) && line != "```") example += line + "\n";
  ASSERT_FALSE(example.empty());

  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(example, "yaml-reference.md");
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->worker_count(), 2);
  EXPECT_EQ(input->worker_config().accelerator_config().count(), 1);
  EXPECT_EQ(input->hyperparameters().params_size(), 4);
  EXPECT_EQ(input->hyperparameters().early_stopping().policy(),
            v1::EarlyStoppingSpec::MEDIAN_STOPPING);
}

TEST(TrainingInputParserTest, ReadsEveryShippedExample) {
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    ++examples;
    absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(entry.path().string());
    ASSERT_TRUE(input.ok()) << entry.path() << ": " << input.status();
    EXPECT_TRUE(input->has_hyperparameters()) << entry.path();
  }
  EXPECT_GE(examples, 6);
}

TEST(TrainingInputParserTest, ReadsTheEarlyStoppingExample) {
  const std::filesystem::path example = SourceDir() / "examples" / "hptuning_early_stopping.yaml";
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(example.string());
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_TRUE(input->hyperparameters().enable_trial_early_stopping());
}

TEST(TrainingInputParserTest, ReadsTheLearningCurvesTieMargin) {
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
      DocumentLines(
          Hp({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: LEARNING_CURVE",
              "  tieMargin: 1.5", "params:", "  - parameterName: lr", "    type: DOUBLE",
              "    minValue: 0.01", "    maxValue: 0.1"})),
      kFile);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->hyperparameters().early_stopping().tie_margin(), 1.5);
}

TEST(TrainingInputParserTest, ATieMarginOfZeroIsSetAndNoneIsUnset) {
  // Unset, the policy chooses the margin from the curves; 0 is a choice.
  for (const auto& [line, set] : {std::pair<std::string, bool>{"  tieMargin: 0", true},
                                  std::pair<std::string, bool>{"  minTrials: 3", false}}) {
    absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputYaml(
        DocumentLines(Hp({"enableTrialEarlyStopping: true", "earlyStopping:", line, "params:",
                          "  - parameterName: lr", "    type: DOUBLE", "    minValue: 0.01",
                          "    maxValue: 0.1"})),
        kFile);
    ASSERT_TRUE(input.ok()) << input.status();
    EXPECT_EQ(input->hyperparameters().early_stopping().has_tie_margin(), set) << line;
    EXPECT_EQ(input->hyperparameters().early_stopping().tie_margin(), 0) << line;
  }
}

TEST(TrainingInputParserTest, MissingFileIsNotFound) {
  const std::string path = "/nonexistent/vernier/hptuning.yaml";
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(path);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(input.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(input.status().message()), HasSubstr("does not exist"));
}

TEST(TrainingInputParserTest, DirectoryIsInvalidArgument) {
  const std::string path = ::testing::TempDir();
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(path);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(input.status().message()),
              HasSubstr(absl::StrCat("config file \"", path, "\" is a directory")));
}

// One bad document: where the error must point and what it must say.
struct ParserErrorCase {
  std::string name;
  std::vector<std::string> lines;
  // "FILE:LINE:COLUMN: FIELD" exactly.
  std::string location;
  std::string problem;
};

void PrintTo(const ParserErrorCase& error, std::ostream* out) { *out << error.name; }

std::vector<std::string> WithParam(std::vector<std::string> hyperparameter_lines,
                                   const std::vector<std::string>& param_lines) {
  hyperparameter_lines.push_back("params:");
  for (const std::string& line : param_lines) hyperparameter_lines.push_back(line);
  return Hp(hyperparameter_lines);
}

// A valid DOUBLE parameter "lr"; as the first of a `params:` list that is
// line N, its keys stand on lines N+1 (parameterName) to N+4, column 9.
const std::vector<std::string> kLearningRate = {"  - parameterName: lr", "    type: DOUBLE",
                                                "    minValue: 0.001", "    maxValue: 0.1"};

std::string Numbers(int count) {
  std::vector<int> numbers;
  for (int i = 1; i <= count; ++i) numbers.push_back(i);
  return absl::StrCat("[", absl::StrJoin(numbers, ", "), "]");
}

std::vector<ParserErrorCase> ErrorCases() {
  const std::string hp = "hptuning.yaml:";
  const std::string field = "trainingInput.hyperparameters.";
  return {
      // YAML itself.
      {"SyntaxError",
       {"trainingInput:", "  scaleTier: BASIC", "   region: x"},
       "hptuning.yaml:3:10",
       "YAML syntax error: illegal map value"},
      // Once INTERNAL with an empty message, after the CLI sent it anyway.
      {"NotUtf8",
       {"trainingInput:", "  scaleTier: BAS\xffIC"},
       "hptuning.yaml:2:17",
       "the file is not valid UTF-8 (byte 0xff); save it as UTF-8"},
      // Once "YAML syntax error: bad file".
      {"NestedTooDeep",
       {"trainingInput:", "  labels: " + std::string(40, '[') + std::string(40, ']')},
       "hptuning.yaml:2:41",
       "lists and mappings nest too deep (more than 32 levels)"},
      {"NestedTooDeepForTheYamlLibrary",
       {"trainingInput:", "  labels: " + std::string(3000, '[') + std::string(3000, ']')},
       // The YAML library's own guard: where its scanner stood.
       "hptuning.yaml:2:6011",
       "lists and mappings nest too deep (more than 32 levels)"},
      {"AliasesExpandBeyondTheLimit",
       {"a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
        "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]"},
       "hptuning.yaml:1:11",
       "the document expands to more than 100000 values (counting every use of an alias)"},
      {"EmptyDocument", {""}, "hptuning.yaml:1:1", "the document is empty"},
      {"TopLevelList", {"- scaleTier: BASIC"}, "hptuning.yaml:1:1", "expected a mapping"},
      // Keys.
      {"UnknownKeyDidYouMean", WithParam({"maxTrails: 10"}, kLearningRate),
       hp + "3:5: " + field + "maxTrails",
       "unknown key \"maxTrails\"; did you mean \"maxTrials\"?"},
      {"UnknownKeyListsAllowed", WithParam({"colour: blue"}, kLearningRate),
       hp + "3:5: " + field + "colour",
       "unknown key \"colour\"; allowed: goal, hyperparameterMetricTag, metrics, maxTrials, "
       "maxParallelTrials, maxFailedTrials, enableTrialEarlyStopping, resumePreviousJobId, "
       "metricRegex, algorithm, params, earlyStopping"},
      {"UnknownParameterKeyDidYouMean",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: 0.001",
                      "    maxValeu: 0.1"}),
       hp + "7:9: " + field + "params[0].maxValeu",
       "unknown key \"maxValeu\"; did you mean \"maxValue\"?"},
      {"UnknownAcceleratorKeyDidYouMean",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  masterConfig:", "    acceleratorConfig: {count: 1, typ: NVIDIA_TESLA_T4}"},
       "hptuning.yaml:5:35: trainingInput.masterConfig.acceleratorConfig.typ",
       "unknown key \"typ\"; did you mean \"type\"?"},
      {"MisspeltTrainingInput",
       {"trainingInptu:", "  scaleTier: BASIC"},
       "hptuning.yaml:1:1: trainingInptu",
       "unknown key \"trainingInptu\"; did you mean \"trainingInput\"?"},
      {"OtherTopLevelKeyBesideTrainingInput",
       {"jobId: my_job", "trainingInput:", "  scaleTier: BASIC"},
       "hptuning.yaml:1:1: jobId",
       "unknown key \"jobId\"; allowed: trainingInput, labels"},
      {"TopLevelLabelsThatAreNoMapping",
       {"trainingInput:", "  scaleTier: BASIC", "labels: [team, vision]"},
       "hptuning.yaml:3:9: labels",
       "expected a mapping of names to values, got a list"},
      {"NonScalarKey",
       {"trainingInput:", "  ? [a, b]", "  : 1"},
       "hptuning.yaml:2:5: trainingInput",
       "keys must be plain names, got a list"},
      {"DuplicateKey", WithParam({"maxTrials: 10", "maxTrials: 20"}, kLearningRate),
       hp + "4:5: " + field + "maxTrials", "duplicate key \"maxTrials\" (first at line 3)"},
      // Types.
      {"IntegerExpected", WithParam({"maxTrials: ten"}, kLearningRate),
       hp + "3:16: " + field + "maxTrials", "expected an integer, got \"ten\""},
      {"IntegerWithTrailingText", WithParam({"maxTrials: 10abc"}, kLearningRate),
       hp + "3:16: " + field + "maxTrials", "expected an integer, got \"10abc\""},
      {"IntegerNotWhole",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: m", "  workerType: w",
        "  workerCount: 1.5"},
       "hptuning.yaml:5:16: trainingInput.workerCount",
       "expected an integer, got \"1.5\""},
      {"QuotedInt64NotANumber",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: m", "  workerType: w",
        "  workerCount: '2x'"},
       "hptuning.yaml:5:16: trainingInput.workerCount",
       "expected an integer, got \"2x\""},
      {"Int32OutOfRange", WithParam({"maxTrials: 3000000000"}, kLearningRate),
       hp + "3:16: " + field + "maxTrials",
       "expected an integer in [-2147483648, 2147483647], got \"3000000000\""},
      {"NonFiniteDouble",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: 0.001",
                      "    maxValue: .inf"}),
       hp + "7:19: " + field + "params[0].maxValue", "expected a finite number, got \".inf\""},
      {"DoubleExpected",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: small",
                      "    maxValue: 0.1"}),
       hp + "6:19: " + field + "params[0].minValue", "expected a number, got \"small\""},
      {"MappingWhereListNeeded", Hp({"params:", "  parameterName: lr"}),
       hp + "4:7: " + field + "params", "expected a list, got a mapping"},
      {"ListWhereMappingNeeded",
       {"trainingInput:", "  hyperparameters:", "    - maxTrials: 1"},
       "hptuning.yaml:3:5: trainingInput.hyperparameters",
       "expected a mapping, got a list"},
      {"MissingValue", WithParam({"maxTrials:"}, kLearningRate), hp + "3:5: " + field + "maxTrials",
       "expected an integer, got nothing"},
      {"HyperparametersWithoutValue",
       {"trainingInput:", "  hyperparameters:"},
       "hptuning.yaml:2:3: trainingInput.hyperparameters",
       "expected a mapping, got nothing"},
      {"BooleanYes", WithParam({"enableTrialEarlyStopping: yes"}, kLearningRate),
       hp + "3:31: " + field + "enableTrialEarlyStopping", "expected true or false, got \"yes\""},
      {"BooleanQuoted", WithParam({"enableTrialEarlyStopping: \"true\""}, kLearningRate),
       hp + "3:31: " + field + "enableTrialEarlyStopping",
       "expected true or false, got the quoted string \"true\""},
      {"StringExpected",
       {"trainingInput:", "  region: {name: x}"},
       "hptuning.yaml:2:11: trainingInput.region",
       "expected a string, got a mapping"},
      {"ArgsNotAList",
       {"trainingInput:", "  args: --epochs=3"},
       "hptuning.yaml:2:9: trainingInput.args",
       "expected a list, got \"--epochs=3\""},
      {"ArgNotAString",
       {"trainingInput:", "  args: [--epochs=3, {a: b}]"},
       "hptuning.yaml:2:22: trainingInput.args[1]",
       "expected a string, got a mapping"},
      // Enum values.
      {"UnknownGoal", WithParam({"goal: MAXIMISE"}, kLearningRate), hp + "3:11: " + field + "goal",
       "unknown goal \"MAXIMISE\"; allowed: MAXIMIZE, MINIMIZE"},
      {"UnknownAlgorithm", WithParam({"algorithm: BAYESIAN"}, kLearningRate),
       hp + "3:16: " + field + "algorithm",
       "unknown algorithm \"BAYESIAN\"; allowed: ALGORITHM_UNSPECIFIED, GRID_SEARCH, "
       "RANDOM_SEARCH, QUASI_RANDOM_SEARCH, GAUSSIAN_PROCESS_BANDIT"},
      {"UnknownParameterType", WithParam({}, {"  - parameterName: lr", "    type: FLOAT"}),
       hp + "5:15: " + field + "params[0].type",
       "unknown parameter type \"FLOAT\"; allowed: DOUBLE, INTEGER, CATEGORICAL, DISCRETE"},
      {"UnknownScaleType",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    scaleType: LOG"}),
       hp + "6:20: " + field + "params[0].scaleType",
       "unknown scale type \"LOG\"; allowed: NONE, UNIT_LINEAR_SCALE, UNIT_LOG_SCALE, "
       "UNIT_REVERSE_LOG_SCALE"},
      {"UnknownEarlyStoppingPolicy",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping: {policy: EARLY}"},
                 kLearningRate),
       hp + "4:29: " + field + "earlyStopping.policy",
       "unknown early stopping policy \"EARLY\"; allowed: POLICY_UNSPECIFIED, MEDIAN_STOPPING, "
       "ASHA, HYPERBAND, LEARNING_CURVE"},
      // Parameter rules (the validator, located through the recorded marks).
      {"MinNotBelowMax",
       WithParam(
           {}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: 5", "    maxValue: 1"}),
       hp + "7:9: " + field + "params[0].maxValue",
       "the maximum (1) must be greater than the minimum (5)"},
      // Reported once by the designer, with no file:line.
      {"RangeTooWide",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: -1e308",
                      "    maxValue: 1e308"}),
       hp + "7:9: " + field + "params[0].maxValue",
       "the range [-1e+308, 1e+308] is too wide: its width overflows a double"},
      {"NulInCategoricalValue",
       WithParam({}, {"  - parameterName: act", "    type: CATEGORICAL",
                      "    categoricalValues: [relu, \"tanh\\0x\"]"}),
       hp + "6:35: " + field + "params[0].categoricalValues[1]",
       "the categorical value contains a control character (\\0 at byte 4)"},
      {"MinEqualsMax",
       WithParam({}, {"  - parameterName: units", "    type: INTEGER", "    minValue: 8",
                      "    maxValue: 8"}),
       hp + "7:9: " + field + "params[0].maxValue",
       "the maximum (8) must be greater than the minimum (8)"},
      {"LogScaleNeedsPositiveMin",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: 0",
                      "    maxValue: 1", "    scaleType: UNIT_LOG_SCALE"}),
       hp + "6:9: " + field + "params[0].minValue",
       "UNIT_LOG_SCALE needs a positive minimum, got 0"},
      {"ReverseLogScaleNeedsPositiveMin",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    minValue: -1",
                      "    maxValue: 1", "    scaleType: UNIT_REVERSE_LOG_SCALE"}),
       hp + "6:9: " + field + "params[0].minValue",
       "UNIT_REVERSE_LOG_SCALE needs a positive minimum, got -1"},
      {"IntegerBoundsNotWhole",
       WithParam({}, {"  - parameterName: units", "    type: INTEGER", "    minValue: 1",
                      "    maxValue: 10.5"}),
       hp + "7:9: " + field + "params[0].maxValue",
       "an INTEGER parameter needs whole-number bounds, got 10.5"},
      {"DoubleBoundMissing",
       WithParam({}, {"  - parameterName: lr", "    type: DOUBLE", "    maxValue: 0.1"}),
       hp + "4:9: " + field + "params[0].minValue", "DOUBLE parameter \"lr\" needs minValue"},
      {"CategoricalValuesEmpty",
       WithParam({},
                 {"  - parameterName: act", "    type: CATEGORICAL", "    categoricalValues: []"}),
       hp + "6:9: " + field + "params[0].categoricalValues",
       "CATEGORICAL parameter \"act\" needs at least one value"},
      {"CategoricalValuesMissing",
       WithParam({}, {"  - parameterName: act", "    type: CATEGORICAL"}),
       hp + "4:9: " + field + "params[0].categoricalValues",
       "CATEGORICAL parameter \"act\" needs at least one value"},
      {"CategoricalValueDuplicate",
       WithParam({}, {"  - parameterName: act", "    type: CATEGORICAL",
                      "    categoricalValues: [relu, tanh, relu]"}),
       hp + "6:41: " + field + "params[0].categoricalValues[2]",
       "duplicate categorical value \"relu\" (first at index 0)"},
      {"CategoricalValueEmptyString",
       WithParam({}, {"  - parameterName: act", "    type: CATEGORICAL",
                      "    categoricalValues: [relu, '']"}),
       hp + "6:35: " + field + "params[0].categoricalValues[1]",
       "categorical values must not be empty"},
      {"DiscreteValuesNotIncreasing",
       WithParam({}, {"  - parameterName: batch", "    type: DISCRETE",
                      "    discreteValues: [1, 2, 2, 3]"}),
       hp + "6:32: " + field + "params[0].discreteValues[2]",
       "values must be strictly increasing, but value 2 at index 2 follows 2 at index 1"},
      {"DiscreteValuesTooMany",
       WithParam({}, {"  - parameterName: batch", "    type: DISCRETE",
                      "    discreteValues: " + Numbers(1001)}),
       hp + "6:9: " + field + "params[0].discreteValues",
       "has 1001 values; at most 1000 are allowed"},
      {"ParameterNameMissing",
       WithParam({}, {"  - type: DOUBLE", "    minValue: 0", "    maxValue: 1"}),
       hp + "4:9: " + field + "params[0].parameterName", "the parameter name is required"},
      {"ParameterNameDuplicate",
       WithParam(
           {"maxTrials: 4"},
           {"  - parameterName: lr", "    type: DOUBLE", "    minValue: 0.001", "    maxValue: 0.1",
            "  - parameterName: lr", "    type: INTEGER", "    minValue: 1", "    maxValue: 3"}),
       hp + "9:9: " + field + "params[1].parameterName",
       "duplicate parameter name \"lr\" (first at index 0)"},
      {"ParameterTypeMissing",
       WithParam({}, {"  - parameterName: lr", "    minValue: 0", "    maxValue: 1"}),
       hp + "4:9: " + field + "params[0].type",
       "parameter \"lr\" needs a type: DOUBLE, INTEGER, CATEGORICAL or DISCRETE"},
      {"ParamsEmpty", Hp({"maxTrials: 4", "params: []"}), hp + "4:5: " + field + "params",
       "at least one parameter is required"},
      {"ParamsAbsent", Hp({"maxTrials: 4"}), hp + "2:3: " + field + "params",
       "at least one parameter is required"},
      {"GridSearchOverDouble", WithParam({"algorithm: GRID_SEARCH"}, kLearningRate),
       hp + "6:9: " + field + "params[0].type",
       "GRID_SEARCH cannot enumerate DOUBLE parameter \"lr\""},
      // Trial counts.
      {"MaxParallelAboveMaxTrials",
       WithParam({"maxTrials: 4", "maxParallelTrials: 5"}, kLearningRate),
       hp + "4:5: " + field + "maxParallelTrials",
       "must not exceed the maximum number of trials (4), got 5"},
      {"MaxParallelAboveDefaultMaxTrials", WithParam({"maxParallelTrials: 2"}, kLearningRate),
       hp + "3:5: " + field + "maxParallelTrials",
       "must not exceed the maximum number of trials (1), got 2"},
      {"MaxTrialsBelowOne", WithParam({"maxTrials: 0"}, kLearningRate),
       hp + "3:5: " + field + "maxTrials", "must be at least 1, got 0"},
      {"MaxParallelTrialsBelowOne",
       WithParam({"maxTrials: 3", "maxParallelTrials: 0"}, kLearningRate),
       hp + "4:5: " + field + "maxParallelTrials", "must be at least 1, got 0"},
      {"MaxFailedTrialsNegative", WithParam({"maxFailedTrials: -1"}, kLearningRate),
       hp + "3:5: " + field + "maxFailedTrials", "must not be negative, got -1"},
      {"EarlyStoppingSettingsWithoutSwitch",
       WithParam({"earlyStopping:", "  policy: MEDIAN_STOPPING"}, kLearningRate),
       hp + "3:5: " + field + "earlyStopping", "is set but trial early stopping is not enabled"},
      // Early stopping: the ASHA settings (keys on line 6, column 7).
      {"ReductionFactorNotAboveOne",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: ASHA",
                  "  reductionFactor: 1"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.reductionFactor",
       "must be greater than 1 (0 or absent means 2), got 1"},
      {"GracePeriodNegative",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: ASHA",
                  "  gracePeriod: -5"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.gracePeriod", "must not be negative, got -5"},
      {"MaxStepWithoutRoomForARung",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: ASHA",
                  "  maxStep: 10", "  gracePeriod: 10"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.maxStep",
       "must be at least 20 (the grace period 10 times the reduction factor 2) for a rung to "
       "stand before it, got 10"},
      {"MaxStepNotPastTheStartStep",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: ASHA",
                  "  maxStep: 4", "  startStep: 8"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.maxStep",
       "must be at least 16 (the grace period 8 times the reduction factor 2) for a rung to "
       "stand before it, got 4"},
      {"AshaSettingWithMedianStopping",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: MEDIAN_STOPPING",
                  "  reductionFactor: 2"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.reductionFactor",
       "only the ASHA and HYPERBAND policies use it, and the policy is MEDIAN_STOPPING; set "
       "another policy or remove it"},
      {"AshaSettingWithTheDefaultPolicy",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  gracePeriod: 5"},
                 kLearningRate),
       hp + "5:7: " + field + "earlyStopping.gracePeriod",
       "only the ASHA and HYPERBAND policies use it, and the policy is LEARNING_CURVE (the "
       "default)"},
      {"MaxStepWithMedianStopping",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: MEDIAN_STOPPING",
                  "  maxStep: 50"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.maxStep",
       "only the ASHA, HYPERBAND and LEARNING_CURVE policies use it, and the policy is "
       "MEDIAN_STOPPING; set another policy or remove it"},
      {"HyperbandMaxStepTooSmall",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: HYPERBAND",
                  "  gracePeriod: 10", "  maxStep: 15"},
                 kLearningRate),
       hp + "7:7: " + field + "earlyStopping.maxStep",
       "must be at least 20 (the grace period 10 times the reduction factor 2) for a rung to "
       "stand before it, got 15"},
      {"TieMarginNegative",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  tieMargin: -1"},
                 kLearningRate),
       hp + "5:7: " + field + "earlyStopping.tieMargin",
       "must be a number of report noises from 0 to 10, got -1"},
      {"TieMarginTooLarge",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: LEARNING_CURVE",
                  "  tieMargin: 11"},
                 kLearningRate),
       hp + "6:7: " + field + "earlyStopping.tieMargin",
       "must be a number of report noises from 0 to 10, got 11"},
      {"TieMarginNotANumber",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  tieMargin: .nan"},
                 kLearningRate),
       hp + "5:18: " + field + "earlyStopping.tieMargin", "expected a finite number, got \".nan\""},
      {"TieMarginWithAsha",
       WithParam(
           {"enableTrialEarlyStopping: true", "earlyStopping:", "  policy: ASHA", "  tieMargin: 1"},
           kLearningRate),
       hp + "6:7: " + field + "earlyStopping.tieMargin",
       "only the LEARNING_CURVE policy uses it, and the policy is ASHA; set another policy or "
       "remove it"},
      {"EarlyStoppingKeyDidYouMean",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  gracePeriods: 3"},
                 kLearningRate),
       hp + "5:7: " + field + "earlyStopping.gracePeriods",
       "unknown key \"gracePeriods\"; did you mean \"gracePeriod\"?"},
      {"ReductionFactorNotANumber",
       WithParam({"enableTrialEarlyStopping: true", "earlyStopping:", "  reductionFactor: half"},
                 kLearningRate),
       hp + "5:24: " + field + "earlyStopping.reductionFactor", "expected a number, got \"half\""},
      {"MetricRegexInvalid", WithParam({"metricRegex: 'loss=([0-9.]+'"}, kLearningRate),
       hp + "3:5: " + field + "metricRegex",
       "not a valid RE2 regular expression: missing ): loss=([0-9.]+"},
      {"MetricRegexNameWithoutValue",
       WithParam({R"(metricRegex: '(?P<name>\w+) is \S+')"}, kLearningRate),
       hp + "3:5: " + field + "metricRegex",
       "the pattern has a group named 'name' but none named 'value'"},
      {"ResumeJobIdInvalid", WithParam({"resumePreviousJobId: 1st_run"}, kLearningRate),
       hp + "3:5: " + field + "resumePreviousJobId", "job id \"1st_run\" must start with a letter"},
      // Replicas.
      {"WorkerCountWithoutWorkerType",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8", "  workerCount: 2"},
       "hptuning.yaml:4:3: trainingInput.workerCount",
       "a positive count needs a worker machine type, got 2"},
      {"ParameterServerCountWithoutType",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  parameterServerCount: '1'"},
       "hptuning.yaml:4:3: trainingInput.parameterServerCount",
       "a positive count needs a parameter server machine type, got 1"},
      {"WorkerCountNegative",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  workerType: n1-standard-4", "  workerCount: -1"},
       "hptuning.yaml:5:3: trainingInput.workerCount",
       "must not be negative, got -1"},
      {"ParameterServerCountNegative",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  parameterServerCount: \"-2\""},
       "hptuning.yaml:4:3: trainingInput.parameterServerCount",
       "must not be negative, got -2"},
      {"AcceleratorCountNegative",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8", "  masterConfig:",
        "    acceleratorConfig:", "      count: -1", "      type: NVIDIA_TESLA_T4"},
       "hptuning.yaml:6:7: trainingInput.masterConfig.acceleratorConfig.count",
       "must not be negative, got -1"},
      {"AcceleratorCountWithoutType",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  workerType: n1-standard-4", "  workerCount: 1",
        "  workerConfig:", "    acceleratorConfig:", "      count: 4"},
       "hptuning.yaml:8:7: trainingInput.workerConfig.acceleratorConfig.count",
       "a positive count needs an accelerator type, e.g. NVIDIA_TESLA_V100, got 4"},
      {"UnknownScaleTier",
       {"trainingInput:", "  scaleTier: HUGE"},
       "hptuning.yaml:2:3: trainingInput.scaleTier",
       "unknown scale tier \"HUGE\"; allowed: BASIC, STANDARD_1, PREMIUM_1, BASIC_GPU, "
       "BASIC_TPU, CUSTOM"},
      {"CustomWithoutMasterType",
       {"trainingInput:", "  scaleTier: CUSTOM"},
       "hptuning.yaml:2:3: trainingInput.scaleTier",
       "the CUSTOM scale tier needs a master machine type"},
      {"MasterTypeOutsideCustom",
       {"trainingInput:", "  scaleTier: BASIC", "  masterType: n1-standard-8"},
       "hptuning.yaml:3:3: trainingInput.masterType",
       "a master machine type is only used with the CUSTOM scale tier, not \"BASIC\""},
      {"WorkerTypeOutsideCustom",
       {"trainingInput:", "  scaleTier: STANDARD_1", "  workerType: n1-standard-4"},
       "hptuning.yaml:3:3: trainingInput.workerType",
       "a worker machine type is only used with the CUSTOM scale tier, not \"STANDARD_1\""},
      {"NegativeMaxRetries",
       {"trainingInput:", "  scheduling:", "    maxRetries: -1"},
       "hptuning.yaml:3:5: trainingInput.scheduling.maxRetries",
       "must not be negative (0: no retries), got -1"},
      {"WorkerTypeWithoutCount",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  workerType: n1-standard-4"},
       "hptuning.yaml:4:3: trainingInput.workerType",
       "a worker machine type needs a positive worker count (how many each trial runs), got "
       "none"},
      {"EvaluatorCountWithoutType",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  evaluatorCount: 1"},
       "hptuning.yaml:4:3: trainingInput.evaluatorCount",
       "a positive count needs an evaluator machine type, got 1"},
      {"EvaluatorsOutsideCustom",
       {"trainingInput:", "  scaleTier: BASIC", "  evaluatorCount: 1"},
       "hptuning.yaml:3:3: trainingInput.evaluatorCount",
       "evaluators are only used with the CUSTOM scale tier, not \"BASIC\""},
      {"EvaluatorAcceleratorCountNegative",
       {"trainingInput:", "  scaleTier: CUSTOM", "  masterType: n1-standard-8",
        "  evaluatorType: n1-standard-4", "  evaluatorCount: 1",
        "  evaluatorConfig:", "    acceleratorConfig: {count: -1, type: NVIDIA_TESLA_T4}"},
       "hptuning.yaml:7:25: trainingInput.evaluatorConfig.acceleratorConfig.count",
       "must not be negative, got -1"},
      {"WorkersOutsideCustom",
       {"trainingInput:", "  workerCount: 3"},
       "hptuning.yaml:2:3: trainingInput.workerCount",
       "workers are only used with the CUSTOM scale tier, not \"BASIC\""},
  };
}

class TrainingInputParserErrorTest : public ::testing::TestWithParam<ParserErrorCase> {};

TEST_P(TrainingInputParserErrorTest, NamesFileLineAndField) {
  const ParserErrorCase& error = GetParam();
  absl::StatusOr<v1::TrainingInput> input =
      ParseTrainingInputYaml(DocumentLines(error.lines), kFile);
  ASSERT_FALSE(input.ok()) << DocumentLines(error.lines);
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(input.status().message());
  EXPECT_THAT(message, StartsWith(error.location + ": ")) << DocumentLines(error.lines);
  EXPECT_THAT(message, HasSubstr(error.problem));
}

INSTANTIATE_TEST_SUITE_P(AllRules, TrainingInputParserErrorTest, ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ParserErrorCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace vernier::config
