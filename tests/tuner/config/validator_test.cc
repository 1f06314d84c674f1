#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "tuner/config/environment_rules.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/training_input_defaults.h"

namespace vernier::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename Message>
Message TextProto(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

void ExpectInvalid(const absl::Status& status, const std::string& expected_message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(std::string(status.message()), expected_message);
}

v1::HyperparameterSpec ValidHyperparameters() {
  return TextProto<v1::HyperparameterSpec>(R"pb(
    goal: MAXIMIZE
    hyperparameter_metric_tag: "accuracy"
    max_trials: 10
    max_parallel_trials: 2
    params { parameter_name: "lr" type: DOUBLE min_value: 0.001 max_value: 0.1 }
    params { parameter_name: "units" type: INTEGER min_value: 8 max_value: 64 }
    params {
      parameter_name: "act"
      type: CATEGORICAL
      categorical_values: [ "relu", "tanh" ]
    }
    params {
      parameter_name: "batch"
      type: DISCRETE
      discrete_values: [ 16, 32, 64 ]
    }
  )pb");
}

absl::Status ValidateHyperparameters(const v1::HyperparameterSpec& spec) {
  return ValidateHyperparameterSpec(spec, ProtoPathLocator("training_input.hyperparameters"));
}

TEST(HyperparameterValidatorTest, AcceptsValidSpec) {
  EXPECT_TRUE(ValidateHyperparameters(ValidHyperparameters()).ok());
}

TEST(HyperparameterValidatorTest, HandsTheLocatorProtoFieldPaths) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  spec.mutable_params(1)->set_max_value(4);
  std::vector<std::string> asked;
  const absl::Status status = ValidateHyperparameterSpec(spec, [&](std::string_view path) {
    asked.emplace_back(path);
    return std::string("here");
  });
  EXPECT_THAT(asked, ElementsAre("params[1].max_value"));
  ExpectInvalid(status, "here: the maximum (4) must be greater than the minimum (8)");
}

TEST(HyperparameterValidatorTest, AcceptsExactlyAThousandDiscreteValues) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  v1::ParameterSpec* batch = spec.mutable_params(3);
  batch->clear_discrete_values();
  for (int i = 0; i < kMaxDiscreteValues; ++i) batch->add_discrete_values(i);
  EXPECT_TRUE(ValidateHyperparameters(spec).ok());
  batch->add_discrete_values(kMaxDiscreteValues);
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[3].discrete_values: has 1001 values; at "
                "most 1000 are allowed");
}

// Rules that only a request built in code can break (the YAML parser never
// produces these values) or that the parser tests do not reach.
struct SpecCase {
  std::string name;
  std::string mutation;  // Text format merged into ValidHyperparameters().
  std::string expected;  // The whole message.
};

