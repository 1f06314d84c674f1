#include "suggest/search_space.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using v1::ParameterSpec;
using v1::ParameterValue;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

constexpr auto kLinear = ParameterSpec::UNIT_LINEAR_SCALE;
constexpr auto kLog = ParameterSpec::UNIT_LOG_SCALE;
constexpr auto kReverseLog = ParameterSpec::UNIT_REVERSE_LOG_SCALE;

double EncodeOne(const SearchSpace& space, const ParameterValue& value) {
  absl::StatusOr<std::vector<double>> unit = space.Encode({value});
  EXPECT_TRUE(unit.ok()) << unit.status();
  return unit.ok() ? (*unit)[0] : std::nan("");
}

ParameterValue DecodeOne(const SearchSpace& space, double x) {
  const std::vector<double> unit = {x};
  return space.Decode(unit)[0];
}

void ExpectEncodeError(const SearchSpace& space, const ParameterAssignment& assignment,
                       const std::string& message) {
  absl::StatusOr<std::vector<double>> unit = space.Encode(assignment);
  ASSERT_FALSE(unit.ok()) << "encoded a value that should fail with: " << message;
  EXPECT_EQ(unit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr(message));
}

// ---------------------------------------------------------------- validation

TEST(SearchSpaceValidationTest, RejectsAnEmptySpace) {
  ExpectInvalid({}, "the search space has no parameters");
}

TEST(SearchSpaceValidationTest, RejectsAnEmptyName) {
  ExpectInvalid({DoubleSpec("lr", 0, 1), DoubleSpec("", 0, 1)},
                "parameter at index 1: parameterName is empty");
}

TEST(SearchSpaceValidationTest, RejectsADuplicateName) {
  ExpectInvalid({DoubleSpec("lr", 0, 1), IntegerSpec("lr", 0, 1)},
                "parameter \"lr\" is defined twice");
}

TEST(SearchSpaceValidationTest, RejectsAnUnspecifiedType) {
  ParameterSpec spec = DoubleSpec("lr", 0, 1);
  spec.set_type(ParameterSpec::TYPE_UNSPECIFIED);
  ExpectInvalid({spec}, "parameter \"lr\": type TYPE_UNSPECIFIED is not one of DOUBLE, INTEGER");
}

TEST(SearchSpaceValidationTest, RejectsMinNotBelowMax) {
  ExpectInvalid({DoubleSpec("lr", 0.1, 0.01)},
                "parameter \"lr\": minValue 0.1 must be less than maxValue 0.01");
  ExpectInvalid({DoubleSpec("lr", 0.5, 0.5)}, "minValue 0.5 must be less than maxValue 0.5");
  ExpectInvalid({IntegerSpec("layers", 8, 2)},
                "parameter \"layers\": minValue 8 must be less than maxValue 2");
}

TEST(SearchSpaceValidationTest, RejectsNonFiniteBounds) {
  ExpectInvalid({DoubleSpec("lr", 0, std::numeric_limits<double>::infinity())},
                "parameter \"lr\": maxValue inf is not finite");
  ExpectInvalid({DoubleSpec("lr", std::nan(""), 1)},
                "parameter \"lr\": minValue nan is not finite");
}

TEST(SearchSpaceValidationTest, RejectsADoubleRangeTooWideToRepresent) {
  ExpectInvalid({DoubleSpec("x", -1e308, 1e308)}, "parameter \"x\": the range [-1e+308, 1e+308]");
}

TEST(SearchSpaceValidationTest, RejectsFractionalIntegerBounds) {
  ExpectInvalid({IntegerSpec("layers", 1.5, 4)},
                "parameter \"layers\": INTEGER minValue 1.5 is not a whole number");
  ExpectInvalid({IntegerSpec("layers", 1, 4.25)}, "INTEGER maxValue 4.25 is not a whole number");
}

TEST(SearchSpaceValidationTest, RejectsIntegerBoundsOutsideInt64) {
  ExpectInvalid({IntegerSpec("n", 0, 1e19)},
                "parameter \"n\": INTEGER maxValue 1e+19 does not fit in a 64-bit integer");
  ExpectInvalid({IntegerSpec("n", -1e19, 0)}, "INTEGER minValue -1e+19 does not fit");
}

TEST(SearchSpaceValidationTest, RejectsAnIntegerRangeWithMoreValuesThanInt64) {
  ExpectInvalid({IntegerSpec("n", -9223372036854775808.0, 1)},
                "parameter \"n\": the INTEGER range [-9223372036854775808, 1] holds more than");
  // The widest range that fits: 2^63 - 1 values.
  absl::StatusOr<SearchSpace> widest = MakeSpace({IntegerSpec("n", -9223372036854775808.0, -2)});
  ASSERT_TRUE(widest.ok()) << widest.status();
  EXPECT_EQ(widest->Cardinality(0), std::numeric_limits<int64_t>::max());
}

