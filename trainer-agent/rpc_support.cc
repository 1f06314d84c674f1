#include "trainer-agent/rpc_support.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace vernier::agent {

void RpcSupport::PrepareContext(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  context.set_wait_for_ready(true);
}

std::string RpcSupport::Describe(const grpc::Status& status) {
  return absl::StrCat(absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code())),
                      ": ", status.error_message());
}

}  // namespace vernier::agent
