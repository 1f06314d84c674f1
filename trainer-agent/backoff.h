#ifndef VERNIER_TRAINER_AGENT_BACKOFF_H_
#define VERNIER_TRAINER_AGENT_BACKOFF_H_

#include <random>

#include "absl/time/time.h"

namespace vernier::agent {

// Exponential backoff with jitter: each delay is drawn uniformly from
// [base/2, base], and the base doubles from `initial` up to `max`. The jitter
// keeps the agents of many trials from retrying in lockstep after the service
// comes back.
class Backoff {
 public:
  // `rng` must outlive this object.
  Backoff(absl::Duration initial, absl::Duration max, std::mt19937_64& rng);

  absl::Duration Next();
  void Reset();

  absl::Duration base() const { return base_; }

 private:
  absl::Duration initial_;
  absl::Duration max_;
  absl::Duration base_;
  std::mt19937_64& rng_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_BACKOFF_H_