TEST(SearchSpaceValidationTest, RejectsLogScalesWithNonPositiveMin) {
  ExpectInvalid({DoubleSpec("lr", 0, 1, kLog)},
                "parameter \"lr\": UNIT_LOG_SCALE needs minValue > 0, got 0");
  ExpectInvalid({DoubleSpec("lr", -1, 1, kReverseLog)},
                "parameter \"lr\": UNIT_REVERSE_LOG_SCALE needs minValue > 0, got -1");
  ExpectInvalid({IntegerSpec("units", 0, 100, kLog)},
                "parameter \"units\": UNIT_LOG_SCALE needs minValue > 0, got 0");
}

TEST(SearchSpaceValidationTest, IgnoresAScaleOnCategorical) {
  ParameterSpec spec = CategoricalSpec("optimizer", {"adam", "sgd"});
  spec.set_scale_type(kLog);
  EXPECT_TRUE(MakeSpace({spec}).ok());
}

TEST(SearchSpaceValidationTest, RejectsCategoricalWithoutValues) {
  ExpectInvalid({CategoricalSpec("optimizer", {})},
                "parameter \"optimizer\": CATEGORICAL needs at least one of categoricalValues");
}

TEST(SearchSpaceValidationTest, RejectsDuplicateCategoricalValues) {
  ExpectInvalid({CategoricalSpec("optimizer", {"adam", "sgd", "adam"})},
                "parameter \"optimizer\": categoricalValues lists \"adam\" twice");
}

TEST(SearchSpaceValidationTest, RejectsDiscreteWithoutValues) {
  ExpectInvalid({DiscreteSpec("batch", {})},
                "parameter \"batch\": DISCRETE needs at least one of discreteValues");
}

TEST(SearchSpaceValidationTest, RejectsDiscreteValuesNotStrictlyIncreasing) {
  ExpectInvalid({DiscreteSpec("batch", {16, 64, 32})},
                "parameter \"batch\": discreteValues must be strictly increasing; 64 is followed "
                "by 32");
  ExpectInvalid({DiscreteSpec("batch", {16, 32, 32})}, "32 is followed by 32");
}

TEST(SearchSpaceValidationTest, RejectsMoreThanAThousandDiscreteValues) {
  std::vector<double> values(1001);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  ExpectInvalid({DiscreteSpec("x", values)},
                "parameter \"x\": discreteValues has 1001 values; at most 1000 are allowed");
  values.pop_back();
  EXPECT_TRUE(MakeSpace({DiscreteSpec("x", values)}).ok());
}

TEST(SearchSpaceValidationTest, RejectsNonPositiveDiscreteValuesOnLogScales) {
  ExpectInvalid({DiscreteSpec("wd", {0, 1e-4, 1e-3}, kLog)},
                "parameter \"wd\": UNIT_LOG_SCALE needs discreteValues > 0, got 0");
  ExpectInvalid({DiscreteSpec("wd", {-1, 1, 2}, kReverseLog)},
                "UNIT_REVERSE_LOG_SCALE needs discreteValues > 0, got -1");
}

TEST(SearchSpaceValidationTest, RejectsNonFiniteDiscreteValues) {
  ExpectInvalid({DiscreteSpec("x", {1, std::numeric_limits<double>::infinity()})},
                "parameter \"x\": discreteValues inf is not finite");
}

TEST(SearchSpaceValidationTest, RejectsDiscreteValuesThatCollideOnTheScale) {
  const double big = 1e300;
  ExpectInvalid({DiscreteSpec("x", {1, big, std::nextafter(big, 2e300)}, kLog)},
                "are too close to tell apart on UNIT_LOG_SCALE");
}

TEST(SearchSpaceValidationTest, AcceptsTheRepeatedFieldOfAStudySpec) {
  v1::StudySpec spec;
  *spec.add_parameters() = DoubleSpec("lr", 1e-4, 1e-1, kLog);
  *spec.add_parameters() = IntegerSpec("layers", 1, 8);
  absl::StatusOr<SearchSpace> space = SearchSpace::Create(spec.parameters());
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_EQ(space->dimension(), 2);
  EXPECT_EQ(space->IndexOf("layers"), 1);
  EXPECT_EQ(space->IndexOf("dropout"), std::nullopt);

  spec.mutable_parameters(1)->set_max_value(0);
  EXPECT_THAT(SearchSpace::Create(spec.parameters()).status().message(),
              HasSubstr("parameter \"layers\": minValue 1 must be less than maxValue 0"));
}

// ---------------------------------------------------------------- DOUBLE

struct DoubleCase {
  double min;
  double max;
  ParameterSpec::ScaleType scale;
};

bool IsLinear(ParameterSpec::ScaleType scale) {
  return scale == kLinear || scale == ParameterSpec::NONE;
}

