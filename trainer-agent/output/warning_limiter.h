#ifndef VERNIER_TRAINER_AGENT_OUTPUT_WARNING_LIMITER_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_WARNING_LIMITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace vernier::agent {

// Keeps a trainer that prints `loss=nan` on every step from flooding the
// agent's log: the first few warnings of each kind are written, then one in
// every `every`-th with the count so far.
class WarningLimiter {
 public:
  explicit WarningLimiter(int64_t first = 5, int64_t every = 1000) : first_(first), every_(every) {}

  // Counts one occurrence of `kind`; true when it should be logged.
  bool Count(std::string_view kind);
  // Occurrences of `kind` so far.
  int64_t count(std::string_view kind) const;
  // " (N so far; only some are logged)" once warnings are being thinned out,
  // else "".
  std::string Suffix(std::string_view kind) const;

 private:
  int64_t first_;
  int64_t every_;
  std::map<std::string, int64_t, std::less<>> counts_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_WARNING_LIMITER_H_
