// How the reads and writes of a study's hot paths scale with the size of the
// study, on both stores: a study of --trials trials with
// --measurements_per_trial measurements each is bulk-loaded once per store,
// then each benchmark times one operation against it, beside the baseline it
// replaces (what the code read before the scale work) in the same run.
//
//   build/bin/storage_scale_bench                                   # 2,000 x 10
//   build/bin/storage_scale_bench --trials=100000 --measurements_per_trial=100
//
// PostgreSQL runs when --postgres_url (default $VERNIER_TEST_POSTGRES_URL, as
// scripts/postgres-up.sh writes it) names a server; the bench creates and
// drops a database of its own there. SQLite runs in a temporary directory
// (--sqlite_dir). --stores=sqlite,postgres picks the stores.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "pqxx/connection"
#include "pqxx/nontransaction"
#include "pqxx/transaction"
#include "spdlog/spdlog.h"
#include "tuner/settled_trial_cache.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/postgres/postgres_storage.h"
#include "tuner/storage/postgres/postgres_url.h"
#include "tuner/storage/sqlite/sqlite_connection.h"
#include "tuner/storage/sqlite/sqlite_rows.h"
#include "tuner/storage/sqlite/sqlite_storage.h"
#include "tuner/storage/stored_rows.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/study_manager.h"