class DoubleRoundTripTest : public ::testing::TestWithParam<DoubleCase> {};

TEST_P(DoubleRoundTripTest, DecodeOfEncodeReturnsTheValue) {
  const DoubleCase& c = GetParam();
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", c.min, c.max, c.scale)});
  std::mt19937_64 rng(7);
  std::vector<double> values = {c.min, c.max, std::nextafter(c.min, c.max),
                                std::nextafter(c.max, c.min)};
  for (int i = 0; i < 2000; ++i) {
    // Values spread over the whole range on the scale's own terms.
    const double x = std::uniform_real_distribution<double>(0, 1)(rng);
    values.push_back(IsLinear(c.scale)
                         ? c.min + x * (c.max - c.min)
                         : std::exp(std::log(c.min) + x * (std::log(c.max) - std::log(c.min))));
  }
  for (double value : values) {
    value = std::clamp(value, c.min, c.max);
    const double x = EncodeOne(space, DoubleValue("x", value));
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
    const double decoded = DecodeOne(space, x).double_value();
    const double scale =
        IsLinear(c.scale) ? std::max(std::abs(value), c.max - c.min) : std::abs(value);
    EXPECT_NEAR(decoded, value, 1e-12 * scale) << "x=" << x;
  }
}

TEST_P(DoubleRoundTripTest, BoundsMapToTheCubeEdgesExactly) {
  const DoubleCase& c = GetParam();
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", c.min, c.max, c.scale)});
  EXPECT_EQ(EncodeOne(space, DoubleValue("x", c.min)), 0.0);
  EXPECT_EQ(EncodeOne(space, DoubleValue("x", c.max)), 1.0);
  EXPECT_EQ(DecodeOne(space, 0.0).double_value(), c.min);
  EXPECT_EQ(DecodeOne(space, 1.0).double_value(), c.max);
  EXPECT_EQ(DecodeOne(space, -0.5).double_value(), c.min);
  EXPECT_EQ(DecodeOne(space, 7.0).double_value(), c.max);
  EXPECT_EQ(DecodeOne(space, std::nan("")).double_value(), c.min);
}

TEST_P(DoubleRoundTripTest, DecodedValuesNeverLeaveTheBounds) {
  const DoubleCase& c = GetParam();
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", c.min, c.max, c.scale)});
  std::vector<double> coordinates = {0.0, 1.0, std::nextafter(1.0, 0.0), 1e-300};
  for (int i = 1; i < 1000; ++i) coordinates.push_back(i / 1000.0);
  for (double x : coordinates) {
    const ParameterValue value = DecodeOne(space, x);
    ASSERT_EQ(value.value_case(), ParameterValue::kDoubleValue);
    EXPECT_EQ(value.parameter_name(), "x");
    EXPECT_GE(value.double_value(), c.min) << "x=" << x;
    EXPECT_LE(value.double_value(), c.max) << "x=" << x;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scales, DoubleRoundTripTest,
    ::testing::Values(DoubleCase{-3, 5, kLinear}, DoubleCase{0.5, 2, ParameterSpec::NONE},
                      DoubleCase{1e-6, 1, kLog}, DoubleCase{1e-300, 1e300, kLog},
                      DoubleCase{1e-6, 1, kReverseLog}, DoubleCase{0.9, 0.999, kReverseLog},
                      DoubleCase{1, 1e12, kReverseLog}));

TEST(SearchSpaceDoubleTest, LogScalePutsTheGeometricMeanAtTheCentre) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("lr", 1e-4, 1e-2, kLog)});
  EXPECT_NEAR(EncodeOne(space, DoubleValue("lr", 1e-3)), 0.5, 1e-12);
  EXPECT_NEAR(DecodeOne(space, 0.25).double_value(), std::sqrt(1e-4 * 1e-3), 1e-15);
}

TEST(SearchSpaceDoubleTest, ReverseLogScaleMirrorsTheLogScale) {
  const double min = 1;
  const double max = 1000;
  const SearchSpace space = MustMakeSpace({DoubleSpec("m", min, max, kReverseLog)});
  for (double v : {1.0, 2.0, 10.0, 500.0, 990.0, 999.9}) {
    const double expected = 1 - (std::log(max + min - v) - std::log(min)) / std::log(max / min);
    EXPECT_NEAR(EncodeOne(space, DoubleValue("m", v)), expected, 1e-12) << v;
  }
}

