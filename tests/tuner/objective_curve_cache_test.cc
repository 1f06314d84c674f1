#include "tuner/objective_curve_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <optional>
#include <stdexcept>

#include "google/protobuf/text_format.h"
#include "tests/support/subprocess.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

v1::Measurement At(int64_t step, const std::string& metric, double value) {
  v1::Measurement measurement;
  measurement.set_step(step);
  v1::Metric& reported = *measurement.add_metrics();
  reported.set_metric_id(metric);
  reported.set_value(value);
  return measurement;
}

// The curve's points as (step, value) pairs, for matching.
std::vector<std::pair<int64_t, double>> Points(const suggest::LearningCurve& curve) {
  std::vector<std::pair<int64_t, double>> points;
  for (const suggest::CurvePoint& point : curve.points)
    points.emplace_back(point.step, point.value);
  return points;
}

std::unique_ptr<storage::SqliteStorage> OpenStore(const std::string& path) {
  absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> store =
      storage::SqliteStorage::Open(path);
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return *std::move(store);
}

class ObjectiveCurveCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { CreateStudy(1); }

  void CreateStudy(int64_t created_at) {
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        R"pb(name: "s"
             spec { metrics { metric_id: "accuracy" goal: MAXIMIZE } })pb",
        &study_));
    study_.mutable_create_time()->set_seconds(created_at);
    ASSERT_TRUE(storage_->CreateStudy(study_).ok());
  }

  // New trials in these states, ids from 1.
  void CreateTrials(std::vector<v1::Trial::State> states) {
    std::vector<v1::Trial> trials(states.size());
    for (size_t i = 0; i < states.size(); ++i) trials[i].set_state(states[i]);
    ASSERT_TRUE(storage_->CreateTrials("s", trials).ok());
  }

  void Add(int64_t trial_id, std::vector<v1::Measurement> measurements) {
    ASSERT_TRUE(storage_->AddMeasurements("s", trial_id, measurements, {}).ok());
  }

  void SetState(int64_t trial_id, v1::Trial::State state) {
    ASSERT_TRUE(storage_
                    ->UpdateTrial("s", trial_id,
                                  [&](v1::Trial& trial) {
                                    trial.set_state(state);
                                    return absl::OkStatus();
                                  })
                    .ok());
  }

  std::vector<suggest::LearningCurve> Curves() {
    absl::StatusOr<std::vector<suggest::LearningCurve>> curves = cache_->Curves(study_);
    EXPECT_TRUE(curves.ok()) << curves.status();
    return curves.ok() ? *curves : std::vector<suggest::LearningCurve>{};
  }

  testing::TempDir dir_;
  std::unique_ptr<storage::SqliteStorage> storage_ = OpenStore(dir_.path() + "/vernier.db");
  std::unique_ptr<ObjectiveCurveCache> cache_ = std::make_unique<ObjectiveCurveCache>(*storage_);
  v1::Study study_;
};

TEST_F(ObjectiveCurveCacheTest, HoldsTheObjectiveOfRunningAndCompletedTrialsOnly) {
  CreateTrials({v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::FAILED, v1::Trial::STOPPING,
                v1::Trial::STOPPED_EARLY, v1::Trial::INFEASIBLE, v1::Trial::REQUESTED});
  for (int64_t id = 1; id <= 7; ++id) Add(id, {At(1, "accuracy", 0.1 * id), At(1, "loss", 9)});
  const std::vector<suggest::LearningCurve> curves = Curves();
  EXPECT_THAT(curves, ElementsAre(Field(&suggest::LearningCurve::trial_id, 1),
                                  Field(&suggest::LearningCurve::trial_id, 2),
                                  Field(&suggest::LearningCurve::trial_id, 4),
                                  Field(&suggest::LearningCurve::trial_id, 5)));
  EXPECT_THAT(curves, ElementsAre(Field(&suggest::LearningCurve::completed, false),
                                  Field(&suggest::LearningCurve::completed, true),
                                  Field(&suggest::LearningCurve::completed, false),
                                  Field(&suggest::LearningCurve::completed, true)));
  EXPECT_THAT(Points(curves[1]), ElementsAre(std::pair<int64_t, double>{1, 0.2}));
}