std::vector<SpecCase> SpecCases() {
  const std::string at = "training_input.hyperparameters.";
  return {
      {"GoalUnspecified", "goal: GOAL_UNSPECIFIED",
       at + "goal: the goal is required: MAXIMIZE or MINIMIZE"},
      {"MetricTagEmpty", "hyperparameter_metric_tag: ''",
       at + "hyperparameter_metric_tag: the metric tag is empty; it names the metric the "
            "trainer reports"},
      {"ParameterNameNotAFlag", "params { parameter_name: 'drop out' type: DOUBLE max_value: 1 }",
       at + "params[4].parameter_name: parameter name \"drop out\" must start with a letter or "
            "'_' and contain only letters, digits, '_', '.' and '-' (it becomes a --name=value "
            "flag)"},
      {"BoundsOnCategorical",
       "params { parameter_name: 'opt' type: CATEGORICAL categorical_values: 'adam' "
       "min_value: 1 }",
       at + "params[4].min_value: only DOUBLE and INTEGER parameters take bounds, this one is "
            "CATEGORICAL"},
      {"MaxBoundOnDiscrete",
       "params { parameter_name: 'b' type: DISCRETE discrete_values: 1 max_value: 2 }",
       at + "params[4].max_value: only DOUBLE and INTEGER parameters take bounds, this one is "
            "DISCRETE"},
      {"CategoricalValuesOnDouble",
       "params { parameter_name: 'x' type: DOUBLE max_value: 1 categorical_values: 'a' }",
       at + "params[4].categorical_values: only CATEGORICAL parameters take categorical values, "
            "this one is DOUBLE"},
      {"DiscreteValuesOnInteger",
       "params { parameter_name: 'x' type: INTEGER max_value: 3 discrete_values: 1 }",
       at + "params[4].discrete_values: only DISCRETE parameters take discrete values, this one "
            "is INTEGER"},
      {"ScaledCategorical",
       "params { parameter_name: 'x' type: CATEGORICAL categorical_values: 'a' "
       "scale_type: UNIT_LOG_SCALE }",
       at + "params[4].scale_type: CATEGORICAL parameters cannot be scaled, got UNIT_LOG_SCALE"},
      {"IntegerBoundBeyondExactRange",
       "params { parameter_name: 'x' type: INTEGER max_value: 1e16 }",
       at + "params[4].max_value: INTEGER bounds must lie within +-2^53 = +-9007199254740992, "
            "got 1e+16"},
      {"DiscreteLogScaleNeedsPositiveValues",
       "params { parameter_name: 'x' type: DISCRETE discrete_values: [ 0, 1 ] "
       "scale_type: UNIT_LOG_SCALE }",
       at + "params[4].discrete_values[0]: UNIT_LOG_SCALE needs positive values, got 0"},
      {"DiscreteValuesEmpty", "params { parameter_name: 'x' type: DISCRETE }",
       at + "params[4].discrete_values: DISCRETE parameter \"x\" needs at least one value"},
      {"UnknownTypeNumber", "params { parameter_name: 'x' type: 9 }",
       at + "params[4].type: unknown parameter type 9; allowed: DOUBLE, INTEGER, CATEGORICAL, "
            "DISCRETE"},
      {"UnknownScaleNumber", "params { parameter_name: 'x' type: DOUBLE scale_type: 7 }",
       at + "params[4].scale_type: unknown scale type 7; allowed: NONE, UNIT_LINEAR_SCALE, "
            "UNIT_LOG_SCALE, UNIT_REVERSE_LOG_SCALE"},
      {"UnknownGoalNumber", "goal: 5", at + "goal: unknown goal 5; allowed: MAXIMIZE, MINIMIZE"},
      {"UnknownAlgorithmNumber", "algorithm: 12",
       at + "algorithm: unknown algorithm 12; allowed: ALGORITHM_UNSPECIFIED, GRID_SEARCH, "
            "RANDOM_SEARCH, QUASI_RANDOM_SEARCH, GAUSSIAN_PROCESS_BANDIT"},
      {"UnknownEarlyStoppingPolicyNumber",
       "enable_trial_early_stopping: true early_stopping { policy: 9 }",
       at + "early_stopping.policy: unknown early stopping policy 9; allowed: "
            "POLICY_UNSPECIFIED, MEDIAN_STOPPING, ASHA, HYPERBAND, LEARNING_CURVE"},
      {"EarlyStoppingMinTrialsNegative",
       "enable_trial_early_stopping: true early_stopping { min_trials: -3 }",
       at + "early_stopping.min_trials: must not be negative, got -3"},
      {"EarlyStoppingStartStepNegative",
       "enable_trial_early_stopping: true early_stopping { start_step: -1 }",
       at + "early_stopping.start_step: must not be negative, got -1"},
      {"EarlyStoppingReductionFactorNotANumber",
       "enable_trial_early_stopping: true early_stopping { policy: ASHA reduction_factor: nan }",
       at + "early_stopping.reduction_factor: must be greater than 1 (0 or absent means 2), got "
            "nan"},
      {"EarlyStoppingMaxStepNegative",
       "enable_trial_early_stopping: true early_stopping { policy: ASHA max_step: -1 }",
       at + "early_stopping.max_step: must not be negative, got -1"},
      {"EarlyStoppingGracePeriodWithMedian",
       "enable_trial_early_stopping: true early_stopping { policy: MEDIAN_STOPPING "
       "grace_period: 3 }",
       at + "early_stopping.grace_period: only the ASHA and HYPERBAND policies use it, and the "
            "policy is MEDIAN_STOPPING; set another policy or remove it"},
      {"EarlyStoppingReductionFactorWithLearningCurve",
       "enable_trial_early_stopping: true early_stopping { policy: LEARNING_CURVE "
       "reduction_factor: 3 }",
       at + "early_stopping.reduction_factor: only the ASHA and HYPERBAND policies use it, and "
            "the policy is LEARNING_CURVE; set another policy or remove it"},
      {"EarlyStoppingTieMarginNotANumber",
       "enable_trial_early_stopping: true early_stopping { tie_margin: nan }",
       at + "early_stopping.tie_margin: must be a number of report noises from 0 to 10, got nan"},
      {"EarlyStoppingTieMarginNegative",
       "enable_trial_early_stopping: true early_stopping { policy: LEARNING_CURVE "
       "tie_margin: -0.5 }",
       at + "early_stopping.tie_margin: must be a number of report noises from 0 to 10, got "
            "-0.5"},
      {"EarlyStoppingTieMarginWithHyperband",
       "enable_trial_early_stopping: true early_stopping { policy: HYPERBAND tie_margin: 1 }",
       at + "early_stopping.tie_margin: only the LEARNING_CURVE policy uses it, and the policy "
            "is HYPERBAND; set another policy or remove it"},
      {"EarlyStoppingTieMarginZeroWithAsha",
       "enable_trial_early_stopping: true early_stopping { policy: ASHA tie_margin: 0 }",
       at + "early_stopping.tie_margin: only the LEARNING_CURVE policy uses it, and the policy "
            "is ASHA; set another policy or remove it"},
      {"EarlyStoppingHyperbandReductionFactorOne",
       "enable_trial_early_stopping: true early_stopping { policy: HYPERBAND "
       "reduction_factor: 1 }",
       at + "early_stopping.reduction_factor: must be greater than 1 (0 or absent means 2), got "
            "1"},
      {"EarlyStoppingAshaSettingsWithoutSwitch", "early_stopping { policy: ASHA max_step: 9 }",
       at + "early_stopping: is set but trial early stopping is not enabled; enable it or "
            "remove these settings"},
      {"MetricRegexWithoutMetricGroups", "metric_regex: 'loss=[0-9.]+'",
       at + "metric_regex: the pattern has 0 capturing group(s) and no named ones; use "
            "(?P<name>...) and (?P<value>...), a group named after each metric such as "
            "(?P<loss>...), or two groups: name, then value"},
      {"EarlyStoppingEnabledInsideButNotSwitchedOn", "early_stopping { enabled: true }",
       at + "early_stopping: is set but trial early stopping is not enabled; enable it or "
            "remove these settings"},
  };
}

