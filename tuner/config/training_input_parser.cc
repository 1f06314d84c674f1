#include "tuner/config/training_input_parser.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "tuner/config/closest_match.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/strict_scalar.h"
#include "tuner/config/study_spec_builder.h"
#include "tuner/config/training_input_defaults.h"
#include "tuner/config/yaml_loader.h"

namespace vernier::config {
namespace {

constexpr absl::string_view kTrainingInputKey = "trainingInput";
constexpr absl::string_view kHyperparametersKey = "hyperparameters";

struct EnumName {
  absl::string_view name;
  int value;
};

constexpr EnumName kGoals[] = {{"MAXIMIZE", v1::MetricSpec::MAXIMIZE},
                               {"MINIMIZE", v1::MetricSpec::MINIMIZE}};
constexpr EnumName kAlgorithms[] = {{"ALGORITHM_UNSPECIFIED", v1::ALGORITHM_UNSPECIFIED},
                                    {"GRID_SEARCH", v1::GRID_SEARCH},
                                    {"RANDOM_SEARCH", v1::RANDOM_SEARCH},
                                    {"QUASI_RANDOM_SEARCH", v1::QUASI_RANDOM_SEARCH},
                                    {"GAUSSIAN_PROCESS_BANDIT", v1::GAUSSIAN_PROCESS_BANDIT}};
constexpr EnumName kParameterTypes[] = {{"DOUBLE", v1::ParameterSpec::DOUBLE},
                                        {"INTEGER", v1::ParameterSpec::INTEGER},
                                        {"CATEGORICAL", v1::ParameterSpec::CATEGORICAL},
                                        {"DISCRETE", v1::ParameterSpec::DISCRETE}};
constexpr EnumName kScaleTypes[] = {
    {"NONE", v1::ParameterSpec::NONE},
    {"UNIT_LINEAR_SCALE", v1::ParameterSpec::UNIT_LINEAR_SCALE},
    {"UNIT_LOG_SCALE", v1::ParameterSpec::UNIT_LOG_SCALE},
    {"UNIT_REVERSE_LOG_SCALE", v1::ParameterSpec::UNIT_REVERSE_LOG_SCALE}};
constexpr EnumName kEarlyStoppingPolicies[] = {
    {"POLICY_UNSPECIFIED", v1::EarlyStoppingSpec::POLICY_UNSPECIFIED},
    {"MEDIAN_STOPPING", v1::EarlyStoppingSpec::MEDIAN_STOPPING},
    {"ASHA", v1::EarlyStoppingSpec::ASHA},
    {"HYPERBAND", v1::EarlyStoppingSpec::HYPERBAND},
    {"LEARNING_CURVE", v1::EarlyStoppingSpec::LEARNING_CURVE}};

std::string KeyPath(absl::string_view parent, absl::string_view key) {
  if (parent.empty()) return std::string(key);
  if (key.empty()) return std::string(parent);
  return absl::StrCat(parent, ".", key);
}

// The validator names fields the proto way ("params[1].max_value"); the
// YAML spells the same path in camelCase ("params[1].maxValue").
std::string CamelCasePath(absl::string_view proto_path) {
  std::string yaml_path;
  yaml_path.reserve(proto_path.size());
  for (size_t i = 0; i < proto_path.size(); ++i) {
    if (proto_path[i] == '_' && i + 1 < proto_path.size() &&
        absl::ascii_islower(proto_path[i + 1])) {
      yaml_path.push_back(absl::ascii_toupper(proto_path[++i]));
    } else {
      yaml_path.push_back(proto_path[i]);
    }
  }
  return yaml_path;
}

// The path one step up: "a.b[2]" -> "a.b" -> "a" -> "".
std::string ParentPath(absl::string_view path) {
  if (!path.empty() && path.back() == ']') {
    const size_t open = path.rfind('[');
    if (open != absl::string_view::npos) return std::string(path.substr(0, open));
  }
  const size_t dot = path.rfind('.');
  if (dot == absl::string_view::npos) return "";
  return std::string(path.substr(0, dot));
}

std::string DescribeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return absl::StrCat("\"", node.Scalar(), "\"");
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

// Reads one YAML document into a TrainingInput, remembering where every key
// and list element stands so that errors found later, by the validator over
// the finished proto, still point at a line of the file.
class TrainingInputParser {
 public:
  explicit TrainingInputParser(absl::string_view file_name) : file_name_(file_name) {}

  absl::StatusOr<v1::TrainingInput> Parse(absl::string_view yaml_text) {
    VERNIER_ASSIGN_OR_RETURN(const YAML::Node document, Load(yaml_text, "a trainingInput mapping",
                                                             "trainingInput or its keys"));
    v1::TrainingInput input;
    VERNIER_RETURN_IF_ERROR(ReadDocument(document, input));
    VERNIER_RETURN_IF_ERROR(ValidateTrainingInput(input, YamlLocator()));
    return input;
  }