TEST(SearchSpaceDoubleTest, ReverseLogScaleIsDenseNearTheMaximum) {
  const SearchSpace reverse_log = MustMakeSpace({DoubleSpec("m", 1, 1000, kReverseLog)});
  const SearchSpace log = MustMakeSpace({DoubleSpec("m", 1, 1000, kLog)});
  std::mt19937_64 rng(11);
  const int samples = 20000;
  int reverse_log_upper_half = 0;
  int log_upper_half = 0;
  for (int i = 0; i < samples; ++i) {
    const double x = std::uniform_real_distribution<double>(0, 1)(rng);
    if (DecodeOne(reverse_log, x).double_value() > 500.5) ++reverse_log_upper_half;
    if (DecodeOne(log, x).double_value() > 500.5) ++log_upper_half;
  }
  // Exact shares of the upper half: 1 - log(500.5) / log(1000) ~ 0.10 on the
  // log scale and its mirror, ~0.90, on the reverse-log scale.
  EXPECT_NEAR(reverse_log_upper_half / static_cast<double>(samples), 0.8998, 0.01);
  EXPECT_NEAR(log_upper_half / static_cast<double>(samples), 0.1002, 0.01);
}

// ---------------------------------------------------------------- INTEGER

class IntegerScaleTest : public ::testing::TestWithParam<ParameterSpec::ScaleType> {};

TEST_P(IntegerScaleTest, EveryIntegerRoundTripsExactly) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("units", 1, 300, GetParam())});
  for (int64_t k = 1; k <= 300; ++k) {
    const double x = EncodeOne(space, IntValue("units", k));
    const ParameterValue decoded = DecodeOne(space, x);
    ASSERT_EQ(decoded.value_case(), ParameterValue::kIntValue);
    EXPECT_EQ(decoded.int_value(), k) << "x=" << x;
  }
}

TEST_P(IntegerScaleTest, EncodeOfDecodeStaysInTheSameCell) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("units", 1, 40, GetParam())});
  for (int i = 0; i <= 4000; ++i) {
    const double x = i / 4000.0;
    const ParameterValue decoded = DecodeOne(space, x);
    EXPECT_GE(decoded.int_value(), 1);
    EXPECT_LE(decoded.int_value(), 40);
    const double centre = EncodeOne(space, decoded);
    EXPECT_EQ(DecodeOne(space, centre).int_value(), decoded.int_value()) << "x=" << x;
  }
  EXPECT_EQ(DecodeOne(space, 0.0).int_value(), 1);
  EXPECT_EQ(DecodeOne(space, 1.0).int_value(), 40);
  EXPECT_EQ(DecodeOne(space, -3.0).int_value(), 1);
  EXPECT_EQ(DecodeOne(space, 3.0).int_value(), 40);
}

INSTANTIATE_TEST_SUITE_P(Scales, IntegerScaleTest, ::testing::Values(kLinear, kLog, kReverseLog));

TEST(SearchSpaceIntegerTest, LinearCellsAreEqualWidth) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("k", -2, 2)});
  // Five cells of width 0.2: [0, 0.2) -> -2, [0.2, 0.4) -> -1, ...
  EXPECT_EQ(DecodeOne(space, 0.19).int_value(), -2);
  EXPECT_EQ(DecodeOne(space, 0.21).int_value(), -1);
  EXPECT_EQ(DecodeOne(space, 0.59).int_value(), 0);
  EXPECT_EQ(DecodeOne(space, 0.61).int_value(), 1);
  EXPECT_EQ(DecodeOne(space, 0.99).int_value(), 2);
  EXPECT_NEAR(EncodeOne(space, IntValue("k", -2)), 0.1, 1e-15);
  EXPECT_NEAR(EncodeOne(space, IntValue("k", 0)), 0.5, 1e-15);
  EXPECT_NEAR(EncodeOne(space, IntValue("k", 2)), 0.9, 1e-15);
}

TEST(SearchSpaceIntegerTest, UniformCoordinatesGiveEveryIntegerAFairShare) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("k", 1, 5)});
  std::mt19937_64 rng(3);
  const int samples = 50000;
  std::map<int64_t, int> hits;
  for (int i = 0; i < samples; ++i) {
    ++hits[DecodeOne(space, std::uniform_real_distribution<double>(0, 1)(rng)).int_value()];
  }
  ASSERT_EQ(hits.size(), 5u);
  // 10,000 expected each, standard deviation ~90; rounding min + x * (max -
  // min) instead would give the end points 6,250.
  for (const auto& [k, count] : hits) EXPECT_NEAR(count, samples / 5, 500) << "k=" << k;
}

TEST(SearchSpaceIntegerTest, LogScaleSharesFollowTheLogOfTheCells) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("k", 1, 4, kLog)});
  // Cells [0.5, 1.5), [1.5, 2.5), ... on a log axis from 0.5 to 4.5.
  const double span = std::log(4.5 / 0.5);
  const double first_share = std::log(1.5 / 0.5) / span;
  EXPECT_EQ(DecodeOne(space, first_share - 1e-9).int_value(), 1);
  EXPECT_EQ(DecodeOne(space, first_share + 1e-9).int_value(), 2);
}

