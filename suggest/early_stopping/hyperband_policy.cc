#include "suggest/early_stopping/hyperband_policy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace vernier::suggest {
namespace {

// SplitMix64's finaliser: consecutive trial ids land far apart.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

HyperbandPolicy::HyperbandPolicy(AshaOptions options) : options_(options) {
  const double eta = options_.reduction_factor;
  const double first = static_cast<double>(std::max<int64_t>(1, options_.grace_period));
  int stopping = HyperbandPolicy::kStoppingBracketsWithoutMaxStep;
  if (options_.max_step > 0) {
    // A bracket stops trials when its first rung leaves room for a rung's
    // survivors to train eta times longer, as ASHA's rungs do.
    stopping = 0;
    while (stopping < 64 &&
           first * std::pow(eta, stopping) * eta <= static_cast<double>(options_.max_step)) {
      ++stopping;
    }
  }
  for (int s = 0; s < stopping; ++s) {
    grace_periods_.push_back(std::llround(first * std::pow(eta, s)));
    AshaOptions bracket = options_;
    bracket.grace_period = grace_periods_.back();
    brackets_.emplace_back(bracket);
  }
  // Bracket s makes (stopping - s) rounds of halving before the trials'
  // end; Hyperband gives a bracket of a rounds eta^a / (a + 1) trials per
  // trial of the bracket that makes none.
  double total = 0;
  for (int s = 0; s <= stopping; ++s) {
    const int rounds = stopping - s;
    weights_.push_back(std::pow(eta, rounds) / (rounds + 1));
    total += weights_.back();
  }
  for (double& weight : weights_) weight /= total;
}

int HyperbandPolicy::BracketOf(int64_t trial_id) const {
  // 53 random bits as a fraction in [0, 1).
  const double draw = static_cast<double>(Mix(static_cast<uint64_t>(trial_id)) >> 11) * 0x1.0p-53;
  double cumulative = 0;
  for (int s = 0; s + 1 < BracketCount(); ++s) {
    cumulative += weights_[s];
    if (draw < cumulative) return s;
  }
  return BracketCount() - 1;
}

StoppingDecision HyperbandPolicy::Decide(const LearningCurve& trial,
                                         std::span<const LearningCurve> others) const {
  const int bracket = BracketOf(trial.trial_id);
  if (bracket >= static_cast<int>(brackets_.size())) {
    return {.should_stop = false,
            .reason = absl::StrFormat("Hyperband: bracket %d of %d, which never stops a trial",
                                      bracket + 1, BracketCount())};
  }
  StoppingDecision decision = brackets_[bracket].DecideAmong(
      trial, others, [this, bracket](int64_t id) { return BracketOf(id) == bracket; });
  if (!decision.reason.empty()) {
    decision.reason =
        absl::StrFormat("Hyperband bracket %d of %d (rungs from step %d), %s", bracket + 1,
                        BracketCount(), grace_periods_[bracket], decision.reason);
  }
  return decision;
}

}  // namespace vernier::suggest