void PrintTo(const SpecCase& spec_case, std::ostream* out) { *out << spec_case.name; }

class HyperparameterValidatorRuleTest : public ::testing::TestWithParam<SpecCase> {};

TEST_P(HyperparameterValidatorRuleTest, RejectsWithProtoPath) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(GetParam().mutation, &spec));
  ExpectInvalid(ValidateHyperparameters(spec), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(AllRules, HyperparameterValidatorRuleTest,
                         ::testing::ValuesIn(SpecCases()),
                         [](const ::testing::TestParamInfo<SpecCase>& info) {
                           return info.param.name;
                         });

TEST(HyperparameterValidatorTest, RejectsNonFiniteValuesFromRequests) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  spec.mutable_params(0)->set_min_value(std::numeric_limits<double>::quiet_NaN());
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[0].min_value: must be a finite number, "
                "got nan");

  spec = ValidHyperparameters();
  spec.mutable_params(3)->set_discrete_values(1, std::numeric_limits<double>::infinity());
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[3].discrete_values[1]: must be a finite "
                "number, got inf");
}

// A NUL in a categorical value was accepted and cut the value short on the
// command line: two values ran as the same flag.
TEST(HyperparameterValidatorTest, RejectsControlCharactersInCategoricalValues) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  spec.mutable_params(2)->set_categorical_values(1, std::string("relu\0x", 6));
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[2].categorical_values[1]: the categorical "
                "value contains a control character (\\0 at byte 4); newlines, NUL and other "
                "control characters are not allowed");
  spec.mutable_params(2)->set_categorical_values(1, "tanh\n[vernier-agent] forged");
  EXPECT_EQ(ValidateHyperparameters(spec).code(), absl::StatusCode::kInvalidArgument);
  spec.mutable_params(2)->set_categorical_values(1, "tanh (\xe8\xae\xad)");
  EXPECT_TRUE(ValidateHyperparameters(spec).ok());
}

// 500,000 categorical values were accepted, after which listing studies
// failed forever with RESOURCE_EXHAUSTED.
TEST(HyperparameterValidatorTest, EnforcesTheSizeLimits) {
  v1::HyperparameterSpec spec = ValidHyperparameters();
  for (int i = spec.params(2).categorical_values_size(); i <= kMaxCategoricalValues; ++i) {
    spec.mutable_params(2)->add_categorical_values(absl::StrCat("v", i));
  }
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[2].categorical_values: has 1001 values; at "
                "most 1000 are allowed");

  spec = ValidHyperparameters();
  spec.mutable_params(2)->set_categorical_values(1, std::string(257, 'x'));
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[2].categorical_values[1]: the categorical "
                "value is 257 bytes; at most 256 are allowed");

  spec = ValidHyperparameters();
  for (int i = spec.params_size(); i <= kMaxParameters; ++i) {
    v1::ParameterSpec* param = spec.add_params();
    param->set_parameter_name(absl::StrCat("p", i));
    param->set_type(v1::ParameterSpec::DOUBLE);
    param->set_min_value(0);
    param->set_max_value(1);
  }
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params: has 101 parameters; at most 100 are "
                "allowed");
}