namespace vernier {
namespace {

constexpr char kStudy[] = "scale";
// Trials at the end of the study left ACTIVE: AddMeasurement's targets (one
// per writer thread), and what a running study has.
constexpr int64_t kActiveTrials = 32;

struct Flags {
  int64_t trials = 2000;
  int64_t measurements_per_trial = 10;
  std::string postgres_url;
  std::string sqlite_dir;
  std::vector<std::string> stores = {"sqlite", "postgres"};
};

// Takes this bench's own --name=value flags out of argv, leaving Google
// Benchmark's.
Flags ParseFlags(int& argc, char** argv) {
  Flags flags;
  if (const char* url = std::getenv("VERNIER_TEST_POSTGRES_URL")) flags.postgres_url = url;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value_of = [&](const std::string& name) -> std::optional<std::string> {
      const std::string prefix = "--" + name + "=";
      if (!absl::StartsWith(arg, prefix)) return std::nullopt;
      return arg.substr(prefix.size());
    };
    bool ok = true;
    if (auto v = value_of("trials")) {
      ok = absl::SimpleAtoi(*v, &flags.trials) && flags.trials > kActiveTrials;
    } else if (auto v = value_of("measurements_per_trial")) {
      ok = absl::SimpleAtoi(*v, &flags.measurements_per_trial) && flags.measurements_per_trial > 0;
    } else if (auto v = value_of("postgres_url")) {
      flags.postgres_url = *v;
    } else if (auto v = value_of("sqlite_dir")) {
      flags.sqlite_dir = *v;
    } else if (auto v = value_of("stores")) {
      flags.stores = absl::StrSplit(*v, ',', absl::SkipEmpty());
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    if (!ok) {
      std::cerr << "bad flag " << arg << " (--trials must exceed " << kActiveTrials
                << ", --measurements_per_trial must be positive)\n";
      std::exit(2);
    }
  }
  argc = kept;
  return flags;
}

v1::Study MakeStudy() {
  v1::Study study;
  study.set_name(kStudy);
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = tuner::ToTimestamp(absl::FromUnixSeconds(1'700'000'000));
  v1::StudySpec& spec = *study.mutable_spec();
  v1::ParameterSpec& lr = *spec.add_parameters();
  lr.set_parameter_name("learning_rate");
  lr.set_type(v1::ParameterSpec::DOUBLE);
  lr.set_min_value(1e-4);
  lr.set_max_value(1e-1);
  lr.set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  v1::ParameterSpec& layers = *spec.add_parameters();
  layers.set_parameter_name("layers");
  layers.set_type(v1::ParameterSpec::INTEGER);
  layers.set_min_value(1);
  layers.set_max_value(8);
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_goal(v1::MetricSpec::MAXIMIZE);
  spec.set_algorithm(v1::RANDOM_SEARCH);
  spec.set_seed(7);
  return study;
}

v1::Measurement MakeMeasurement(int64_t step, double accuracy) {
  v1::Measurement measurement;
  measurement.set_step(step);
  measurement.set_sequence_number(step + 1);
  measurement.set_elapsed_seconds(static_cast<double>(step));
  v1::Metric* metric = measurement.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_value(accuracy);
  v1::Metric* loss = measurement.add_metrics();
  loss->set_metric_id("loss");
  loss->set_value(1 - accuracy);
  return measurement;
}

// Trial `id` as it would be stored after its measurements: all but the last
// kActiveTrials SUCCEEDED with the last measurement as the final one.
v1::Trial MakeTrial(const v1::Study& study, int64_t id, const Flags& flags, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  v1::Trial trial;
  trial.set_id(id);
  trial.set_study_name(study.name());
  trial.set_client_id(absl::StrCat("worker-", id % 32));
  v1::ParameterValue* lr = trial.add_parameters();
  lr->set_parameter_name("learning_rate");
  lr->set_double_value(1e-4 * std::pow(1e3, unit(rng)));
  v1::ParameterValue* layers = trial.add_parameters();
  layers->set_parameter_name("layers");
  layers->set_int_value(1 + static_cast<int64_t>(unit(rng) * 8) % 8);
  *trial.mutable_start_time() = study.create_time();
  const v1::Measurement last = MakeMeasurement(flags.measurements_per_trial - 1, unit(rng));
  *trial.mutable_latest_measurement() = last;
  trial.set_measurement_count(flags.measurements_per_trial);
  if (id <= flags.trials - kActiveTrials) {
    trial.set_state(v1::Trial::SUCCEEDED);
    *trial.mutable_final_measurement() = last;
    *trial.mutable_end_time() = study.create_time();
  } else {
    trial.set_state(v1::Trial::ACTIVE);
  }
  return trial;
}

// ------------------------------------------------------------- bulk loads

void LoadSqlite(const std::string& path, const v1::Study& study, const Flags& flags) {
  absl::StatusOr<std::unique_ptr<storage::SqliteConnection>> connection =
      storage::SqliteConnection::Open(path, absl::Seconds(30));
  if (!connection.ok()) throw std::runtime_error(std::string(connection.status().message()));
  auto check = [](const absl::Status& status) {
    if (!status.ok()) throw std::runtime_error(std::string(status.message()));
  };
  check((*connection)->Execute("BEGIN"));
  std::mt19937_64 rng(1);
  const std::string measurement_body =
      storage::SerializeBody(MakeMeasurement(0, 0.5));  // The same bytes for every row.
  for (int64_t id = 1; id <= flags.trials; ++id) {
    const v1::Trial trial = MakeTrial(study, id, flags, rng);
    check(storage::InsertTrialRow(**connection, trial, study.spec()));
    for (int64_t ordinal = 0; ordinal < flags.measurements_per_trial; ++ordinal) {
      check(storage::InsertMeasurementRow(**connection, trial.study_name(), id, ordinal,
                                          ordinal + 1, ordinal, measurement_body));
    }
  }
  check((*connection)->Execute("COMMIT"));
  check((*connection)->Execute("ANALYZE"));
}

void LoadPostgres(const std::string& url, const v1::Study& study, const Flags& flags) {
  pqxx::connection connection(url);
  pqxx::work transaction(connection);
  std::mt19937_64 rng(1);
  constexpr int64_t kRowsPerInsert = 1000;
  for (int64_t first = 1; first <= flags.trials; first += kRowsPerInsert) {
    std::vector<std::string> rows;
    for (int64_t id = first; id < first + kRowsPerInsert && id <= flags.trials; ++id) {
      const v1::Trial trial = MakeTrial(study, id, flags, rng);
      const std::optional<double> rank_key = storage::RankKey(trial, study.spec());
      rows.push_back(
          absl::StrCat("(", transaction.quote(trial.study_name()), ", ", id, ", ",
                       static_cast<int>(trial.state()), ", ", transaction.quote(trial.client_id()),
                       ", ", rank_key.has_value() ? absl::StrCat(*rank_key) : "NULL", ", '\\x",
                       absl::BytesToHexString(storage::SerializeBody(trial)), "'::bytea)"));
    }
    transaction.exec(absl::StrCat(
        "INSERT INTO trials (study_name, id, state, client_id, rank_key, body) VALUES ",
        absl::StrJoin(rows, ", ")));
  }
  // Measurements in the server, one statement: the same body in every row.
  transaction.exec_params(
      "INSERT INTO measurements (study_name, trial_id, ordinal, sequence_number, step, body) "
      "SELECT $1, t, o, o + 1, o, $2 FROM generate_series(1, $3::bigint) t, "
      "generate_series(0, $4::bigint - 1) o",
      study.name(), pqxx::binarystring(storage::SerializeBody(MakeMeasurement(0, 0.5))),
      flags.trials, flags.measurements_per_trial);
  transaction.commit();
  pqxx::nontransaction session(connection);
  session.exec("VACUUM ANALYZE");
}

// ------------------------------------------------------------- benchmarks

struct Fixture {
  std::string name;
  std::unique_ptr<storage::Storage> store;
  std::unique_ptr<tuner::StudyManager> studies;
  v1::Study study;
  int64_t trials = 0;
};

void ListTrialsPage(benchmark::State& state, Fixture* fixture) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int64_t> start(0, fixture->trials - 100);
  for (auto _ : state) {
    storage::TrialQuery query;
    query.page_size = 100;
    query.page_token = storage::EncodeTrialPageToken(start(rng));
    absl::StatusOr<storage::Page<v1::Trial>> page = fixture->store->ListTrials(kStudy, query);
    if (!page.ok() || page->items.size() != 100) state.SkipWithError("ListTrials failed");
  }
}

void LeaderboardTop10(benchmark::State& state, Fixture* fixture) {
  for (auto _ : state) {
    absl::StatusOr<std::vector<v1::Trial>> best = fixture->studies->ListOptimalTrials(kStudy, 10);
    if (!best.ok() || best->size() != 10) state.SkipWithError("ListOptimalTrials failed");
  }
}

// What ListOptimalTrials did before the rank index: read every ended trial
// and rank them in memory.
void LeaderboardTop10FullScanBaseline(benchmark::State& state, Fixture* fixture) {
  for (auto _ : state) {
    storage::TrialQuery ended;
    ended.states = {v1::Trial::SUCCEEDED, v1::Trial::STOPPED_EARLY};
    absl::StatusOr<storage::Page<v1::Trial>> trials = fixture->store->ListTrials(kStudy, ended);
    if (!trials.ok()) state.SkipWithError("ListTrials failed");
    std::vector<v1::Trial> best = tuner::RankTrials(trials->items, fixture->study.spec(), 10);
    benchmark::DoNotOptimize(best);
  }
}

// The designers' history read of a suggestion: settled trials from memory,
// the rest from the store.
void HistoryRead(benchmark::State& state, Fixture* fixture) {
  tuner::SettledTrialCache cache(*fixture->store);
  if (!cache.Read(fixture->study).ok()) state.SkipWithError("warming the cache failed");
  for (auto _ : state) {
    absl::StatusOr<tuner::SettledTrialCache::Snapshot> snapshot = cache.Read(fixture->study);
    if (!snapshot.ok() || snapshot->total() != fixture->trials) {
      state.SkipWithError("SettledTrialCache::Read failed");
    }
  }
}

// What every suggestion read before: every trial of the study.
void HistoryReadFullBaseline(benchmark::State& state, Fixture* fixture) {
  for (auto _ : state) {
    absl::StatusOr<storage::Page<v1::Trial>> all =
        fixture->store->ListTrials(kStudy, storage::TrialQuery{});
    if (!all.ok() || static_cast<int64_t>(all->items.size()) != fixture->trials) {
      state.SkipWithError("ListTrials failed");
    }
  }
}

// One measurement appended to a running trial that already has
// measurements_per_trial: one durable commit. With several threads, each
// reports to a trial of its own, as agents do.
void AddMeasurement(benchmark::State& state, Fixture* fixture) {
  int64_t sequence = 1'000'000'000 + absl::ToUnixMicros(absl::Now());
  const int64_t trial_id = fixture->trials - state.thread_index();
  for (auto _ : state) {
    v1::Measurement measurement = MakeMeasurement(0, 0.5);
    measurement.set_sequence_number(++sequence);
    absl::StatusOr<v1::Trial> trial = fixture->store->AddMeasurements(
        kStudy, trial_id, std::span<const v1::Measurement>(&measurement, 1), {});
    if (!trial.ok()) state.SkipWithError("AddMeasurements failed");
  }
  state.SetItemsProcessed(state.iterations());
}

// A whole suggestion (lock, history read, random designer over the full
// history, one new trial) followed by that trial's completion.
void SuggestAndComplete(benchmark::State& state, Fixture* fixture) {
  for (auto _ : state) {
    absl::StatusOr<tuner::SuggestResult> suggested = fixture->studies->SuggestTrials(kStudy, 1, "");
    if (!suggested.ok() || suggested->trials.size() != 1) {
      state.SkipWithError("SuggestTrials failed");
      break;
    }
    absl::StatusOr<v1::Trial> completed =
        fixture->studies->CompleteTrial(kStudy, suggested->trials[0].id(), MakeMeasurement(1, 0.5));
    if (!completed.ok()) state.SkipWithError("CompleteTrial failed");
  }
}

void Register(Fixture* fixture) {
  const std::string suffix = "/" + fixture->name;
  benchmark::RegisterBenchmark(("ListTrialsPage100" + suffix).c_str(), ListTrialsPage, fixture)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("LeaderboardTop10" + suffix).c_str(), LeaderboardTop10, fixture)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("LeaderboardTop10FullScanBaseline" + suffix).c_str(),
                               LeaderboardTop10FullScanBaseline, fixture)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("HistoryRead" + suffix).c_str(), HistoryRead, fixture)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("HistoryReadFullBaseline" + suffix).c_str(),
                               HistoryReadFullBaseline, fixture)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("AddMeasurement" + suffix).c_str(), AddMeasurement, fixture)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Threads(1)
      ->Threads(kActiveTrials);
  benchmark::RegisterBenchmark(("SuggestAndComplete" + suffix).c_str(), SuggestAndComplete, fixture)
      ->Unit(benchmark::kMillisecond);
}

