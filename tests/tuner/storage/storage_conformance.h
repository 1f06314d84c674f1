#ifndef VERNIER_TESTS_TUNER_STORAGE_STORAGE_CONFORMANCE_H_
#define VERNIER_TESTS_TUNER_STORAGE_STORAGE_CONFORMANCE_H_

// The behaviour every Storage implementation must show, written against the
// Storage interface (and StudyManager over it, for what servers sharing a
// store must get right together). A store joins by defining a factory type:
//
//   struct MyStoreFactory {
//     // Optional: non-empty to skip every test (no server to test against).
//     static std::string SkipReason();
//     // A fresh, empty store; called once per test.
//     absl::StatusOr<std::unique_ptr<Storage>> Create();
//     // Another store over the same database, as a second server process
//     // would open it; called after Create.
//     absl::StatusOr<std::unique_ptr<Storage>> Reopen();
//   };  // Destroying the factory cleans up after the stores it made.
//
//   INSTANTIATE_TYPED_TEST_SUITE_P(MyStore, StorageConformanceTest,
//                                  ::testing::Types<MyStoreFactory>);
//
// Where storage.h leaves a choice, the suite pins down the one stores share:
// names and ids must not be empty; negative page sizes are INVALID_ARGUMENT;
// an empty mutator or check does nothing; CreateJob fills an empty
// job.study_name with the study's name and refuses a different one;
// ListJobsInStates lists oldest first, and every job when given no states.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/audit_chain.h"
#include "tuner/storage/storage.h"
#include "tuner/storage/stored_rows.h"
#include "tuner/study_manager.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage::testing {

// TrialQuery values, spelled out (GCC warns on partial designated
// initializers).
inline TrialQuery InStates(std::vector<v1::Trial::State> states, int page_size = 0) {
  TrialQuery query;
  query.states = std::move(states);
  query.page_size = page_size;
  return query;
}
inline TrialQuery PageOf(int page_size, std::string page_token = "") {
  TrialQuery query;
  query.page_size = page_size;
  query.page_token = std::move(page_token);
  return query;
}
inline TrialQuery WithMeasurements() {
  TrialQuery query;
  query.include_measurements = true;
  return query;
}

// ListTrialBodies over study "s1" of two trials, after a store's own test
// broke trial 2's body (in the store's own SQL) so that it does not parse:
// a page holding trial 2 is INTERNAL naming it; the page before it reads.
inline void ExpectTrialTwoOfS1RefusedInListsOfBodies(Storage& store) {
  EXPECT_THAT(store.ListTrialBodies("s1", TrialQuery{}),
              StatusIs(absl::StatusCode::kInternal,
                       ::testing::AllOf(::testing::HasSubstr("trial 2 of study \"s1\""),
                                        ::testing::HasSubstr("does not parse"),
                                        ::testing::HasSubstr("vernier.v1.Trial"))));
  absl::StatusOr<Page<SerializedTrial>> page = store.ListTrialBodies("s1", PageOf(1));
  ASSERT_THAT(page, IsOk());
  ASSERT_THAT(page->items, ::testing::SizeIs(1));
  EXPECT_EQ(page->items[0].id, 1);
  // Listed as changed too.
  EXPECT_THAT(store.ListTrialChanges("s1", ""),
              StatusIs(absl::StatusCode::kInternal,
                       ::testing::AllOf(::testing::HasSubstr("trial 2 of study \"s1\""),
                                        ::testing::HasSubstr("does not parse"))));
}

template <typename Factory>
class StorageConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if constexpr (requires { Factory::SkipReason(); }) {
      if (const std::string reason = Factory::SkipReason(); !reason.empty()) GTEST_SKIP() << reason;
    }
    absl::StatusOr<std::unique_ptr<Storage>> store = factory_.Create();
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  Storage& store() { return *store_; }
  // The same database through a second store, as another server sees it.
  Storage& other_store() {
    if (other_store_ == nullptr) {
      absl::StatusOr<std::unique_ptr<Storage>> store = factory_.Reopen();
      EXPECT_THAT(store, IsOk());
      if (store.ok()) other_store_ = *std::move(store);
    }
    return *other_store_;
  }

  static v1::Study MakeStudy(const std::string& name) {
    v1::Study study;
    study.set_name(name);
    study.set_display_name("display " + name);
    study.set_state(v1::Study::ACTIVE);
    study.mutable_create_time()->set_seconds(1'700'000'000);
    v1::ParameterSpec* parameter = study.mutable_spec()->add_parameters();
    parameter->set_parameter_name("learning_rate");
    parameter->set_type(v1::ParameterSpec::DOUBLE);
    parameter->set_min_value(1e-4);
    parameter->set_max_value(1e-1);
    parameter->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
    v1::MetricSpec* metric = study.mutable_spec()->add_metrics();
    metric->set_metric_id("accuracy");
    metric->set_goal(v1::MetricSpec::MAXIMIZE);
    study.mutable_spec()->set_seed(42);
    return study;
  }

  static v1::Trial MakeTrial(v1::Trial::State state, const std::string& client_id = "") {
    v1::Trial trial;
    trial.set_state(state);
    trial.set_client_id(client_id);
    v1::ParameterValue* value = trial.add_parameters();
    value->set_parameter_name("learning_rate");
    value->set_double_value(0.01);
    return trial;
  }

  // Reports steps 1..`reports` to the trial, each with its step as sequence
  // number, counting the calls that fail.
  void ReportInOrder(const std::string& study_name, int64_t trial_id, int reports,
                     std::atomic<int>& failures) {
    for (int i = 1; i <= reports; ++i) {
      const std::vector<v1::Measurement> report = {MakeMeasurement(i, i, 0.5)};
      if (!store().AddMeasurements(study_name, trial_id, report, {}).ok()) ++failures;
    }
  }

  static v1::Measurement MakeMeasurement(int64_t step, int64_t sequence_number, double value) {
    v1::Measurement measurement;
    measurement.set_step(step);
    measurement.set_sequence_number(sequence_number);
    measurement.set_elapsed_seconds(static_cast<double>(step) / 10);
    v1::Metric* metric = measurement.add_metrics();
    metric->set_metric_id("accuracy");
    metric->set_value(value);
    return measurement;
  }

  static v1::Job MakeJob(const std::string& job_id, v1::Job::State state, int64_t create_seconds) {
    v1::Job job;
    job.set_job_id(job_id);
    job.set_state(state);
    job.mutable_create_time()->set_seconds(create_seconds);
    job.set_study_name(job_id);
    job.add_command("python3");
    job.add_command("train.py");
    job.set_job_dir("/jobs/" + job_id);
    job.mutable_training_input()->mutable_hyperparameters()->set_max_trials(10);
    return job;
  }

  // Creates the study and `states.size()` trials in it, one per state.
  std::vector<v1::Trial> CreateStudyWithTrials(const std::string& study_name,
                                               const std::vector<v1::Trial::State>& states) {
    absl::StatusOr<v1::Study> study = store().CreateStudy(MakeStudy(study_name));
    EXPECT_THAT(study, IsOk());
    std::vector<v1::Trial> trials;
    for (const v1::Trial::State state : states) trials.push_back(MakeTrial(state));
    absl::StatusOr<std::vector<v1::Trial>> created = store().CreateTrials(study_name, trials);
    EXPECT_THAT(created, IsOk());
    return created.ok() ? *created : std::vector<v1::Trial>();
  }

  // For each state a job has not ended in (kUnfinishedJobStates), a job
  // named job_STATE in it, with its study and one ACTIVE trial.
  void CreateUnfinishedJobs() {
    for (const v1::Job::State state : kUnfinishedJobStates) {
      const std::string id = absl::StrCat("job_", v1::Job::State_Name(state));
      ASSERT_THAT(store().CreateJob(MakeJob(id, state, 100), MakeStudy(id)), IsOk());
      ASSERT_THAT(store().CreateTrials(id, std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE)}),
                  IsOk());
    }
  }

  // The refusal to delete job `id` (or its study) while it is in `state`.
  static auto RefusedUntilTheJobEnds(const std::string& id, v1::Job::State state) {
    return StatusIs(absl::StatusCode::kFailedPrecondition,
                    ::testing::AllOf(::testing::HasSubstr(absl::StrCat("job \"", id, "\"")),
                                     ::testing::HasSubstr(v1::Job::State_Name(state)),
                                     ::testing::HasSubstr(absl::StrCat("vernier jobs cancel ", id)),
                                     ::testing::HasSubstr("wait for it to end")));
  }

  // The ids of every trial of the study, following page tokens.
  std::vector<int64_t> ListAllTrialIds(const std::string& study_name, TrialQuery query) {
    std::vector<int64_t> ids;
    for (int page = 0; page < 1000; ++page) {
      absl::StatusOr<Page<v1::Trial>> listed = store().ListTrials(study_name, query);
      EXPECT_THAT(listed, IsOk());
      if (!listed.ok()) break;
      for (const v1::Trial& trial : listed->items) ids.push_back(trial.id());
      if (listed->next_page_token.empty()) break;
      query.page_token = listed->next_page_token;
    }
    return ids;
  }

  static v1::Trial SucceededTrial(double value, const std::string& metric_id = "accuracy") {
    v1::Trial trial = MakeTrial(v1::Trial::SUCCEEDED);
    v1::Metric* metric = trial.mutable_final_measurement()->add_metrics();
    metric->set_metric_id(metric_id);
    metric->set_value(value);
    return trial;
  }

  // The ids of ListBestTrials(study_name, limit).
  std::vector<int64_t> BestTrialIds(const std::string& study_name, int limit) {
    absl::StatusOr<std::vector<v1::Trial>> best = store().ListBestTrials(study_name, limit);
    EXPECT_THAT(best, IsOk());
    std::vector<int64_t> ids;
    if (best.ok()) {
      for (const v1::Trial& trial : *best) ids.push_back(trial.id());
    }
    return ids;
  }

  Factory factory_;
  // Declared after the factory, so the stores go first.
  std::unique_ptr<Storage> store_;
  std::unique_ptr<Storage> other_store_;
};

TYPED_TEST_SUITE_P(StorageConformanceTest);

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

// ---------------------------------------------------------------- studies

TYPED_TEST_P(StorageConformanceTest, CreateStudyThenGetReturnsIt) {
  const v1::Study study = this->MakeStudy("s1");
  absl::StatusOr<v1::Study> created = this->store().CreateStudy(study);
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(*created, EqualsProto(study));
  absl::StatusOr<v1::Study> got = this->store().GetStudy("s1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(study));
}

TYPED_TEST_P(StorageConformanceTest, CreateStudyTwiceIsAlreadyExistsAndKeepsTheFirst) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  v1::Study second = this->MakeStudy("s1");
  second.set_display_name("second");
  EXPECT_THAT(this->store().CreateStudy(second),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("study \"s1\"")));
  absl::StatusOr<v1::Study> got = this->store().GetStudy("s1");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->display_name(), "display s1");
}

TYPED_TEST_P(StorageConformanceTest, CreateStudyWithEmptyNameIsInvalidArgument) {
  EXPECT_THAT(this->store().CreateStudy(this->MakeStudy("")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("study.name")));
}

