#ifndef VERNIER_SUGGEST_RANDOM_NUMBERS_H_
#define VERNIER_SUGGEST_RANDOM_NUMBERS_H_

#include <cstdint>
#include <random>

namespace vernier::suggest {

// Draws computed from raw mt19937_64 output alone. Unlike the standard
// distributions they are the same on every standard library, so a seed
// means the same suggestions everywhere.

// Uniform in [0, 1) with 53 random bits.
double UnitUniform(std::mt19937_64& rng);

// Uniform in [0, bound) without modulo bias; bound > 0.
uint64_t UniformIndex(std::mt19937_64& rng, uint64_t bound);

// Standard normal (Box-Muller).
double StandardNormal(std::mt19937_64& rng);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_RANDOM_NUMBERS_H_
