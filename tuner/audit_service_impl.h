#ifndef VERNIER_TUNER_AUDIT_SERVICE_IMPL_H_
#define VERNIER_TUNER_AUDIT_SERVICE_IMPL_H_

#include <grpcpp/grpcpp.h>

#include "tuner/audit_log.h"
#include "tuner/rpc_authorizer.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/audit_service.grpc.pb.h"

namespace vernier::tuner {

// The audit log's reader (admin only, through the gate like every
// service): lists rows and verifies the chain. Both first flush what this
// server has recorded, so a call sees every call made before it here.
class AuditServiceImpl final : public v1::AuditService::Service {
 public:
  AuditServiceImpl(storage::Storage& store, AuditLog& audit_log, RpcAuthorizer& gate)
      : store_(store), audit_log_(audit_log), gate_(gate) {}

  grpc::Status ListAuditEntries(grpc::ServerContext*, const v1::ListAuditEntriesRequest*,
                                v1::ListAuditEntriesResponse*) override;
  grpc::Status VerifyAuditLog(grpc::ServerContext*, const v1::VerifyAuditLogRequest*,
                              v1::VerifyAuditLogResponse*) override;

 private:
  storage::Storage& store_;
  AuditLog& audit_log_;
  RpcAuthorizer& gate_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AUDIT_SERVICE_IMPL_H_