  // The document's top-level labels, once Parse has read it.
  std::map<std::string, std::string> Labels() const { return {labels_.begin(), labels_.end()}; }

  // ParseStudySpecText's reading, after the text's format was checked.
  absl::StatusOr<v1::StudySpec> ParseStudySpec(absl::string_view yaml_text) {
    VERNIER_ASSIGN_OR_RETURN(const YAML::Node document,
                             Load(yaml_text, "a hyperparameters mapping",
                                  "the hyperparameters block or a trainingInput"));
    v1::TrainingInput input;
    // Where the hyperparameters block stands, relative to the trainingInput.
    std::string block;
    if (HasKey(document, kTrainingInputKey) || HasKey(document, kHyperparametersKey)) {
      VERNIER_RETURN_IF_ERROR(ReadDocument(document, input));
      block = std::string(kHyperparametersKey);
      if (!input.has_hyperparameters()) {
        return absl::InvalidArgumentError(
            absl::StrCat(Locate(block),
                         ": a study needs the hyperparameters block; this "
                         "trainingInput has none"));
      }
    } else {
      bare_hyperparameters_ = true;
      VERNIER_RETURN_IF_ERROR(ReadHyperparameters(document, "", *input.mutable_hyperparameters()));
    }
    v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
    const bool trials_limited = marks_.contains(KeyPath(block, "maxTrials"));
    const bool parallel_limited = marks_.contains(KeyPath(block, "maxParallelTrials"));
    // No limit: the job rules (maxParallelTrials <= maxTrials) hold for any.
    if (!trials_limited) hyperparameters.set_max_trials(std::numeric_limits<int32_t>::max());
    VERNIER_RETURN_IF_ERROR(block.empty()
                                ? ValidateHyperparameterSpec(hyperparameters, YamlLocator())
                                : ValidateTrainingInput(input, YamlLocator()));
    v1::StudySpec spec = StudySpecFromHyperparameters(hyperparameters);
    if (!trials_limited) {
      spec.set_max_trials(0);
      spec.set_max_failed_trials(hyperparameters.max_failed_trials());
    }
    if (!parallel_limited) spec.set_max_parallel_trials(0);
    return spec;
  }

  // After Parse: what the config leaves to a default that is rarely meant,
  // each "FILE:LINE:COLUMN: FIELD: WHY".
  std::vector<std::string> Warnings(const v1::TrainingInput& input) const {
    std::vector<std::string> warnings;
    const std::string block(kHyperparametersKey);
    if (input.has_hyperparameters() && !marks_.contains(KeyPath(block, "maxTrials"))) {
      warnings.push_back(absl::StrCat(Locate(block), ": no maxTrials, so the job runs ",
                                      input.hyperparameters().max_trials(),
                                      " trial (AI Platform's default); set maxTrials to tune"));
    }
    return warnings;
  }

  // After Parse: "FILE:LINE:COLUMN: FIELD" for a proto field path relative
  // to the trainingInput ("worker_config.accelerator_config.count").
  std::string LocateProtoField(absl::string_view proto_path) const {
    return Locate(CamelCasePath(proto_path));
  }

 private:
  // The document, which must be a mapping: `expected` names what an empty
  // document lacks, `mapping` what the mapping holds.
  absl::StatusOr<YAML::Node> Load(absl::string_view yaml_text, absl::string_view expected,
                                  absl::string_view mapping) {
    // Within the documented limits (size, nesting, alias expansion), and
    // UTF-8: see YamlLoader.
    VERNIER_ASSIGN_OR_RETURN(
        YAML::Node document,
        YamlLoader::Load(std::string_view(yaml_text.data(), yaml_text.size()), file_name_));
    if (!document.IsDefined() || document.IsNull()) {
      return absl::InvalidArgumentError(absl::StrCat(FormatMark(YAML::Mark::null_mark()),
                                                     "the document is empty; expected ", expected));
    }
    if (!document.IsMap()) {
      return absl::InvalidArgumentError(absl::StrCat(FormatMark(document.Mark()),
                                                     "expected a mapping (", mapping, "), got ",
                                                     DescribeNode(document)));
    }
    marks_[""] = document.Mark();
    return document;
  }

