#ifndef VERNIER_SUGGEST_SCRAMBLED_HALTON_SEQUENCE_H_
#define VERNIER_SUGGEST_SCRAMBLED_HALTON_SEQUENCE_H_

#include <cstdint>
#include <span>
#include <vector>

namespace vernier::suggest {

// A low-discrepancy sequence in [0,1)^d: the Halton sequence (coordinate j
// is the radical inverse of the index in the j-th prime base) with random
// linear digit scrambling: every digit a of position k in coordinate j
// becomes (h_jk * a + g_jk) mod b_j, with h_jk in [1, b_j) and g_jk in
// [0, b_j) drawn from the seed. Scrambling breaks the correlations that make
// plain Halton points line up in high dimensions, keeps the stratification
// (any b^k consecutive points still fill the b^k cells of a coordinate), and
// moves point 0 off the origin. Any dimension; the same seed gives the same
// sequence everywhere.
class ScrambledHaltonSequence {
 public:
  ScrambledHaltonSequence(int dimension, uint64_t seed);

  int dimension() const { return static_cast<int>(bases_.size()); }
  // Point `index` of the sequence into `point` (dimension() coordinates).
  void Point(uint64_t index, std::span<double> point) const;
  std::vector<double> Point(uint64_t index) const;

 private:
  struct DigitScramble {
    uint32_t multiplier;
    uint32_t shift;
  };
  std::vector<uint32_t> bases_;
  // Per coordinate, one scramble per digit position, least significant
  // first, as many as a double can resolve.
  std::vector<std::vector<DigitScramble>> scrambles_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_SCRAMBLED_HALTON_SEQUENCE_H_
