#ifndef VERNIER_TUNER_STORAGE_ABSL_STRING_VIEW_H_
#define VERNIER_TUNER_STORAGE_ABSL_STRING_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace vernier::storage {

// Debian's abseil is built with its own absl::string_view, which does not
// convert from std::string_view (the type of the Storage interface).
inline absl::string_view ToAbslView(std::string_view view) {
  return absl::string_view(view.data(), view.size());
}

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_ABSL_STRING_VIEW_H_