  // The trainingInput of a document that either is one or wraps one in
  // `trainingInput:`, read but not yet validated.
  absl::Status ReadDocument(const YAML::Node& document, v1::TrainingInput& input) {
    if (!HasKey(document, kTrainingInputKey)) return ReadTrainingInput(document, input);
    // The top level is checked on its own first, so that its errors name
    // top-level keys and everything below is named under trainingInput.
    std::optional<YAML::Node> training_input;
    // AI Platform's Job resource has its labels beside trainingInput.
    VERNIER_RETURN_IF_ERROR(ReadMapping(document, "",
                                        {{kTrainingInputKey,
                                          [&](const YAML::Node& value, const std::string&) {
                                            training_input.emplace(value);
                                            return absl::OkStatus();
                                          }},
                                         {"labels", StringMap(&labels_)}}));
    const std::string wrapper(kTrainingInputKey);
    root_ = wrapper;
    marks_[""] = marks_[wrapper];
    marks_.erase(wrapper);
    return ReadTrainingInput(*training_input, input);
  }

  // The validator's errors, pointed at the file.
  Locator YamlLocator() const {
    return [this](std::string_view path) {
      return Locate(CamelCasePath(absl::string_view(path.data(), path.size())));
    };
  }

  using ValueReader = std::function<absl::Status(const YAML::Node& value, const std::string& path)>;

  // One key a mapping may hold and how its value lands in the proto.
  struct KeyReader {
    absl::string_view key;
    ValueReader read;
  };

  static bool HasKey(const YAML::Node& mapping, absl::string_view key) {
    for (const auto& entry : mapping) {
      if (entry.first.IsScalar() && entry.first.Scalar() == key) return true;
    }
    return false;
  }

  std::string FormatMark(const YAML::Mark& mark) const {
    if (mark.is_null()) return absl::StrCat(file_name_, ":1:1: ");
    return absl::StrCat(file_name_, ":", mark.line + 1, ":", mark.column + 1, ": ");
  }

  // The field path as the user reads it in the file.
  std::string Qualified(absl::string_view path) const {
    if (root_.empty()) return std::string(path);
    return KeyPath(root_, path);
  }

  // "FILE:LINE:COLUMN: FIELD" for a YAML field path; a field that is not in
  // the file (a missing key) takes the position of its nearest ancestor.
  std::string Locate(absl::string_view path) const {
    std::string known(path);
    auto it = marks_.find(known);
    while (it == marks_.end() && !known.empty()) {
      known = ParentPath(known);
      it = marks_.find(known);
    }
    const YAML::Mark mark = it == marks_.end() ? YAML::Mark::null_mark() : it->second;
    std::string where = FormatMark(mark);
    const std::string field = Qualified(path);
    if (field.empty()) {
      where.pop_back();  // The trailing space; the caller adds ": ".
      where.pop_back();
      return where;
    }
    return absl::StrCat(where, field);
  }

  absl::Status ErrorAt(const YAML::Mark& mark, absl::string_view path,
                       absl::string_view problem) const {
    const std::string field = Qualified(path);
    return absl::InvalidArgumentError(field.empty()
                                          ? absl::StrCat(FormatMark(mark), problem)
                                          : absl::StrCat(FormatMark(mark), field, ": ", problem));
  }

  // Points at the offending value itself; an absent value (`key:` with
  // nothing after it) has no useful position of its own, so at its key.
  absl::Status ValueError(const YAML::Node& value, absl::string_view path,
                          absl::string_view problem) const {
    if (value.IsDefined() && !value.IsNull() && !value.Mark().is_null()) {
      return ErrorAt(value.Mark(), path, problem);
    }
    return absl::InvalidArgumentError(absl::StrCat(Locate(path), ": ", problem));
  }

  // A key of the mapping at `path`: a plain name not seen before in it
  // (`seen` records where each was). Its path, or the located error.
  absl::StatusOr<std::string> CheckKey(const YAML::Node& key, const std::string& path,
                                       absl::flat_hash_map<std::string, YAML::Mark>& seen) const {
    if (!key.IsScalar()) {
      return ErrorAt(key.Mark(), path,
                     absl::StrCat("keys must be plain names, got ", DescribeNode(key)));
    }
    const std::string& name = key.Scalar();
    const std::string key_path = KeyPath(path, name);
    const auto [previous, inserted] = seen.emplace(name, key.Mark());
    if (!inserted) {
      return ErrorAt(key.Mark(), key_path,
                     absl::StrCat("duplicate key \"", name, "\" (first at line ",
                                  previous->second.line + 1, ")"));
    }
    return key_path;
  }

