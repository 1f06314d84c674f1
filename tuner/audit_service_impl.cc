#include "tuner/audit_service_impl.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tuner/clock.h"
#include "tuner/storage/audit_chain.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

constexpr char kAuditService[] = "/vernier.v1.AuditService/";

// INVALID_ARGUMENT unless `head` is empty or a row hash: 64 lowercase hex
// digits.
absl::Status CheckHeadHash(const std::string& head) {
  const bool hash =
      head.size() == 64 && std::all_of(head.begin(), head.end(), [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
      });
  if (head.empty() || hash) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "head_hash \"", head.substr(0, 80),
      "\" is not an audit row's hash: 64 lowercase hex digits, as `vernier audit verify` prints"));
}

}  // namespace

grpc::Status AuditServiceImpl::ListAuditEntries(grpc::ServerContext* context,
                                                const v1::ListAuditEntriesRequest* request,
                                                v1::ListAuditEntriesResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuditService, "ListAuditEntries"), *request,
      [&](const auth::Identity&) -> grpc::Status {
        if (request->limit() < 0) {
          return ToGrpcStatus(absl::InvalidArgumentError(
              absl::StrCat("limit must be 0 (all) or more, not ", request->limit())));
        }
        if (absl::Status flushed = audit_log_.Flush(); !flushed.ok()) {
          return ToGrpcStatus(flushed);
        }
        storage::AuditQuery query;
        query.user = request->user();
        query.resource = request->resource();
        if (request->has_since()) query.since = FromTimestamp(request->since());
        query.limit = request->limit();
        absl::StatusOr<std::vector<v1::AuditEntry>> entries = store_.ListAuditEntries(query);
        if (!entries.ok()) return ToGrpcStatus(entries.status());
        for (v1::AuditEntry& entry : *entries) *response->add_entries() = std::move(entry);
        return grpc::Status::OK;
      });
}

grpc::Status AuditServiceImpl::VerifyAuditLog(grpc::ServerContext* context,
                                              const v1::VerifyAuditLogRequest* request,
                                              v1::VerifyAuditLogResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kAuditService, "VerifyAuditLog"), *request,
                     [&](const auth::Identity&) -> grpc::Status {
                       if (absl::Status head = CheckHeadHash(request->head_hash()); !head.ok()) {
                         return ToGrpcStatus(head);
                       }
                       if (absl::Status flushed = audit_log_.Flush(); !flushed.ok()) {
                         return ToGrpcStatus(flushed);
                       }
                       absl::StatusOr<std::vector<storage::StoredAuditRow>> rows =
                           store_.ReadAuditChain();
                       if (!rows.ok()) return ToGrpcStatus(rows.status());
                       *response = storage::VerifyAuditChain(*rows, request->head_hash());
                       return grpc::Status::OK;
                     });
}

}  // namespace vernier::tuner
