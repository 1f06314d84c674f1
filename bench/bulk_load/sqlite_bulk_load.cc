#include "bench/bulk_load/sqlite_bulk_load.h"

#include "common/status_macros.h"
#include "tuner/storage/stored_rows.h"

namespace vernier::bench {

absl::Status InsertTrialRow(storage::SqliteConnection& connection, const v1::Trial& trial,
                            const v1::StudySpec& spec) {
  VERNIER_ASSIGN_OR_RETURN(
      storage::SqliteStatement insert,
      connection.Prepare("INSERT INTO trials (study_name, id, state, client_id, rank_key, body) "
                         "VALUES (?, ?, ?, ?, ?, ?)"));
  return insert.BindText(1, trial.study_name())
      .BindInt64(2, trial.id())
      .BindInt64(3, trial.state())
      .BindText(4, trial.client_id())
      .BindOptionalDouble(5, storage::RankKey(trial, spec))
      .BindBlob(6, storage::SerializeBody(trial))
      .Run();
}

absl::Status InsertMeasurementRow(storage::SqliteConnection& connection, std::string_view study,
                                  int64_t trial_id, int64_t ordinal, int64_t step,
                                  const std::string& body) {
  VERNIER_ASSIGN_OR_RETURN(
      storage::SqliteStatement insert,
      connection.Prepare("INSERT INTO measurements (study_name, trial_id, ordinal, "
                         "sequence_number, step, body) VALUES (?, ?, ?, ?, ?, ?)"));
  return insert.BindText(1, study)
      .BindInt64(2, trial_id)
      .BindInt64(3, ordinal)
      .BindInt64(4, ordinal + 1)
      .BindInt64(5, step)
      .BindBlob(6, body)
      .Run();
}

}  // namespace vernier::bench
