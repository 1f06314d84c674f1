#ifndef VERNIER_TEXT_ABSL_VIEW_H_
#define VERNIER_TEXT_ABSL_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace vernier::text {

// Debian's abseil keeps its own absl::string_view type, which does not
// convert from std::string_view; StrCat, StrFormat and the other abseil
// string functions need it.
inline absl::string_view AbslView(std::string_view text) { return {text.data(), text.size()}; }

}  // namespace vernier::text

#endif  // VERNIER_TEXT_ABSL_VIEW_H_
