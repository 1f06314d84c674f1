#include "suggest/random_numbers.h"

#include <cmath>
#include <numbers>

namespace vernier::suggest {

double UnitUniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

uint64_t UniformIndex(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t draw;
  do {
    draw = rng();
  } while (draw >= limit);
  return draw % bound;
}

double StandardNormal(std::mt19937_64& rng) {
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - UnitUniform(rng)));
  return radius * std::cos(2.0 * std::numbers::pi * UnitUniform(rng));
}

}  // namespace vernier::suggest
