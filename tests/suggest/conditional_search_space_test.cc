// SearchSpace over a tree of conditional parameters.

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "suggest/search_space.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using v1::ParameterSpec;
using v1::ParameterValue;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

std::vector<std::string> Names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const ParameterSpec& spec : space.parameters()) names.push_back(spec.parameter_name());
  return names;
}

TEST(ConditionalSearchSpaceTest, FlattensTheTreeParentsFirst) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec(), DoubleSpec("lr", 0, 1)});
  EXPECT_TRUE(space.conditional());
  EXPECT_THAT(Names(space),
              ElementsAre("model", "l2", "layers", "dropout", "optimizer", "momentum", "lr"));
  EXPECT_EQ(space.ParentOf(0), -1);
  EXPECT_EQ(space.ParentOf(1), 0);
  EXPECT_EQ(space.ParentOf(3), 2);
  EXPECT_EQ(space.ParentOf(5), 4);
  EXPECT_EQ(space.ParentOf(6), -1);
  for (const ParameterSpec& spec : space.parameters()) {
    EXPECT_EQ(spec.conditional_parameter_specs_size(), 0) << spec.parameter_name();
  }
  EXPECT_FALSE(MustMakeSpace({DoubleSpec("lr", 0, 1)}).conditional());
}

TEST(ConditionalSearchSpaceTest, DecodeLeavesInactiveParametersWithoutValues) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  // model: bucket 0 of 3 is linear; every other coordinate mid-range.
  ParameterAssignment linear = space.Decode(std::vector<double>{0.1, 0.5, 0.9, 0.5, 0.9, 0.5});
  EXPECT_EQ(linear[0].string_value(), "linear");
  EXPECT_EQ(linear[1].value_case(), ParameterValue::kDoubleValue);
  for (int i = 2; i < 6; ++i) {
    EXPECT_EQ(linear[i].value_case(), ParameterValue::VALUE_NOT_SET) << i;
    EXPECT_EQ(linear[i].parameter_name(), space.parameters()[i].parameter_name());
  }
  EXPECT_EQ(FormatAssignment(linear).find("layers"), std::string::npos);
  EXPECT_EQ(ActiveValues(linear).size(), 2u);

  // dnn with 4 layers and sgd: everything below dnn is active.
  ParameterAssignment deep = space.Decode(std::vector<double>{0.5, 0.5, 0.99, 0.2, 0.9, 0.99});
  EXPECT_EQ(deep[1].value_case(), ParameterValue::VALUE_NOT_SET);
  EXPECT_EQ(deep[2].int_value(), 4);
  EXPECT_DOUBLE_EQ(deep[3].double_value(), 0.1);
  EXPECT_EQ(deep[4].string_value(), "sgd");
  EXPECT_DOUBLE_EQ(deep[5].double_value(), 0.9);

  // Two levels down: dropout goes with layers below 3, momentum with adam.
  ParameterAssignment shallow = space.Decode(std::vector<double>{0.5, 0.5, 0.1, 0.2, 0.1, 0.99});
  EXPECT_EQ(shallow[2].int_value(), 1);
  EXPECT_EQ(shallow[3].value_case(), ParameterValue::VALUE_NOT_SET);
  EXPECT_EQ(shallow[4].string_value(), "adam");
  EXPECT_EQ(shallow[5].value_case(), ParameterValue::VALUE_NOT_SET);
}

TEST(ConditionalSearchSpaceTest, EncodeGivesInactiveParametersNaN) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  const ParameterAssignment linear = space.Decode(std::vector<double>{0.1, 0.5, 0, 0, 0, 0});
  absl::StatusOr<std::vector<double>> unit = space.Encode(linear);
  ASSERT_TRUE(unit.ok()) << unit.status();
  EXPECT_NEAR((*unit)[1], 0.5, 1e-12);
  for (int i = 2; i < 6; ++i) EXPECT_TRUE(std::isnan((*unit)[i])) << i;
  EXPECT_EQ(SearchSpace::Key(space.Decode(*unit)), SearchSpace::Key(linear));
}

TEST(ConditionalSearchSpaceTest, EncodeRejectsAValueForAnInactiveParameter) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  ParameterAssignment linear = space.Decode(std::vector<double>{0.1, 0.5, 0, 0, 0, 0});
  linear[2] = IntValue("layers", 2);
  absl::StatusOr<std::vector<double>> unit = space.Encode(linear);
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()),
              HasSubstr("parameter \"layers\": is inactive (it exists only for some values of "
                        "\"model\") and must have no value"));
}

TEST(ConditionalSearchSpaceTest, EncodeRejectsAMissingActiveValue) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  ParameterAssignment linear = space.Decode(std::vector<double>{0.1, 0.5, 0, 0, 0, 0});
  linear[1].clear_double_value();
  absl::StatusOr<std::vector<double>> unit = space.Encode(linear);
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("parameter \"l2\": has no value"));
}

