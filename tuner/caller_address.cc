#include "tuner/caller_address.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "http/grpc_call.h"

namespace vernier::tuner {

std::string CallerAddress(const grpc::ServerContextBase& context) {
  std::string peer = context.peer();
  // A network call's peer is always its address; the in-process channel's
  // is not one ("unknown" or "inproc", as gRPC versions say).
  for (absl::string_view network : {"ipv4:", "ipv6:", "unix:", "vsock:"}) {
    if (absl::StartsWith(peer, network)) return peer;
  }
  const auto& metadata = context.client_metadata();
  const auto forwarded = metadata.find(http::kForwardedClientMetadata);
  if (forwarded == metadata.end()) return peer;
  return absl::StrCat(absl::string_view(forwarded->second.data(), forwarded->second.size()),
                      " (http)");
}

}  // namespace vernier::tuner
