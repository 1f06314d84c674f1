#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_SCHEMA_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_SCHEMA_H_

#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "pqxx/connection"

namespace vernier::storage {

// The scripts that build the store's schema: entry i takes a database from
// schema version i to version i + 1. Append only; never edit a released one.
std::span<const std::string_view> PostgresSchemaMigrations();

// Brings the database to version migrations.size() in one transaction:
// records the version in `schema_version` and applies the scripts it lacks,
// all or none. Servers starting together wait for each other on an advisory
// lock, so the first migrates and the others find the schema current.
// FAILED_PRECONDITION naming `description` and both versions when the
// database is newer than `migrations` know. Returns the version the database
// had before.
absl::StatusOr<int> MigratePostgresSchema(pqxx::connection& connection,
                                          std::span<const std::string_view> migrations,
                                          std::string_view description);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_SCHEMA_H_