TYPED_TEST_P(StorageConformanceTest, GetMissingStudyIsNotFound) {
  EXPECT_THAT(this->store().GetStudy("nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, ListStudiesIsOrderedByNameAcrossPages) {
  for (const char* name : {"delta", "alpha", "echo", "charlie", "bravo"}) {
    ASSERT_THAT(this->store().CreateStudy(this->MakeStudy(name)), IsOk());
  }
  absl::StatusOr<Page<v1::Study>> all = this->store().ListStudies(0, "");
  ASSERT_THAT(all, IsOk());
  std::vector<std::string> names;
  for (const v1::Study& study : all->items) names.push_back(study.name());
  EXPECT_THAT(names, ElementsAre("alpha", "bravo", "charlie", "delta", "echo"));
  EXPECT_THAT(all->next_page_token, IsEmpty());
  EXPECT_THAT(all->items[0], EqualsProto(this->MakeStudy("alpha")));

  names.clear();
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<Page<v1::Study>> page = this->store().ListStudies(2, token);
    ASSERT_THAT(page, IsOk());
    EXPECT_LE(page->items.size(), 2u);
    for (const v1::Study& study : page->items) names.push_back(study.name());
    token = page->next_page_token;
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(names, ElementsAre("alpha", "bravo", "charlie", "delta", "echo"));
}

TYPED_TEST_P(StorageConformanceTest, ListStudiesFullLastPageHasNoToken) {
  for (const char* name : {"a", "b", "c", "d"}) {
    ASSERT_THAT(this->store().CreateStudy(this->MakeStudy(name)), IsOk());
  }
  absl::StatusOr<Page<v1::Study>> first = this->store().ListStudies(2, "");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(first->items, SizeIs(2));
  ASSERT_THAT(first->next_page_token, ::testing::Not(IsEmpty()));
  absl::StatusOr<Page<v1::Study>> second = this->store().ListStudies(2, first->next_page_token);
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT(second->items, SizeIs(2));
  EXPECT_EQ(second->items[0].name(), "c");
  EXPECT_THAT(second->next_page_token, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, ListStudiesOfAnEmptyStoreIsEmpty) {
  absl::StatusOr<Page<v1::Study>> page = this->store().ListStudies(10, "");
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->items, IsEmpty());
  EXPECT_THAT(page->next_page_token, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, ListStudiesRejectsBadTokenAndNegativePageSize) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  EXPECT_THAT(this->store().ListStudies(2, "not a token!"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a token!")));
  EXPECT_THAT(this->store().ListStudies(-1, ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_size is -1")));
}

TYPED_TEST_P(StorageConformanceTest, UpdateStudyAppliesTheMutatorButKeepsTheName) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  absl::StatusOr<v1::Study> updated =
      this->store().UpdateStudy("s1", [](v1::Study& study) -> absl::Status {
        study.set_state(v1::Study::COMPLETED);
        study.set_name("renamed");
        return absl::OkStatus();
      });
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->name(), "s1");
  EXPECT_EQ(updated->state(), v1::Study::COMPLETED);
  absl::StatusOr<v1::Study> got = this->store().GetStudy("s1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(*updated));
  EXPECT_THAT(this->store().GetStudy("renamed"),
              StatusIs(absl::StatusCode::kNotFound, "study \"renamed\" not found"));
}

TYPED_TEST_P(StorageConformanceTest, UpdateStudyMutatorErrorRollsBackAndIsReturnedUnchanged) {
  const v1::Study study = this->MakeStudy("s1");
  ASSERT_THAT(this->store().CreateStudy(study), IsOk());
  absl::StatusOr<v1::Study> updated =
      this->store().UpdateStudy("s1", [](v1::Study& study) -> absl::Status {
        study.set_state(v1::Study::INACTIVE);
        study.set_display_name("half-updated");
        return absl::FailedPreconditionError("study s1 cannot stop now");
      });
  EXPECT_EQ(updated.status(), absl::FailedPreconditionError("study s1 cannot stop now"));
  absl::StatusOr<v1::Study> got = this->store().GetStudy("s1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(study));
}

TYPED_TEST_P(StorageConformanceTest, UpdateStudyWithoutMutatorKeepsTheStudy) {
  const v1::Study study = this->MakeStudy("s1");
  ASSERT_THAT(this->store().CreateStudy(study), IsOk());
  absl::StatusOr<v1::Study> updated = this->store().UpdateStudy("s1", nullptr);
  ASSERT_THAT(updated, IsOk());
  EXPECT_THAT(*updated, EqualsProto(study));
}

TYPED_TEST_P(StorageConformanceTest, UpdateMissingStudyIsNotFound) {
  bool called = false;
  EXPECT_THAT(this->store().UpdateStudy("nope",
                                        [&](v1::Study&) {
                                          called = true;
                                          return absl::OkStatus();
                                        }),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
  EXPECT_FALSE(called);
}

TYPED_TEST_P(StorageConformanceTest, DeleteStudyRemovesItsTrialsAndMeasurementsOnly) {
  std::vector<v1::Trial> doomed =
      this->CreateStudyWithTrials("doomed", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED});
  std::vector<v1::Trial> kept = this->CreateStudyWithTrials("kept", {v1::Trial::ACTIVE});
  ASSERT_THAT(doomed, SizeIs(2));
  ASSERT_THAT(kept, SizeIs(1));
  const std::vector<v1::Measurement> measurements = {this->MakeMeasurement(1, 1, 0.5),
                                                     this->MakeMeasurement(2, 2, 0.6)};
  ASSERT_THAT(this->store().AddMeasurements("doomed", 1, measurements, {}), IsOk());
  ASSERT_THAT(this->store().AddMeasurements("kept", 1, measurements, {}), IsOk());

  ASSERT_THAT(this->store().DeleteStudy("doomed"), IsOk());
  EXPECT_THAT(this->store().GetStudy("doomed"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("doomed")));
  EXPECT_THAT(this->store().GetTrial("doomed", 1, true),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"doomed\" not found")));

  // A study of the same name starts from nothing: no trials, ids from 1 and
  // no measurements left over under the old keys.
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("doomed")), IsOk());
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("doomed");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts, IsEmpty());
  absl::StatusOr<std::vector<v1::Trial>> reborn = this->store().CreateTrials(
      "doomed", std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE)});
  ASSERT_THAT(reborn, IsOk());
  ASSERT_THAT(*reborn, SizeIs(1));
  EXPECT_EQ((*reborn)[0].id(), 1);
  absl::StatusOr<v1::Trial> fresh = this->store().GetTrial("doomed", 1, true);
  ASSERT_THAT(fresh, IsOk());
  EXPECT_THAT(fresh->measurements(), IsEmpty());
  EXPECT_EQ(fresh->measurement_count(), 0);
  // Two measurements with the old sequence numbers are new to the new trial.
  absl::StatusOr<v1::Trial> appended = this->store().AddMeasurements("doomed", 1, measurements, {});
  ASSERT_THAT(appended, IsOk());
  EXPECT_EQ(appended->measurement_count(), 2);

  absl::StatusOr<v1::Trial> other = this->store().GetTrial("kept", 1, true);
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(other->measurements(), SizeIs(2));
}

TYPED_TEST_P(StorageConformanceTest, DeleteStudyOfAnUnfinishedJobIsRefusedNamingTheJob) {
  ASSERT_NO_FATAL_FAILURE(this->CreateUnfinishedJobs());
  for (const v1::Job::State state : kUnfinishedJobStates) {
    const std::string id = absl::StrCat("job_", v1::Job::State_Name(state));
    // Through either server of the store.
    for (Storage* store : {&this->store(), &this->other_store()}) {
      EXPECT_THAT(store->DeleteStudy(id), this->RefusedUntilTheJobEnds(id, state));
    }
    // Nothing was deleted.
    EXPECT_THAT(this->store().GetTrial(id, 1, false), IsOk());
  }
  // Once the job ends, its study may go.
  ASSERT_THAT(this->store().UpdateJob("job_RUNNING",
                                      [](v1::Job& job) {
                                        job.set_state(v1::Job::CANCELLED);
                                        return absl::OkStatus();
                                      }),
              IsOk());
  EXPECT_THAT(this->store().DeleteStudy("job_RUNNING"), IsOk());
  EXPECT_THAT(this->store().GetStudy("job_RUNNING"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_RUNNING")));
}

TYPED_TEST_P(StorageConformanceTest, AJobsStudyNameIsNeverReusedSoLateReportsFindNoTrial) {
  v1::Job job = this->MakeJob("job_1", v1::Job::SUCCEEDED, 100);
  job.set_study_name("tuned");
  ASSERT_THAT(this->store().CreateJob(job, this->MakeStudy("tuned")), IsOk());
  ASSERT_THAT(this->store().CreateTrials(
                  "tuned", std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE)}),
              IsOk());
  ASSERT_THAT(this->store().DeleteStudy("tuned"), IsOk());

  // A new study cannot take the name, through either server of the store...
  for (Storage* store : {&this->store(), &this->other_store()}) {
    EXPECT_THAT(store->CreateStudy(this->MakeStudy("tuned")),
                StatusIs(absl::StatusCode::kAlreadyExists,
                         AllOf(HasSubstr("\"tuned\""), HasSubstr("job \"job_1\""))));
  }
  // ...so a late measurement for the job's trial 1 lands nowhere.
  const std::vector<v1::Measurement> late = {this->MakeMeasurement(1, 1, 0.5)};
  EXPECT_THAT(this->store().AddMeasurements("tuned", 1, late, {}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("tuned")));
  EXPECT_THAT(this->store().GetStudy("tuned"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("tuned")));
  // Other names stay free.
  EXPECT_THAT(this->store().CreateStudy(this->MakeStudy("tuned_again")), IsOk());
}

TYPED_TEST_P(StorageConformanceTest, DeleteMissingStudyIsNotFound) {
  EXPECT_THAT(this->store().DeleteStudy("nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

// ----------------------------------------------------------------- trials

TYPED_TEST_P(StorageConformanceTest, CreateTrialsAssignsIdsAfterTheLargest) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  std::vector<v1::Trial> first_batch = {this->MakeTrial(v1::Trial::ACTIVE, "worker-a"),
                                        this->MakeTrial(v1::Trial::REQUESTED),
                                        this->MakeTrial(v1::Trial::ACTIVE, "worker-b")};
  absl::StatusOr<std::vector<v1::Trial>> first = this->store().CreateTrials("s1", first_batch);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(*first, SizeIs(3));
  for (int i = 0; i < 3; ++i) {
    v1::Trial expected = first_batch[i];
    expected.set_id(i + 1);
    expected.set_study_name("s1");
    EXPECT_THAT((*first)[i], EqualsProto(expected));
    absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", i + 1, false);
    ASSERT_THAT(got, IsOk());
    EXPECT_THAT(*got, EqualsProto(expected));
  }
  absl::StatusOr<std::vector<v1::Trial>> second =
      this->store().CreateTrials("s1", std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE),
                                                              this->MakeTrial(v1::Trial::ACTIVE)});
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT(*second, SizeIs(2));
  EXPECT_EQ((*second)[0].id(), 4);
  EXPECT_EQ((*second)[1].id(), 5);
}

TYPED_TEST_P(StorageConformanceTest, CreateTrialsIgnoresGivenIdsAndMeasurements) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  v1::Trial trial = this->MakeTrial(v1::Trial::ACTIVE);
  trial.set_id(99);
  trial.set_study_name("other");
  *trial.add_measurements() = this->MakeMeasurement(1, 1, 0.5);
  *trial.mutable_latest_measurement() = this->MakeMeasurement(1, 1, 0.5);
  trial.set_measurement_count(1);
  absl::StatusOr<std::vector<v1::Trial>> created =
      this->store().CreateTrials("s1", std::vector<v1::Trial>{trial});
  ASSERT_THAT(created, IsOk());
  ASSERT_THAT(*created, SizeIs(1));
  EXPECT_EQ((*created)[0].id(), 1);
  EXPECT_EQ((*created)[0].study_name(), "s1");
  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(got->measurements(), IsEmpty());
  EXPECT_FALSE(got->has_latest_measurement());
  EXPECT_EQ(got->measurement_count(), 0);
  EXPECT_THAT(this->store().GetTrial("s1", 99, false),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 99"));
}

TYPED_TEST_P(StorageConformanceTest, CreateTrialsInMissingStudyIsNotFoundAndStoresNothing) {
  EXPECT_THAT(this->store().CreateTrials(
                  "nope", std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE)}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("nope")), IsOk());
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("nope");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, CreateNoTrialsReturnsNone) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  absl::StatusOr<std::vector<v1::Trial>> created =
      this->store().CreateTrials("s1", std::vector<v1::Trial>{});
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(*created, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, GetMissingTrialNamesStudyAndTrial) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  EXPECT_THAT(this->store().GetTrial("s1", 7, false),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 7"));
  EXPECT_THAT(this->store().GetTrial("s2", 1, false),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"s2\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, ListTrialsFiltersByStateInIdOrder) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::ACTIVE,
                                     v1::Trial::FAILED, v1::Trial::STOPPING, v1::Trial::SUCCEEDED});
  this->CreateStudyWithTrials("s2", {v1::Trial::ACTIVE});
  EXPECT_THAT(this->ListAllTrialIds("s1", TrialQuery{}), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(this->ListAllTrialIds("s1", InStates({v1::Trial::ACTIVE})), ElementsAre(1, 3));
  EXPECT_THAT(this->ListAllTrialIds("s1", InStates({v1::Trial::SUCCEEDED, v1::Trial::STOPPING})),
              ElementsAre(2, 5, 6));
  EXPECT_THAT(this->ListAllTrialIds("s1", InStates({v1::Trial::INFEASIBLE})), IsEmpty());
  absl::StatusOr<Page<v1::Trial>> listed = this->store().ListTrials("s1", TrialQuery{});
  ASSERT_THAT(listed, IsOk());
  ASSERT_THAT(listed->items, SizeIs(6));
  EXPECT_EQ(listed->items[3].state(), v1::Trial::FAILED);
  EXPECT_EQ(listed->items[3].study_name(), "s1");
  EXPECT_THAT(listed->next_page_token, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, ListTrialsPaginatesWithAndWithoutFilter) {
  std::vector<v1::Trial::State> states;
  for (int i = 0; i < 7; ++i) states.push_back(i % 2 == 0 ? v1::Trial::ACTIVE : v1::Trial::FAILED);
  this->CreateStudyWithTrials("s1", states);

  std::vector<std::vector<int64_t>> pages;
  TrialQuery query = PageOf(3);
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<Page<v1::Trial>> page = this->store().ListTrials("s1", query);
    ASSERT_THAT(page, IsOk());
    pages.emplace_back();
    for (const v1::Trial& trial : page->items) pages.back().push_back(trial.id());
    if (page->next_page_token.empty()) break;
    query.page_token = page->next_page_token;
  }
  EXPECT_THAT(pages, ElementsAre(ElementsAre(1, 2, 3), ElementsAre(4, 5, 6), ElementsAre(7)));

  // ACTIVE trials are 1, 3, 5, 7: two full pages, the last with no token.
  TrialQuery active = InStates({v1::Trial::ACTIVE}, 2);
  absl::StatusOr<Page<v1::Trial>> first = this->store().ListTrials("s1", active);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(first->items, SizeIs(2));
  EXPECT_EQ(first->items[1].id(), 3);
  ASSERT_THAT(first->next_page_token, ::testing::Not(IsEmpty()));
  active.page_token = first->next_page_token;
  absl::StatusOr<Page<v1::Trial>> second = this->store().ListTrials("s1", active);
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT(second->items, SizeIs(2));
  EXPECT_EQ(second->items[0].id(), 5);
  EXPECT_EQ(second->items[1].id(), 7);
  EXPECT_THAT(second->next_page_token, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, ListTrialsPageTokenSurvivesNewTrials) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  absl::StatusOr<Page<v1::Trial>> first = this->store().ListTrials("s1", PageOf(2));
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(
      this->store().CreateTrials("s1", std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE)}),
      IsOk());
  absl::StatusOr<Page<v1::Trial>> rest =
      this->store().ListTrials("s1", PageOf(0, first->next_page_token));
  ASSERT_THAT(rest, IsOk());
  std::vector<int64_t> ids;
  for (const v1::Trial& trial : rest->items) ids.push_back(trial.id());
  EXPECT_THAT(ids, ElementsAre(3, 4));
}

