#ifndef VERNIER_SUGGEST_GP_PLATEAU_MARGIN_H_
#define VERNIER_SUGGEST_GP_PLATEAU_MARGIN_H_

#include <Eigen/Dense>

namespace vernier::suggest {

// How far above the best value expected improvement is taken when the
// search sits on a plateau.
//
// A cross-validated error is a count: flat over wide regions and full of
// exact ties. Once several trials return exactly the best value, the
// model's mean is flat at that value around them, its noise term absorbs
// the repeats, and expected improvement over the best keeps paying for
// points of the plateau, each of which returns the same value again. On a
// plateau (at least kMinTies observations exactly equal to the best), the
// objective's step is the smallest gap between two distinct values among
// the better half of the observations (one misclassified sample, say), and
// the margin is half of it: expected improvement is taken over the
// midpoint between the plateau and the next count, the level that tells a
// value that rounds to the plateau from one that beats it. A point the
// model expects to equal the plateau then pays less than one that may beat
// it, and the search leaves the plateau; a full step stopped paying for
// the refinement near a plateau that finds the next count (measured in
// docs/benchmarks.md, "Plateaus, fourth round"). Off a plateau the margin
// is 0 and nothing changes, so continuous objectives (no exact ties) are
// untouched. Pure: no I/O.
class PlateauMargin {
 public:
  static constexpr int kMinTies = 5;

  // `values`: the observations as the model sees them (warped, larger is
  // better). 0 unless at least kMinTies of them equal the largest; then half
  // the smallest positive gap between two distinct values at or above their
  // median, or, where every such value is the best, half the gap from the
  // best to the next value below it (0 if there is none).
  double Margin(const Eigen::VectorXd& values) const;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_PLATEAU_MARGIN_H_
