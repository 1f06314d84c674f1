#ifndef VERNIER_BENCH_BULK_LOAD_SQLITE_BULK_LOAD_H_
#define VERNIER_BENCH_BULK_LOAD_SQLITE_BULK_LOAD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "tuner/storage/sqlite/sqlite_connection.h"
#include "vernier/v1/study.pb.h"

namespace vernier::bench {

// Rows written straight into a SQLite store's tables, as the store writes
// them, for the benchmarks that fill a study of 100,000 trials in seconds:
// the caller wraps them in one BEGIN ... COMMIT (the store would commit each
// durably). The study's row must exist.

// `trial` (without its measurements) as a row of its study, with the
// leaderboard's rank key under `spec`.
absl::Status InsertTrialRow(storage::SqliteConnection& connection, const v1::Trial& trial,
                            const v1::StudySpec& spec);

// One measurement row of trial `trial_id`: `body` is a serialised
// Measurement (storage::SerializeBody); its sequence number is ordinal + 1.
absl::Status InsertMeasurementRow(storage::SqliteConnection& connection, std::string_view study,
                                  int64_t trial_id, int64_t ordinal, int64_t step,
                                  const std::string& body);

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_BULK_LOAD_SQLITE_BULK_LOAD_H_
