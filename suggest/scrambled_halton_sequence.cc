#include "suggest/scrambled_halton_sequence.h"

#include <cmath>
#include <random>

#include "absl/base/internal/raw_logging.h"
#include "suggest/random_numbers.h"

namespace vernier::suggest {
namespace {

std::vector<uint32_t> FirstPrimes(int count) {
  std::vector<uint32_t> primes;
  for (uint32_t candidate = 2; static_cast<int>(primes.size()) < count; ++candidate) {
    bool prime = true;
    for (uint32_t p : primes) {
      if (p * p > candidate) break;
      if (candidate % p == 0) {
        prime = false;
        break;
      }
    }
    if (prime) primes.push_back(candidate);
  }
  return primes;
}

}  // namespace

ScrambledHaltonSequence::ScrambledHaltonSequence(int dimension, uint64_t seed)
    : bases_(FirstPrimes(dimension)), scrambles_(dimension) {
  std::mt19937_64 rng(seed);
  for (int j = 0; j < dimension; ++j) {
    const uint32_t base = bases_[j];
    // Digits until base^-k drops below 2^-53: finer ones cannot change a double.
    double weight = 1.0;
    while (weight > 0x1.0p-53) {
      const auto multiplier = static_cast<uint32_t>(1 + UniformIndex(rng, base - 1));
      const auto shift = static_cast<uint32_t>(UniformIndex(rng, base));
      scrambles_[j].push_back({multiplier, shift});
      weight /= base;
    }
  }
}

void ScrambledHaltonSequence::Point(uint64_t index, std::span<double> point) const {
  ABSL_RAW_CHECK(point.size() == bases_.size(), "ScrambledHaltonSequence: wrong point size");
  for (size_t j = 0; j < bases_.size(); ++j) {
    const uint64_t base = bases_[j];
    const double inverse_base = 1.0 / static_cast<double>(base);
    uint64_t rest = index;
    double weight = inverse_base;
    double value = 0.0;
    // Beyond the index's own digits the digit is 0, whose scrambled value
    // (the shift) still contributes.
    for (const DigitScramble& scramble : scrambles_[j]) {
      if (rest == 0) {
        // A digit 0 scrambles to the shift (less than the base): the same
        // term without the division.
        value += static_cast<double>(scramble.shift) * weight;
      } else {
        const uint64_t digit = rest % base;
        rest /= base;
        value +=
            static_cast<double>((scramble.multiplier * digit + scramble.shift) % base) * weight;
      }
      weight *= inverse_base;
    }
    point[j] = value < 1.0 ? value : std::nextafter(1.0, 0.0);
  }
}

std::vector<double> ScrambledHaltonSequence::Point(uint64_t index) const {
  std::vector<double> point(bases_.size());
  Point(index, point);
  return point;
}

}  // namespace vernier::suggest