// A job dir with a newline became an #SBATCH line and a command of the batch
// script; it is refused before anything is stored.
TEST(TrainingInputValidatorTest, RejectsAJobDirWithAControlCharacter) {
  v1::TrainingInput input;
  FillTrainingInputDefaults(input);
  input.set_job_dir("/data/jobs\necho injected");
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.job_dir: the job dir contains a control character (\\n at byte "
                "10); newlines, NUL and other control characters are not allowed");
  ExpectInvalid(ValidateJobDir("/data/jobs\r"),
                "job_dir contains a control character (\\r at byte 10); newlines, NUL and other "
                "control characters are not allowed");
  EXPECT_TRUE(ValidateJobDir("/data/my jobs/it's").ok());
}

TEST(TrainingInputValidatorTest, NamesNestedProtoFields) {
  v1::TrainingInput input = TextProto<v1::TrainingInput>(R"pb(
    scale_tier: "CUSTOM"
    master_type: "n1-standard-8"
    worker_type: "n1-standard-4"
    worker_count: 2
    parameter_server_config { accelerator_config { count: -2 type: "NVIDIA_TESLA_T4" } }
  )pb");
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.parameter_server_config.accelerator_config.count: must not be "
                "negative, got -2");

  input.clear_parameter_server_config();
  *input.mutable_hyperparameters() = ValidHyperparameters();
  input.mutable_hyperparameters()->set_max_failed_trials(-4);
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.hyperparameters.max_failed_trials: must not be negative, got -4");

  input.mutable_hyperparameters()->set_max_failed_trials(0);
  EXPECT_TRUE(ValidateTrainingInput(input, ProtoPathLocator("training_input")).ok());
}

TEST(TrainingInputValidatorTest, EmptyScaleTierIsRejectedUntilDefaultsFillIt) {
  v1::TrainingInput input;
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.scale_tier: unknown scale tier \"\"; allowed: BASIC, "
                "STANDARD_1, PREMIUM_1, BASIC_GPU, BASIC_TPU, CUSTOM");
  FillTrainingInputDefaults(input);
  EXPECT_TRUE(ValidateTrainingInput(input, ProtoPathLocator("training_input")).ok());
}

TEST(TrainingInputDefaultsTest, FillsZeroFieldsOfRequests) {
  v1::TrainingInput input = TextProto<v1::TrainingInput>(R"pb(
    master_type: "n1-standard-8"
    hyperparameters {
      max_parallel_trials: 0
      params { parameter_name: "x" }
    }
  )pb");
  FillTrainingInputDefaults(input);
  EXPECT_EQ(input.scale_tier(), "CUSTOM");
  const v1::HyperparameterSpec& spec = input.hyperparameters();
  EXPECT_EQ(spec.goal(), v1::MetricSpec::MAXIMIZE);
  EXPECT_EQ(spec.hyperparameter_metric_tag(), "training/hptuning/metric");
  EXPECT_EQ(spec.max_trials(), 1);
  EXPECT_EQ(spec.max_parallel_trials(), 1);
  EXPECT_EQ(spec.params_size(), 1);

  v1::TrainingInput set = TextProto<v1::TrainingInput>(R"pb(
    scale_tier: "BASIC_GPU"
    hyperparameters {
      goal: MINIMIZE
      hyperparameter_metric_tag: "loss"
      max_trials: 9
      max_parallel_trials: 3
    }
  )pb");
  const v1::TrainingInput before = set;
  FillTrainingInputDefaults(set);
  EXPECT_EQ(set.SerializeAsString(), before.SerializeAsString());

  v1::TrainingInput plain;
  FillTrainingInputDefaults(plain);
  EXPECT_EQ(plain.scale_tier(), "BASIC");
  EXPECT_FALSE(plain.has_hyperparameters());
}

v1::StudySpec ValidStudySpec() {
  return TextProto<v1::StudySpec>(R"pb(
    parameters { parameter_name: "lr" type: DOUBLE min_value: 0.001 max_value: 0.1 }
    parameters { parameter_name: "units" type: INTEGER min_value: 8 max_value: 64 }
    metrics { metric_id: "accuracy" goal: MAXIMIZE }
    algorithm: RANDOM_SEARCH
  )pb");
}