std::unique_ptr<Fixture> MakeFixture(std::string name, std::unique_ptr<storage::Storage> store,
                                     const std::function<void(const v1::Study&)>& load,
                                     const Flags& flags) {
  auto fixture = std::make_unique<Fixture>();
  fixture->name = std::move(name);
  fixture->store = std::move(store);
  fixture->study = MakeStudy();
  fixture->trials = flags.trials;
  if (absl::StatusOr<v1::Study> created = fixture->store->CreateStudy(fixture->study);
      !created.ok()) {
    throw std::runtime_error(std::string(created.status().message()));
  }
  const absl::Time start = absl::Now();
  load(fixture->study);
  std::cerr << fixture->name << ": loaded " << flags.trials << " trials x "
            << flags.measurements_per_trial << " measurements in "
            << absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(1)))
            << "\n";
  fixture->studies = std::make_unique<tuner::StudyManager>(*fixture->store, tuner::SystemClock());
  return fixture;
}

}  // namespace
}  // namespace vernier

int main(int argc, char** argv) {
  using namespace vernier;
  spdlog::set_level(spdlog::level::warn);
  const Flags flags = ParseFlags(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext("trials", std::to_string(flags.trials));
  benchmark::AddCustomContext("measurements",
                              std::to_string(flags.trials * flags.measurements_per_trial));

  std::vector<std::unique_ptr<Fixture>> fixtures;
  std::string sqlite_dir = flags.sqlite_dir;
  bool remove_sqlite_dir = false;
  std::string postgres_admin_url;
  std::string postgres_database;
  const auto wants = [&](const std::string& store) {
    return std::find(flags.stores.begin(), flags.stores.end(), store) != flags.stores.end();
  };
  try {
    if (wants("sqlite")) {
      if (sqlite_dir.empty()) {
        std::string pattern = (std::filesystem::temp_directory_path() / "vernier_scale_XXXXXX");
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        sqlite_dir = pattern;
        remove_sqlite_dir = true;
      }
      const std::string path = sqlite_dir + "/scale.db";
      absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> store =
          storage::SqliteStorage::Open(path);
      if (!store.ok()) throw std::runtime_error(std::string(store.status().message()));
      fixtures.push_back(MakeFixture(
          "sqlite", *std::move(store),
          [&](const v1::Study& study) { LoadSqlite(path, study, flags); }, flags));
    }
    if (wants("postgres")) {
      if (flags.postgres_url.empty()) {
        std::cerr << "skipping PostgreSQL: no --postgres_url and no VERNIER_TEST_POSTGRES_URL "
                     "(start one with scripts/postgres-up.sh)\n";
      } else {
        postgres_admin_url = flags.postgres_url;
        postgres_database = absl::StrCat("vernier_scale_bench_", getpid());
        {
          pqxx::connection admin(postgres_admin_url);
          pqxx::nontransaction(admin).exec(absl::StrCat("CREATE DATABASE ", postgres_database));
        }
        const std::string url = storage::WithDatabase(postgres_admin_url, postgres_database);
        absl::StatusOr<std::unique_ptr<storage::PostgresStorage>> store =
            storage::PostgresStorage::Open(url);
        if (!store.ok()) throw std::runtime_error(std::string(store.status().message()));
        fixtures.push_back(MakeFixture(
            "postgres", *std::move(store),
            [&](const v1::Study& study) { LoadPostgres(url, study, flags); }, flags));
      }
    }
    for (const std::unique_ptr<Fixture>& fixture : fixtures) Register(fixture.get());
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& error) {
    std::cerr << "storage_scale_bench: " << error.what() << "\n";
    return 1;
  }
  benchmark::Shutdown();
  fixtures.clear();
  if (!postgres_database.empty()) {
    pqxx::connection admin(postgres_admin_url);
    pqxx::nontransaction(admin).exec(
        absl::StrCat("DROP DATABASE IF EXISTS ", postgres_database, " WITH (FORCE)"));
  }
  if (remove_sqlite_dir) std::filesystem::remove_all(sqlite_dir);
  return 0;
}
