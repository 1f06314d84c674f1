#include "http/http_server.h"

#include <httplib.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "http/api_gateway.h"
#include "http/caller_credentials.h"
#include "spdlog/spdlog.h"

namespace vernier::http {
namespace {

ApiRequest ToApiRequest(const httplib::Request& request) {
  ApiRequest api;
  api.method = request.method;
  api.path = request.path;
  // From the URL only: httplib also puts a form-encoded body's fields in
  // `params`, and curl -d sends JSON as a form unless told otherwise.
  const size_t query = request.target.find('?');
  if (query != std::string::npos) {
    httplib::Params params;
    httplib::detail::parse_query_text(request.target.substr(query + 1), params);
    for (const auto& [name, value] : params) api.query.emplace(name, value);
  }
  api.body = request.body;
  api.authorization = AuthorizationFor(request.get_header_value("Authorization"),
                                       request.get_header_value("Cookie"));
  return api;
}

// A host as it goes in a URL (an IPv6 address in brackets).
std::string UrlHost(const std::string& host) {
  if (host.find(':') != std::string::npos && !host.starts_with("[")) {
    return absl::StrCat("[", host, "]");
  }
  return host;
}

}  // namespace

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)), gateway_(std::make_unique<ApiGateway>(std::move(channel))) {}

HttpServer::~HttpServer() { Stop(); }

absl::StatusOr<int> HttpServer::Start() {
  if (options_.tls.enabled()) {
    server_ = std::make_unique<httplib::SSLServer>(
        options_.tls.cert_path.c_str(), options_.tls.key_path.c_str(),
        options_.tls.mutual() ? options_.tls.client_ca_path.c_str() : nullptr);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  if (!server_->is_valid()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "the HTTP listener cannot load the TLS certificate %s and key %s",
        options_.tls.cert_path, options_.tls.key_path));
  }
  Route();
  const std::string host = UrlHost(options_.host);
  if (options_.port == 0) {
    bound_port_ = server_->bind_to_any_port(options_.host);
  } else if (server_->bind_to_port(options_.host, options_.port)) {
    bound_port_ = options_.port;
  }
  if (bound_port_ <= 0) {
    bound_port_ = 0;
    return absl::UnavailableError(absl::StrFormat(
        "the HTTP listener cannot listen on %s:%d (is another server using the port? "
        "--http-port picks another, --no-http turns it off)",
        host, options_.port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return bound_port_;
}

void HttpServer::Stop() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string HttpServer::Url() const {
  return absl::StrCat(options_.tls.enabled() ? "https" : "http", "://", UrlHost(options_.host),
                      ":", bound_port_, "/");
}

void HttpServer::Route() {
  const auto api = [this](const httplib::Request& request, httplib::Response& response) {
    const ApiResponse answer = gateway_->Handle(ToApiRequest(request));
    response.status = answer.status;
    response.set_content(answer.body, answer.content_type.c_str());
    if (answer.status >= 400) {
      spdlog::debug("HTTP {} {}: {}", request.method, request.path, answer.status);
    }
  };
  // A POST with no body and no Content-Length (curl -X POST URL:cancel) is
  // answered here: cpp-httplib 0.11 would refuse it with a bare 400 before
  // routing it.
  server_->set_pre_routing_handler([api](const httplib::Request& request,
                                         httplib::Response& response) {
    if (!ApiGateway::IsApiPath(request.path) || request.has_header("Content-Length") ||
        request.has_header("Transfer-Encoding") || request.method == "GET") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    api(request, response);
    return httplib::Server::HandlerResponse::Handled;
  });
  const std::string every_api_path = "/v1/.*";
  server_->Get(every_api_path, api);
  server_->Post(every_api_path, api);
  server_->Delete(every_api_path, api);
  server_->Put(every_api_path, api);
  server_->Patch(every_api_path, api);
}

}  // namespace vernier::http
