#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_SCHEMA_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_SCHEMA_H_

#include <functional>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/storage/sqlite/sqlite_connection.h"

namespace vernier::storage {

// The scripts that build the store's schema: entry i takes a database from
// schema version i to version i + 1. Append only; never edit a released one.
std::span<const std::string_view> SqliteSchemaMigrations();

// Rewrites rows a migration's SQL cannot (values derived from serialized
// bodies), in the migration's transaction, given the version the database
// had before.
using SqliteDataMigration = std::function<absl::Status(SqliteConnection&, int from_version)>;

// The store's data migrations: fills trials.rank_key when coming from version 1.
absl::Status SqliteDataMigrations(SqliteConnection& connection, int from_version);

// Brings the database to version migrations.size() in one write transaction:
// records the version in `schema_version`, applies the scripts it lacks, then
// `data_migration`, all or none. FAILED_PRECONDITION naming both versions
// when the database is newer than `migrations` know. Returns the version the
// database had before.
absl::StatusOr<int> MigrateSqliteSchema(SqliteConnection& connection,
                                        std::span<const std::string_view> migrations,
                                        const SqliteDataMigration& data_migration = nullptr);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_SCHEMA_H_