TEST(SearchSpaceIntegerTest, HugeRangesStayInBounds) {
  // [-2^62, 2^62 - 2^10]: whole doubles near the edge of int64.
  const SearchSpace space =
      MustMakeSpace({IntegerSpec("seed", -4611686018427387904.0, 4611686018427386880.0)});
  EXPECT_EQ(DecodeOne(space, 0.0).int_value(), INT64_C(-4611686018427387904));
  EXPECT_EQ(DecodeOne(space, 1.0).int_value(), INT64_C(4611686018427386880));
  EXPECT_EQ(*space.Cardinality(0), INT64_C(9223372036854774785));
  const int64_t middle = DecodeOne(space, 0.5).int_value();
  EXPECT_LT(std::abs(static_cast<double>(middle)), 1e4);
  EXPECT_NEAR(EncodeOne(space, IntValue("seed", 0)), 0.5, 1e-15);
}

// ---------------------------------------------------------------- DISCRETE

TEST(SearchSpaceDiscreteTest, EveryValueRoundTripsExactlyOnEveryScale) {
  const std::vector<double> values = {0.001, 0.003, 0.01, 0.1, 0.1000001, 0.5, 1};
  for (auto scale : {kLinear, kLog, kReverseLog}) {
    const SearchSpace space = MustMakeSpace({DiscreteSpec("wd", values, scale)});
    for (double value : values) {
      const double x = EncodeOne(space, DoubleValue("wd", value));
      EXPECT_EQ(DecodeOne(space, x).double_value(), value)
          << ParameterSpec::ScaleType_Name(scale) << " x=" << x;
    }
    EXPECT_EQ(DecodeOne(space, 0.0).double_value(), 0.001);
    EXPECT_EQ(DecodeOne(space, 1.0).double_value(), 1);
    EXPECT_EQ(DecodeOne(space, -1.0).double_value(), 0.001);
    EXPECT_EQ(DecodeOne(space, 2.0).double_value(), 1);
  }
}

TEST(SearchSpaceDiscreteTest, SnapsToTheNearestValueInScaledSpace) {
  // Linear positions: 1 -> 0, 2 -> 1/9, 10 -> 1.
  const SearchSpace linear = MustMakeSpace({DiscreteSpec("b", {1, 2, 10})});
  EXPECT_EQ(DecodeOne(linear, 0.05).double_value(), 1);
  EXPECT_EQ(DecodeOne(linear, 0.06).double_value(), 2);
  EXPECT_EQ(DecodeOne(linear, 0.55).double_value(), 2);
  EXPECT_EQ(DecodeOne(linear, 0.57).double_value(), 10);
  // Log positions: 1 -> 0, 10 -> 0.5, 100 -> 1.
  const SearchSpace log = MustMakeSpace({DiscreteSpec("b", {1, 10, 100}, kLog)});
  EXPECT_EQ(DecodeOne(log, 0.24).double_value(), 1);
  EXPECT_EQ(DecodeOne(log, 0.26).double_value(), 10);
  EXPECT_EQ(DecodeOne(log, 0.74).double_value(), 10);
  EXPECT_EQ(DecodeOne(log, 0.76).double_value(), 100);
  EXPECT_NEAR(EncodeOne(log, DoubleValue("b", 10)), 0.5, 1e-15);
}

TEST(SearchSpaceDiscreteTest, EncodeOfDecodeStaysWithTheSameValue) {
  const SearchSpace space = MustMakeSpace({DiscreteSpec("b", {2, 3, 5, 7, 11, 13}, kLog)});
  for (int i = 0; i <= 1000; ++i) {
    const ParameterValue decoded = DecodeOne(space, i / 1000.0);
    EXPECT_EQ(DecodeOne(space, EncodeOne(space, decoded)).double_value(), decoded.double_value());
  }
}

TEST(SearchSpaceDiscreteTest, ASingleValueSitsInTheMiddle) {
  const SearchSpace space = MustMakeSpace({DiscreteSpec("b", {32}, kLog)});
  EXPECT_EQ(EncodeOne(space, DoubleValue("b", 32)), 0.5);
  EXPECT_EQ(DecodeOne(space, 0.0).double_value(), 32);
  EXPECT_EQ(DecodeOne(space, 1.0).double_value(), 32);
}

// ---------------------------------------------------------------- CATEGORICAL

