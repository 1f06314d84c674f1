// Fills a `vernier serve` data directory's SQLite store with the dashboard
// benchmark's studies (bench/web/dashboard_scale_bench.py runs it, then a
// real server on the directory): for each size N given, a study
// "scale_N" of N trials with 20 parameters (16 DOUBLE, 3 INTEGER, one
// CATEGORICAL), two objectives (accuracy to maximize, latency to minimize)
// and 50 measurements per trial; the last 8 trials are ACTIVE, a few FAILED
// and STOPPED_EARLY, the rest SUCCEEDED. The studies are created through
// the store (its schema and migrations); the rows are bulk-loaded in one
// transaction per study (the store's own row writers,
// tuner/storage/sqlite/sqlite_rows.h), as bench/storage_scale_bench.cc
// does.
//
//   build/bin/dashboard_scale_seed DATA_DIR 1000 10000 100000

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tuner/clock.h"
#include "tuner/storage/sqlite/sqlite_connection.h"
#include "tuner/storage/sqlite/sqlite_rows.h"
#include "tuner/storage/sqlite/sqlite_storage.h"
#include "tuner/storage/stored_rows.h"

namespace vernier {
namespace {

constexpr int kDoubles = 16;
constexpr int kIntegers = 3;
constexpr int kMeasurements = 50;
constexpr int64_t kActive = 8;

void Check(const absl::Status& status) {
  if (!status.ok()) throw std::runtime_error(std::string(status.message()));
}

v1::Study MakeStudy(int64_t trials) {
  v1::Study study;
  study.set_name(absl::StrCat("scale_", trials));
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = tuner::ToTimestamp(absl::FromUnixSeconds(1'700'000'000));
  v1::StudySpec& spec = *study.mutable_spec();
  for (int i = 0; i < kDoubles + kIntegers; ++i) {
    v1::ParameterSpec& parameter = *spec.add_parameters();
    parameter.set_parameter_name(absl::StrCat("p", i < 10 ? "0" : "", i));
    parameter.set_type(i < kDoubles ? v1::ParameterSpec::DOUBLE : v1::ParameterSpec::INTEGER);
    parameter.set_min_value(i < kDoubles ? 0 : 1);
    parameter.set_max_value(i < kDoubles ? 1 : 10);
  }
  v1::ParameterSpec& activation = *spec.add_parameters();
  activation.set_parameter_name("activation");
  activation.set_type(v1::ParameterSpec::CATEGORICAL);
  for (const char* value : {"relu", "tanh", "gelu"}) activation.add_categorical_values(value);
  v1::MetricSpec& accuracy = *spec.add_metrics();
  accuracy.set_metric_id("accuracy");
  accuracy.set_goal(v1::MetricSpec::MAXIMIZE);
  v1::MetricSpec& latency = *spec.add_metrics();
  latency.set_metric_id("latency");
  latency.set_goal(v1::MetricSpec::MINIMIZE);
  spec.set_algorithm(v1::RANDOM_SEARCH);
  return study;
}

v1::Measurement MakeMeasurement(int64_t step, double accuracy, double latency) {
  v1::Measurement measurement;
  measurement.set_step(step);
  measurement.set_sequence_number(step + 1);
  measurement.set_elapsed_seconds(static_cast<double>(step));
  v1::Metric* first = measurement.add_metrics();
  first->set_metric_id("accuracy");
  first->set_value(accuracy);
  v1::Metric* second = measurement.add_metrics();
  second->set_metric_id("latency");
  second->set_value(latency);
  return measurement;
}

void Load(storage::SqliteConnection& connection, const v1::Study& study, int64_t count) {
  std::mt19937_64 rng(count);
  std::uniform_real_distribution<double> unit(0, 1);
  // A few shapes of learning curve, shared by the trials (the bodies are
  // serialised once).
  constexpr int kShapes = 8;
  std::vector<std::vector<std::string>> curves(kShapes);
  for (int shape = 0; shape < kShapes; ++shape) {
    for (int step = 0; step < kMeasurements; ++step) {
      const double accuracy = (0.5 + 0.05 * shape) * (1 - std::exp(-0.1 * (step + 1)));
      curves[shape].push_back(
          storage::SerializeBody(MakeMeasurement(step, accuracy, 1 - accuracy)));
    }
  }
  Check(connection.Execute("BEGIN"));
  const int64_t start = 1'700'000'000;
  for (int64_t id = 1; id <= count; ++id) {
    v1::Trial trial;
    trial.set_id(id);
    trial.set_study_name(study.name());
    trial.set_client_id(absl::StrCat("worker-", id % 16));
    double accuracy = 0;
    for (int i = 0; i < kDoubles + kIntegers; ++i) {
      v1::ParameterValue& value = *trial.add_parameters();
      value.set_parameter_name(study.spec().parameters(i).parameter_name());
      const double x = unit(rng);
      if (i < kDoubles) {
        value.set_double_value(x);
        accuracy += (i < 4 ? 0.2 : 0.01) * (1 - std::abs(x - 0.3));
      } else {
        value.set_int_value(1 + static_cast<int64_t>(x * 10) % 10);
      }
    }
    const int category = static_cast<int>(unit(rng) * 3) % 3;
    v1::ParameterValue& activation = *trial.add_parameters();
    activation.set_parameter_name("activation");
    activation.set_string_value(
        study.spec().parameters(kDoubles + kIntegers).categorical_values(category));
    accuracy = accuracy / 0.92 + 0.02 * unit(rng);
    const double latency = 0.2 + unit(rng) + accuracy * accuracy;
    const v1::Measurement last = MakeMeasurement(kMeasurements - 1, accuracy, latency);
    *trial.mutable_latest_measurement() = last;
    trial.set_measurement_count(kMeasurements);
    // Four trials at a time, 60 s each.
    *trial.mutable_start_time() = tuner::ToTimestamp(absl::FromUnixSeconds(start + (id / 4) * 60));
    if (id > count - kActive) {
      trial.set_state(v1::Trial::ACTIVE);
    } else {
      trial.set_state(id % 97 == 0   ? v1::Trial::FAILED
                      : id % 31 == 0 ? v1::Trial::STOPPED_EARLY
                                     : v1::Trial::SUCCEEDED);
      if (trial.state() != v1::Trial::FAILED) *trial.mutable_final_measurement() = last;
      *trial.mutable_end_time() =
          tuner::ToTimestamp(absl::FromUnixSeconds(start + (id / 4) * 60 + 50 + id % 10));
    }
    Check(storage::InsertTrialRow(connection, trial, study.spec()));
    const std::vector<std::string>& curve = curves[id % kShapes];
    for (int64_t ordinal = 0; ordinal < kMeasurements; ++ordinal) {
      Check(storage::InsertMeasurementRow(connection, study.name(), id, ordinal, ordinal + 1,
                                          ordinal, curve[ordinal]));
    }
  }
  Check(connection.Execute("COMMIT"));
}

int Main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: dashboard_scale_seed DATA_DIR TRIALS...\n";
    return 2;
  }
  const std::string path = absl::StrCat(argv[1], "/vernier.db");
  std::filesystem::create_directories(argv[1]);
  std::vector<int64_t> sizes;
  for (int i = 2; i < argc; ++i) {
    int64_t size = 0;
    if (!absl::SimpleAtoi(argv[i], &size) || size <= kActive) {
      std::cerr << "TRIALS must be integers over " << kActive << ", not \"" << argv[i] << "\"\n";
      return 2;
    }
    sizes.push_back(size);
  }
  {
    // The schema, and the studies through the store.
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> store =
        storage::SqliteStorage::Open(path);
    Check(store.status());
    for (const int64_t size : sizes) Check((*store)->CreateStudy(MakeStudy(size)).status());
  }
  absl::StatusOr<std::unique_ptr<storage::SqliteConnection>> connection =
      storage::SqliteConnection::Open(path, absl::Seconds(30));
  Check(connection.status());
  for (const int64_t size : sizes) {
    Load(**connection, MakeStudy(size), size);
    std::cout << "seeded scale_" << size << "\n";
  }
  Check((*connection)->Execute("ANALYZE"));
  return 0;
}

}  // namespace
}  // namespace vernier

int main(int argc, char** argv) {
  try {
    return vernier::Main(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "dashboard_scale_seed: " << error.what() << "\n";
    return 1;
  }
}