TYPED_TEST_P(StorageConformanceTest, ListTrialsRejectsBadTokenNegativePageSizeAndMissingStudy) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  EXPECT_THAT(this->store().ListTrials("s1", PageOf(0, "%%% garbage")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("%%% garbage")));
  EXPECT_THAT(this->store().ListTrials("s1", PageOf(-5)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_size is -5")));
  EXPECT_THAT(this->store().ListTrials("nope", TrialQuery{}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, ListTrialsIncludesMeasurementsOnlyWhenAsked) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  const std::vector<v1::Measurement> measurements = {this->MakeMeasurement(10, 1, 0.1),
                                                     this->MakeMeasurement(20, 2, 0.2)};
  ASSERT_THAT(this->store().AddMeasurements("s1", 2, measurements, {}), IsOk());

  absl::StatusOr<Page<v1::Trial>> lean = this->store().ListTrials("s1", TrialQuery{});
  ASSERT_THAT(lean, IsOk());
  ASSERT_THAT(lean->items, SizeIs(2));
  EXPECT_THAT(lean->items[1].measurements(), IsEmpty());
  EXPECT_EQ(lean->items[1].measurement_count(), 2);
  EXPECT_THAT(lean->items[1].latest_measurement(), EqualsProto(measurements[1]));

  absl::StatusOr<Page<v1::Trial>> full = this->store().ListTrials("s1", WithMeasurements());
  ASSERT_THAT(full, IsOk());
  ASSERT_THAT(full->items, SizeIs(2));
  EXPECT_THAT(full->items[0].measurements(), IsEmpty());
  EXPECT_THAT(full->items[1].measurements(),
              ElementsAre(EqualsProto(measurements[0]), EqualsProto(measurements[1])));
}

// ListTrialBodies is ListTrials serialized, page for page, whatever the
// query; its errors are ListTrials' own.
TYPED_TEST_P(StorageConformanceTest, ListTrialBodiesAreListTrialsSerialized) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::ACTIVE,
                                     v1::Trial::FAILED, v1::Trial::ACTIVE});
  ASSERT_THAT(this->store().AddMeasurements("s1", 3,
                                            std::vector<v1::Measurement>{
                                                this->MakeMeasurement(10, 1, 0.1),
                                                this->MakeMeasurement(20, 2, 0.2)},
                                            {}),
              IsOk());
  std::vector<TrialQuery> queries = {TrialQuery{}, PageOf(2), InStates({v1::Trial::ACTIVE}, 2),
                                     WithMeasurements()};
  TrialQuery measured_page = WithMeasurements();
  measured_page.page_size = 3;
  queries.push_back(measured_page);
  for (TrialQuery query : queries) {
    for (int page = 0; page < 10; ++page) {
      SCOPED_TRACE(absl::StrCat("page ", page, " of ", query.page_size, " with ",
                                query.states.size(), " states, measurements ",
                                query.include_measurements));
      absl::StatusOr<Page<v1::Trial>> trials = this->store().ListTrials("s1", query);
      absl::StatusOr<Page<SerializedTrial>> bodies = this->store().ListTrialBodies("s1", query);
      ASSERT_THAT(trials, IsOk());
      ASSERT_THAT(bodies, IsOk());
      ASSERT_EQ(bodies->items.size(), trials->items.size());
      for (size_t i = 0; i < trials->items.size(); ++i) {
        EXPECT_EQ(bodies->items[i].id, trials->items[i].id());
        v1::Trial parsed;
        ASSERT_TRUE(parsed.ParseFromString(bodies->items[i].bytes));
        EXPECT_THAT(parsed, EqualsProto(trials->items[i]));
      }
      EXPECT_EQ(bodies->next_page_token, trials->next_page_token);
      if (trials->next_page_token.empty()) break;
      query.page_token = trials->next_page_token;
    }
  }
  EXPECT_THAT(this->store().ListTrialBodies("s1", PageOf(0, "%%% garbage")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("%%% garbage")));
  EXPECT_THAT(this->store().ListTrialBodies("s1", PageOf(-5)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_size is -5")));
  EXPECT_THAT(this->store().ListTrialBodies("nope", TrialQuery{}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

// A reader that keeps what it read (ObjectiveCurveCache) reads only the
// trials written since its last listing: every kind of write of a trial
// (created, measured one at a time, in a batch or through group commit,
// updated) must list it, as ListTrialBodies gives it, since the horizon of
// the listing before.
TYPED_TEST_P(StorageConformanceTest, ListTrialChangesListsEveryTrialWrittenSinceAHorizon) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  this->CreateStudyWithTrials("s2", {v1::Trial::ACTIVE});
  std::string horizon;
  // The trials listed since `horizon` (which moves on), by id, in order and
  // once each, each as ListTrialBodies gives it.
  auto changes = [&] {
    absl::StatusOr<TrialChanges> listed = this->store().ListTrialChanges("s1", horizon);
    EXPECT_THAT(listed, IsOk());
    absl::StatusOr<Page<SerializedTrial>> all = this->store().ListTrialBodies("s1", TrialQuery{});
    EXPECT_THAT(all, IsOk());
    std::map<int64_t, v1::Trial> by_id;
    int64_t previous = 0;
    for (const SerializedTrial& trial : listed.value_or(TrialChanges{}).trials) {
      EXPECT_GT(trial.id, previous);
      previous = trial.id;
      v1::Trial parsed;
      EXPECT_TRUE(parsed.ParseFromString(trial.bytes));
      v1::Trial kept;
      EXPECT_TRUE(kept.ParseFromString(all->items.at(trial.id - 1).bytes));
      EXPECT_THAT(parsed, EqualsProto(kept));
      by_id[trial.id] = parsed;
    }
    if (listed.ok()) horizon = listed->horizon;
    return by_id;
  };
  auto ids = [](const std::map<int64_t, v1::Trial>& trials) {
    std::vector<int64_t> listed;
    for (const auto& [id, trial] : trials) listed.push_back(id);
    return listed;
  };
  EXPECT_THAT(ids(changes()), ::testing::ElementsAre(1, 2, 3));

  // One measurement of trial 2.
  ASSERT_THAT(this->store().AddMeasurements(
                  "s1", 2, std::vector<v1::Measurement>{this->MakeMeasurement(1, 1, 0.5)}, {}),
              IsOk());
  std::map<int64_t, v1::Trial> listed = changes();
  ASSERT_THAT(ids(listed), ::testing::Contains(2));
  EXPECT_EQ(listed[2].measurement_count(), 1);
  // Two at once of trial 1.
  ASSERT_THAT(
      this->store().AddMeasurements("s1", 1,
                                    std::vector<v1::Measurement>{this->MakeMeasurement(1, 1, 0.5),
                                                                 this->MakeMeasurement(2, 2, 0.4)},
                                    {}),
      IsOk());
  listed = changes();
  ASSERT_THAT(ids(listed), ::testing::Contains(1));
  EXPECT_EQ(listed[1].measurement_count(), 2);
  // Through group commit, for trial 3.
  absl::Notification stored;
  const std::vector<v1::Measurement> third = {this->MakeMeasurement(1, 1, 0.3)};
  this->store().AddMeasurementsAsync("s1", 3, third, {}, [&](absl::StatusOr<v1::Trial> trial) {
    EXPECT_THAT(trial, IsOk());
    stored.Notify();
  });
  stored.WaitForNotification();
  listed = changes();
  ASSERT_THAT(ids(listed), ::testing::Contains(3));
  EXPECT_EQ(listed[3].measurement_count(), 1);
  // An update of trial 2, then a new trial.
  ASSERT_THAT(this->store().UpdateTrial("s1", 2,
                                        [](v1::Trial& trial) -> absl::Status {
                                          trial.set_state(v1::Trial::STOPPING);
                                          trial.set_status_reason("worse than most");
                                          return absl::OkStatus();
                                        }),
              IsOk());
  listed = changes();
  ASSERT_THAT(ids(listed), ::testing::Contains(2));
  EXPECT_EQ(listed[2].state(), v1::Trial::STOPPING);
  EXPECT_EQ(listed[2].status_reason(), "worse than most");
  v1::Trial fourth;
  fourth.set_state(v1::Trial::REQUESTED);
  ASSERT_THAT(this->store().CreateTrials("s1", std::vector<v1::Trial>{fourth}), IsOk());
  EXPECT_THAT(ids(changes()), ::testing::Contains(4));
  // Another study's writes are not this one's.
  ASSERT_THAT(this->store().AddMeasurements(
                  "s2", 1, std::vector<v1::Measurement>{this->MakeMeasurement(1, 1, 0.5)}, {}),
              IsOk());
  for (const auto& [id, trial] : changes()) EXPECT_EQ(trial.study_name(), "s1");

  EXPECT_THAT(this->store().ListTrialChanges("nope", ""),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
  EXPECT_THAT(this->store().ListTrialChanges("nope", horizon),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
  EXPECT_THAT(this->store().ListTrialChanges("s1", "x7"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("study \"s1\""), HasSubstr("\"x7\""),
                                        HasSubstr("not a horizon"))));
}

TYPED_TEST_P(StorageConformanceTest, CountTrialsGroupsByStateOmittingZeros) {
  this->CreateStudyWithTrials(
      "s1", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::ACTIVE, v1::Trial::INFEASIBLE});
  this->CreateStudyWithTrials("s2", {v1::Trial::FAILED});
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("s1");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts,
              UnorderedElementsAre(Pair(v1::Trial::ACTIVE, 2), Pair(v1::Trial::SUCCEEDED, 1),
                                   Pair(v1::Trial::INFEASIBLE, 1)));
  EXPECT_THAT(this->store().CountTrials("nope"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, UpdateTrialAppliesTheMutatorButNotStoreFields) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  const v1::Measurement measurement = this->MakeMeasurement(5, 1, 0.9);
  ASSERT_THAT(this->store().AddMeasurements("s1", 1, std::vector<v1::Measurement>{measurement}, {}),
              IsOk());
  absl::StatusOr<v1::Trial> updated =
      this->store().UpdateTrial("s1", 1, [&](v1::Trial& trial) -> absl::Status {
        // The mutator sees the stored trial.
        EXPECT_EQ(trial.id(), 1);
        EXPECT_EQ(trial.measurement_count(), 1);
        trial.set_state(v1::Trial::SUCCEEDED);
        trial.set_client_id("worker-7");
        trial.set_status_reason("done");
        *trial.mutable_final_measurement() = measurement;
        // Fields the store owns: all ignored.
        trial.set_id(2);
        trial.set_study_name("s2");
        trial.clear_latest_measurement();
        trial.set_measurement_count(40);
        *trial.add_measurements() = this->MakeMeasurement(6, 2, 0.1);
        return absl::OkStatus();
      });
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->id(), 1);
  EXPECT_EQ(updated->study_name(), "s1");
  EXPECT_EQ(updated->state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(updated->measurement_count(), 1);
  EXPECT_THAT(updated->latest_measurement(), EqualsProto(measurement));
  EXPECT_THAT(updated->measurements(), IsEmpty());

  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(*updated));
  EXPECT_EQ(got->client_id(), "worker-7");
  EXPECT_EQ(got->status_reason(), "done");
  absl::StatusOr<v1::Trial> with_measurements = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(with_measurements, IsOk());
  EXPECT_THAT(with_measurements->measurements(), ElementsAre(EqualsProto(measurement)));
  absl::StatusOr<v1::Trial> untouched = this->store().GetTrial("s1", 2, false);
  ASSERT_THAT(untouched, IsOk());
  EXPECT_EQ(untouched->state(), v1::Trial::ACTIVE);
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("s1");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts,
              UnorderedElementsAre(Pair(v1::Trial::ACTIVE, 1), Pair(v1::Trial::SUCCEEDED, 1)));
  EXPECT_THAT(this->ListAllTrialIds("s1", InStates({v1::Trial::SUCCEEDED})), ElementsAre(1));
}

TYPED_TEST_P(StorageConformanceTest, UpdateTrialMutatorErrorRollsBackAndIsReturnedUnchanged) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  absl::StatusOr<v1::Trial> before = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(before, IsOk());
  absl::StatusOr<v1::Trial> updated =
      this->store().UpdateTrial("s1", 1, [](v1::Trial& trial) -> absl::Status {
        trial.set_state(v1::Trial::SUCCEEDED);
        trial.set_client_id("half-written");
        return absl::FailedPreconditionError("trial 1 is not ACTIVE");
      });
  EXPECT_EQ(updated.status(), absl::FailedPreconditionError("trial 1 is not ACTIVE"));
  absl::StatusOr<v1::Trial> after = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(after, IsOk());
  EXPECT_THAT(*after, EqualsProto(*before));
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("s1");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts, UnorderedElementsAre(Pair(v1::Trial::ACTIVE, 1)));
}

