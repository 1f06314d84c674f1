#include "suggest/gp/normal_tail.h"

#include <cmath>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

TEST(NormalTailTest, LogCdfIsTheLogOfTheCdfWhereThatIsAccurate) {
  for (const double z : {-4.9, -2.0, -0.3, 0.0, 1.0, 3.5}) {
    EXPECT_NEAR(NormalTail::LogCdf(z), std::log(NormalTail::Cdf(z)), 1e-12) << z;
  }
  // Either side of the switch to the Mills ratio.
  EXPECT_NEAR(NormalTail::LogCdf(-5.0 - 1e-9), NormalTail::LogCdf(-5.0 + 1e-9), 1e-7);
}

TEST(NormalTailTest, LogPdfIsTheLogOfThePdfAndFiniteWhereItUnderflows) {
  for (const double z : {-6.0, -1.0, 0.0, 0.5, 3.0}) {
    EXPECT_NEAR(NormalTail::LogPdf(z), std::log(NormalTail::Pdf(z)), 1e-12) << z;
  }
  // phi(0) = 1 / sqrt(2 pi).
  EXPECT_NEAR(NormalTail::Pdf(0.0), 0.3989422804014327, 1e-16);
  // phi(40) underflows; its log is -800 - log(sqrt(2 pi)).
  EXPECT_EQ(NormalTail::Pdf(40.0), 0.0);
  EXPECT_NEAR(NormalTail::LogPdf(40.0), -800.9189385332047, 1e-9);
}

TEST(NormalTailTest, LogCdfStaysFiniteAndAccurateFarIntoTheTail) {
  // log Phi(-40) = -804.608442013754 (mpmath), where Phi itself underflows.
  EXPECT_EQ(NormalTail::Cdf(-40.0), 0.0);
  EXPECT_NEAR(NormalTail::LogCdf(-40.0), -804.608442013754, 1e-9);
  EXPECT_TRUE(std::isfinite(NormalTail::LogCdf(-1e4)));
}

TEST(NormalTailTest, LogCdfSlopeMatchesFiniteDifferences) {
  for (const double z : {-60.0, -7.0, -5.0, -1.0, 0.0, 2.0, 6.0}) {
    const double h = 1e-6 * std::max(1.0, std::abs(z));
    const double numeric = (NormalTail::LogCdf(z + h) - NormalTail::LogCdf(z - h)) / (2 * h);
    EXPECT_NEAR(NormalTail::LogCdfSlope(z), numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << z;
  }
}

}  // namespace
}  // namespace vernier::suggest