TEST(SearchSpaceCategoricalTest, EqualBucketsAndCentres) {
  const SearchSpace space = MustMakeSpace({CategoricalSpec("opt", {"adam", "sgd", "rmsprop"})});
  EXPECT_NEAR(EncodeOne(space, StringValue("opt", "adam")), 1.0 / 6, 1e-15);
  EXPECT_NEAR(EncodeOne(space, StringValue("opt", "sgd")), 0.5, 1e-15);
  EXPECT_NEAR(EncodeOne(space, StringValue("opt", "rmsprop")), 5.0 / 6, 1e-15);
  EXPECT_EQ(DecodeOne(space, 0.0).string_value(), "adam");
  EXPECT_EQ(DecodeOne(space, 0.333).string_value(), "adam");
  EXPECT_EQ(DecodeOne(space, 0.334).string_value(), "sgd");
  EXPECT_EQ(DecodeOne(space, 0.667).string_value(), "rmsprop");
  EXPECT_EQ(DecodeOne(space, 1.0).string_value(), "rmsprop");
  EXPECT_EQ(DecodeOne(space, 5.0).string_value(), "rmsprop");
  EXPECT_EQ(DecodeOne(space, -5.0).string_value(), "adam");
  for (const char* value : {"adam", "sgd", "rmsprop"}) {
    EXPECT_EQ(DecodeOne(space, EncodeOne(space, StringValue("opt", value))).string_value(), value);
  }
}

// ---------------------------------------------------------------- Encode errors

class SearchSpaceEncodeTest : public ::testing::Test {
 protected:
  SearchSpace space_ = MustMakeSpace(
      {DoubleSpec("lr", 1e-4, 0.1, kLog), IntegerSpec("layers", 1, 8),
       CategoricalSpec("optimizer", {"adam", "sgd"}), DiscreteSpec("batch", {16, 32, 64})});

  ParameterAssignment Valid() const {
    return {DoubleValue("lr", 0.01), IntValue("layers", 3), StringValue("optimizer", "adam"),
            DoubleValue("batch", 32)};
  }
};

TEST_F(SearchSpaceEncodeTest, EncodesAValidAssignment) {
  absl::StatusOr<std::vector<double>> unit = space_.Encode(Valid());
  ASSERT_TRUE(unit.ok()) << unit.status();
  EXPECT_NEAR((*unit)[0], 2.0 / 3, 1e-12);
  EXPECT_NEAR((*unit)[1], 2.5 / 8, 1e-12);
  EXPECT_NEAR((*unit)[2], 0.25, 1e-12);
  EXPECT_NEAR((*unit)[3], 16.0 / 48, 1e-12);
  const ParameterAssignment decoded = space_.Decode(*unit);
  EXPECT_NEAR(decoded[0].double_value(), 0.01, 1e-15);
  EXPECT_EQ(SearchSpace::Key({decoded[1], decoded[2], decoded[3]}),
            SearchSpace::Key({Valid()[1], Valid()[2], Valid()[3]}));
}

TEST_F(SearchSpaceEncodeTest, RejectsAMissingValue) {
  ParameterAssignment assignment = Valid();
  assignment[1].clear_int_value();
  ExpectEncodeError(space_, assignment, "parameter \"layers\": has no value");
}

TEST_F(SearchSpaceEncodeTest, RejectsTheWrongValueType) {
  ParameterAssignment assignment = Valid();
  assignment[0] = IntValue("lr", 0);
  ExpectEncodeError(space_, assignment,
                    "parameter \"lr\": DOUBLE needs double_value, got int_value");
  assignment = Valid();
  assignment[1] = DoubleValue("layers", 3);
  ExpectEncodeError(space_, assignment,
                    "parameter \"layers\": INTEGER needs int_value, got double_value");
  assignment = Valid();
  assignment[2] = DoubleValue("optimizer", 1);
  ExpectEncodeError(space_, assignment,
                    "parameter \"optimizer\": CATEGORICAL needs string_value, got double_value");
  assignment = Valid();
  assignment[3] = IntValue("batch", 32);
  ExpectEncodeError(space_, assignment,
                    "parameter \"batch\": DISCRETE needs double_value, got int_value");
}

TEST_F(SearchSpaceEncodeTest, RejectsOutOfBoundsValues) {
  ParameterAssignment assignment = Valid();
  assignment[0] = DoubleValue("lr", 0.5);
  ExpectEncodeError(space_, assignment, "parameter \"lr\": 0.5 is outside [0.0001, 0.1]");
  assignment = Valid();
  assignment[1] = IntValue("layers", 9);
  ExpectEncodeError(space_, assignment, "parameter \"layers\": 9 is outside [1, 8]");
  assignment[1] = IntValue("layers", 0);
  ExpectEncodeError(space_, assignment, "parameter \"layers\": 0 is outside [1, 8]");
}

TEST_F(SearchSpaceEncodeTest, RejectsValuesThatAreNotAllowed) {
  ParameterAssignment assignment = Valid();
  assignment[2] = StringValue("optimizer", "rmsprop");
  ExpectEncodeError(space_, assignment,
                    "parameter \"optimizer\": \"rmsprop\" is not one of the categoricalValues "
                    "\"adam\", \"sgd\"");
  assignment = Valid();
  assignment[3] = DoubleValue("batch", 48);
  ExpectEncodeError(space_, assignment,
                    "parameter \"batch\": 48 is not one of the discreteValues 16, 32, 64");
}

