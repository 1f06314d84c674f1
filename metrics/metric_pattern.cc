#include "metrics/metric_pattern.h"

#include <re2/re2.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "metrics/metric_value.h"

namespace vernier::metrics {
namespace {

constexpr std::string_view kNameGroup = "name";
constexpr std::string_view kValueGroup = "value";

std::string Quoted(std::string_view name) { return absl::StrCat("'", std::string(name), "'"); }

}  // namespace

absl::StatusOr<MetricPattern> MetricPattern::Compile(std::string_view pattern) {
  if (pattern.empty()) {
    return absl::InvalidArgumentError(
        "the pattern is empty; leave the field out for the default name=value format");
  }
  RE2::Options options;
  options.set_log_errors(false);
  auto regex = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!regex->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid RE2 regular expression: ", regex->error()));
  }
  if (RE2::FullMatch("", *regex)) {
    return absl::InvalidArgumentError(
        "the pattern matches the empty string, so it would find a metric anywhere; require at "
        "least the value's digits, e.g. (?P<value>[-+.0-9eE]+)");
  }

  const std::map<std::string, int>& named = regex->NamedCapturingGroups();
  std::vector<Capture> captures;
  const auto name = named.find(std::string(kNameGroup));
  const auto value = named.find(std::string(kValueGroup));
  std::vector<std::string> metric_groups;
  for (const auto& [group, index] : named) {
    if (group != kNameGroup && group != kValueGroup) metric_groups.push_back(group);
  }

  if (name != named.end() || value != named.end()) {
    if (name == named.end() || value == named.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pattern has a group named ", Quoted(name != named.end() ? kNameGroup : kValueGroup),
          " but none named ", Quoted(name != named.end() ? kValueGroup : kNameGroup),
          "; (?P<name>...) and (?P<value>...) go together"));
    }
    if (!metric_groups.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pattern mixes (?P<name>...)/(?P<value>...) with metric groups ",
          absl::StrJoin(
              metric_groups, ", ",
              [](std::string* out, const std::string& group) { out->append(Quoted(group)); }),
          "; use one form or the other"));
    }
    captures.push_back(
        {.name_group = name->second, .fixed_name = "", .value_group = value->second});
  } else if (!metric_groups.empty()) {
    for (const std::string& group : metric_groups) {
      if (!MetricValue::IsValidName(group)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "group ", Quoted(group), " does not name a metric: names start with a letter or '_'"));
      }
      captures.push_back({.name_group = 0, .fixed_name = group, .value_group = named.at(group)});
    }
  } else if (regex->NumberOfCapturingGroups() >= 2) {
    captures.push_back({.name_group = 1, .fixed_name = "", .value_group = 2});
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "the pattern has ", regex->NumberOfCapturingGroups(),
        " capturing group(s) and no named ones; use (?P<name>...) and (?P<value>...), a group "
        "named after each metric such as (?P<loss>...), or two groups: name, then value"));
  }
  return MetricPattern(std::string(pattern), std::move(regex), std::move(captures));
}

MetricPattern::MetricPattern(std::string pattern, std::unique_ptr<re2::RE2> regex,
                             std::vector<Capture> captures)
    : pattern_(std::move(pattern)), regex_(std::move(regex)), captures_(std::move(captures)) {}

MetricPattern::MetricPattern(MetricPattern&&) noexcept = default;
MetricPattern& MetricPattern::operator=(MetricPattern&&) noexcept = default;
MetricPattern::~MetricPattern() = default;

std::vector<MetricToken> MetricPattern::Extract(std::string_view line) const {
  std::vector<MetricToken> tokens;
  const int group_count = regex_->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> groups(static_cast<size_t>(group_count));
  const re2::StringPiece text(line.data(), line.size());
  size_t position = 0;
  while (position <= line.size() &&
         regex_->Match(text, position, line.size(), RE2::UNANCHORED, groups.data(), group_count)) {
    for (const Capture& capture : captures_) {
      const re2::StringPiece& value = groups[static_cast<size_t>(capture.value_group)];
      if (value.data() == nullptr) continue;
      std::string_view name = capture.fixed_name;
      if (capture.name_group > 0) {
        const re2::StringPiece& captured = groups[static_cast<size_t>(capture.name_group)];
        if (captured.data() == nullptr) continue;
        name = std::string_view(captured.data(), captured.size());
      }
      tokens.push_back({name, std::string_view(value.data(), value.size())});
    }
    const size_t end = static_cast<size_t>(groups[0].data() - line.data()) + groups[0].size();
    // An empty match (possible inside a longer line) must not stop progress.
    position = groups[0].empty() ? end + 1 : end;
  }
  return tokens;
}

}  // namespace vernier::metrics
