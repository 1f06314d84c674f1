#ifndef VERNIER_AUTH_BEARER_TOKEN_INTERCEPTOR_H_
#define VERNIER_AUTH_BEARER_TOKEN_INTERCEPTOR_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>

#include <memory>
#include <string>
#include <vector>

namespace vernier::auth {

// Client interceptors that send `authorization: Bearer TOKEN` with every
// call of a channel (also a plaintext one on loopback, where gRPC's call
// credentials would refuse to); none when `token` is empty.
std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
BearerTokenInterceptors(const std::string& token);

// A channel to `target` whose calls carry the token (none when empty).
std::shared_ptr<grpc::Channel> CreateChannelWithToken(
    const std::string& target, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments, const std::string& token);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_BEARER_TOKEN_INTERCEPTOR_H_
