#include "tests/support/token_channel.h"

#include <grpcpp/support/client_interceptor.h>

#include <vector>

#include "absl/status/statusor.h"
#include "auth/client_token.h"

namespace vernier::testing {
namespace {

class LocalTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit LocalTokenInterceptor(const std::string& address) : address_(address) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      auto* metadata = methods->GetSendInitialMetadata();
      if (metadata->find("authorization") == metadata->end()) {
        absl::StatusOr<std::string> token = auth::ResolveClientToken("", "", address_);
        if (token.ok() && !token->empty()) metadata->emplace("authorization", "Bearer " + *token);
      }
    }
    methods->Proceed();
  }

 private:
  const std::string& address_;
};

class LocalTokenInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit LocalTokenInterceptorFactory(std::string address) : address_(std::move(address)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new LocalTokenInterceptor(address_);
  }

 private:
  std::string address_;
};

}  // namespace

std::shared_ptr<grpc::Channel> ChannelWithLocalToken(
    const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<LocalTokenInterceptorFactory>(address));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, credentials, arguments,
                                                                 std::move(factories));
}

}  // namespace vernier::testing
