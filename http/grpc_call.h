#ifndef VERNIER_HTTP_GRPC_CALL_H_
#define VERNIER_HTTP_GRPC_CALL_H_

#include <grpcpp/client_context.h>

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "vernier/grpc_status.h"

namespace vernier::http {

// How long one call forwarded from HTTP may take.
inline constexpr std::chrono::seconds kForwardedCallDeadline(60);

// The metadata key that carries an HTTP client's address ("ipv4:IP:PORT")
// on the call the HTTP API forwards over the in-process channel, for the
// audit log (tuner/caller_address.h believes it from that channel only).
inline constexpr char kForwardedClientMetadata[] = "x-vernier-http-client";

// Calls `method` of `stub` with `authorization` (an HTTP caller's
// credentials, AuthorizationFor; empty: none) and the HTTP client's address
// (empty: not known) as the call's metadata, and answers its error, the
// response in `response` (which may live on an arena: what the call parses
// goes there too).
template <typename Stub, typename Request, typename Response>
absl::Status CallWithCredentialsInto(
    Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
    const Request& request, Response* response, const std::string& authorization,
    const std::string& client_address = "") {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kForwardedCallDeadline);
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
  if (!client_address.empty()) context.AddMetadata(kForwardedClientMetadata, client_address);
  return FromGrpcStatus((stub.*method)(&context, request, response));
}

// The same, answering the response or the error.
template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> CallWithCredentials(
    Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
    const Request& request, const std::string& authorization,
    const std::string& client_address = "") {
  Response response;
  const absl::Status status =
      CallWithCredentialsInto(stub, method, request, &response, authorization, client_address);
  if (!status.ok()) return status;
  return response;
}

}  // namespace vernier::http

#endif  // VERNIER_HTTP_GRPC_CALL_H_