TEST(ConditionalSearchSpaceTest, CanonicalizeTakesOnlyTheActiveParameters) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  google::protobuf::RepeatedPtrField<ParameterValue> values;
  *values.Add() = IntValue("layers", 3);
  *values.Add() = StringValue("model", "dnn");
  *values.Add() = StringValue("optimizer", "adam");
  *values.Add() = DoubleValue("dropout", 0.25);
  absl::StatusOr<ParameterAssignment> assignment = space.Canonicalize(values);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ASSERT_EQ(assignment->size(), 6u);
  EXPECT_EQ((*assignment)[1].value_case(), ParameterValue::VALUE_NOT_SET);
  EXPECT_EQ((*assignment)[2].int_value(), 3);
  EXPECT_EQ((*assignment)[5].value_case(), ParameterValue::VALUE_NOT_SET);

  *values.Add() = DoubleValue("momentum", 0.5);
  absl::StatusOr<ParameterAssignment> extra = space.Canonicalize(values);
  ASSERT_FALSE(extra.ok());
  EXPECT_THAT(std::string(extra.status().message()),
              HasSubstr("parameter \"momentum\": is inactive (it exists only for some values of "
                        "\"optimizer\")"));

  values.RemoveLast();
  values.RemoveLast();  // dropout, active with 3 layers.
  absl::StatusOr<ParameterAssignment> missing = space.Canonicalize(values);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("parameter \"dropout\": has no value"));
}

TEST(ConditionalSearchSpaceTest, PointAtWalksTheTreeOncePerDistinctAssignment) {
  const SearchSpace space = MustMakeSpace({FiniteModelFamily(), CategoricalSpec("bn", {"a", "b"})});
  ASSERT_TRUE(space.FiniteSize().has_value());
  EXPECT_EQ(*space.FiniteSize(), 27 * 2);
  std::set<std::string> keys;
  for (int64_t i = 0; i < *space.FiniteSize(); ++i) {
    const ParameterAssignment point = space.PointAt(i);
    ASSERT_TRUE(space.Encode(point).ok()) << i << ": " << space.Encode(point).status();
    keys.insert(SearchSpace::Key(point));
  }
  EXPECT_EQ(keys.size(), 54u);
}

TEST(ConditionalSearchSpaceTest, AFlatSpaceKeepsTheMixedRadixOrder) {
  const SearchSpace space = MustMakeSpace({IntegerSpec("a", 0, 1), IntegerSpec("b", 0, 2)});
  ASSERT_EQ(space.FiniteSize(), 6);
  // b has the most values: the fastest digit.
  EXPECT_EQ(space.PointAt(1)[1].int_value(), 1);
  EXPECT_EQ(space.PointAt(1)[0].int_value(), 0);
  EXPECT_EQ(space.PointAt(3)[0].int_value(), 1);
  EXPECT_EQ(space.PointAt(3)[1].int_value(), 0);
}

TEST(ConditionalSearchSpaceTest, ADoubleReachableMakesTheSpaceInfinite) {
  EXPECT_FALSE(MustMakeSpace({ModelFamilySpec()}).FiniteSize().has_value());
}

TEST(ConditionalSearchSpaceTest, RejectsAConditionOnADoubleParent) {
  ParameterSpec lr = DoubleSpec("lr", 0, 1);
  AddDiscreteChild(lr, IntegerSpec("x", 1, 2), {0.5});
  ExpectInvalid({lr}, "a DOUBLE parameter cannot be a parent");
}

TEST(ConditionalSearchSpaceTest, RejectsAParentValueOutsideTheParentsDomain) {
  ParameterSpec model = CategoricalSpec("model", {"linear", "dnn"});
  AddChild(model, IntegerSpec("layers", 1, 2), {"cnn"});
  ExpectInvalid({model}, "parent value \"cnn\" is not a value of parent \"model\"");
  ParameterSpec layers = IntegerSpec("layers", 1, 4);
  AddIntChild(layers, DoubleSpec("dropout", 0, 1), {5});
  ExpectInvalid({layers}, "parent value 5 is not a value of parent \"layers\" ([1, 4])");
  ParameterSpec width = DiscreteSpec("width", {64, 128});
  AddDiscreteChild(width, DoubleSpec("dropout", 0, 1), {100});
  ExpectInvalid({width}, "parent value 100 is not a value of parent \"width\" (64, 128)");
}

TEST(ConditionalSearchSpaceTest, RejectsAConditionOfTheWrongKind) {
  ParameterSpec model = CategoricalSpec("model", {"linear", "dnn"});
  AddIntChild(model, IntegerSpec("layers", 1, 2), {1});
  ExpectInvalid({model}, "a CATEGORICAL parent needs parentCategoricalValues");
}

TEST(ConditionalSearchSpaceTest, RejectsANameUsedTwiceAnywhereInTheTree) {
  ParameterSpec model = CategoricalSpec("model", {"linear", "dnn"});
  AddChild(model, IntegerSpec("layers", 1, 2), {"dnn"});
  ExpectInvalid({model, IntegerSpec("layers", 1, 3)}, "parameter \"layers\" is defined twice");
  ParameterSpec twice = CategoricalSpec("model", {"linear", "dnn"});
  AddChild(twice, DoubleSpec("l2", 0, 1), {"linear"});
  AddChild(twice, DoubleSpec("l2", 0, 1), {"dnn"});
  ExpectInvalid({twice}, "parameter \"l2\" is defined twice");
}

TEST(ConditionalSearchSpaceTest, FlattenParameterSpecsListsTheWholeTree) {
  google::protobuf::RepeatedPtrField<ParameterSpec> specs;
  *specs.Add() = ModelFamilySpec();
  std::vector<std::string> names;
  for (const ParameterSpec* spec : FlattenParameterSpecs(specs)) {
    names.push_back(spec->parameter_name());
  }
  EXPECT_THAT(names, ElementsAre("model", "l2", "layers", "dropout", "optimizer", "momentum"));
}

}  // namespace
}  // namespace vernier::suggest
