#include "trainer-agent/backoff.h"

#include <algorithm>

namespace vernier::agent {

Backoff::Backoff(absl::Duration initial, absl::Duration max, std::mt19937_64& rng)
    : initial_(std::max(initial, absl::Milliseconds(1))),
      max_(std::max(max, initial_)),
      base_(initial_),
      rng_(rng) {}

absl::Duration Backoff::Next() {
  std::uniform_real_distribution<double> fraction(0.5, 1.0);
  const absl::Duration delay = base_ * fraction(rng_);
  base_ = std::min(base_ * 2, max_);
  return delay;
}

void Backoff::Reset() { base_ = initial_; }

}  // namespace vernier::agent
