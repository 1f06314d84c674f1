#include "trainer-agent/output/warning_limiter.h"

#include "absl/strings/str_cat.h"

namespace vernier::agent {

bool WarningLimiter::Count(std::string_view kind) {
  auto it = counts_.find(kind);
  if (it == counts_.end()) it = counts_.emplace(std::string(kind), 0).first;
  const int64_t count = ++it->second;
  return count <= first_ || count % every_ == 0;
}

int64_t WarningLimiter::count(std::string_view kind) const {
  const auto it = counts_.find(kind);
  return it == counts_.end() ? 0 : it->second;
}

std::string WarningLimiter::Suffix(std::string_view kind) const {
  const int64_t so_far = count(kind);
  if (so_far < first_) return "";
  return absl::StrCat(" (", so_far, " so far; only some are logged)");
}

}  // namespace vernier::agent