  absl::Status ReadMapping(const YAML::Node& node, const std::string& path,
                           const std::vector<KeyReader>& readers) {
    if (!node.IsMap()) {
      return ValueError(node, path, absl::StrCat("expected a mapping, got ", DescribeNode(node)));
    }
    absl::flat_hash_map<std::string, YAML::Mark> seen;
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      VERNIER_ASSIGN_OR_RETURN(const std::string key_path, CheckKey(key, path, seen));
      const std::string& name = key.Scalar();
      const KeyReader* reader = nullptr;
      for (const KeyReader& candidate : readers) {
        if (candidate.key == name) reader = &candidate;
      }
      if (reader == nullptr) return UnknownKey(key, path, readers);
      marks_[key_path] = key.Mark();
      if (absl::Status status = reader->read(entry.second, key_path); !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

  absl::Status UnknownKey(const YAML::Node& key, const std::string& path,
                          const std::vector<KeyReader>& readers) const {
    std::vector<absl::string_view> allowed;
    for (const KeyReader& reader : readers) allowed.push_back(reader.key);
    // A misspelt `trainingInput:` leaves the document in the bare form;
    // suggest the wrapper too.
    std::vector<absl::string_view> suggestions = allowed;
    if (path.empty() && root_.empty()) suggestions.push_back(kTrainingInputKey);
    // So does a misspelt `hyperparameters:` in a study's document.
    if (path.empty() && bare_hyperparameters_) suggestions.push_back(kHyperparametersKey);
    const std::string& name = key.Scalar();
    const std::string key_path = KeyPath(path, name);
    if (std::optional<absl::string_view> match = ClosestMatch(name, suggestions)) {
      return ErrorAt(key.Mark(), key_path,
                     absl::StrCat("unknown key \"", name, "\"; did you mean \"", *match, "\"?"));
    }
    return ErrorAt(
        key.Mark(), key_path,
        absl::StrCat("unknown key \"", name, "\"; allowed: ", absl::StrJoin(allowed, ", ")));
  }

  absl::Status ReadList(const YAML::Node& node, const std::string& path,
                        const ValueReader& read_element) {
    if (!node.IsSequence()) {
      return ValueError(node, path, absl::StrCat("expected a list, got ", DescribeNode(node)));
    }
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string element_path = absl::StrCat(path, "[", i, "]");
      const YAML::Node element = node[i];
      marks_[element_path] = element.Mark();
      if (absl::Status status = read_element(element, element_path); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadScalar(const YAML::Node& node, const std::string& path,
                                         absl::string_view expected) const {
    if (!node.IsScalar()) {
      return ValueError(node, path,
                        absl::StrCat("expected ", expected, ", got ", DescribeNode(node)));
    }
    return node.Scalar();
  }

  ValueReader String(std::string* out) const {
    return [this, out](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<std::string> text = ReadScalar(value, path, "a string");
      if (!text.ok()) return text.status();
      *out = *std::move(text);
      return absl::OkStatus();
    };
  }

  absl::StatusOr<int64_t> ReadInteger(const YAML::Node& value, const std::string& path, int64_t min,
                                      int64_t max) const {
    absl::StatusOr<std::string> text = ReadScalar(value, path, "an integer");
    if (!text.ok()) return text.status();
    absl::StatusOr<int64_t> number = ParseStrictInteger(*text);
    if (!number.ok()) return ValueError(value, path, number.status().message());
    if (*number < min || *number > max) {
      return ValueError(
          value, path,
          absl::StrCat("expected an integer in [", min, ", ", max, "], got \"", *text, "\""));
    }
    return *number;
  }

  // int64 fields may be quoted (AI Platform's JSON form of int64) or not.
  ValueReader Int64(std::function<void(int64_t)> set) const {
    return [this, set](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<int64_t> number = ReadInteger(value, path, std::numeric_limits<int64_t>::min(),
                                                   std::numeric_limits<int64_t>::max());
      if (!number.ok()) return number.status();
      set(*number);
      return absl::OkStatus();
    };
  }

  ValueReader Int32(std::function<void(int32_t)> set) const {
    return [this, set](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<int64_t> number = ReadInteger(value, path, std::numeric_limits<int32_t>::min(),
                                                   std::numeric_limits<int32_t>::max());
      if (!number.ok()) return number.status();
      set(static_cast<int32_t>(*number));
      return absl::OkStatus();
    };
  }

  absl::StatusOr<double> ReadDouble(const YAML::Node& value, const std::string& path) const {
    absl::StatusOr<std::string> text = ReadScalar(value, path, "a number");
    if (!text.ok()) return text.status();
    absl::StatusOr<double> number = ParseStrictFiniteDouble(*text);
    if (!number.ok()) return ValueError(value, path, number.status().message());
    return *number;
  }

  ValueReader Double(std::function<void(double)> set) const {
    return [this, set](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<double> number = ReadDouble(value, path);
      if (!number.ok()) return number.status();
      set(*number);
      return absl::OkStatus();
    };
  }

  ValueReader Bool(std::function<void(bool)> set) const {
    return [this, set](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<std::string> text = ReadScalar(value, path, "true or false");
      if (!text.ok()) return text.status();
      // yaml-cpp tags quoted scalars "!": "true" in quotes is a string.
      if (value.Tag() == "!") {
        return ValueError(
            value, path,
            absl::StrCat("expected true or false, got the quoted string \"", *text, "\""));
      }
      absl::StatusOr<bool> flag = ParseStrictBoolean(*text);
      if (!flag.ok()) return ValueError(value, path, flag.status().message());
      set(*flag);
      return absl::OkStatus();
    };
  }

  ValueReader Enum(std::span<const EnumName> names, absl::string_view what,
                   std::function<void(int)> set) const {
    return
        [this, names, what, set](const YAML::Node& value, const std::string& path) -> absl::Status {
          absl::StatusOr<std::string> text = ReadScalar(value, path, absl::StrCat("a ", what));
          if (!text.ok()) return text.status();
          std::vector<absl::string_view> allowed;
          for (const EnumName& name : names) {
            if (name.name == *text) {
              set(name.value);
              return absl::OkStatus();
            }
            allowed.push_back(name.name);
          }
          return ValueError(value, path,
                            absl::StrCat("unknown ", what, " \"", *text,
                                         "\"; allowed: ", absl::StrJoin(allowed, ", ")));
        };
  }

  ValueReader StringList(google::protobuf::RepeatedPtrField<std::string>* out) {
    return [this, out](const YAML::Node& value, const std::string& path) {
      return ReadList(value, path,
                      [this, out](const YAML::Node& element, const std::string& element_path) {
                        return String(out->Add())(element, element_path);
                      });
    };
  }

  ValueReader Int64List(google::protobuf::RepeatedField<int64_t>* out) {
    return [this, out](const YAML::Node& value, const std::string& path) {
      return ReadList(value, path, Int64([out](int64_t number) { out->Add(number); }));
    };
  }

  ValueReader DoubleList(google::protobuf::RepeatedField<double>* out) {
    return [this, out](const YAML::Node& value, const std::string& path) {
      return ReadList(value, path, Double([out](double number) { out->Add(number); }));
    };
  }

  // A mapping of names to scalar values (an `env:` map); the names are
  // checked where the training input is validated, for gRPC callers too.
  ValueReader StringMap(google::protobuf::Map<std::string, std::string>* out) {
    return [this, out](const YAML::Node& value, const std::string& path) -> absl::Status {
      if (!value.IsMap()) {
        return ValueError(
            value, path,
            absl::StrCat("expected a mapping of names to values, got ", DescribeNode(value)));
      }
      absl::flat_hash_map<std::string, YAML::Mark> seen;
      for (const auto& entry : value) {
        const YAML::Node& key = entry.first;
        VERNIER_ASSIGN_OR_RETURN(const std::string entry_path, CheckKey(key, path, seen));
        marks_[entry_path] = key.Mark();
        absl::StatusOr<std::string> text = ReadScalar(entry.second, entry_path, "a string");
        if (!text.ok()) return text.status();
        (*out)[key.Scalar()] = *std::move(text);
      }
      return absl::OkStatus();
    };
  }

  // Sub-messages are created only when their key is read, so that
  // has_master_config() and friends say whether the file wrote one.
  ValueReader ReplicaConfig(std::function<v1::ReplicaConfig*()> create) {
    return [this, create](const YAML::Node& value, const std::string& path) {
      v1::ReplicaConfig* config = create();
      return ReadMapping(value, path,
                         {{"acceleratorConfig",
                           [this, config](const YAML::Node& accelerator_value,
                                          const std::string& accelerator_path) {
                             v1::AcceleratorConfig* accelerators =
                                 config->mutable_accelerator_config();
                             return ReadMapping(accelerator_value, accelerator_path,
                                                {{"count", Int64([accelerators](int64_t count) {
                                                    accelerators->set_count(count);
                                                  })},
                                                 {"type", String(accelerators->mutable_type())}});
                           }},
                          {"imageUri", String(config->mutable_image_uri())},
                          {"env", StringMap(config->mutable_env())}});
    };
  }

  absl::Status ReadParameter(const YAML::Node& node, const std::string& path,
                             v1::ParameterSpec& param) {
    absl::Status status = ReadMapping(
        node, path,
        {{"parameterName", String(param.mutable_parameter_name())},
         {"type",
          Enum(kParameterTypes, "parameter type",
               [&param](int type) { param.set_type(static_cast<v1::ParameterSpec::Type>(type)); })},
         {"minValue", Double([&param](double value) { param.set_min_value(value); })},
         {"maxValue", Double([&param](double value) { param.set_max_value(value); })},
         {"scaleType", Enum(kScaleTypes, "scale type",
                            [&param](int scale) {
                              param.set_scale_type(
                                  static_cast<v1::ParameterSpec::ScaleType>(scale));
                            })},
         {"categoricalValues", StringList(param.mutable_categorical_values())},
         {"discreteValues", DoubleList(param.mutable_discrete_values())},
         {"conditionalParameterSpecs",
          [this, &param](const YAML::Node& value, const std::string& list_path) {
            return ReadList(value, list_path,
                            [this, &param](const YAML::Node& element, const std::string& path) {
                              return ReadConditionalParameter(
                                  element, path, *param.add_conditional_parameter_specs());
                            });
          }}});
    if (!status.ok()) return status;
    // Proto3 cannot tell a bound of 0 from a missing one, so this rule lives
    // here rather than in the validator.
    if (param.type() == v1::ParameterSpec::DOUBLE || param.type() == v1::ParameterSpec::INTEGER) {
      for (absl::string_view bound : {"minValue", "maxValue"}) {
        if (!marks_.contains(KeyPath(path, bound))) {
          return absl::InvalidArgumentError(absl::StrCat(
              Locate(KeyPath(path, bound)), ": ", v1::ParameterSpec::Type_Name(param.type()),
              " parameter \"", param.parameter_name(), "\" needs ", bound));
        }
      }
    }
    return absl::OkStatus();
  }

  // One entry of conditionalParameterSpecs: one parent condition and the
  // child's parameterSpec (which may have children of its own).
  absl::Status ReadConditionalParameter(const YAML::Node& node, const std::string& path,
                                        v1::ConditionalParameterSpec& conditional) {
    // The oneof's message is created only when its key is read: creating
    // one clears the others.
    VERNIER_RETURN_IF_ERROR(ReadMapping(
        node, path,
        {{"parentCategoricalValues",
          [this, &conditional](const YAML::Node& value, const std::string& condition_path) {
            return ReadMapping(
                value, condition_path,
                {{"values",
                  StringList(conditional.mutable_parent_categorical_values()->mutable_values())}});
          }},
         {"parentIntValues",
          [this, &conditional](const YAML::Node& value, const std::string& condition_path) {
            return ReadMapping(
                value, condition_path,
                {{"values", Int64List(conditional.mutable_parent_int_values()->mutable_values())}});
          }},
         {"parentDiscreteValues",
          [this, &conditional](const YAML::Node& value, const std::string& condition_path) {
            return ReadMapping(
                value, condition_path,
                {{"values",
                  DoubleList(conditional.mutable_parent_discrete_values()->mutable_values())}});
          }},
         {"parameterSpec", [this, &conditional](const YAML::Node& value, const std::string& child) {
            return ReadParameter(value, child, *conditional.mutable_parameter_spec());
          }}}));
    std::vector<std::string> conditions;
    for (absl::string_view key :
         {"parentCategoricalValues", "parentIntValues", "parentDiscreteValues"}) {
      if (marks_.contains(KeyPath(path, key))) conditions.emplace_back(key);
    }
    if (conditions.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(Locate(KeyPath(path, conditions[1])),
                                                     ": give one parent condition, not both ",
                                                     conditions[0], " and ", conditions[1]));
    }
    if (!marks_.contains(KeyPath(path, "parameterSpec"))) {
      return absl::InvalidArgumentError(
          absl::StrCat(Locate(path), ": a conditional parameter needs its parameterSpec"));
    }
    return absl::OkStatus();
  }

  // One entry of `metrics`: an objective ({metricId, goal}) or an outcome
  // constraint ({metricId, constraint: {minValue, maxValue}}).
  absl::Status ReadMetric(const YAML::Node& node, const std::string& path, v1::MetricSpec& metric) {
    return ReadMapping(
        node, path,
        {{"metricId", String(metric.mutable_metric_id())},
         {"goal",
          Enum(kGoals, "goal",
               [&metric](int goal) { metric.set_goal(static_cast<v1::MetricSpec::Goal>(goal)); })},
         {"constraint", [this, &metric](const YAML::Node& value, const std::string& bounds_path) {
            v1::MetricSpec::Constraint* constraint = metric.mutable_constraint();
            return ReadMapping(
                value, bounds_path,
                {{"minValue",
                  Double([constraint](double bound) { constraint->set_min_value(bound); })},
                 {"maxValue",
                  Double([constraint](double bound) { constraint->set_max_value(bound); })}});
          }}});
  }

  absl::Status ReadHyperparameters(const YAML::Node& node, const std::string& path,
                                   v1::HyperparameterSpec& spec) {
    spec = DefaultHyperparameterSpec();
    VERNIER_RETURN_IF_ERROR(ReadHyperparameterKeys(node, path, spec));
    if (marks_.contains(KeyPath(path, "metrics"))) {
      // `metrics` replaces goal and hyperparameterMetricTag: their defaults
      // go, and the validator names either one that the document gives.
      if (!marks_.contains(KeyPath(path, "goal"))) spec.clear_goal();
      if (!marks_.contains(KeyPath(path, "hyperparameterMetricTag"))) {
        spec.clear_hyperparameter_metric_tag();
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadHyperparameterKeys(const YAML::Node& node, const std::string& path,
                                      v1::HyperparameterSpec& spec) {
    return ReadMapping(
        node, path,
        {{"goal",
          Enum(kGoals, "goal",
               [&spec](int goal) { spec.set_goal(static_cast<v1::MetricSpec::Goal>(goal)); })},
         {"hyperparameterMetricTag", String(spec.mutable_hyperparameter_metric_tag())},
         {"metrics",
          [this, &spec](const YAML::Node& value, const std::string& metrics_path) {
            return ReadList(
                value, metrics_path,
                [this, &spec](const YAML::Node& element, const std::string& element_path) {
                  return ReadMetric(element, element_path, *spec.add_metrics());
                });
          }},
         {"maxTrials", Int32([&spec](int32_t count) { spec.set_max_trials(count); })},
         {"maxParallelTrials",
          Int32([&spec](int32_t count) { spec.set_max_parallel_trials(count); })},
         {"maxFailedTrials", Int32([&spec](int32_t count) { spec.set_max_failed_trials(count); })},
         {"enableTrialEarlyStopping",
          Bool([&spec](bool enabled) { spec.set_enable_trial_early_stopping(enabled); })},
         {"resumePreviousJobId", String(spec.mutable_resume_previous_job_id())},
         {"metricRegex", String(spec.mutable_metric_regex())},
         {"algorithm", Enum(kAlgorithms, "algorithm",
                            [&spec](int algorithm) {
                              spec.set_algorithm(static_cast<v1::Algorithm>(algorithm));
                            })},
         {"params",
          [this, &spec](const YAML::Node& value, const std::string& params_path) {
            return ReadList(
                value, params_path,
                [this, &spec](const YAML::Node& element, const std::string& element_path) {
                  return ReadParameter(element, element_path, *spec.add_params());
                });
          }},
         {"earlyStopping", [this, &spec](const YAML::Node& value, const std::string& early_path) {
            v1::EarlyStoppingSpec* early_stopping = spec.mutable_early_stopping();
            return ReadMapping(
                value, early_path,
                {{"policy", Enum(kEarlyStoppingPolicies, "early stopping policy",
                                 [early_stopping](int policy) {
                                   early_stopping->set_policy(
                                       static_cast<v1::EarlyStoppingSpec::Policy>(policy));
                                 })},
                 {"minTrials", Int32([early_stopping](int32_t count) {
                    early_stopping->set_min_trials(count);
                  })},
                 {"startStep",
                  Int64([early_stopping](int64_t step) { early_stopping->set_start_step(step); })},
                 {"reductionFactor", Double([early_stopping](double factor) {
                    early_stopping->set_reduction_factor(factor);
                  })},
                 {"gracePeriod", Int64([early_stopping](int64_t step) {
                    early_stopping->set_grace_period(step);
                  })},
                 {"maxStep",
                  Int64([early_stopping](int64_t step) { early_stopping->set_max_step(step); })},
                 {"tieMargin", Double([early_stopping](double margin) {
                    early_stopping->set_tie_margin(margin);
                  })}});
          }}});
  }

  absl::Status ReadTrainingInput(const YAML::Node& node, v1::TrainingInput& input) {
    absl::Status status = ReadMapping(
        node, "",
        {{"scaleTier", String(input.mutable_scale_tier())},
         {"masterType", String(input.mutable_master_type())},
         {"masterConfig", ReplicaConfig([&input] { return input.mutable_master_config(); })},
         {"workerType", String(input.mutable_worker_type())},
         {"workerCount", Int64([&input](int64_t count) { input.set_worker_count(count); })},
         {"workerConfig", ReplicaConfig([&input] { return input.mutable_worker_config(); })},
         {"parameterServerType", String(input.mutable_parameter_server_type())},
         {"parameterServerCount",
          Int64([&input](int64_t count) { input.set_parameter_server_count(count); })},
         {"parameterServerConfig",
          ReplicaConfig([&input] { return input.mutable_parameter_server_config(); })},
         {"evaluatorType", String(input.mutable_evaluator_type())},
         {"evaluatorCount", Int64([&input](int64_t count) { input.set_evaluator_count(count); })},
         {"evaluatorConfig", ReplicaConfig([&input] { return input.mutable_evaluator_config(); })},
         {"useChiefInTfConfig",
          Bool([&input](bool use_chief) { input.set_use_chief_in_tf_config(use_chief); })},
         {"hyperparameters",
          [this, &input](const YAML::Node& value, const std::string& path) {
            return ReadHyperparameters(value, path, *input.mutable_hyperparameters());
          }},
         {"args", StringList(input.mutable_args())},
         {"jobDir", String(input.mutable_job_dir())},
         {"region", String(input.mutable_region())},
         {"runtimeVersion", String(input.mutable_runtime_version())},
         {"pythonVersion", String(input.mutable_python_version())},
         {"packageUris", StringList(input.mutable_package_uris())},
         {"pythonModule", String(input.mutable_python_module())},
         {"findLinks", StringList(input.mutable_find_links())},
         {"scheduling", [this, &input](const YAML::Node& value, const std::string& path) {
            v1::Scheduling* scheduling = input.mutable_scheduling();
            return ReadMapping(value, path, {{"maxRetries", Int32([scheduling](int32_t count) {
                                                scheduling->set_max_retries(count);
                                              })}});
          }}});
    if (!status.ok()) return status;
    if (!marks_.contains("scaleTier")) input.set_scale_tier(DefaultScaleTier(input));
    return absl::OkStatus();
  }

  // The top-level `labels:` beside `trainingInput:`, checked by the CLI.
  google::protobuf::Map<std::string, std::string> labels_;
  std::string file_name_;
  // "trainingInput" when the document wraps its keys in it, "" otherwise.
  std::string root_;
  // Whether the document is a study's hyperparameters mapping itself.
  bool bare_hyperparameters_ = false;
  // Where each key and list element of the document starts, by YAML path
  // relative to the trainingInput mapping ("" is the mapping itself).
  absl::flat_hash_map<std::string, YAML::Mark> marks_;
};

}  // namespace

absl::StatusOr<v1::TrainingInput> ParseTrainingInputYaml(std::string_view yaml_text,
                                                         std::string_view file_name) {
  return TrainingInputParser(absl::string_view(file_name.data(), file_name.size()))
      .Parse(absl::string_view(yaml_text.data(), yaml_text.size()));
}

SpecFormat SpecFormatForFileName(std::string_view file_name) {
  return absl::EndsWithIgnoreCase(absl::string_view(file_name.data(), file_name.size()), ".json")
             ? SpecFormat::kJson
             : SpecFormat::kYaml;
}

absl::StatusOr<v1::StudySpec> ParseStudySpecText(std::string_view text, SpecFormat format,
                                                 std::string_view file_name) {
  const absl::string_view yaml_text(text.data(), text.size());
  const absl::string_view name(file_name.data(), file_name.size());
  if (format == SpecFormat::kJson) {
    // Whatever else YAML would take, a JSON document is one object.
    int line = 1;
    int column = 1;
    for (const char c : yaml_text) {
      if (c == '\n') {
        ++line;
        column = 1;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++column;
      } else {
        if (c != '{') {
          return absl::InvalidArgumentError(absl::StrCat(
              name, ":", line, ":", column, ": expected a JSON object, starting with \"{\""));
        }
        break;
      }
    }
  }
  return TrainingInputParser(name).ParseStudySpec(yaml_text);
}

namespace {

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return absl::NotFoundError(absl::StrCat("config file \"", path, "\" does not exist"));
  }
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read config file \"", path, "\": ", error.message()));
  }
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat("config file \"", path, "\" is a directory, not a YAML file"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read config file \"", path, "\": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read config file \"", path, "\": ", std::strerror(errno)));
  }
  return text.str();
}

}  // namespace