TEST_F(ObjectiveCurveCacheTest, FollowsMeasurementsAddedOneAtATimeAndInBatches) {
  CreateTrials({v1::Trial::ACTIVE});
  EXPECT_TRUE(Curves()[0].points.empty());
  Add(1, {At(1, "accuracy", 0.5)});
  Add(1, {At(2, "loss", 0.5)});  // Counted, but no point.
  EXPECT_THAT(Points(Curves()[0]), ElementsAre(std::pair<int64_t, double>{1, 0.5}));
  Add(1, {At(3, "accuracy", 0.6)});
  EXPECT_THAT(Points(Curves()[0]),
              ElementsAre(std::pair<int64_t, double>{1, 0.5}, std::pair<int64_t, double>{3, 0.6}));
  Add(1, {At(4, "accuracy", 0.7), At(5, "accuracy", 0.8)});
  EXPECT_THAT(Points(Curves()[0]),
              ElementsAre(std::pair<int64_t, double>{1, 0.5}, std::pair<int64_t, double>{3, 0.6},
                          std::pair<int64_t, double>{4, 0.7}, std::pair<int64_t, double>{5, 0.8}));
  // Unchanged counts: the same curve, read again from the cache.
  EXPECT_EQ(Curves()[0].points.size(), 4u);
}

// A study's first read on a server finds every trial grown by more than one
// measurement: they are read a page at a time (more than one page here), and
// so are many trials that grew by several since the last read.
TEST_F(ObjectiveCurveCacheTest, ManyTrialsGrownBySeveralAreReadInFullTogether) {
  constexpr int kTrials = 300;
  std::vector<v1::Trial::State> states;
  for (int i = 1; i <= kTrials; ++i) {
    states.push_back(i % 7 == 0 ? v1::Trial::FAILED : v1::Trial::ACTIVE);
  }
  CreateTrials(states);
  auto value = [](int trial, int step) { return trial + 0.001 * step; };
  for (int i = 1; i <= kTrials; ++i) {
    if (i % 7 == 0) continue;
    Add(i, {At(1, "accuracy", value(i, 1)), At(2, "accuracy", value(i, 2))});
  }
  auto expect_steps = [&](int last_step) {
    const std::vector<suggest::LearningCurve> curves = Curves();
    ASSERT_EQ(curves.size(), static_cast<size_t>(kTrials - kTrials / 7));
    for (const suggest::LearningCurve& curve : curves) {
      const int trial = static_cast<int>(curve.trial_id);
      std::vector<std::pair<int64_t, double>> expected;
      for (int step = 1; step <= last_step; ++step) expected.emplace_back(step, value(trial, step));
      EXPECT_EQ(Points(curve), expected) << "trial " << trial;
    }
  };
  expect_steps(2);
  // Each grows by two more.
  for (int i = 1; i <= kTrials; ++i) {
    if (i % 7 == 0) continue;
    Add(i, {At(3, "accuracy", value(i, 3)), At(4, "accuracy", value(i, 4))});
  }
  expect_steps(4);
}

