#include "tests/support/token_channel.h"

#include <grpcpp/support/client_interceptor.h>

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "auth/client_token.h"

namespace vernier::testing {
namespace {

// The channel's token: read until found, then kept (a restarted server on
// the same data directory keeps its token), so a load test reads no file
// per call.
class TokenSource {
 public:
  explicit TokenSource(std::string address) : address_(std::move(address)) {}
  std::string Get() {
    absl::MutexLock lock(&mutex_);
    if (token_.empty()) {
      absl::StatusOr<std::string> token = auth::ResolveClientToken("", "", address_);
      if (token.ok()) token_ = *token;
    }
    return token_;
  }

 private:
  const std::string address_;
  absl::Mutex mutex_;
  std::string token_ ABSL_GUARDED_BY(mutex_);
};

class LocalTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit LocalTokenInterceptor(TokenSource& source) : source_(source) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      auto* metadata = methods->GetSendInitialMetadata();
      if (metadata->find("authorization") == metadata->end()) {
        const std::string token = source_.Get();
        if (!token.empty()) metadata->emplace("authorization", "Bearer " + token);
      }
    }
    methods->Proceed();
  }

 private:
  TokenSource& source_;
};

class LocalTokenInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit LocalTokenInterceptorFactory(std::string address) : source_(std::move(address)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new LocalTokenInterceptor(source_);
  }

 private:
  TokenSource source_;
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