TEST(StudySpecValidatorTest, AcceptsUnlimitedTrials) {
  v1::StudySpec spec = ValidStudySpec();
  ASSERT_EQ(spec.max_trials(), 0);
  spec.set_max_parallel_trials(8);
  EXPECT_TRUE(ValidateStudySpec(spec).ok());
}

TEST(StudySpecValidatorTest, AcceptsEarlyStoppingWithOneObjectiveAndConstraints) {
  v1::StudySpec spec = ValidStudySpec();
  v1::MetricSpec* latency = spec.add_metrics();
  latency->set_metric_id("latency");
  latency->mutable_constraint()->set_max_value(50);
  spec.mutable_early_stopping()->set_enabled(true);
  EXPECT_TRUE(ValidateStudySpec(spec).ok()) << ValidateStudySpec(spec);
}

TEST(StudySpecValidatorTest, AcceptsSeveralMetrics) {
  v1::StudySpec spec = ValidStudySpec();
  v1::MetricSpec* latency = spec.add_metrics();
  latency->set_metric_id("latency");
  latency->set_goal(v1::MetricSpec::MINIMIZE);
  EXPECT_TRUE(ValidateStudySpec(spec).ok());
}

std::vector<SpecCase> StudyCases() {
  return {
      {"NoMetrics", "", "spec.metrics: at least one metric is required"},
      {"MetricIdEmpty", "metrics { goal: MAXIMIZE }",
       "spec.metrics[0].metric_id: the metric id is required"},
      {"MetricGoalMissing", "metrics { metric_id: 'loss' }",
       "spec.metrics[0].goal: the goal is required: MAXIMIZE or MINIMIZE"},
      {"MetricIdDuplicate",
       "metrics { metric_id: 'loss' goal: MINIMIZE } metrics { metric_id: 'loss' goal: MAXIMIZE }",
       "spec.metrics[1].metric_id: duplicate metric id \"loss\" (first at index 0)"},
      {"NoParameters", "metrics { metric_id: 'loss' goal: MINIMIZE }",
       "spec.parameters: at least one parameter is required"},
      {"SeveralObjectivesWithEarlyStopping",
       "metrics { metric_id: 'acc' goal: MAXIMIZE } metrics { metric_id: 'ms' goal: MINIMIZE } "
       "early_stopping { enabled: true } "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.early_stopping.enabled: early stopping compares trials on one objective, and this "
       "study has 2 (a trial behind on one may lead on another); disable early stopping or keep "
       "one objective"},
      {"ConstraintFirst",
       "metrics { metric_id: 'ms' constraint { max_value: 5 } } "
       "metrics { metric_id: 'acc' goal: MAXIMIZE }",
       "spec.metrics[0].constraint: the first metric must be an objective (the one a "
       "single-objective view reports); list the outcome constraints after the objectives"},
      {"ConstraintWithGoal",
       "metrics { metric_id: 'acc' goal: MAXIMIZE } "
       "metrics { metric_id: 'ms' goal: MINIMIZE constraint { max_value: 5 } }",
       "spec.metrics[1].goal: metric \"ms\" is an outcome constraint (it has a constraint), "
       "which has no goal; remove the goal, or the constraint to make it an objective"},
      {"ConstraintWithoutBounds",
       "metrics { metric_id: 'acc' goal: MAXIMIZE } metrics { metric_id: 'ms' constraint { } }",
       "spec.metrics[1].constraint: needs minValue, maxValue or both (the bounds a feasible "
       "trial's value lies within)"},
      {"ConstraintNotFinite",
       "metrics { metric_id: 'acc' goal: MAXIMIZE } "
       "metrics { metric_id: 'ms' constraint { max_value: inf } }",
       "spec.metrics[1].constraint.max_value: must be a finite number, got inf"},
      {"ConstraintEmptyRange",
       "metrics { metric_id: 'acc' goal: MAXIMIZE } "
       "metrics { metric_id: 'ms' constraint { min_value: 2 max_value: 1 } }",
       "spec.metrics[1].constraint.min_value: must not exceed max_value (1), got 2"},
      {"MaxTrialsNegative",
       "metrics { metric_id: 'loss' goal: MINIMIZE } max_trials: -1 "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.max_trials: must not be negative (0 means no limit), got -1"},
      {"MaxParallelTrialsNegative",
       "metrics { metric_id: 'loss' goal: MINIMIZE } max_parallel_trials: -2 "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.max_parallel_trials: must not be negative (0 means no limit), got -2"},
      {"MaxFailedTrialsNegative",
       "metrics { metric_id: 'loss' goal: MINIMIZE } max_failed_trials: -3 "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.max_failed_trials: must not be negative (0 means no limit), got -3"},
      {"ParallelAboveMaxTrials",
       "metrics { metric_id: 'loss' goal: MINIMIZE } max_trials: 3 max_parallel_trials: 4 "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.max_parallel_trials: must not exceed the maximum number of trials (3), got 4"},
      {"EarlyStoppingStartStepNegative",
       "metrics { metric_id: 'loss' goal: MINIMIZE } early_stopping { start_step: -7 } "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.early_stopping.start_step: must not be negative, got -7"},
      {"ParameterBounds",
       "metrics { metric_id: 'loss' goal: MINIMIZE } "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 } "
       "parameters { parameter_name: 'y' type: DOUBLE min_value: 2 max_value: 1 }",
       "spec.parameters[1].max_value: the maximum (1) must be greater than the minimum (2)"},
      {"ParameterNameDuplicate",
       "metrics { metric_id: 'loss' goal: MINIMIZE } "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 } "
       "parameters { parameter_name: 'x' type: INTEGER max_value: 1 }",
       "spec.parameters[1].parameter_name: duplicate parameter name \"x\" (first at index 0); a "
       "name may be used once in the whole tree"},
      {"GridSearchOverDouble",
       "metrics { metric_id: 'loss' goal: MINIMIZE } algorithm: GRID_SEARCH "
       "parameters { parameter_name: 'x' type: DOUBLE max_value: 1 }",
       "spec.parameters[0].type: GRID_SEARCH cannot enumerate DOUBLE parameter \"x\"; make it "
       "INTEGER, DISCRETE or CATEGORICAL, or pick another algorithm"},
  };
}

class StudySpecValidatorRuleTest : public ::testing::TestWithParam<SpecCase> {};

TEST_P(StudySpecValidatorRuleTest, RejectsWithSpecPath) {
  v1::StudySpec spec;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(GetParam().mutation, &spec));
  ExpectInvalid(ValidateStudySpec(spec), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(AllRules, StudySpecValidatorRuleTest, ::testing::ValuesIn(StudyCases()),
                         [](const ::testing::TestParamInfo<SpecCase>& info) {
                           return info.param.name;
                         });

TEST(JobIdValidatorTest, AcceptsLettersDigitsAndUnderscores) {
  EXPECT_TRUE(ValidateJobId("mnist_tuning_2024").ok());
  EXPECT_TRUE(ValidateJobId("J").ok());
}

TEST(JobIdValidatorTest, RejectsEmpty) {
  ExpectInvalid(ValidateJobId(""), "job id is empty; it must start with a letter");
}

TEST(JobIdValidatorTest, RejectsLeadingDigit) {
  ExpectInvalid(ValidateJobId("2nd_run"), "job id \"2nd_run\" must start with a letter");
}

TEST(JobIdValidatorTest, RejectsHyphen) {
  ExpectInvalid(ValidateJobId("mnist-run"),
                "job id \"mnist-run\" has '-' at position 5; only letters, digits and "
                "underscores are allowed");
}

TEST(JobIdValidatorTest, AcceptsExactly128Characters) {
  EXPECT_TRUE(ValidateJobId("j" + std::string(127, '0')).ok());
}

TEST(JobIdValidatorTest, Rejects129Characters) {
  const std::string id = "j" + std::string(128, '0');
  ExpectInvalid(ValidateJobId(id),
                "job id \"" + id + "\" is 129 characters long; at most 128 are allowed");
}

}  // namespace
}  // namespace vernier::config

namespace vernier::config {
namespace {

TEST(EnvironmentRulesTest, AJobsEnvironmentIsRefusedNamingTheVariable) {
  v1::Job job;
  job.add_command("python3");
  (*job.mutable_environment())["PATH"] = "/usr/bin";
  EXPECT_TRUE(ValidateJobFields(job).ok());
  (*job.mutable_environment())["MASTER_PORT"] = "1";
  ExpectInvalid(ValidateJobFields(job),
                "job.environment.MASTER_PORT: MASTER_PORT is set by Vernier for every replica "
                "(docs/jobs.md, \"The trial's environment\"); remove it");
  job.mutable_environment()->erase("MASTER_PORT");
  (*job.mutable_environment())["A-B"] = "1";
  ExpectInvalid(ValidateJobFields(job),
                "job.environment.A-B: \"A-B\" is not a variable name (letters, digits and _, not "
                "first a digit)");
  job.mutable_environment()->erase("A-B");
  (*job.mutable_environment())["NUL"] = std::string("a\0b", 3);
  ExpectInvalid(ValidateJobFields(job),
                "job.environment.NUL: the value has a NUL byte, which no environment can hold");
  job.mutable_environment()->erase("NUL");
  (*job.mutable_environment())["BIG"] = std::string(kMaxArgBytes + 1, 'x');
  ExpectInvalid(ValidateJobFields(job),
                "job.environment.BIG: the value is 16385 bytes; at most 16384 are allowed");
  job.mutable_environment()->clear();
  for (int i = 0; i <= kMaxEnvironmentVariables; ++i) {
    (*job.mutable_environment())[absl::StrCat("V", i)] = "1";
  }
  ExpectInvalid(ValidateJobFields(job),
                "job.environment: has 1001 variables; at most 1000 are allowed");

  v1::TrainingInput input;
  input.set_scale_tier("BASIC");
  (*input.mutable_worker_config()->mutable_env())["9LIVES"] = "1";
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.worker_config.env.9LIVES: \"9LIVES\" is not a variable name "
                "(letters, digits and _, not first a digit)");
}

TEST(FieldSizeLimitsTest, JobsAndTrainingInputsAreRefusedNamingTheOversizedField) {
  v1::Job job;
  job.add_command("python3");
  job.add_command(std::string(kMaxArgBytes + 1, 'a'));
  ExpectInvalid(ValidateJobFields(job),
                "job.command[1]: is 16385 bytes; at most 16384 are allowed");
  job.clear_command();
  for (int i = 0; i <= kMaxCommandArgs; ++i) job.add_command("x");
  ExpectInvalid(ValidateJobFields(job), "job.command: has 1001 values; at most 1000 are allowed");
  job.clear_command();
  job.set_working_dir("/" + std::string(kMaxPathBytes, 'w'));
  ExpectInvalid(ValidateJobFields(job), "job.working_dir: is 4097 bytes; at most 4096 are allowed");

  v1::TrainingInput input;
  input.set_scale_tier("BASIC");
  input.add_args(std::string(kMaxArgBytes + 1, 'a'));
  ExpectInvalid(ValidateTrainingInput(input, ProtoPathLocator("training_input")),
                "training_input.args[0]: is 16385 bytes; at most 16384 are allowed");

  v1::HyperparameterSpec spec = ValidHyperparameters();
  spec.set_hyperparameter_metric_tag(std::string(kMaxNameBytes + 1, 'm'));
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.hyperparameter_metric_tag: is 257 bytes; at most "
                "256 are allowed");
  spec = ValidHyperparameters();
  spec.mutable_params(0)->set_parameter_name(std::string(3 << 20, 'p'));
  ExpectInvalid(ValidateHyperparameters(spec),
                "training_input.hyperparameters.params[0].parameter_name: is 3145728 bytes; at "
                "most 256 are allowed");
}

TEST(FieldSizeLimitsTest, AStudyIsRefusedAnOversizedDisplayNameOrSpec) {
  v1::Study study;
  study.set_display_name(std::string(kMaxNameBytes + 1, 'd'));
  ExpectInvalid(ValidateStudy(study), "study.display_name: is 257 bytes; at most 256 are allowed");

  v1::HyperparameterSpec spec = ValidHyperparameters();
  for (int p = 0; p < 5; ++p) {
    v1::ParameterSpec& parameter = *spec.add_params();
    parameter.set_parameter_name(absl::StrCat("c", p));
    parameter.set_type(v1::ParameterSpec::CATEGORICAL);
    for (int i = 0; i < kMaxCategoricalValues; ++i) {
      parameter.add_categorical_values(absl::StrCat(i, std::string(240, 'v')));
    }
  }
  const absl::Status status = ValidateHyperparameters(spec);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("training_input.hyperparameters.params: is "));
  EXPECT_THAT(status.message(), HasSubstr("bytes once encoded; at most 1048576 are allowed"));
}

}  // namespace
}  // namespace vernier::config

