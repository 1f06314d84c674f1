#ifndef VERNIER_TESTS_SUPPORT_TOKEN_CHANNEL_H_
#define VERNIER_TESTS_SUPPORT_TOKEN_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace vernier::testing {

// A channel to the server at `address` whose every call carries the token
// this user's CLI would send there (auth::ResolveClientToken: $VERNIER_TOKEN,
// else the file `vernier serve` wrote for that address), read at each call
// until found and then kept, so a channel made before the server started
// finds it.
std::shared_ptr<grpc::Channel> ChannelWithLocalToken(
    const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments = {});

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TOKEN_CHANNEL_H_