TYPED_TEST_P(StorageConformanceTest, UpdateMissingTrialIsNotFound) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  const TrialMutator unused = [](v1::Trial&) {
    ADD_FAILURE() << "the mutator ran on a missing trial";
    return absl::OkStatus();
  };
  EXPECT_THAT(this->store().UpdateTrial("s1", 7, unused),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 7"));
  EXPECT_THAT(this->store().UpdateTrial("s2", 1, unused),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"s2\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, UpdateTrialInStudyShowsTheMutatorTheStudy) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  const v1::Study expected = this->MakeStudy("s1");
  absl::StatusOr<v1::Trial> updated = this->store().UpdateTrialInStudy(
      "s1", 1, [&](v1::Trial& trial, const v1::Study& study) -> absl::Status {
        EXPECT_THAT(study, EqualsProto(expected));
        trial.set_status_reason(study.name());
        return absl::OkStatus();
      });
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->status_reason(), "s1");
  const TrialInStudyMutator unused = [](v1::Trial&, const v1::Study&) {
    ADD_FAILURE() << "the mutator ran on a missing trial";
    return absl::OkStatus();
  };
  EXPECT_THAT(this->store().UpdateTrialInStudy("s1", 7, unused),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 7"));
  EXPECT_THAT(this->store().UpdateTrialInStudy("s2", 1, unused),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"s2\" not found")));
  EXPECT_EQ(this->store()
                .UpdateTrialInStudy("s1", 1,
                                    [](v1::Trial& trial, const v1::Study&) {
                                      trial.set_status_reason("half-written");
                                      return absl::InvalidArgumentError("refused");
                                    })
                .status(),
            absl::InvalidArgumentError("refused"));
  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->status_reason(), "s1");
}

// Read-modify-write updates of one trial from several threads, with
// measurements arriving meanwhile: no update is lost (each sees the one
// before it) and no measurement either.
TYPED_TEST_P(StorageConformanceTest, StopTrialIfActiveMovesOnlyAnActiveTrial) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE, v1::Trial::SUCCEEDED});
  this->CreateStudyWithTrials("s2", {v1::Trial::ACTIVE});
  for (const int64_t id : {1, 2}) {
    ASSERT_THAT(this->store().UpdateTrial("s1", id,
                                          [](v1::Trial& trial) {
                                            trial.set_client_id("worker-3");
                                            trial.set_status_reason("running");
                                            (*trial.mutable_user_attributes())["owner"] = "ana";
                                            return absl::OkStatus();
                                          }),
                IsOk());
  }
  const v1::Measurement measurement = this->MakeMeasurement(4, 1, 0.7);
  ASSERT_THAT(this->store().AddMeasurements("s1", 1, std::vector<v1::Measurement>{measurement}, {}),
              IsOk());
  absl::StatusOr<TrialChanges> before_stop = this->store().ListTrialChanges("s1", "");
  ASSERT_THAT(before_stop, IsOk());
  absl::StatusOr<v1::Trial> active = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(active, IsOk());

  // Only the state and the reason change; the rest is as stored.
  v1::Trial expected = *active;
  expected.set_state(v1::Trial::STOPPING);
  expected.set_status_reason("a 1% chance of beating 0.9");
  absl::StatusOr<v1::Trial> stopped =
      this->store().StopTrialIfActive("s1", 1, "a 1% chance of beating 0.9");
  ASSERT_THAT(stopped, IsOk());
  EXPECT_THAT(*stopped, EqualsProto(expected));
  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(expected));
  absl::StatusOr<TrialChanges> after_stop =
      this->store().ListTrialChanges("s1", before_stop->horizon);
  ASSERT_THAT(after_stop, IsOk());
  std::vector<int64_t> listed;
  for (const SerializedTrial& trial : after_stop->trials) listed.push_back(trial.id);
  EXPECT_THAT(listed, ::testing::Contains(1));

  // A stopping or ended trial is left as it is: the first reason stays.
  absl::StatusOr<v1::Trial> again = this->store().StopTrialIfActive("s1", 1, "a later decision");
  ASSERT_THAT(again, IsOk());
  EXPECT_THAT(*again, EqualsProto(expected));
  absl::StatusOr<v1::Trial> ended_before = this->store().GetTrial("s1", 3, false);
  ASSERT_THAT(ended_before, IsOk());
  absl::StatusOr<v1::Trial> ended = this->store().StopTrialIfActive("s1", 3, "too late");
  ASSERT_THAT(ended, IsOk());
  EXPECT_THAT(*ended, EqualsProto(*ended_before));
  EXPECT_THAT(this->store().GetTrial("s1", 3, false), IsOkAndHolds(EqualsProto(*ended_before)));

  // An empty reason replaces the stored one too.
  absl::StatusOr<v1::Trial> no_reason = this->store().StopTrialIfActive("s1", 2, "");
  ASSERT_THAT(no_reason, IsOk());
  EXPECT_EQ(no_reason->state(), v1::Trial::STOPPING);
  EXPECT_EQ(no_reason->status_reason(), "");
  EXPECT_EQ(no_reason->client_id(), "worker-3");

  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = this->store().CountTrials("s1");
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(*counts,
              UnorderedElementsAre(Pair(v1::Trial::STOPPING, 2), Pair(v1::Trial::SUCCEEDED, 1)));
  EXPECT_THAT(this->store().GetTrial("s2", 1, false),
              IsOkAndHolds(::testing::Property(&v1::Trial::state, v1::Trial::ACTIVE)));

  // The stopped trial ends as any other: its later writes replace the body.
  absl::StatusOr<v1::Trial> stopped_early =
      this->store().UpdateTrial("s1", 1, [&](v1::Trial& trial) {
        EXPECT_THAT(trial, EqualsProto(expected));
        trial.set_state(v1::Trial::STOPPED_EARLY);
        *trial.mutable_final_measurement() = measurement;
        return absl::OkStatus();
      });
  ASSERT_THAT(stopped_early, IsOk());
  expected.set_state(v1::Trial::STOPPED_EARLY);
  *expected.mutable_final_measurement() = measurement;
  EXPECT_THAT(this->store().GetTrial("s1", 1, false), IsOkAndHolds(EqualsProto(expected)));

  EXPECT_THAT(this->store().StopTrialIfActive("s1", 7, "gone"),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 7"));
  EXPECT_THAT(this->store().StopTrialIfActive("s9", 1, "gone"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"s9\" not found")));
}

TYPED_TEST_P(StorageConformanceTest, ConcurrentUpdatesOfOneTrialLoseNoUpdate) {
  constexpr int kThreads = 4;
  constexpr int kUpdatesPerThread = 25;
  constexpr int kReports = 50;
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUpdatesPerThread; ++i) {
        absl::StatusOr<v1::Trial> updated =
            this->store().UpdateTrial("s1", 1, [](v1::Trial& trial) -> absl::Status {
              const int count =
                  trial.status_reason().empty() ? 0 : std::stoi(trial.status_reason());
              trial.set_status_reason(std::to_string(count + 1));
              return absl::OkStatus();
            });
        if (!updated.ok()) ++failures;
      }
    });
  }
  threads.emplace_back([&] { this->ReportInOrder("s1", 1, kReports, failures); });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(trial, IsOk());
  EXPECT_EQ(trial->status_reason(), std::to_string(kThreads * kUpdatesPerThread));
  EXPECT_EQ(trial->measurement_count(), kReports);
  EXPECT_EQ(trial->measurements_size(), kReports);
  EXPECT_EQ(trial->latest_measurement().sequence_number(), kReports);
}

// ----------------------------------------------------------- measurements

TYPED_TEST_P(StorageConformanceTest, AddMeasurementsAppendsInOrder) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  const std::vector<v1::Measurement> first = {this->MakeMeasurement(1, 1, 0.1),
                                              this->MakeMeasurement(2, 2, 0.2)};
  absl::StatusOr<v1::Trial> after_first = this->store().AddMeasurements("s1", 1, first, {});
  ASSERT_THAT(after_first, IsOk());
  EXPECT_EQ(after_first->measurement_count(), 2);
  EXPECT_THAT(after_first->latest_measurement(), EqualsProto(first[1]));
  EXPECT_THAT(after_first->measurements(), IsEmpty());

  const std::vector<v1::Measurement> second = {this->MakeMeasurement(3, 3, 0.3)};
  absl::StatusOr<v1::Trial> after_second = this->store().AddMeasurements("s1", 1, second, {});
  ASSERT_THAT(after_second, IsOk());
  EXPECT_EQ(after_second->measurement_count(), 3);
  EXPECT_THAT(after_second->latest_measurement(), EqualsProto(second[0]));

  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(got->measurements(),
              ElementsAre(EqualsProto(first[0]), EqualsProto(first[1]), EqualsProto(second[0])));
  EXPECT_EQ(got->measurement_count(), 3);
  absl::StatusOr<v1::Trial> lean = this->store().GetTrial("s1", 1, false);
  ASSERT_THAT(lean, IsOk());
  EXPECT_THAT(lean->measurements(), IsEmpty());
  EXPECT_EQ(lean->measurement_count(), 3);
  EXPECT_THAT(lean->latest_measurement(), EqualsProto(second[0]));
}

TYPED_TEST_P(StorageConformanceTest, AddMeasurementsSkipsStoredSequenceNumbers) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  const std::vector<v1::Measurement> batch = {this->MakeMeasurement(1, 1, 0.1),
                                              this->MakeMeasurement(2, 2, 0.2)};
  ASSERT_THAT(this->store().AddMeasurements("s1", 1, batch, {}), IsOk());

  // The same batch again: a retry stores nothing and changes nothing.
  absl::StatusOr<v1::Trial> retried = this->store().AddMeasurements("s1", 1, batch, {});
  ASSERT_THAT(retried, IsOk());
  EXPECT_EQ(retried->measurement_count(), 2);
  EXPECT_THAT(retried->latest_measurement(), EqualsProto(batch[1]));

  // A retry overlapping new reports stores only the new ones; sequence number 0
  // means "not numbered" and is always stored; a number repeated within one
  // batch is stored once.
  const std::vector<v1::Measurement> mixed = {
      this->MakeMeasurement(2, 2, 0.25), this->MakeMeasurement(3, 3, 0.3),
      this->MakeMeasurement(3, 3, 0.35), this->MakeMeasurement(4, 0, 0.4),
      this->MakeMeasurement(4, 0, 0.45)};
  absl::StatusOr<v1::Trial> after_mixed = this->store().AddMeasurements("s1", 1, mixed, {});
  ASSERT_THAT(after_mixed, IsOk());
  EXPECT_EQ(after_mixed->measurement_count(), 5);
  EXPECT_THAT(after_mixed->latest_measurement(), EqualsProto(mixed[4]));
  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(got->measurements(),
              ElementsAre(EqualsProto(batch[0]), EqualsProto(batch[1]), EqualsProto(mixed[1]),
                          EqualsProto(mixed[3]), EqualsProto(mixed[4])));

  // Sequence numbers are per trial.
  absl::StatusOr<v1::Trial> other = this->store().AddMeasurements("s1", 2, batch, {});
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(other->measurement_count(), 2);
}

TYPED_TEST_P(StorageConformanceTest, AddMeasurementsRefusesATrialOutsideTheAcceptingStates) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  ASSERT_THAT(this->store().UpdateTrial("s1", 1,
                                        [](v1::Trial& trial) {
                                          trial.set_state(v1::Trial::SUCCEEDED);
                                          return absl::OkStatus();
                                        }),
              IsOk());
  constexpr v1::Trial::State kRunning[] = {v1::Trial::ACTIVE, v1::Trial::STOPPING};
  const std::vector<v1::Measurement> report = {this->MakeMeasurement(1, 1, 0.5)};
  const absl::Status refusal = absl::FailedPreconditionError(
      "study \"s1\" trial 1 is SUCCEEDED; it accepts measurements only while it is ACTIVE or "
      "STOPPING");
  EXPECT_EQ(this->store().AddMeasurements("s1", 1, report, kRunning).status(), refusal);
  // A batch is refused whole, and so is an empty one.
  const std::vector<v1::Measurement> batch = {this->MakeMeasurement(2, 2, 0.4),
                                              this->MakeMeasurement(3, 3, 0.3)};
  EXPECT_EQ(this->store().AddMeasurements("s1", 1, batch, kRunning).status(), refusal);
  EXPECT_EQ(this->store().AddMeasurements("s1", 1, {}, kRunning).status(), refusal);
  absl::StatusOr<v1::Trial> got = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->measurement_count(), 0);
  EXPECT_THAT(got->measurements(), IsEmpty());
  EXPECT_FALSE(got->has_latest_measurement());

  // The same report is taken in an accepted state, so the refusal left no
  // trace of its sequence number; no accepting states means any state.
  constexpr v1::Trial::State kSucceeded[] = {v1::Trial::SUCCEEDED};
  absl::StatusOr<v1::Trial> accepted = this->store().AddMeasurements("s1", 1, report, kSucceeded);
  ASSERT_THAT(accepted, IsOk());
  EXPECT_EQ(accepted->measurement_count(), 1);
  EXPECT_EQ(accepted->state(), v1::Trial::SUCCEEDED);
  absl::StatusOr<v1::Trial> any = this->store().AddMeasurements("s1", 1, batch, {});
  ASSERT_THAT(any, IsOk());
  EXPECT_EQ(any->measurement_count(), 3);
  EXPECT_EQ(any->latest_measurement().step(), 3);
}

TYPED_TEST_P(StorageConformanceTest, AddMeasurementsToMissingTrialIsNotFound) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  const std::vector<v1::Measurement> measurements = {this->MakeMeasurement(1, 1, 0.5)};
  EXPECT_THAT(this->store().AddMeasurements("s1", 3, measurements, {}),
              StatusIs(absl::StatusCode::kNotFound, "study \"s1\" has no trial 3"));
  EXPECT_THAT(this->store().AddMeasurements("s9", 1, measurements, {}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"s9\" not found")));
}

