#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ROWS_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ROWS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "tuner/storage/sqlite/sqlite_connection.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {

// The rows of a study's trials and measurements as the SQLite store writes
// them, in the caller's transaction. The store's only writers of new rows;
// the benchmarks that fill a study of 100,000 trials use them too, with
// many rows in one transaction. The study's row must exist.

// `trial` (without its measurements) as a row of its study, with the
// leaderboard's rank key under `spec` and the study's next revision
// (ListTrialChanges): every write of a trial row takes one.
absl::Status InsertTrialRow(SqliteConnection& connection, const v1::Trial& trial,
                            const v1::StudySpec& spec);

// Measurement number `ordinal` (from 0) of trial `trial_id`: `body` is the
// serialised Measurement (SerializeBody), whose sequence number and step
// are given beside it for the table's columns.
absl::Status InsertMeasurementRow(SqliteConnection& connection, std::string_view study_name,
                                  int64_t trial_id, int64_t ordinal, int64_t sequence_number,
                                  int64_t step, std::string_view body);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ROWS_H_
