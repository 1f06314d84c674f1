#ifndef VERNIER_TUNER_STORAGE_AUDIT_LOG_STORE_H_
#define VERNIER_TUNER_STORAGE_AUDIT_LOG_STORE_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/storage/audit_chain.h"
#include "vernier/v1/audit_service.pb.h"

namespace vernier::storage {

struct AuditQuery {
  // Each empty/unset: any.
  std::string user;
  std::string resource;
  std::optional<absl::Time> since;
  // The newest `limit` matching rows (0: all), still oldest first.
  int limit = 0;
};

// The audit log (docs/security.md): append-only rows, each hash-chained to
// the one before (audit_chain.h). Part of Storage; each method is one
// transaction.
class AuditLogStore {
 public:
  virtual ~AuditLogStore() = default;

  // Appends `entries` in order, all or none, giving each the next sequence
  // number and its chain hash (their own are ignored). Appends are
  // serialised across every process sharing the store, so the chain stays
  // one line.
  virtual absl::Status AppendAuditEntries(std::span<const v1::AuditEntry> entries) = 0;
  // The matching rows, oldest first, with their sequence and hash.
  virtual absl::StatusOr<std::vector<v1::AuditEntry>> ListAuditEntries(
      const AuditQuery& query) = 0;
  // Every row as stored, oldest first, for VerifyAuditChain: the body the
  // hash covers is the stored one, not a re-serialisation.
  virtual absl::StatusOr<std::vector<StoredAuditRow>> ReadAuditChain() = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_AUDIT_LOG_STORE_H_