// Reading them fails (a stored measurement that does not parse): the error,
// and once the store reads again, every one of those trials read anew.
TEST_F(ObjectiveCurveCacheTest, TrialsThatCouldNotBeReadInFullAreReadAgainNextTime) {
  constexpr int kTrials = 12;
  CreateTrials(std::vector<v1::Trial::State>(kTrials, v1::Trial::ACTIVE));
  for (int i = 1; i <= kTrials; ++i) Add(i, {At(1, "accuracy", 0.1 * i), At(2, "accuracy", 0.5)});
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open((dir_.path() + "/vernier.db").c_str(), &database), SQLITE_OK);
  auto run = [&](const char* sql) {
    ASSERT_EQ(sqlite3_exec(database, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  };
  run("CREATE TABLE kept AS SELECT * FROM measurements WHERE trial_id = 5 AND ordinal = 0");
  run("UPDATE measurements SET body = X'FF' WHERE trial_id = 5 AND ordinal = 0");
  const absl::StatusOr<std::vector<suggest::LearningCurve>> broken = cache_->Curves(study_);
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInternal) << broken.status();
  run("UPDATE measurements SET body = (SELECT body FROM kept) WHERE trial_id = 5 AND ordinal = 0");
  sqlite3_close(database);
  const std::vector<suggest::LearningCurve> curves = Curves();
  ASSERT_EQ(curves.size(), static_cast<size_t>(kTrials));
  for (const suggest::LearningCurve& curve : curves) {
    EXPECT_THAT(Points(curve), ElementsAre(std::pair<int64_t, double>{1, 0.1 * curve.trial_id},
                                           std::pair<int64_t, double>{2, 0.5}))
        << "trial " << curve.trial_id;
  }
}

TEST_F(ObjectiveCurveCacheTest, TrialsThatGainOrLoseACurveKeepTheOrderAndTheirOwnPoints) {
  CreateTrials({v1::Trial::REQUESTED, v1::Trial::ACTIVE, v1::Trial::ACTIVE, v1::Trial::REQUESTED});
  Add(2, {At(1, "accuracy", 0.2)});
  Add(3, {At(1, "accuracy", 0.3)});
  std::vector<suggest::LearningCurve> curves = Curves();
  EXPECT_THAT(curves, ElementsAre(Field(&suggest::LearningCurve::trial_id, 2),
                                  Field(&suggest::LearningCurve::trial_id, 3)));

  // Trial 1 is handed out and reports; trial 2 fails; trial 4 is handed
  // out: a curve before the others, one gone, one after them.
  SetState(1, v1::Trial::ACTIVE);
  Add(1, {At(1, "accuracy", 0.1), At(2, "accuracy", 0.15)});
  SetState(2, v1::Trial::FAILED);
  SetState(4, v1::Trial::ACTIVE);
  Add(3, {At(2, "accuracy", 0.35)});
  curves = Curves();
  ASSERT_THAT(curves, ElementsAre(Field(&suggest::LearningCurve::trial_id, 1),
                                  Field(&suggest::LearningCurve::trial_id, 3),
                                  Field(&suggest::LearningCurve::trial_id, 4)));
  EXPECT_THAT(Points(curves[0]),
              ElementsAre(std::pair<int64_t, double>{1, 0.1}, std::pair<int64_t, double>{2, 0.15}));
  EXPECT_THAT(Points(curves[1]),
              ElementsAre(std::pair<int64_t, double>{1, 0.3}, std::pair<int64_t, double>{2, 0.35}));
  EXPECT_TRUE(curves[2].points.empty());

  // Trial 2 runs again (a retry): its points are read anew, in its place.
  SetState(2, v1::Trial::ACTIVE);
  Add(2, {At(2, "accuracy", 0.25)});
  SetState(3, v1::Trial::SUCCEEDED);
  curves = Curves();
  ASSERT_THAT(curves, ElementsAre(Field(&suggest::LearningCurve::trial_id, 1),
                                  Field(&suggest::LearningCurve::trial_id, 2),
                                  Field(&suggest::LearningCurve::trial_id, 3),
                                  Field(&suggest::LearningCurve::trial_id, 4)));
  EXPECT_THAT(Points(curves[1]),
              ElementsAre(std::pair<int64_t, double>{1, 0.2}, std::pair<int64_t, double>{2, 0.25}));
  EXPECT_FALSE(curves[1].completed);
  EXPECT_TRUE(curves[2].completed);
}