absl::StatusOr<v1::TrainingInput> ParseTrainingInputFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return text.status();
  return ParseTrainingInputYaml(*text, path);
}

absl::StatusOr<std::map<std::string, std::string>> ParseJobLabelsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return text.status();
  TrainingInputParser parser(path);
  VERNIER_RETURN_IF_ERROR(parser.Parse(*text).status());
  return parser.Labels();
}

std::vector<std::string> TrainingInputFileWarnings(const std::string& path) {
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return {};
  TrainingInputParser parser(path);
  absl::StatusOr<v1::TrainingInput> input = parser.Parse(*text);
  if (!input.ok()) return {};
  return parser.Warnings(*input);
}

absl::Status LocateInTrainingInputFile(const absl::Status& server_error, const std::string& path) {
  constexpr absl::string_view kPrefix = "training_input.";
  const absl::string_view message = server_error.message();
  const size_t separator = message.find(": ");
  if (server_error.code() != absl::StatusCode::kInvalidArgument ||
      !absl::StartsWith(message, kPrefix) || separator == absl::string_view::npos) {
    return server_error;
  }
  const absl::string_view field = message.substr(kPrefix.size(), separator - kPrefix.size());
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return server_error;
  TrainingInputParser parser(path);
  if (!parser.Parse(*text).ok()) return server_error;
  return absl::InvalidArgumentError(
      absl::StrCat(parser.LocateProtoField(field), message.substr(separator)));
}

}  // namespace vernier::config
