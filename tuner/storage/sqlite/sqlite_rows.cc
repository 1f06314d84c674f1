#include "tuner/storage/sqlite/sqlite_rows.h"

#include "common/status_macros.h"
#include "tuner/storage/sqlite/sqlite_statement.h"
#include "tuner/storage/stored_rows.h"

namespace vernier::storage {

absl::Status InsertTrialRow(SqliteConnection& connection, const v1::Trial& trial,
                            const v1::StudySpec& spec) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      connection.Prepare(
          "INSERT INTO trials (study_name, id, state, client_id, rank_key, body, revision) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
          "(SELECT COALESCE(MAX(revision), 0) + 1 FROM trials WHERE study_name = ?1))"));
  return insert.BindText(1, trial.study_name())
      .BindInt64(2, trial.id())
      .BindInt64(3, trial.state())
      .BindText(4, trial.client_id())
      .BindOptionalDouble(5, RankKey(trial, spec))
      .BindBlob(6, SerializeBody(trial))
      .Run();
}

absl::Status InsertMeasurementRow(SqliteConnection& connection, std::string_view study_name,
                                  int64_t trial_id, int64_t ordinal, int64_t sequence_number,
                                  int64_t step, std::string_view body) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      connection.Prepare("INSERT INTO measurements "
                         "(study_name, trial_id, ordinal, sequence_number, step, body) "
                         "VALUES (?, ?, ?, ?, ?, ?)"));
  return insert.BindText(1, study_name)
      .BindInt64(2, trial_id)
      .BindInt64(3, ordinal)
      .BindInt64(4, sequence_number)
      .BindInt64(5, step)
      .BindBlob(6, body)
      .Run();
}

}  // namespace vernier::storage