namespace vernier::config {
namespace {

v1::StudySpec ConditionalStudySpec(const std::string& condition, const std::string& child) {
  return TextProto<v1::StudySpec>(
      absl::StrCat(R"pb(
                     parameters { parameter_name: "model" type: CATEGORICAL
                                  categorical_values: [ "linear", "dnn" ]
                                  conditional_parameter_specs {
                   )pb",
                   condition, " parameter_spec { ", child, R"pb(}
                                                                }
    }
    metrics { metric_id: "accuracy" goal: MAXIMIZE }
  )pb"));
}

TEST(ConditionalParameterValidatorTest, AcceptsANestedTree) {
  v1::StudySpec spec = ConditionalStudySpec(
      R"pb(parent_categorical_values { values: "dnn" })pb",
      R"pb(parameter_name: "layers"
           type: INTEGER
           min_value: 1
           max_value: 4
           conditional_parameter_specs {
             parent_int_values { values: [ 3, 4 ] }
             parameter_spec {
               parameter_name: "width"
               type: DISCRETE
               discrete_values: [ 64, 128 ]
               conditional_parameter_specs {
                 parent_discrete_values { values: 128 }
                 parameter_spec { parameter_name: "dropout" type: DOUBLE min_value: 0 max_value: 1 }
               }
             }
           })pb");
  EXPECT_TRUE(ValidateStudySpec(spec).ok()) << ValidateStudySpec(spec);
}

TEST(ConditionalParameterValidatorTest, NamesTheNestedProtoFieldOfEachProblem) {
  ExpectInvalid(ValidateStudySpec(ConditionalStudySpec(
                    R"pb(parent_categorical_values { values: [ "dnn", "cnn" ] })pb",
                    R"pb(parameter_name: "layers" type: INTEGER min_value: 1 max_value: 4)pb")),
                "spec.parameters[0].conditional_parameter_specs[0].parent_categorical_values."
                "values[1]: \"cnn\" is not a value of parent \"model\" (linear, dnn)");
  ExpectInvalid(ValidateStudySpec(ConditionalStudySpec(R"pb(parent_int_values { values: 1 })pb",
                                                       R"pb(parameter_name: "layers"
                                                            type: INTEGER
                                                            min_value: 1
                                                            max_value: 4)pb")),
                "spec.parameters[0].conditional_parameter_specs[0]: parent \"model\" is "
                "CATEGORICAL, so the condition must be parentCategoricalValues");
  ExpectInvalid(ValidateStudySpec(ConditionalStudySpec(R"pb(parent_categorical_values {})pb",
                                                       R"pb(parameter_name: "layers"
                                                            type: INTEGER
                                                            min_value: 1
                                                            max_value: 4)pb")),
                "spec.parameters[0].conditional_parameter_specs[0].parent_categorical_values."
                "values: lists no values of parent \"model\"; the conditional parameter would "
                "never be active");
  ExpectInvalid(ValidateStudySpec(ConditionalStudySpec(
                    R"pb(parent_categorical_values { values: "dnn" })pb",
                    R"pb(parameter_name: "model" type: INTEGER min_value: 1 max_value: 4)pb")),
                "spec.parameters[0].conditional_parameter_specs[0].parameter_spec.parameter_name: "
                "duplicate parameter name \"model\" (first at index 0); a name may be used once "
                "in the whole tree");
  ExpectInvalid(ValidateStudySpec(ConditionalStudySpec(
                    R"pb(parent_categorical_values { values: "dnn" })pb",
                    R"pb(parameter_name: "layers" type: INTEGER min_value: 4 max_value: 1)pb")),
                "spec.parameters[0].conditional_parameter_specs[0].parameter_spec.max_value: the "
                "maximum (1) must be greater than the minimum (4)");
}

TEST(ConditionalParameterValidatorTest, RejectsAConditionOnADoubleParent) {
  v1::StudySpec spec = TextProto<v1::StudySpec>(R"pb(
    parameters {
      parameter_name: "lr"
      type: DOUBLE
      min_value: 0
      max_value: 1
      conditional_parameter_specs {
        parent_discrete_values { values: 0.5 }
        parameter_spec { parameter_name: "x" type: INTEGER min_value: 1 max_value: 2 }
      }
    }
    metrics { metric_id: "accuracy" goal: MAXIMIZE }
  )pb");
  ExpectInvalid(ValidateStudySpec(spec),
                "spec.parameters[0].conditional_parameter_specs[0]: DOUBLE parameter \"lr\" "
                "cannot have conditional parameters (a condition needs values to match); make it "
                "DISCRETE to branch on its values");
}

TEST(ConditionalParameterValidatorTest, CountsConditionalParametersAgainstTheLimit) {
  v1::StudySpec spec = ConditionalStudySpec(
      R"pb(parent_categorical_values { values: "dnn" })pb",
      R"pb(parameter_name: "layers" type: INTEGER min_value: 1 max_value: 4)pb");
  for (int i = 0; i < kMaxParameters - 1; ++i) {
    v1::ParameterSpec* extra = spec.add_parameters();
    extra->set_parameter_name(absl::StrCat("p", i));
    extra->set_type(v1::ParameterSpec::CATEGORICAL);
    extra->add_categorical_values("a");
  }
  EXPECT_THAT(std::string(ValidateStudySpec(spec).message()),
              ::testing::HasSubstr("the search space has more than 100 parameters, conditional "
                                   "ones included"));
}

}  // namespace
}  // namespace vernier::config