// ------------------------------------------------------------------- jobs

TYPED_TEST_P(StorageConformanceTest, CreateJobStoresTheJobAndItsStudy) {
  const v1::Job job = this->MakeJob("job_1", v1::Job::QUEUED, 100);
  const v1::Study study = this->MakeStudy("job_1");
  absl::StatusOr<v1::Job> created = this->store().CreateJob(job, study);
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(*created, EqualsProto(job));
  absl::StatusOr<v1::Job> got = this->store().GetJob("job_1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(job));
  absl::StatusOr<v1::Study> got_study = this->store().GetStudy("job_1");
  ASSERT_THAT(got_study, IsOk());
  EXPECT_THAT(*got_study, EqualsProto(study));
}

TYPED_TEST_P(StorageConformanceTest, CreateJobFillsAnEmptyStudyNameAndRefusesAnother) {
  v1::Job job = this->MakeJob("job_1", v1::Job::QUEUED, 100);
  job.clear_study_name();
  absl::StatusOr<v1::Job> created = this->store().CreateJob(job, this->MakeStudy("study_1"));
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->study_name(), "study_1");
  absl::StatusOr<v1::Job> got = this->store().GetJob("job_1");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->study_name(), "study_1");

  v1::Job mismatched = this->MakeJob("job_2", v1::Job::QUEUED, 100);
  mismatched.set_study_name("elsewhere");
  EXPECT_THAT(this->store().CreateJob(mismatched, this->MakeStudy("study_2")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("job_2"), HasSubstr("elsewhere"), HasSubstr("study_2"))));
  EXPECT_THAT(this->store().GetJob("job_2"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_2")));
  EXPECT_THAT(this->store().GetStudy("study_2"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study_2")));
}

TYPED_TEST_P(StorageConformanceTest, CreateJobWithEmptyIdsIsInvalidArgument) {
  EXPECT_THAT(this->store().CreateJob(this->MakeJob("", v1::Job::QUEUED, 1), this->MakeStudy("s1")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job_id")));
  v1::Job job = this->MakeJob("job_1", v1::Job::QUEUED, 1);
  job.clear_study_name();
  EXPECT_THAT(this->store().CreateJob(job, this->MakeStudy("")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job_1")));
  EXPECT_THAT(this->store().GetStudy("s1"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("s1")));
}

TYPED_TEST_P(StorageConformanceTest, CreateJobWithTakenJobIdStoresNothing) {
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_1", v1::Job::RUNNING, 100),
                                      this->MakeStudy("job_1")),
              IsOk());
  v1::Job again = this->MakeJob("job_1", v1::Job::QUEUED, 200);
  again.set_study_name("fresh_study");
  EXPECT_THAT(this->store().CreateJob(again, this->MakeStudy("fresh_study")),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("job \"job_1\"")));
  EXPECT_THAT(this->store().GetStudy("fresh_study"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("fresh_study")));
  absl::StatusOr<v1::Job> got = this->store().GetJob("job_1");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->state(), v1::Job::RUNNING);
}

TYPED_TEST_P(StorageConformanceTest, CreateJobWithTakenStudyNameStoresNothing) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("taken")), IsOk());
  v1::Job job = this->MakeJob("job_2", v1::Job::QUEUED, 100);
  job.set_study_name("taken");
  v1::Study study = this->MakeStudy("taken");
  study.set_display_name("the job's version");
  EXPECT_THAT(this->store().CreateJob(job, study),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("study \"taken\"")));
  EXPECT_THAT(this->store().GetJob("job_2"),
              StatusIs(absl::StatusCode::kNotFound, "job \"job_2\" not found"));
  absl::StatusOr<v1::Study> kept = this->store().GetStudy("taken");
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(kept->display_name(), "display taken");
}