TEST_F(SearchSpaceEncodeTest, ListsOnlyTheFirstOfManyAllowedValues) {
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(i);
  const SearchSpace space = MustMakeSpace({DiscreteSpec("x", values)});
  ExpectEncodeError(space, {DoubleValue("x", 0.5)},
                    "0.5 is not one of the discreteValues 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
                    "... (100 values)");
}

TEST_F(SearchSpaceEncodeTest, RejectsNonFiniteValues) {
  ParameterAssignment assignment = Valid();
  assignment[0] = DoubleValue("lr", std::nan(""));
  ExpectEncodeError(space_, assignment, "parameter \"lr\": nan is not finite");
  assignment[0] = DoubleValue("lr", std::numeric_limits<double>::infinity());
  ExpectEncodeError(space_, assignment, "parameter \"lr\": inf is not finite");
  assignment = Valid();
  assignment[3] = DoubleValue("batch", -std::numeric_limits<double>::infinity());
  ExpectEncodeError(space_, assignment, "parameter \"batch\": -inf is not finite");
}

TEST_F(SearchSpaceEncodeTest, RejectsTheWrongNumberOfValues) {
  ParameterAssignment assignment = Valid();
  assignment.pop_back();
  ExpectEncodeError(space_, assignment, "expected values for 4 parameters, got 3");
}

TEST_F(SearchSpaceEncodeTest, RejectsAValueForAnotherParameter) {
  ParameterAssignment assignment = Valid();
  std::swap(assignment[0], assignment[1]);
  ExpectEncodeError(space_, assignment, "value 0 is for parameter \"layers\", expected \"lr\"");
}

// ---------------------------------------------------------------- Canonicalize

class SearchSpaceCanonicalizeTest : public SearchSpaceEncodeTest {
 protected:
  google::protobuf::RepeatedPtrField<ParameterValue> Values(
      const std::vector<ParameterValue>& values) {
    google::protobuf::RepeatedPtrField<ParameterValue> field;
    for (const ParameterValue& value : values) *field.Add() = value;
    return field;
  }
};

TEST_F(SearchSpaceCanonicalizeTest, ReordersValuesIntoTheSpaceOrder) {
  absl::StatusOr<ParameterAssignment> assignment =
      space_.Canonicalize(Values({DoubleValue("batch", 64), StringValue("optimizer", "sgd"),
                                  DoubleValue("lr", 0.001), IntValue("layers", 2)}));
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_EQ(FormatAssignment(*assignment), "lr=0.001, layers=2, optimizer=sgd, batch=64");
}

TEST_F(SearchSpaceCanonicalizeTest, SpellsNegativeZeroAsZero) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("shift", -1, 1)});
  absl::StatusOr<ParameterAssignment> negative =
      space.Canonicalize(Values({DoubleValue("shift", -0.0)}));
  ASSERT_TRUE(negative.ok()) << negative.status();
  EXPECT_FALSE(std::signbit((*negative)[0].double_value()));
}

TEST_F(SearchSpaceCanonicalizeTest, RejectsAnUnknownParameter) {
  absl::StatusOr<ParameterAssignment> assignment = space_.Canonicalize(
      Values({DoubleValue("lr", 0.01), IntValue("layers", 3), StringValue("optimizer", "adam"),
              DoubleValue("batch", 32), DoubleValue("dropout", 0.1)}));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(assignment.status().message()),
              HasSubstr("unknown parameter \"dropout\"; the search space has lr, layers, "
                        "optimizer, batch"));
}

TEST_F(SearchSpaceCanonicalizeTest, RejectsADuplicate) {
  absl::StatusOr<ParameterAssignment> assignment = space_.Canonicalize(
      Values({DoubleValue("lr", 0.01), IntValue("layers", 3), IntValue("layers", 4),
              StringValue("optimizer", "adam"), DoubleValue("batch", 32)}));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(assignment.status().message()),
              HasSubstr("parameter \"layers\" is given twice"));
}

TEST_F(SearchSpaceCanonicalizeTest, RejectsAMissingParameter) {
  absl::StatusOr<ParameterAssignment> assignment = space_.Canonicalize(Values(
      {DoubleValue("lr", 0.01), StringValue("optimizer", "adam"), DoubleValue("batch", 32)}));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(assignment.status().message()),
              HasSubstr("parameter \"layers\": has no value"));
}

