#ifndef VERNIER_TUNER_CONFIG_YAML_LOADER_H_
#define VERNIER_TUNER_CONFIG_YAML_LOADER_H_

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::config {

// Loads a YAML document a user wrote (a job config, a machine-types file)
// within documented limits, so that no file can make a reader fail without
// saying where or use memory without bound. Every error is INVALID_ARGUMENT
// and starts "FILE:LINE:COLUMN: ":
// - the text must be UTF-8 (the position of the first byte that is not);
// - at most kMaxBytes bytes;
// - lists and mappings nest at most kMaxDepth levels deep;
// - at most kMaxNodes nodes, counting every use of an alias again (a few
//   aliases of aliases would otherwise expand to billions).
class YamlLoader {
 public:
  static constexpr size_t kMaxBytes = 1 << 20;
  static constexpr int kMaxDepth = 32;
  static constexpr size_t kMaxNodes = 100'000;

  static absl::StatusOr<YAML::Node> Load(std::string_view text, std::string_view file_name);
};

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_YAML_LOADER_H_