TYPED_TEST_P(StorageConformanceTest, GetMissingJobIsNotFound) {
  EXPECT_THAT(this->store().GetJob("nope"),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
}

TYPED_TEST_P(StorageConformanceTest, ListJobsIsNewestFirstAcrossPages) {
  // Two jobs share a create time: the larger id comes first.
  const std::vector<std::pair<std::string, int64_t>> jobs = {
      {"job_a", 100}, {"job_b", 300}, {"job_c", 200}, {"job_d", 300}, {"job_e", 50}};
  for (const auto& [id, seconds] : jobs) {
    ASSERT_THAT(
        this->store().CreateJob(this->MakeJob(id, v1::Job::QUEUED, seconds), this->MakeStudy(id)),
        IsOk());
  }
  absl::StatusOr<Page<v1::Job>> all = this->store().ListJobs(0, "");
  ASSERT_THAT(all, IsOk());
  std::vector<std::string> ids;
  for (const v1::Job& job : all->items) ids.push_back(job.job_id());
  EXPECT_THAT(ids, ElementsAre("job_d", "job_b", "job_c", "job_a", "job_e"));
  EXPECT_THAT(all->next_page_token, IsEmpty());

  ids.clear();
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<Page<v1::Job>> page = this->store().ListJobs(2, token);
    ASSERT_THAT(page, IsOk());
    EXPECT_LE(page->items.size(), 2u);
    for (const v1::Job& job : page->items) ids.push_back(job.job_id());
    token = page->next_page_token;
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(ids, ElementsAre("job_d", "job_b", "job_c", "job_a", "job_e"));

  EXPECT_THAT(this->store().ListJobs(2, "bogus"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bogus")));
  EXPECT_THAT(this->store().ListJobs(-3, ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_size is -3")));
}

TYPED_TEST_P(StorageConformanceTest, ListJobsInStatesFiltersOldestFirst) {
  const std::vector<std::tuple<std::string, v1::Job::State, int64_t>> jobs = {
      {"job_a", v1::Job::RUNNING, 300},
      {"job_b", v1::Job::QUEUED, 100},
      {"job_c", v1::Job::SUCCEEDED, 50},
      {"job_d", v1::Job::RUNNING, 200},
      {"job_e", v1::Job::CANCELLING, 400}};
  for (const auto& [id, state, seconds] : jobs) {
    ASSERT_THAT(this->store().CreateJob(this->MakeJob(id, state, seconds), this->MakeStudy(id)),
                IsOk());
  }
  auto ids_in = [&](std::vector<v1::Job::State> states) {
    std::vector<std::string> ids;
    absl::StatusOr<std::vector<v1::Job>> listed = this->store().ListJobsInStates(states);
    EXPECT_THAT(listed, IsOk());
    if (listed.ok()) {
      for (const v1::Job& job : *listed) ids.push_back(job.job_id());
    }
    return ids;
  };
  EXPECT_THAT(ids_in({v1::Job::RUNNING}), ElementsAre("job_d", "job_a"));
  EXPECT_THAT(ids_in({v1::Job::QUEUED, v1::Job::RUNNING, v1::Job::CANCELLING}),
              ElementsAre("job_b", "job_d", "job_a", "job_e"));
  EXPECT_THAT(ids_in({v1::Job::FAILED}), IsEmpty());
  EXPECT_THAT(ids_in({}), ElementsAre("job_c", "job_b", "job_d", "job_a", "job_e"));
}

TYPED_TEST_P(StorageConformanceTest, UpdateJobAppliesTheMutatorButKeepsTheId) {
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_1", v1::Job::QUEUED, 100),
                                      this->MakeStudy("job_1")),
              IsOk());
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_2", v1::Job::QUEUED, 200),
                                      this->MakeStudy("job_2")),
              IsOk());
  absl::StatusOr<v1::Job> updated =
      this->store().UpdateJob("job_1", [](v1::Job& job) -> absl::Status {
        job.set_state(v1::Job::RUNNING);
        job.mutable_start_time()->set_seconds(150);
        job.set_job_id("job_9");
        return absl::OkStatus();
      });
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->job_id(), "job_1");
  EXPECT_EQ(updated->state(), v1::Job::RUNNING);
  absl::StatusOr<v1::Job> got = this->store().GetJob("job_1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(*updated));
  EXPECT_THAT(this->store().GetJob("job_9"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_9")));
  // The state filter sees the new state.
  absl::StatusOr<std::vector<v1::Job>> running =
      this->store().ListJobsInStates(std::vector<v1::Job::State>{v1::Job::RUNNING});
  ASSERT_THAT(running, IsOk());
  ASSERT_THAT(*running, SizeIs(1));
  EXPECT_EQ((*running)[0].job_id(), "job_1");
}

TYPED_TEST_P(StorageConformanceTest, UpdateJobMutatorErrorRollsBackAndIsReturnedUnchanged) {
  const v1::Job job = this->MakeJob("job_1", v1::Job::QUEUED, 100);
  ASSERT_THAT(this->store().CreateJob(job, this->MakeStudy("job_1")), IsOk());
  absl::StatusOr<v1::Job> updated = this->store().UpdateJob("job_1", [](v1::Job& job) {
    job.set_state(v1::Job::FAILED);
    return absl::AbortedError("job_1 changed meanwhile");
  });
  EXPECT_EQ(updated.status(), absl::AbortedError("job_1 changed meanwhile"));
  absl::StatusOr<v1::Job> got = this->store().GetJob("job_1");
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(*got, EqualsProto(job));
}

TYPED_TEST_P(StorageConformanceTest, UpdateMissingJobIsNotFound) {
  EXPECT_THAT(this->store().UpdateJob("nope", [](v1::Job&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
}

TYPED_TEST_P(StorageConformanceTest, PutTrialRunUpsertsAndListsByTrialId) {
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_1", v1::Job::RUNNING, 100),
                                      this->MakeStudy("job_1")),
              IsOk());
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_2", v1::Job::RUNNING, 100),
                                      this->MakeStudy("job_2")),
              IsOk());
  auto make_run = [](int64_t trial_id, int32_t attempt) {
    v1::TrialRun run;
    run.set_trial_id(trial_id);
    run.set_attempt(attempt);
    run.set_backend_handle("local:" + std::to_string(trial_id));
    v1::ReplicaStatus* replica = run.add_replicas();
    replica->set_role("master");
    replica->set_state(v1::ReplicaStatus::RUNNING);
    replica->add_gpus(0);
    return run;
  };
  for (const int64_t trial_id : {3, 1, 2}) {
    ASSERT_THAT(this->store().PutTrialRun("job_1", make_run(trial_id, 1)), IsOk());
  }
  ASSERT_THAT(this->store().PutTrialRun("job_2", make_run(1, 1)), IsOk());
  const v1::TrialRun retried = make_run(2, 2);
  ASSERT_THAT(this->store().PutTrialRun("job_1", retried), IsOk());

  absl::StatusOr<std::vector<v1::TrialRun>> runs = this->store().ListTrialRuns("job_1");
  ASSERT_THAT(runs, IsOk());
  EXPECT_THAT(*runs, ElementsAre(EqualsProto(make_run(1, 1)), EqualsProto(retried),
                                 EqualsProto(make_run(3, 1))));
  absl::StatusOr<std::vector<v1::TrialRun>> other = this->store().ListTrialRuns("job_2");
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(*other, SizeIs(1));

  // Some trials' runs: only theirs, in trial order, whatever order or
  // repeats they are asked in; a trial without a run is left out.
  const std::vector<int64_t> some = {3, 2, 7, 3};
  absl::StatusOr<std::vector<v1::TrialRun>> of = this->store().ListTrialRunsOf("job_1", some);
  ASSERT_THAT(of, IsOk());
  EXPECT_THAT(*of, ElementsAre(EqualsProto(retried), EqualsProto(make_run(3, 1))));
  const std::vector<int64_t> first = {1};
  absl::StatusOr<std::vector<v1::TrialRun>> of_other =
      this->store().ListTrialRunsOf("job_2", first);
  ASSERT_THAT(of_other, IsOk());
  EXPECT_THAT(*of_other, ElementsAre(EqualsProto(make_run(1, 1))));
  absl::StatusOr<std::vector<v1::TrialRun>> of_none = this->store().ListTrialRunsOf("job_1", {});
  ASSERT_THAT(of_none, IsOk());
  EXPECT_THAT(*of_none, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, TrialRunsOfMissingJobAreNotFound) {
  v1::TrialRun run;
  run.set_trial_id(1);
  EXPECT_THAT(this->store().PutTrialRun("nope", run),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
  EXPECT_THAT(this->store().ListTrialRuns("nope"),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
  const std::vector<int64_t> one = {1};
  EXPECT_THAT(this->store().ListTrialRunsOf("nope", one),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_1", v1::Job::RUNNING, 100),
                                      this->MakeStudy("job_1")),
              IsOk());
  absl::StatusOr<std::vector<v1::TrialRun>> none = this->store().ListTrialRuns("job_1");
  ASSERT_THAT(none, IsOk());
  EXPECT_THAT(*none, IsEmpty());
}

TYPED_TEST_P(StorageConformanceTest, DeleteJobRemovesTheJobItsStudyRunsAndCoordinationOnly) {
  for (const std::string id : {"job_1", "job_2"}) {
    ASSERT_THAT(this->store().CreateJob(this->MakeJob(id, v1::Job::RUNNING, 100),
                                        this->MakeStudy(id)),
                IsOk());
    ASSERT_THAT(this->store().CreateTrials(
                    id, std::vector<v1::Trial>{this->MakeTrial(v1::Trial::ACTIVE)}),
                IsOk());
    const std::vector<v1::Measurement> measured = {this->MakeMeasurement(1, 1, 0.5)};
    ASSERT_THAT(this->store().AddMeasurements(id, 1, measured, {}), IsOk());
    v1::TrialRun run;
    run.set_trial_id(1);
    ASSERT_THAT(this->store().PutTrialRun(id, run), IsOk());
    ASSERT_THAT(this->store().RecordAgentContact(id, 1, "master-0"), IsOk());
    v1::ReportExitRequest exit;
    exit.mutable_replica()->set_study_name(id);
    exit.mutable_replica()->set_trial_id(1);
    ASSERT_THAT(this->store().QueueReplicaExit(id, exit), IsOk());
    const std::vector<std::string> ids = {id};
    ASSERT_THAT(this->store().AcquireJobLeases("server_a", ids, absl::Minutes(1)), IsOk());
    ASSERT_THAT(this->store().UpdateJob(id,
                                        [](v1::Job& job) {
                                          job.set_state(v1::Job::SUCCEEDED);
                                          return absl::OkStatus();
                                        }),
                IsOk());
  }

  absl::StatusOr<v1::Job> deleted = this->other_store().DeleteJob("job_1");
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(deleted->job_id(), "job_1");
  EXPECT_EQ(deleted->state(), v1::Job::SUCCEEDED);
  for (Storage* store : {&this->store(), &this->other_store()}) {
    EXPECT_THAT(store->GetJob("job_1"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_1")));
    EXPECT_THAT(store->GetStudy("job_1"),
                StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_1")));
    EXPECT_THAT(store->GetTrial("job_1", 1, true),
                StatusIs(absl::StatusCode::kNotFound, HasSubstr("job_1")));
  }
  // The id and study name are free again, and the new job starts clean:
  // no run, contact, queued exit or lease of the old one.
  ASSERT_THAT(this->store().CreateJob(this->MakeJob("job_1", v1::Job::RUNNING, 200),
                                      this->MakeStudy("job_1")),
              IsOk());
  absl::StatusOr<std::vector<v1::TrialRun>> runs = this->store().ListTrialRuns("job_1");
  ASSERT_THAT(runs, IsOk());
  EXPECT_THAT(*runs, IsEmpty());
  absl::StatusOr<std::optional<absl::Duration>> heard =
      this->store().AgentContactAge("job_1", 1, "master-0");
  ASSERT_THAT(heard, IsOk());
  EXPECT_FALSE(heard->has_value());
  absl::StatusOr<std::vector<v1::ReportExitRequest>> exits =
      this->store().TakeReplicaExits("job_1");
  ASSERT_THAT(exits, IsOk());
  EXPECT_THAT(*exits, IsEmpty());
  const std::vector<std::string> job_1 = {"job_1"};
  absl::StatusOr<std::vector<JobLease>> taken =
      this->store().AcquireJobLeases("server_b", job_1, absl::Minutes(1));
  ASSERT_THAT(taken, IsOk());
  EXPECT_THAT(*taken, SizeIs(1));
  absl::StatusOr<Page<v1::Trial>> fresh = this->store().ListTrials("job_1", TrialQuery{});
  ASSERT_THAT(fresh, IsOk());
  EXPECT_THAT(fresh->items, IsEmpty());

  // The other job is untouched.
  EXPECT_THAT(this->store().GetJob("job_2"), IsOk());
  absl::StatusOr<v1::Trial> other = this->store().GetTrial("job_2", 1, true);
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(other->measurements(), SizeIs(1));
  absl::StatusOr<std::vector<v1::TrialRun>> other_runs = this->store().ListTrialRuns("job_2");
  ASSERT_THAT(other_runs, IsOk());
  EXPECT_THAT(*other_runs, SizeIs(1));
  absl::StatusOr<std::vector<v1::ReportExitRequest>> other_exits =
      this->store().TakeReplicaExits("job_2");
  ASSERT_THAT(other_exits, IsOk());
  EXPECT_THAT(*other_exits, SizeIs(1));
}

TYPED_TEST_P(StorageConformanceTest, DeleteJobThatHasNotEndedIsRefusedAndDeletesNothing) {
  ASSERT_NO_FATAL_FAILURE(this->CreateUnfinishedJobs());
  for (const v1::Job::State state : kUnfinishedJobStates) {
    const std::string id = absl::StrCat("job_", v1::Job::State_Name(state));
    for (Storage* store : {&this->store(), &this->other_store()}) {
      EXPECT_THAT(store->DeleteJob(id), this->RefusedUntilTheJobEnds(id, state));
    }
    EXPECT_THAT(this->store().GetJob(id), IsOk());
    EXPECT_THAT(this->store().GetTrial(id, 1, false), IsOk());
  }
  EXPECT_THAT(this->store().DeleteJob("nope"),
              StatusIs(absl::StatusCode::kNotFound, "job \"nope\" not found"));
}

// ------------------------------------------------------------ concurrency

TYPED_TEST_P(StorageConformanceTest, ConcurrentAddMeasurementsOnDifferentTrialsLoseNothing) {
  constexpr int kThreads = 8;
  constexpr int kReportsPerThread = 50;
  this->CreateStudyWithTrials("s1", std::vector<v1::Trial::State>(kThreads, v1::Trial::ACTIVE));
  std::atomic<int> failures = 0;
  std::atomic<bool> writers_done = false;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, trial_id = t + 1] {
      for (int i = 1; i <= kReportsPerThread; ++i) {
        const std::vector<v1::Measurement> report = {this->MakeMeasurement(i * 10, i, i * 0.01)};
        absl::StatusOr<v1::Trial> trial = this->store().AddMeasurements("s1", trial_id, report, {});
        if (!trial.ok() || trial->measurement_count() != i) ++failures;
      }
    });
  }
  // A reader meanwhile always sees whole transactions: the count matches the
  // measurements it reads with it.
  std::thread reader([&] {
    while (!writers_done.load()) {
      absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", 1, true);
      if (!trial.ok() || trial->measurements_size() != trial->measurement_count()) ++failures;
    }
  });
  for (std::thread& thread : threads) thread.join();
  writers_done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);

  for (int trial_id = 1; trial_id <= kThreads; ++trial_id) {
    absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", trial_id, true);
    ASSERT_THAT(trial, IsOk());
    EXPECT_EQ(trial->measurement_count(), kReportsPerThread);
    ASSERT_EQ(trial->measurements_size(), kReportsPerThread);
    for (int i = 0; i < kReportsPerThread; ++i) {
      EXPECT_EQ(trial->measurements(i).sequence_number(), i + 1);
    }
    EXPECT_EQ(trial->latest_measurement().sequence_number(), kReportsPerThread);
  }
}

TYPED_TEST_P(StorageConformanceTest, ConcurrentRetriesOfOneReportStoreItOnce) {
  constexpr int kThreads = 4;
  constexpr int kReports = 20;
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE});
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] { this->ReportInOrder("s1", 1, kReports, failures); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", 1, true);
  ASSERT_THAT(trial, IsOk());
  EXPECT_EQ(trial->measurement_count(), kReports);
  std::set<int64_t> sequence_numbers;
  for (const v1::Measurement& measurement : trial->measurements()) {
    sequence_numbers.insert(measurement.sequence_number());
  }
  EXPECT_EQ(sequence_numbers.size(), static_cast<size_t>(kReports));
}

// Reports that arrive together (and may be written in one batch) each get
// their own outcome: one refused or failing report fails no other.
TYPED_TEST_P(StorageConformanceTest, ConcurrentReportsWithDifferentOutcomesKeepThemApart) {
  constexpr int kRounds = 30;
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::ACTIVE});
  constexpr v1::Trial::State kRunning[] = {v1::Trial::ACTIVE, v1::Trial::STOPPING};
  struct Reporter {
    std::string study;
    int64_t trial_id;
    std::span<const v1::Trial::State> accepting;
    absl::StatusCode expected;
  };
  const std::vector<Reporter> reporters = {
      {"s1", 1, kRunning, absl::StatusCode::kOk},
      {"s1", 1, kRunning, absl::StatusCode::kOk},  // the same reports again: retries
      {"s1", 2, kRunning, absl::StatusCode::kFailedPrecondition},
      {"s1", 2, {}, absl::StatusCode::kOk},  // any state accepted
      {"s1", 3, kRunning, absl::StatusCode::kOk},
      {"s1", 9, kRunning, absl::StatusCode::kNotFound},
      {"s9", 1, kRunning, absl::StatusCode::kNotFound},
  };
  std::atomic<int> wrong = 0;
  std::vector<std::thread> threads;
  for (const Reporter& reporter : reporters) {
    threads.emplace_back([&, reporter] {
      for (int i = 1; i <= kRounds; ++i) {
        const std::vector<v1::Measurement> report = {this->MakeMeasurement(i, i, 0.5)};
        absl::StatusOr<v1::Trial> trial = this->store().AddMeasurements(
            reporter.study, reporter.trial_id, report, reporter.accepting);
        if (trial.status().code() != reporter.expected) {
          ADD_FAILURE() << reporter.study << " trial " << reporter.trial_id << ": "
                        << trial.status();
          ++wrong;
        } else if (trial.ok() &&
                   (trial->id() != reporter.trial_id || trial->measurement_count() < i)) {
          ADD_FAILURE() << "trial " << trial->id() << " count " << trial->measurement_count()
                        << " after report " << i;
          ++wrong;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int64_t trial_id : {1, 2, 3}) {
    absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", trial_id, true);
    ASSERT_THAT(trial, IsOk());
    EXPECT_EQ(trial->measurement_count(), kRounds) << "trial " << trial_id;
    ASSERT_EQ(trial->measurements_size(), kRounds) << "trial " << trial_id;
    for (int i = 0; i < kRounds; ++i) {
      EXPECT_EQ(trial->measurements(i).sequence_number(), i + 1) << "trial " << trial_id;
    }
  }
}

// AddMeasurementsAsync, from one thread without waiting in between, so that
// a store that groups commits gets them in one batch: reports to several
// trials (one twice in a row, one a retry of a stored sequence number), to
// an ended trial and to missing ones, and batches of several measurements
// (one a retry that overlaps what is stored). Each `done` gets its own
// outcome, once. Reports a store groups are written in the order they came
// in.
TYPED_TEST_P(StorageConformanceTest, AddMeasurementsAsyncAnswersEachReportWithItsOwnOutcome) {
  this->CreateStudyWithTrials("s1", {v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::ACTIVE,
                                     v1::Trial::ACTIVE, v1::Trial::ACTIVE});
  constexpr v1::Trial::State kRunning[] = {v1::Trial::ACTIVE, v1::Trial::STOPPING};
  // Sequence number 0 (a notebook's report): written outside group commit,
  // on the store's threads, one at a time per trial and in order. So are
  // batches of several.
  struct Report {
    std::string study;
    int64_t trial_id;
    std::vector<v1::Measurement> measurements;
    absl::StatusCode expected;
    int64_t expected_count;  // when OK
  };
  const auto m = [this](int64_t step, int64_t sequence, double value) {
    return this->MakeMeasurement(step, sequence, value);
  };
  const std::vector<Report> reports = {
      {"s1", 1, {m(1, 1, 0.1)}, absl::StatusCode::kOk, 1},
      {"s1", 1, {m(2, 2, 0.2)}, absl::StatusCode::kOk, 2},
      {"s1", 3, {m(1, 1, 0.3)}, absl::StatusCode::kOk, 1},
      {"s1", 2, {m(1, 1, 0.4)}, absl::StatusCode::kFailedPrecondition, 0},
      {"s1", 1, {m(1, 1, 0.1)}, absl::StatusCode::kOk, 2},  // a retry
      {"s1", 9, {m(1, 1, 0.5)}, absl::StatusCode::kNotFound, 0},
      {"s9", 1, {m(1, 1, 0.6)}, absl::StatusCode::kNotFound, 0},
      {"s1", 4, {m(1, 0, 0.7)}, absl::StatusCode::kOk, 1},
      {"s1", 4, {m(2, 0, 0.8)}, absl::StatusCode::kOk, 2},
      {"s1", 2, {m(2, 0, 0.9)}, absl::StatusCode::kFailedPrecondition, 0},
      {"s1", 9, {m(2, 0, 1.0)}, absl::StatusCode::kNotFound, 0},
      {"s9", 4, {m(2, 0, 1.1)}, absl::StatusCode::kNotFound, 0},
      {"s1", 5, {m(1, 1, 1.2), m(2, 2, 1.3)}, absl::StatusCode::kOk, 2},
      // A retried batch: the stored sequence number 2 is skipped.
      {"s1", 5, {m(2, 2, 1.3), m(3, 3, 1.4)}, absl::StatusCode::kOk, 3},
      {"s1", 4, {m(3, 0, 1.5), m(4, 0, 1.6)}, absl::StatusCode::kOk, 4},
      {"s1", 2, {m(3, 3, 1.7), m(4, 4, 1.8)}, absl::StatusCode::kFailedPrecondition, 0},
      {"s1", 9, {m(1, 1, 1.9), m(2, 2, 2.0)}, absl::StatusCode::kNotFound, 0},
  };
  absl::Mutex mutex;
  std::vector<std::vector<absl::StatusOr<v1::Trial>>> outcomes(reports.size());
  int answered = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    this->store().AddMeasurementsAsync(reports[i].study, reports[i].trial_id,
                                       reports[i].measurements, kRunning,
                                       [&, i](absl::StatusOr<v1::Trial> trial) {
                                         absl::MutexLock lock(&mutex);
                                         outcomes[i].push_back(std::move(trial));
                                         ++answered;
                                       });
  }
  {
    absl::MutexLock lock(&mutex);
    const auto all_answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
      return answered >= static_cast<int>(reports.size());
    };
    ASSERT_TRUE(mutex.AwaitWithTimeout(absl::Condition(&all_answered), absl::Seconds(30)))
        << answered << " of " << reports.size() << " answered";
  }
  absl::SleepFor(absl::Milliseconds(20));  // an extra answer would come now
  absl::MutexLock lock(&mutex);
  for (size_t i = 0; i < reports.size(); ++i) {
    ASSERT_EQ(outcomes[i].size(), 1u) << "report " << i;
    const absl::StatusOr<v1::Trial>& outcome = outcomes[i][0];
    EXPECT_EQ(outcome.status().code(), reports[i].expected)
        << "report " << i << ": " << outcome.status();
    if (!outcome.ok()) continue;
    EXPECT_EQ(outcome->id(), reports[i].trial_id) << "report " << i;
    EXPECT_EQ(outcome->measurement_count(), reports[i].expected_count) << "report " << i;
  }
  for (const auto& [trial_id, steps] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
           {1, {1, 2}}, {2, {}}, {3, {1}}, {4, {1, 2, 3, 4}}, {5, {1, 2, 3}}}) {
    absl::StatusOr<v1::Trial> trial = this->store().GetTrial("s1", trial_id, true);
    ASSERT_THAT(trial, IsOk());
    std::vector<int64_t> stored;
    for (const v1::Measurement& measurement : trial->measurements()) {
      stored.push_back(measurement.step());
    }
    EXPECT_EQ(stored, steps) << "trial " << trial_id;
  }
}

