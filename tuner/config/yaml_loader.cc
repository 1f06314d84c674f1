#include "tuner/config/yaml_loader.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "text/absl_view.h"
#include "text/utf8_text.h"

namespace vernier::config {
namespace {

using text::AbslView;

absl::Status Error(std::string_view file_name, size_t line, size_t column,
                   absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat(AbslView(file_name), ":", line, ":", column, ": ", problem));
}

absl::Status ErrorAt(std::string_view file_name, const YAML::Mark& mark,
                     absl::string_view problem) {
  if (mark.is_null()) return Error(file_name, 1, 1, problem);
  return Error(file_name, static_cast<size_t>(mark.line) + 1, static_cast<size_t>(mark.column) + 1,
               problem);
}

std::string TooDeep() {
  return absl::StrCat("lists and mappings nest too deep (more than ", YamlLoader::kMaxDepth,
                      " levels)");
}

// Walks the node graph depth first, counting each use of a node (an alias
// is visited again wherever it is used), up to the limits.
absl::Status CheckShape(const YAML::Node& root, std::string_view file_name) {
  std::vector<std::pair<YAML::Node, int>> stack = {{root, 1}};
  size_t visited = 0;
  while (!stack.empty()) {
    auto [node, depth] = std::move(stack.back());
    stack.pop_back();
    if (++visited > YamlLoader::kMaxNodes) {
      return ErrorAt(file_name, node.Mark(),
                     absl::StrCat("the document expands to more than ", YamlLoader::kMaxNodes,
                                  " values (counting every use of an alias)"));
    }
    if (!node.IsSequence() && !node.IsMap()) continue;
    if (depth > YamlLoader::kMaxDepth) return ErrorAt(file_name, node.Mark(), TooDeep());
    for (const auto& entry : node) {
      if (node.IsMap()) {
        stack.emplace_back(entry.first, depth + 1);
        stack.emplace_back(entry.second, depth + 1);
      } else {
        stack.emplace_back(entry, depth + 1);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<YAML::Node> YamlLoader::Load(std::string_view text, std::string_view file_name) {
  if (text.size() > kMaxBytes) {
    return Error(
        file_name, 1, 1,
        absl::StrFormat("the file is %d bytes; at most %d are read", text.size(), kMaxBytes));
  }
  if (std::optional<size_t> bad = text::Utf8Text::FindInvalid(text)) {
    const std::string_view before = text.substr(0, *bad);
    const size_t line_start = before.rfind('\n');
    const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
    const size_t column = line_start == std::string_view::npos ? *bad + 1 : *bad - line_start;
    return Error(file_name, line, column,
                 absl::StrFormat("the file is not valid UTF-8 (byte 0x%02x); save it as UTF-8",
                                 static_cast<unsigned char>(text[*bad])));
  }
  YAML::Node document;
  try {
    document = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& error) {
    return ErrorAt(file_name, error.mark, TooDeep());
  } catch (const YAML::Exception& error) {
    return ErrorAt(file_name, error.mark, absl::StrCat("YAML syntax error: ", error.msg));
  }
  if (absl::Status shape = CheckShape(document, file_name); !shape.ok()) return shape;
  return document;
}

}  // namespace vernier::config