TEST_F(SearchSpaceCanonicalizeTest, RejectsAnInvalidValue) {
  absl::StatusOr<ParameterAssignment> assignment =
      space_.Canonicalize(Values({IntValue("layers", 3), StringValue("optimizer", "adam"),
                                  DoubleValue("batch", 32), DoubleValue("lr", 2)}));
  ASSERT_FALSE(assignment.ok());
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(assignment.status().message()),
              HasSubstr("parameter \"lr\": 2 is outside"));

  assignment = space_.Canonicalize(Values({IntValue("layers", 3), StringValue("optimizer", "adam"),
                                           DoubleValue("batch", 32), StringValue("lr", "fast")}));
  ASSERT_FALSE(assignment.ok());
  EXPECT_THAT(std::string(assignment.status().message()),
              HasSubstr("parameter \"lr\": DOUBLE needs double_value, got string_value"));
}

// ---------------------------------------------------------------- values and keys

TEST(SearchSpaceValuesTest, CardinalityAndValueAt) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("lr", 0, 1), IntegerSpec("layers", -2, 3),
                                           CategoricalSpec("optimizer", {"adam", "sgd"}),
                                           DiscreteSpec("batch", {16, 32, 64})});
  EXPECT_EQ(space.Cardinality(0), std::nullopt);
  EXPECT_EQ(space.Cardinality(1), 6);
  EXPECT_EQ(space.Cardinality(2), 2);
  EXPECT_EQ(space.Cardinality(3), 3);
  EXPECT_EQ(space.ValueAt(1, 0).int_value(), -2);
  EXPECT_EQ(space.ValueAt(1, 5).int_value(), 3);
  EXPECT_EQ(space.ValueAt(1, 5).parameter_name(), "layers");
  EXPECT_EQ(space.ValueAt(2, 1).string_value(), "sgd");
  EXPECT_EQ(space.ValueAt(3, 2).double_value(), 64);
  EXPECT_EQ(space.ValueAt(3, 2).parameter_name(), "batch");
}

TEST(SearchSpaceValuesTest, KeyIsEqualExactlyForEqualPoints) {
  const ParameterAssignment a = {DoubleValue("lr", 0.1), IntValue("layers", 3),
                                 StringValue("optimizer", "adam")};
  ParameterAssignment same = a;
  EXPECT_EQ(SearchSpace::Key(a), SearchSpace::Key(same));

  ParameterAssignment nearby = a;
  nearby[0].set_double_value(std::nextafter(0.1, 1.0));
  EXPECT_NE(SearchSpace::Key(a), SearchSpace::Key(nearby));

  ParameterAssignment other_layers = a;
  other_layers[1].set_int_value(4);
  EXPECT_NE(SearchSpace::Key(a), SearchSpace::Key(other_layers));

  // A string value cannot pose as a following value.
  const ParameterAssignment pair = {StringValue("a", "x"), StringValue("b", "y")};
  const ParameterAssignment forged = {StringValue("a", "x\";b=s:\"y"), StringValue("b", "y")};
  EXPECT_NE(SearchSpace::Key(pair), SearchSpace::Key(forged));

  const ParameterAssignment zero = {DoubleValue("shift", 0.0)};
  const ParameterAssignment negative_zero = {DoubleValue("shift", -0.0)};
  EXPECT_EQ(SearchSpace::Key(zero), SearchSpace::Key(negative_zero));
}

TEST(SearchSpaceValuesTest, FormatsReadably) {
  EXPECT_EQ(FormatAssignment({DoubleValue("lr", 0.0031), IntValue("layers", 3),
                              StringValue("optimizer", "adam")}),
            "lr=0.0031, layers=3, optimizer=adam");
  EXPECT_EQ(FormatParameterValue(DoubleValue("lr", 1e-5)), "1e-05");
  EXPECT_EQ(FormatParameterValue(DoubleValue("lr", 0.1)), "0.1");
  EXPECT_EQ(FormatParameterValue(DoubleValue("lr", 0.0001)), "0.0001");
  EXPECT_EQ(FormatParameterValue(DoubleValue("x", 0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(FormatParameterValue(DoubleValue("batch", 64)), "64");
  EXPECT_EQ(FormatParameterValue(DoubleValue("steps", 1500)), "1500");
  EXPECT_EQ(FormatParameterValue(DoubleValue("steps", -0.0)), "-0");
  EXPECT_EQ(FormatParameterValue(DoubleValue("big", 1e20)), "1e+20");
  EXPECT_EQ(FormatParameterValue(DoubleValue("x", 1234.5)), "1234.5");
  EXPECT_EQ(FormatParameterValue(IntValue("seed", -12)), "-12");
  EXPECT_EQ(FormatParameterValue(ParameterValue()), "(unset)");
  EXPECT_EQ(FormatAssignment({}), "");
}

TEST(SearchSpaceValuesTest, FormattedDoublesReadBackExactly) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("lr", 1e-5, 1, kLog)});
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const ParameterValue value =
        DecodeOne(space, std::uniform_real_distribution<double>(0, 1)(rng));
    EXPECT_EQ(std::stod(FormatParameterValue(value)), value.double_value());
  }
}

}  // namespace
}  // namespace vernier::suggest