TYPED_TEST_P(StorageConformanceTest, ConcurrentCreateTrialsNeverDuplicateIds) {
  constexpr int kThreads = 8;
  constexpr int kBatchesPerThread = 10;
  constexpr int kBatchSize = 2;
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  std::vector<std::vector<std::vector<int64_t>>> batches(kThreads);
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < kBatchesPerThread; ++b) {
        const std::vector<v1::Trial> batch(
            kBatchSize, this->MakeTrial(v1::Trial::ACTIVE, absl::StrCat("w", t)));
        absl::StatusOr<std::vector<v1::Trial>> created = this->store().CreateTrials("s1", batch);
        if (!created.ok()) {
          ++failures;
          continue;
        }
        batches[t].emplace_back();
        for (const v1::Trial& trial : *created) batches[t].back().push_back(trial.id());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);

  std::vector<int64_t> all_ids;
  for (const auto& thread_batches : batches) {
    for (const std::vector<int64_t>& batch : thread_batches) {
      // One batch is one transaction: its ids are consecutive.
      ASSERT_THAT(batch, SizeIs(kBatchSize));
      EXPECT_EQ(batch[1], batch[0] + 1);
      all_ids.insert(all_ids.end(), batch.begin(), batch.end());
    }
  }
  std::sort(all_ids.begin(), all_ids.end());
  std::vector<int64_t> expected(kThreads * kBatchesPerThread * kBatchSize);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<int64_t>(i) + 1;
  EXPECT_EQ(all_ids, expected);
  EXPECT_EQ(this->ListAllTrialIds("s1", PageOf(7)), expected);
}

// ------------------------------------------------------------ leaderboard

TYPED_TEST_P(StorageConformanceTest, ListBestTrialsRanksEndedTrialsByTheObjective) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());  // accuracy, MAXIMIZE
  v1::Trial stopped = this->SucceededTrial(0.9);
  stopped.set_state(v1::Trial::STOPPED_EARLY);
  v1::Trial failed = this->SucceededTrial(0.99);
  failed.set_state(v1::Trial::FAILED);
  const std::vector<v1::Trial> trials = {this->SucceededTrial(0.5),  // 1
                                         stopped,                    // 2
                                         this->SucceededTrial(0.9),  // 3: ties with 2, after it
                                         failed,                     // 4: not ended well
                                         this->MakeTrial(v1::Trial::ACTIVE),    // 5
                                         this->SucceededTrial(0.7, "latency"),  // 6: no objective
                                         this->SucceededTrial(-2.0)};           // 7
  ASSERT_THAT(this->store().CreateTrials("s1", trials), IsOk());
  EXPECT_THAT(this->BestTrialIds("s1", 0), ElementsAre(2, 3, 1, 7));
  EXPECT_THAT(this->BestTrialIds("s1", 2), ElementsAre(2, 3));

  // Completing a trial puts it in its place; the rows are whole trials.
  ASSERT_THAT(this->store().UpdateTrial("s1", 5,
                                        [](v1::Trial& trial) {
                                          trial.set_state(v1::Trial::SUCCEEDED);
                                          v1::Metric* metric =
                                              trial.mutable_final_measurement()->add_metrics();
                                          metric->set_metric_id("accuracy");
                                          metric->set_value(0.95);
                                          return absl::OkStatus();
                                        }),
              IsOk());
  absl::StatusOr<std::vector<v1::Trial>> best = this->store().ListBestTrials("s1", 1);
  ASSERT_THAT(best, IsOk());
  ASSERT_THAT(*best, SizeIs(1));
  EXPECT_EQ((*best)[0].id(), 5);
  EXPECT_EQ((*best)[0].study_name(), "s1");
  EXPECT_EQ((*best)[0].final_measurement().metrics(0).value(), 0.95);

  // A minimized objective ranks the other way; studies do not mix.
  v1::Study minimized = this->MakeStudy("s2");
  minimized.mutable_spec()->mutable_metrics(0)->set_goal(v1::MetricSpec::MINIMIZE);
  ASSERT_THAT(this->store().CreateStudy(minimized), IsOk());
  ASSERT_THAT(this->store().CreateTrials(
                  "s2", std::vector<v1::Trial>{this->SucceededTrial(0.5), this->SucceededTrial(0.1),
                                               this->SucceededTrial(0.3)}),
              IsOk());
  EXPECT_THAT(this->BestTrialIds("s2", 0), ElementsAre(2, 3, 1));
}

TYPED_TEST_P(StorageConformanceTest, ListBestTrialsRejectsNegativeLimitAndMissingStudy) {
  ASSERT_THAT(this->store().CreateStudy(this->MakeStudy("s1")), IsOk());
  EXPECT_THAT(this->BestTrialIds("s1", 5), IsEmpty());
  EXPECT_THAT(this->store().ListBestTrials("s1", -1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("limit is -1")));
  EXPECT_THAT(this->store().ListBestTrials("nope", 5),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"nope\" not found")));
}

// ------------------------------------------------------------ study locks

