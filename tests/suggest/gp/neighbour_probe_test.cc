#include "suggest/gp/neighbour_probe.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/log_expected_improvement.h"
#include "suggest/gp/matern_kernel.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using namespace vernier::suggest::testing;  // NOLINT: spec builders.

GaussianProcess MustCreate(const GpInputEncoder& encoder, const Eigen::MatrixXd& points,
                           const Eigen::VectorXd& values) {
  absl::StatusOr<GaussianProcess> gp = GaussianProcess::Create(
      MaternKernel(encoder.categorical(), Eigen::VectorXd::Constant(encoder.dimension(), 0.5), 1.0),
      1e-6, points, values);
  EXPECT_TRUE(gp.ok()) << gp.status();
  return *std::move(gp);
}

Eigen::MatrixXd Columns(const GpInputEncoder& encoder,
                        const std::vector<ParameterAssignment>& assignments) {
  Eigen::MatrixXd points(encoder.dimension(), assignments.size());
  for (size_t i = 0; i < assignments.size(); ++i) {
    absl::StatusOr<Eigen::VectorXd> point = encoder.Encode(assignments[i]);
    EXPECT_TRUE(point.ok()) << point.status();
    points.col(static_cast<Eigen::Index>(i)) = *point;
  }
  return points;
}

SearchSpace OptimizerSpace() { return MustMakeSpace({OptimizerBranchesSpec()}); }

ParameterAssignment Sgd(double lr) { return OptimizerBranchPoint("sgd", lr); }

ParameterAssignment Adam(double lr) { return OptimizerBranchPoint("adam", lr); }

TEST(NeighbourProbeTest, ASiblingBranchTriedOnlyFarAwayIsProbedWithItsChildAtMidRange) {
  const SearchSpace space = OptimizerSpace();
  const GpInputEncoder encoder(space);
  // The best trial is sgd at 0.5; adam was tried only at its bounds.
  const Eigen::MatrixXd tried = Columns(encoder, {Sgd(0.5), Sgd(0.4), Adam(0), Adam(1)});
  const GaussianProcess gp = MustCreate(encoder, tried, Eigen::Vector4d(1.0, 0.5, -1.0, -1.0));
  const std::optional<AcquisitionOptimizer::Candidate> probe =
      NeighbourProbe(encoder).Best(gp, LogExpectedImprovement(1.0), tried.col(0), tried, {});
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(SearchSpace::Key(probe->parameters), SearchSpace::Key(Adam(0.5)));
  EXPECT_TRUE(std::isfinite(probe->value));
}

TEST(NeighbourProbeTest, ANeighbourTriedWithinTheRadiusOrUsedIsNotProbed) {
  const SearchSpace space = OptimizerSpace();
  const GpInputEncoder encoder(space);
  const NeighbourProbe probe(encoder);
  const Eigen::Vector4d values(1.0, 0.5, -1.0, -1.0);
  // adam at 0.55 is within kRadius (0.1) of adam at 0.5.
  const Eigen::MatrixXd near = Columns(encoder, {Sgd(0.5), Sgd(0.4), Adam(0.55), Adam(1)});
  EXPECT_FALSE(probe
                   .Best(MustCreate(encoder, near, values), LogExpectedImprovement(1.0),
                         near.col(0), near, {})
                   .has_value());
  // At 0.65 it is not; but a point already used (suggested, pending) is.
  const Eigen::MatrixXd far = Columns(encoder, {Sgd(0.5), Sgd(0.4), Adam(0.65), Adam(1)});
  const GaussianProcess gp = MustCreate(encoder, far, values);
  EXPECT_TRUE(probe.Best(gp, LogExpectedImprovement(1.0), far.col(0), far, {}).has_value());
  const absl::flat_hash_set<std::string> used = {SearchSpace::Key(Adam(0.5))};
  EXPECT_FALSE(probe.Best(gp, LogExpectedImprovement(1.0), far.col(0), far, used).has_value());
}

TEST(NeighbourProbeTest, TriedComparesTheDiscreteCellExactlyAndDoublesWithinTheRadius) {
  const SearchSpace space = OptimizerSpace();
  const GpInputEncoder encoder(space);
  const NeighbourProbe probe(encoder);
  const Eigen::MatrixXd tried = Columns(encoder, {Sgd(0.5)});
  EXPECT_TRUE(probe.Tried(*encoder.Encode(Sgd(0.59)), tried));
  EXPECT_TRUE(probe.Tried(*encoder.Encode(Sgd(0.41)), tried));
  EXPECT_FALSE(probe.Tried(*encoder.Encode(Sgd(0.62)), tried));
  // Another branch is another cell, whatever its child's value.
  EXPECT_FALSE(probe.Tried(*encoder.Encode(Adam(0.5)), tried));
  EXPECT_FALSE(probe.Tried(*encoder.Encode(Sgd(0.5)), Eigen::MatrixXd(encoder.dimension(), 0)));
}

TEST(NeighbourProbeTest, TheNextIntegerWithTheHigherAcquisitionWins) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("layers", 1, 6), DoubleSpec("x", 0, 1)});
  const GpInputEncoder encoder(space);
  auto point = [](int layers, double x) {
    return ParameterAssignment{IntValue("layers", layers), DoubleValue("x", x)};
  };
  // Best at 3 layers; 2 layers was bad (at another x, so not tried near
  // the best trial), 6 layers nearly as good as 3.
  const Eigen::MatrixXd tried = Columns(encoder, {point(3, 0.5), point(2, 0.9), point(6, 0.5)});
  const GaussianProcess gp = MustCreate(encoder, tried, Eigen::Vector3d(1.0, -2.0, 0.8));
  const std::optional<AcquisitionOptimizer::Candidate> probe =
      NeighbourProbe(encoder).Best(gp, LogExpectedImprovement(1.0), tried.col(0), tried, {});
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(SearchSpace::Key(probe->parameters), SearchSpace::Key(point(4, 0.5)));
}

TEST(NeighbourProbeTest, AContinuousSpaceHasNothingToProbe) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", 0, 1), DoubleSpec("y", 0, 1)});
  const GpInputEncoder encoder(space);
  const Eigen::MatrixXd tried = Columns(encoder, {{DoubleValue("x", 0.5), DoubleValue("y", 0.5)},
                                                  {DoubleValue("x", 0.1), DoubleValue("y", 0.9)}});
  const GaussianProcess gp = MustCreate(encoder, tried, Eigen::Vector2d(1.0, 0.0));
  EXPECT_FALSE(NeighbourProbe(encoder)
                   .Best(gp, LogExpectedImprovement(1.0), tried.col(0), tried, {})
                   .has_value());
}

}  // namespace
}  // namespace vernier::suggest
