#ifndef VERNIER_TUNER_STORAGE_AUDIT_CHAIN_H_
#define VERNIER_TUNER_STORAGE_AUDIT_CHAIN_H_

#include <cstdint>
#include <span>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "vernier/v1/audit_service.pb.h"

namespace vernier::storage {

// One audit row as a store keeps it: the columns it filters on, the body
// (the AuditEntry without sequence and hash, serialised once) and the
// chain hash.
struct StoredAuditRow {
  int64_t sequence = 0;
  int64_t time_micros = 0;
  std::string user;
  std::string resource;
  std::string body;
  std::string hash;
};

// The row a store appends after `previous` (nullptr: the first row).
StoredAuditRow ChainAuditRow(const StoredAuditRow* previous, const v1::AuditEntry& entry);
// The hash of a row (hex SHA-256): over the previous row's hash ("" before
// the first), the row's sequence, its filter columns and its body.
std::string AuditRowHash(absl::string_view previous_hash, const StoredAuditRow& row);
// The entry a row stands for, with its sequence and hash.
absl::StatusOr<v1::AuditEntry> AuditEntryOfRow(const StoredAuditRow& row);

// Checks a whole log, oldest first: sequences 1, 2, 3, ... without a gap,
// each hash recomputed, each row's columns equal to its body. A change or
// removal of a row breaks it, unless whoever made it also rehashed every
// row after it (the hash has no key), or removed only the newest rows. A
// `noted_head` (a head_hash answered before, kept apart from the database)
// catches both: the log must still hold a row with that hash.
v1::VerifyAuditLogResponse VerifyAuditChain(std::span<const StoredAuditRow> rows,
                                            absl::string_view noted_head = "");

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_AUDIT_CHAIN_H_