TYPED_TEST_P(StorageConformanceTest, LockStudyExcludesEveryOtherHolderAcrossStores) {
  constexpr int kThreads = 6;
  constexpr int kRounds = 15;
  Storage* stores[2] = {&this->store(), &this->other_store()};
  std::atomic<int> inside = 0;
  std::atomic<int> overlaps = 0;
  std::atomic<int> failures = 0;
  int entries = 0;  // Guarded by the study lock under test.
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, store = stores[t % 2]] {
      for (int round = 0; round < kRounds; ++round) {
        absl::StatusOr<std::unique_ptr<StudyLock>> lock = store->LockStudy("s1");
        if (!lock.ok()) {
          ++failures;
          continue;
        }
        if (inside.fetch_add(1) != 0) ++overlaps;
        const int seen = entries;
        std::this_thread::yield();
        entries = seen + 1;
        inside.fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(entries, kThreads * kRounds);
}

TYPED_TEST_P(StorageConformanceTest, LocksOfDifferentStudiesAreIndependent) {
  absl::StatusOr<std::unique_ptr<StudyLock>> first = this->store().LockStudy("study_a");
  ASSERT_THAT(first, IsOk());
  // Would wait for the first (and time out) if the studies shared a lock.
  absl::StatusOr<std::unique_ptr<StudyLock>> second = this->other_store().LockStudy("study_b");
  ASSERT_THAT(second, IsOk());
  first->reset();
  absl::StatusOr<std::unique_ptr<StudyLock>> again = this->other_store().LockStudy("study_a");
  EXPECT_THAT(again, IsOk());
}

// ------------------------------------- servers sharing a store (StudyManager)

TYPED_TEST_P(StorageConformanceTest, TwoServersSuggestingAtOnceNeverDuplicateOrOverrun) {
  constexpr int kMaxTrials = 24;
  constexpr int kMaxParallel = 3;
  constexpr int kClientsPerServer = 3;
  tuner::StudyManager servers[2] = {tuner::StudyManager(this->store(), tuner::SystemClock()),
                                    tuner::StudyManager(this->other_store(), tuner::SystemClock())};
  v1::Study study = this->MakeStudy("shared");
  study.mutable_spec()->set_max_trials(kMaxTrials);
  study.mutable_spec()->set_max_parallel_trials(kMaxParallel);
  ASSERT_THAT(servers[0].CreateStudy(study), IsOk());

  absl::Mutex mutex;
  std::map<int64_t, std::string> owner;  // trial id -> client
  std::vector<std::string> errors;
  std::vector<std::thread> clients;
  for (int c = 0; c < 2 * kClientsPerServer; ++c) {
    clients.emplace_back([&, c] {
      tuner::StudyManager& server = servers[c % 2];
      const std::string client_id = absl::StrCat("client-", c);
      for (int attempt = 0; attempt < 2000; ++attempt) {
        absl::StatusOr<tuner::SuggestResult> suggested =
            server.SuggestTrials("shared", 2, client_id);
        absl::MutexLock lock(&mutex);
        if (!suggested.ok()) {
          errors.push_back(suggested.status().ToString());
          return;
        }
        absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts =
            this->store().CountTrials("shared");
        if (counts.ok() && (*counts)[v1::Trial::ACTIVE] > kMaxParallel) {
          errors.push_back(absl::StrCat((*counts)[v1::Trial::ACTIVE], " trials ACTIVE at once"));
        }
        if (suggested->trials.empty()) {
          int64_t total = 0;
          if (counts.ok()) {
            for (const auto& [state, n] : *counts) total += n;
          }
          if (total >= kMaxTrials && (*counts)[v1::Trial::ACTIVE] == 0) return;
          continue;  // Others hold every parallel slot: ask again.
        }
        for (const v1::Trial& trial : suggested->trials) {
          auto [it, inserted] = owner.emplace(trial.id(), client_id);
          if (!inserted && it->second != client_id) {
            errors.push_back(
                absl::StrCat("trial ", trial.id(), " went to ", it->second, " and to ", client_id));
          }
          v1::Measurement final;
          v1::Metric* metric = final.add_metrics();
          metric->set_metric_id("accuracy");
          metric->set_value(0.5);
          absl::StatusOr<v1::Trial> completed = server.CompleteTrial("shared", trial.id(), final);
          if (!completed.ok()) errors.push_back(completed.status().ToString());
        }
      }
      absl::MutexLock lock(&mutex);
      errors.push_back(absl::StrCat(client_id, " never saw the study finish"));
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_THAT(errors, IsEmpty());
  EXPECT_EQ(owner.size(), static_cast<size_t>(kMaxTrials));
  std::vector<int64_t> expected(kMaxTrials);
  for (int i = 0; i < kMaxTrials; ++i) expected[i] = i + 1;
  EXPECT_EQ(this->ListAllTrialIds("shared", TrialQuery{}), expected);
}

TYPED_TEST_P(StorageConformanceTest, AClientGetsItsUnfinishedTrialBackFromAnyServer) {
  tuner::StudyManager first(this->store(), tuner::SystemClock());
  tuner::StudyManager second(this->other_store(), tuner::SystemClock());
  ASSERT_THAT(first.CreateStudy(this->MakeStudy("s1")), IsOk());
  absl::StatusOr<tuner::SuggestResult> given = first.SuggestTrials("s1", 1, "worker-7");
  ASSERT_THAT(given, IsOk());
  ASSERT_THAT(given->trials, SizeIs(1));
  // worker-7 restarted and asks the other server.
  absl::StatusOr<tuner::SuggestResult> again = second.SuggestTrials("s1", 1, "worker-7");
  ASSERT_THAT(again, IsOk());
  ASSERT_THAT(again->trials, SizeIs(1));
  EXPECT_EQ(again->trials[0].id(), given->trials[0].id());
  absl::StatusOr<tuner::SuggestResult> other = second.SuggestTrials("s1", 1, "worker-8");
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(other->trials, SizeIs(1));
  EXPECT_NE(other->trials[0].id(), given->trials[0].id());
}

TYPED_TEST_P(StorageConformanceTest, CompleteTrialIsIdempotentOnTheSameResultOnly) {
  tuner::StudyManager first(this->store(), tuner::SystemClock());
  tuner::StudyManager second(this->other_store(), tuner::SystemClock());
  ASSERT_THAT(first.CreateStudy(this->MakeStudy("s1")), IsOk());
  absl::StatusOr<tuner::SuggestResult> given = first.SuggestTrials("s1", 1, "worker");
  ASSERT_THAT(given, IsOk());
  ASSERT_THAT(given->trials, SizeIs(1));
  const int64_t id = given->trials[0].id();
  const v1::Measurement result = this->MakeMeasurement(10, 3, 0.8);
  // A measurement retried after a timeout, through the other server.
  const std::vector<v1::Measurement> report = {this->MakeMeasurement(10, 3, 0.8)};
  ASSERT_THAT(first.AddMeasurements("s1", id, report), IsOk());
  absl::StatusOr<v1::Trial> retried = second.AddMeasurements("s1", id, report);
  ASSERT_THAT(retried, IsOk());
  EXPECT_EQ(retried->measurement_count(), 1);

  absl::StatusOr<v1::Trial> completed = first.CompleteTrial("s1", id, result);
  ASSERT_THAT(completed, IsOk());
  EXPECT_EQ(completed->state(), v1::Trial::SUCCEEDED);
  // The agent's retry of the same completion, through the other server.
  absl::StatusOr<v1::Trial> repeated = second.CompleteTrial("s1", id, result);
  ASSERT_THAT(repeated, IsOk());
  EXPECT_THAT(*repeated, EqualsProto(*completed));
  EXPECT_THAT(second.CompleteTrial("s1", id, this->MakeMeasurement(10, 3, 0.1)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("study \"s1\" trial 1"), HasSubstr("another"))));
  absl::StatusOr<v1::Trial> stored = this->store().GetTrial("s1", id, false);
  ASSERT_THAT(stored, IsOk());
  EXPECT_THAT(stored->final_measurement(), EqualsProto(result));
  absl::StatusOr<std::vector<v1::Trial>> leaderboard = second.ListOptimalTrials("s1", 10);
  ASSERT_THAT(leaderboard, IsOk());
  ASSERT_THAT(*leaderboard, SizeIs(1));
  EXPECT_EQ((*leaderboard)[0].id(), id);
}

inline v1::ApiToken MakeApiToken(const std::string& id, const std::string& user, int64_t seconds) {
  v1::ApiToken token;
  token.set_id(id);
  token.set_user(user);
  token.set_role(v1::DEVELOPER);
  token.mutable_create_time()->set_seconds(seconds);
  return token;
}

TYPED_TEST_P(StorageConformanceTest, ApiTokensAreFoundByHashListedOldestFirstUpdatedAndDeleted) {
  Storage& store = this->store();
  ASSERT_THAT(store.CreateApiToken("hash-b", MakeApiToken("idb", "bob", 20)), IsOk());
  ASSERT_THAT(store.CreateApiToken("hash-a", MakeApiToken("ida", "alice", 10)), IsOk());
  EXPECT_THAT(store.FindApiToken("hash-b"), IsOkAndHolds(EqualsProto(MakeApiToken("idb", "bob", 20))));
  EXPECT_THAT(store.FindApiToken("hash-x"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no such API token")));
  absl::StatusOr<std::vector<v1::ApiToken>> listed = store.ListApiTokens();
  ASSERT_THAT(listed, IsOk());
  ASSERT_THAT(*listed, SizeIs(2));
  EXPECT_EQ((*listed)[0].id(), "ida");
  EXPECT_EQ((*listed)[1].id(), "idb");
  // Another server sees the same tokens, and an update keeps the id.
  absl::StatusOr<v1::ApiToken> revoked =
      this->other_store().UpdateApiToken("ida", [](v1::ApiToken& token) {
        token.set_id("changed");
        token.mutable_revoke_time()->set_seconds(30);
        return absl::OkStatus();
      });
  ASSERT_THAT(revoked, IsOk());
  EXPECT_EQ(revoked->id(), "ida");
  absl::StatusOr<v1::ApiToken> found = store.FindApiToken("hash-a");
  ASSERT_THAT(found, IsOk());
  EXPECT_EQ(found->revoke_time().seconds(), 30);
  EXPECT_THAT(store.DeleteApiToken("idb"), IsOk());
  EXPECT_THAT(store.FindApiToken("hash-b"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("")));
}

TYPED_TEST_P(StorageConformanceTest, ApiTokenErrorsNameTheTokenAndChangeNothing) {
  Storage& store = this->store();
  ASSERT_THAT(store.CreateApiToken("hash-a", MakeApiToken("ida", "alice", 10)), IsOk());
  EXPECT_THAT(store.CreateApiToken("hash-a", MakeApiToken("other", "eve", 11)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("exists")));
  EXPECT_THAT(store.CreateApiToken("hash-b", MakeApiToken("ida", "eve", 11)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("\"ida\"")));
  EXPECT_THAT(store.CreateApiToken("", MakeApiToken("idc", "eve", 11)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hash")));
  EXPECT_THAT(store.CreateApiToken("hash-c", MakeApiToken("", "eve", 11)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("id")));
  EXPECT_THAT(store.UpdateApiToken("nope", nullptr),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"nope\"")));
  EXPECT_THAT(store.UpdateApiToken("ida",
                                   [](v1::ApiToken& token) {
                                     token.set_user("mallory");
                                     return absl::InternalError("mutator failed");
                                   }),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("mutator failed")));
  EXPECT_THAT(store.DeleteApiToken("nope"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"nope\"")));
  absl::StatusOr<std::vector<v1::ApiToken>> listed = store.ListApiTokens();
  ASSERT_THAT(listed, IsOk());
  ASSERT_THAT(*listed, SizeIs(1));
  EXPECT_EQ((*listed)[0].user(), "alice");
}

inline v1::AuditEntry MakeAuditEntry(const std::string& user, const std::string& resource,
                                     int64_t seconds) {
  v1::AuditEntry entry;
  entry.mutable_time()->set_seconds(seconds);
  entry.set_user(user);
  entry.set_role(v1::DEVELOPER);
  entry.set_method("/vernier.v1.JobService/CancelJob");
  entry.set_resource(resource);
  entry.set_peer("ipv4:10.0.0.5:51234");
  entry.set_summary("job_id: \"" + resource + "\"");
  return entry;
}

TYPED_TEST_P(StorageConformanceTest, AuditEntriesAreChainedInOrderAndListedByFilter) {
  Storage& store = this->store();
  const std::vector<v1::AuditEntry> first = {MakeAuditEntry("alice", "job_a", 100),
                                             MakeAuditEntry("bob", "job_b", 200)};
  ASSERT_THAT(store.AppendAuditEntries(first), IsOk());
  const std::vector<v1::AuditEntry> second = {MakeAuditEntry("alice", "job_b", 300)};
  ASSERT_THAT(store.AppendAuditEntries(second), IsOk());
  ASSERT_THAT(store.AppendAuditEntries({}), IsOk());

  absl::StatusOr<std::vector<v1::AuditEntry>> all = store.ListAuditEntries(AuditQuery{});
  ASSERT_THAT(all, IsOk());
  ASSERT_THAT(*all, SizeIs(3));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*all)[i].sequence(), i + 1);
    EXPECT_THAT((*all)[i].hash(), SizeIs(64));
  }
  EXPECT_EQ((*all)[1].user(), "bob");
  EXPECT_EQ((*all)[1].summary(), "job_id: \"job_b\"");
  EXPECT_EQ((*all)[2].peer(), "ipv4:10.0.0.5:51234");

  AuditQuery by_user;
  by_user.user = "alice";
  absl::StatusOr<std::vector<v1::AuditEntry>> alices = store.ListAuditEntries(by_user);
  ASSERT_THAT(alices, IsOk());
  ASSERT_THAT(*alices, SizeIs(2));
  EXPECT_EQ((*alices)[0].sequence(), 1);
  EXPECT_EQ((*alices)[1].sequence(), 3);
  AuditQuery by_resource;
  by_resource.resource = "job_b";
  by_resource.since = absl::FromUnixSeconds(250);
  absl::StatusOr<std::vector<v1::AuditEntry>> recent = store.ListAuditEntries(by_resource);
  ASSERT_THAT(recent, IsOk());
  ASSERT_THAT(*recent, SizeIs(1));
  EXPECT_EQ((*recent)[0].sequence(), 3);
  AuditQuery newest;
  newest.limit = 2;
  absl::StatusOr<std::vector<v1::AuditEntry>> last_two = store.ListAuditEntries(newest);
  ASSERT_THAT(last_two, IsOk());
  ASSERT_THAT(*last_two, SizeIs(2));
  EXPECT_EQ((*last_two)[0].sequence(), 2);
  EXPECT_EQ((*last_two)[1].sequence(), 3);

  absl::StatusOr<std::vector<StoredAuditRow>> rows = store.ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(*rows);
  EXPECT_TRUE(verified.intact()) << verified.problem();
  EXPECT_EQ(verified.entry_count(), 3);
  EXPECT_EQ(verified.head_sequence(), 3);
  EXPECT_EQ(verified.head_hash(), (*all)[2].hash());
}

TYPED_TEST_P(StorageConformanceTest, ConcurrentAuditAppendsFromTwoServersKeepOneChain) {
  Storage& first = this->store();
  Storage& second = this->other_store();
  constexpr int kThreads = 4;
  constexpr int kAppends = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures = 0;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Storage& store = t % 2 == 0 ? first : second;
      for (int i = 0; i < kAppends; ++i) {
        const std::vector<v1::AuditEntry> one = {
            MakeAuditEntry(absl::StrCat("user", t), absl::StrCat("job", i), 1000 + i)};
        if (!store.AppendAuditEntries(one).ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  absl::StatusOr<std::vector<StoredAuditRow>> rows = second.ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(*rows);
  EXPECT_TRUE(verified.intact()) << verified.problem();
  EXPECT_EQ(verified.entry_count(), kThreads * kAppends);
}

REGISTER_TYPED_TEST_SUITE_P(
    StorageConformanceTest, CreateStudyThenGetReturnsIt,
    CreateStudyTwiceIsAlreadyExistsAndKeepsTheFirst, CreateStudyWithEmptyNameIsInvalidArgument,
    GetMissingStudyIsNotFound, ListStudiesIsOrderedByNameAcrossPages,
    DeleteStudyOfAnUnfinishedJobIsRefusedNamingTheJob,
    AJobsStudyNameIsNeverReusedSoLateReportsFindNoTrial, ListStudiesFullLastPageHasNoToken,
    ListStudiesOfAnEmptyStoreIsEmpty, ListStudiesRejectsBadTokenAndNegativePageSize,
    UpdateStudyAppliesTheMutatorButKeepsTheName,
    UpdateStudyMutatorErrorRollsBackAndIsReturnedUnchanged, UpdateStudyWithoutMutatorKeepsTheStudy,
    UpdateMissingStudyIsNotFound, DeleteStudyRemovesItsTrialsAndMeasurementsOnly,
    DeleteMissingStudyIsNotFound, CreateTrialsAssignsIdsAfterTheLargest,
    CreateTrialsIgnoresGivenIdsAndMeasurements,
    CreateTrialsInMissingStudyIsNotFoundAndStoresNothing, CreateNoTrialsReturnsNone,
    GetMissingTrialNamesStudyAndTrial, ListTrialsFiltersByStateInIdOrder,
    ListTrialsPaginatesWithAndWithoutFilter, ListTrialsPageTokenSurvivesNewTrials,
    ListTrialsRejectsBadTokenNegativePageSizeAndMissingStudy,
    ListTrialsIncludesMeasurementsOnlyWhenAsked, ListTrialBodiesAreListTrialsSerialized,
    ListTrialChangesListsEveryTrialWrittenSinceAHorizon, CountTrialsGroupsByStateOmittingZeros,
    UpdateTrialAppliesTheMutatorButNotStoreFields,
    UpdateTrialMutatorErrorRollsBackAndIsReturnedUnchanged, UpdateMissingTrialIsNotFound,
    UpdateTrialInStudyShowsTheMutatorTheStudy, StopTrialIfActiveMovesOnlyAnActiveTrial,
    ConcurrentUpdatesOfOneTrialLoseNoUpdate, AddMeasurementsAppendsInOrder,
    AddMeasurementsSkipsStoredSequenceNumbers,
    AddMeasurementsRefusesATrialOutsideTheAcceptingStates, AddMeasurementsToMissingTrialIsNotFound,
    CreateJobStoresTheJobAndItsStudy, CreateJobFillsAnEmptyStudyNameAndRefusesAnother,
    CreateJobWithEmptyIdsIsInvalidArgument, CreateJobWithTakenJobIdStoresNothing,
    CreateJobWithTakenStudyNameStoresNothing, GetMissingJobIsNotFound,
    ListJobsIsNewestFirstAcrossPages, ListJobsInStatesFiltersOldestFirst,
    UpdateJobAppliesTheMutatorButKeepsTheId, UpdateJobMutatorErrorRollsBackAndIsReturnedUnchanged,
    UpdateMissingJobIsNotFound, PutTrialRunUpsertsAndListsByTrialId,
    TrialRunsOfMissingJobAreNotFound, DeleteJobRemovesTheJobItsStudyRunsAndCoordinationOnly,
    DeleteJobThatHasNotEndedIsRefusedAndDeletesNothing,
    ConcurrentAddMeasurementsOnDifferentTrialsLoseNothing, ConcurrentRetriesOfOneReportStoreItOnce,
    ConcurrentReportsWithDifferentOutcomesKeepThemApart,
    AddMeasurementsAsyncAnswersEachReportWithItsOwnOutcome, ConcurrentCreateTrialsNeverDuplicateIds,
    ListBestTrialsRanksEndedTrialsByTheObjective, ListBestTrialsRejectsNegativeLimitAndMissingStudy,
    LockStudyExcludesEveryOtherHolderAcrossStores, LocksOfDifferentStudiesAreIndependent,
    TwoServersSuggestingAtOnceNeverDuplicateOrOverrun,
    AClientGetsItsUnfinishedTrialBackFromAnyServer, CompleteTrialIsIdempotentOnTheSameResultOnly,
    ApiTokensAreFoundByHashListedOldestFirstUpdatedAndDeleted,
    ApiTokenErrorsNameTheTokenAndChangeNothing, AuditEntriesAreChainedInOrderAndListedByFilter,
    ConcurrentAuditAppendsFromTwoServersKeepOneChain);

}  // namespace vernier::storage::testing

#endif  // VERNIER_TESTS_TUNER_STORAGE_STORAGE_CONFORMANCE_H_
