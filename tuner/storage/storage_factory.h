#ifndef VERNIER_TUNER_STORAGE_STORAGE_FACTORY_H_
#define VERNIER_TUNER_STORAGE_STORAGE_FACTORY_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tuner/storage/storage.h"

namespace vernier::storage {

// Opens the store a `--db` value names: "sqlite:PATH", or a plain path, for
// the embedded SQLite store; "postgresql://..." for PostgreSQL. Creates or
// migrates the schema; refuses a schema newer than this binary knows.
absl::StatusOr<std::unique_ptr<Storage>> OpenStorage(std::string_view url);

// The SQLite file a `--db` value names; empty for PostgreSQL. The same
// checks and messages as OpenStorage.
absl::StatusOr<std::string> SqlitePathOf(std::string_view url);

// A `--db` value fit for logs: a PostgreSQL URL loses its password.
std::string DescribeStorageUrl(std::string_view url);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_STORAGE_FACTORY_H_