// A stored trial that does not parse: INTERNAL naming the study and the
// trial, never a curve made of half of it.
TEST_F(ObjectiveCurveCacheTest, ATrialWhoseStoredBodyDoesNotParseIsInternalNamingIt) {
  CreateTrials({v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  Add(1, {At(1, "accuracy", 0.5)});
  Add(2, {At(1, "accuracy", 0.6)});
  EXPECT_EQ(Curves().size(), 2u);
  // Field 2 (the study name) as one byte that is not UTF-8: its framing is
  // sound, so the store hands it over, but it is not a trial. Written around
  // the store with a new revision, as the store's own writes take one.
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open((dir_.path() + "/vernier.db").c_str(), &database), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(database, "UPDATE trials SET body = X'1201FF', revision = 1000 WHERE id = 2",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(database);
  const absl::StatusOr<std::vector<suggest::LearningCurve>> broken = cache_->Curves(study_);
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(broken.status().message(), HasSubstr("study \"s\" trial 2"));
  bool read = false;
  EXPECT_FALSE(cache_
                   ->Read(study_, 1,
                          [&](const ObjectiveCurveCache::TrialStatus*,
                              std::span<const suggest::LearningCurve>) { read = true; })
                   .ok());
  EXPECT_FALSE(read);
}

// Read hands over the asking trial's state as read with the curves (why it
// stops, for a STOPPING one), and none for a trial the study does not have.
TEST_F(ObjectiveCurveCacheTest, ReadGivesTheTrialsStateReadWithTheCurves) {
  CreateTrials({v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  Add(1, {At(1, "accuracy", 0.5)});
  auto status = [&](int64_t trial_id) {
    std::optional<ObjectiveCurveCache::TrialStatus> got;
    size_t curves_read = 0;
    EXPECT_TRUE(cache_
                    ->Read(study_, trial_id,
                           [&](const ObjectiveCurveCache::TrialStatus* trial,
                               std::span<const suggest::LearningCurve> curves) {
                             if (trial != nullptr) got = *trial;
                             curves_read = curves.size();
                           })
                    .ok());
    EXPECT_EQ(curves_read, 2u);
    return got;
  };
  std::optional<ObjectiveCurveCache::TrialStatus> first = status(1);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->state, v1::Trial::ACTIVE);
  EXPECT_EQ(first->status_reason, "");
  ASSERT_TRUE(storage_
                  ->UpdateTrial("s", 2,
                                [](v1::Trial& trial) {
                                  trial.set_state(v1::Trial::STOPPING);
                                  trial.set_status_reason("worse than most at step 1");
                                  return absl::OkStatus();
                                })
                  .ok());
  std::optional<ObjectiveCurveCache::TrialStatus> second = status(2);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->state, v1::Trial::STOPPING);
  EXPECT_EQ(second->status_reason, "worse than most at step 1");
  EXPECT_FALSE(status(7).has_value());
}

TEST_F(ObjectiveCurveCacheTest, AStudyCreatedAgainUnderTheSameNameStartsAfresh) {
  CreateTrials({v1::Trial::ACTIVE});
  Add(1, {At(1, "accuracy", 0.5)});
  EXPECT_THAT(Points(Curves()[0]), ElementsAre(std::pair<int64_t, double>{1, 0.5}));

  // Without Forget (another server replica deleted it): same trial id, same
  // measurement count, another curve.
  ASSERT_TRUE(storage_->DeleteStudy("s").ok());
  CreateStudy(2);
  CreateTrials({v1::Trial::ACTIVE});
  Add(1, {At(1, "accuracy", 0.9)});
  EXPECT_THAT(Points(Curves()[0]), ElementsAre(std::pair<int64_t, double>{1, 0.9}));

  cache_->Forget("s");
  EXPECT_THAT(Points(Curves()[0]), ElementsAre(std::pair<int64_t, double>{1, 0.9}));
  EXPECT_EQ(cache_->Curves(v1::Study()).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace vernier::tuner
