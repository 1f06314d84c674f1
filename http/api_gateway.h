#ifndef VERNIER_HTTP_API_GATEWAY_H_
#define VERNIER_HTTP_API_GATEWAY_H_

#include <grpcpp/channel.h>

#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vernier/v1/auth_service.grpc.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::http {

// One HTTP request as the gateway sees it (the transport has decoded it).
struct ApiRequest {
  std::string method;  // GET, POST, DELETE
  std::string path;    // percent-decoded, without the query
  std::multimap<std::string, std::string> query;
  std::string body;
  // The `authorization` metadata to send (AuthorizationFor); empty: none.
  std::string authorization;
  // The HTTP client's address ("ipv4:IP:PORT"), for the audit log.
  std::string client_address;
};

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// The HTTP/JSON API (docs/http-api.md): each request becomes one call of the
// same gRPC service over `channel` (the server's in-process channel), with
// the caller's credentials, so that every check of the gRPC service applies
// to HTTP as well. Bodies are the services' own messages in the proto3 JSON
// mapping; query parameters and path segments set the request's fields by
// name; errors are {"error": {"code", "message", "status"}} with the HTTP
// status of the gRPC code (HttpStatusFor).
class ApiGateway {
 public:
  explicit ApiGateway(std::shared_ptr<grpc::Channel> channel);

  // Whether `path` is the API's (under /v1/).
  static bool IsApiPath(const std::string& path);

  ApiResponse Handle(const ApiRequest& request) const;

  // OK when the request's credentials name a caller (AuthService.WhoAmI
  // with them), else that call's error (UNAUTHENTICATED): what a request
  // whose body must be inflated is asked before it is.
  absl::Status Authenticate(const ApiRequest& request) const;

 private:
  using Captures = std::vector<std::string>;
  using Handler = std::function<absl::StatusOr<std::string>(const Captures&, const ApiRequest&)>;
  struct Route {
    std::string method;
    std::regex pattern;
    Handler handler;
  };

  void AddJobRoutes();
  void AddStudyRoutes();
  void AddIdentityRoute();

  std::unique_ptr<v1::AuthService::Stub> auth_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::StudyService::Stub> studies_;
  std::vector<Route> routes_;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_API_GATEWAY_H_
