#include "http/http_server.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "http/api_gateway.h"
#include "http/caller_credentials.h"
#include "http/change_tracker.h"
#include "http/connection_threads.h"
#include "http/dashboard_feed.h"
#include "http/dashboard_sessions.h"
#include "http/http_limits.h"
#include "http/http_status_mapping.h"
#include "http/login_page.h"
#include "http/query_string.h"
#include "http/request_body_reader.h"
#include "http/request_fields.h"
#include "http/response_compression.h"
#include "spdlog/spdlog.h"
#include "vernier/grpc_status.h"
#include "web/web_assets.h"

namespace vernier::http {
namespace {

// How often an event stream looks for changes.
constexpr std::chrono::milliseconds kEventInterval(500);

// The header a state-changing request with the session cookie (not an
// Authorization header) must carry: a page of another site cannot set it
// without a CORS preflight, which this server never grants.
constexpr char kCsrfHeader[] = "X-Vernier-Request";

// How long a dashboard session lasts (the token's own expiry and
// revocation apply on every request too), and how many are held at most.
constexpr absl::Duration kSessionLifetime = absl::Hours(12);
constexpr size_t kMaxSessions = 10000;
// A login form's body: a token and little else.
constexpr size_t kMaxLoginBodyBytes = 4096;

// What every answer carries: the pages load only this server's scripts,
// styles and data (uPlot sets inline styles), no site may frame them, types
// are not guessed, and no URL leaves in a Referer.
const httplib::Headers& SecurityHeaders() {
  static const httplib::Headers* const headers = new httplib::Headers{
      {"Content-Security-Policy",
       "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'"},
      {"X-Frame-Options", "DENY"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
  };
  return *headers;
}

// PERMISSION_DENIED for a request that changes something with the session
// cookie `cookie_name` (not an Authorization header) and without
// kCsrfHeader.
absl::Status CheckCsrfHeader(const httplib::Request& request, const std::string& cookie_name) {
  if (request.method != "GET" && request.get_header_value("Authorization").empty() &&
      !SessionIdFrom(request.get_header_value("Cookie"), cookie_name).empty() &&
      !request.has_header(kCsrfHeader)) {
    return absl::PermissionDeniedError(
        absl::StrCat("a request with the session cookie that changes something needs the ",
                     kCsrfHeader, " header (the dashboard sends it)"));
  }
  return absl::OkStatus();
}

// An answer gzip-compressed here when the client takes it and it is not
// tiny. `content_type` must be one cpp-httplib does not compress again
// (not text/*, and with a charset: response_compression.h says why).
void SetCompressed(const httplib::Request& request, std::string body, const char* content_type,
                   httplib::Response& response) {
  if (body.size() > 256 && AcceptsGzip(request.get_header_value("Accept-Encoding"))) {
    body = Gzip(body);
    response.set_header("Content-Encoding", "gzip");
  }
  response.set_content(body, content_type);
}

void SetJson(const httplib::Request& request, std::string body, httplib::Response& response) {
  SetCompressed(request, std::move(body), "application/json; charset=utf-8", response);
}

void SendError(const absl::Status& status, httplib::Response& response) {
  response.status = HttpStatusOf(status);
  response.set_content(ErrorBody(status), "application/json");
}

// The query of the request's URL (QueryString: a value keeps its `=`s).
// From the URL only: httplib also puts a form-encoded body's fields in
// `params`, and curl -d sends JSON as a form unless told otherwise.
std::multimap<std::string, std::string> QueryOf(const httplib::Request& request) {
  const size_t query = request.target.find('?');
  if (query == std::string::npos) return {};
  return QueryString::Parse(std::string_view(request.target).substr(query + 1));
}

// An optional integer query parameter into `value` (left as it is when
// absent); INVALID_ARGUMENT naming it when it is not an integer.
absl::Status ReadIntParam(const httplib::Request& request, const char* name, int64_t& value) {
  const auto query = QueryOf(request);
  const auto param = query.find(name);
  if (param != query.end() && !absl::SimpleAtoi(param->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("query parameter \"", name, "\" is not an integer"));
  }
  return absl::OkStatus();
}

// PERMISSION_DENIED for a login another site (another port of this host
// included) sent the browser to: it could log the browser in as someone
// else. Browsers say where a request comes from in Sec-Fetch-Site ("none"
// for an address typed or pasted, or a link opened from a terminal).
absl::Status CheckLoginOrigin(const httplib::Request& request) {
  const std::string site = request.get_header_value("Sec-Fetch-Site");
  if (!site.empty() && site != "none" && site != "same-origin") {
    return absl::PermissionDeniedError(absl::StrCat(
        "a login from another site (Sec-Fetch-Site: ", site,
        ") is refused: it could log this browser in as someone else. Paste the login link "
        "into the address bar, or log in at /login"));
  }
  return absl::OkStatus();
}

void SendLoginPage(const absl::Status& status, httplib::Response& response) {
  response.status = status.ok() ? 200 : HttpStatusOf(status);
  response.set_content(LoginPage::Html(status.ok() ? "" : status.message()),
                       "text/html; charset=utf-8");
}

ApiRequest ToApiRequest(const httplib::Request& request, std::string authorization) {
  ApiRequest api;
  api.method = request.method;
  api.path = request.path;
  api.query = QueryOf(request);
  api.body = request.body;
  api.authorization = std::move(authorization);
  api.client_address =
      absl::StrCat(request.remote_addr.find(':') != std::string::npos ? "ipv6:[" : "ipv4:",
                   request.remote_addr,
                   request.remote_addr.find(':') != std::string::npos ? "]:" : ":",
                   request.remote_port);
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
    : options_(std::move(options)),
      gateway_(std::make_unique<ApiGateway>(channel)),
      feed_(std::make_unique<DashboardFeed>(std::move(channel))),
      stream_slots_(kMaxStreamsPerCaller),
      sessions_(kSessionLifetime, kMaxSessions) {}

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
  // A thread per connection (a fixed pool let slow connections and event
  // streams hold every thread), up to kMaxConnectionThreads.
  server_->new_task_queue = [] { return new ConnectionThreads(kMaxConnectionThreads); };
  // The listening socket, to give it a longer queue once it listens.
  int listening = -1;
  server_->set_socket_options([&listening](int socket) {
    httplib::default_socket_options(socket);
    listening = socket;
  });
  server_->set_default_headers(SecurityHeaders());
  RouteLogin();
  Route();
  RouteDashboard();
  const std::string host = UrlHost(options_.host);
  if (options_.port == 0) {
    bound_port_ = server_->bind_to_any_port(options_.host);
  } else if (server_->bind_to_port(options_.host, options_.port)) {
    bound_port_ = options_.port;
  }
  server_->set_socket_options(httplib::default_socket_options);
  if (bound_port_ > 0 && listening >= 0 && ::listen(listening, kListenBacklog) != 0) {
    spdlog::warn("the HTTP listener keeps a queue of 5 connections: listen: {}",
                 std::strerror(errno));
  }
  if (bound_port_ <= 0) {
    bound_port_ = 0;
    return absl::UnavailableError(absl::StrFormat(
        "the HTTP listener cannot listen on %s:%d (is another server using the port? "
        "--http-port picks another, --no-http turns it off)",
        host, options_.port));
  }
  cookie_name_ = SessionCookieName(bound_port_);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return bound_port_;
}

void HttpServer::Stop() {
  stopping_ = true;
  {
    absl::MutexLock lock(&streams_mutex_);
    for (grpc::ClientContext* context : log_streams_) context->TryCancel();
  }
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string HttpServer::Url() const {
  return absl::StrCat(options_.tls.enabled() ? "https" : "http", "://", UrlHost(options_.host),
                      ":", bound_port_, "/");
}

void HttpServer::Route() {
  // Answers an API request whose body, if it has one, is in `api`.
  const auto respond = [this](const httplib::Request& request, const ApiRequest& api,
                              httplib::Response& response) {
    const ApiResponse answer = gateway_->Handle(api);
    if (answer.status == 401 && request.get_header_value("Authorization").empty()) {
      // A session whose token was revoked or expired ends here.
      sessions_.Close(SessionIdFrom(request.get_header_value("Cookie"), cookie_name_));
    }
    response.status = answer.status;
    if (answer.content_type == "application/json") {
      SetJson(request, answer.body, response);
    } else {
      response.set_content(answer.body, answer.content_type.c_str());
    }
    if (answer.status >= 400) {
      spdlog::debug("HTTP {} {}: {}", request.method, request.path, answer.status);
    }
  };
  const auto api = [this, respond](const httplib::Request& request, httplib::Response& response) {
    if (const absl::Status csrf = CheckCsrfHeader(request, cookie_name_); !csrf.ok()) {
      SendError(csrf, response);
      return;
    }
    respond(request, ToApiRequest(request, CallerAuthorization(request)), response);
  };
  // A request with a body: nothing of it is read before its path, its CSRF
  // header and, when it must be inflated, its credentials have been checked,
  // and no more than kMaxRequestBodyBytes of it, as sent or inflated, is
  // ever held (http_limits.h).
  const auto api_with_body = [this, respond](const httplib::Request& request,
                                             httplib::Response& response,
                                             const httplib::ContentReader& reader) {
    absl::StatusOr<ApiRequest> api = ReadApiRequest(request, response, reader);
    if (!api.ok()) {
      SendError(api.status(), response);
      return;
    }
    respond(request, *api, response);
  };
  // A POST with no body and no Content-Length (curl -X POST URL:cancel) is
  // answered here: cpp-httplib 0.11 would refuse it with a bare 400 before
  // routing it.
  server_->set_pre_routing_handler(
      [api](const httplib::Request& request, httplib::Response& response) {
        if (!ApiGateway::IsApiPath(request.path) || request.has_header("Content-Length") ||
            request.has_header("Transfer-Encoding") || request.method == "GET") {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        api(request, response);
        return httplib::Server::HandlerResponse::Handled;
      });
  // A body whose Content-Length is over the limit is read and dropped as it
  // comes (413), never kept. (Answering a client that waits for "100
  // Continue" with 413 instead does not stop curl from sending the body,
  // which cpp-httplib then reads as one endless request line.)
  server_->set_payload_max_length(kMaxRequestBodyBytes);
  server_->Get("/v1/.*", api);
  // Every path, the dashboard's too: cpp-httplib reads the whole body of a
  // POST, PUT, PATCH or DELETE without a handler of this kind before it
  // answers 404.
  const std::string every_path = ".*";
  server_->Post(every_path, api_with_body);
  server_->Delete(every_path, api_with_body);
  server_->Put(every_path, api_with_body);
  server_->Patch(every_path, api_with_body);
}

absl::StatusOr<ApiRequest> HttpServer::ReadApiRequest(const httplib::Request& request,
                                                      httplib::Response& response,
                                                      const httplib::ContentReader& reader) {
  if (!ApiGateway::IsApiPath(request.path)) {
    return absl::NotFoundError(absl::StrCat("no ", request.method, " at ", request.path));
  }
  VERNIER_RETURN_IF_ERROR(CheckCsrfHeader(request, cookie_name_));
  if (request.is_multipart_form_data()) {
    return absl::InvalidArgumentError(
        "the request body is multipart/form-data; the API takes JSON (Content-Type: "
        "application/json)");
  }
  ApiRequest api = ToApiRequest(request, CallerAuthorization(request));
  const std::string encoding = request.get_header_value("Content-Encoding");
  if (!encoding.empty() && !absl::EqualsIgnoreCase(encoding, "identity")) {
    // A compressed body is inflated only for a known caller.
    VERNIER_RETURN_IF_ERROR(gateway_->Authenticate(api));
  }
  RequestBodyReader body(kMaxRequestBodyBytes, encoding);
  const bool read = reader(
      [&body](const char* data, size_t size) { return body.Append(std::string_view(data, size)); });
  VERNIER_ASSIGN_OR_RETURN(api.body, body.Finish(read, response.status));
  return api;
}

bool HttpServer::SendEvents(const absl::StatusOr<std::string>& events, httplib::DataSink& sink) {
  // A comment when nothing changed: a closed page fails the write.
  const std::string text =
      !events.ok()      ? absl::StrCat("event: failure\ndata: ", ErrorBody(events.status()), "\n\n")
      : events->empty() ? std::string(": nothing new\n\n")
                        : *events;
  if (!sink.write(text.data(), text.size())) return false;
  if (!events.ok() || !Pause(kEventInterval)) sink.done();
  return true;
}

bool HttpServer::Pause(std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + interval;
  while (!stopping_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !stopping_;
}

std::string HttpServer::CallerAuthorization(const httplib::Request& request) {
  return AuthorizationFor(request.get_header_value("Authorization"),
                          request.get_header_value("Cookie"), cookie_name_, sessions_);
}

void HttpServer::LogIn(const httplib::Request& request, const std::string& token,
                       httplib::Response& response) {
  absl::Status checked = CheckLoginOrigin(request);
  if (checked.ok() && token.empty()) {
    checked = absl::UnauthenticatedError("the login has no token (/?token=TOKEN)");
  }
  ApiRequest caller;
  caller.authorization = absl::StrCat("Bearer ", token);
  // The token is checked before any session exists: a bad one gets no cookie.
  if (checked.ok()) checked = gateway_->Authenticate(caller);
  if (!checked.ok()) {
    spdlog::debug("HTTP dashboard login refused: {}", absl::StatusCodeToString(checked.code()));
    SendLoginPage(checked, response);
    return;
  }
  absl::StatusOr<std::string> session = sessions_.Open(std::move(caller.authorization));
  if (!session.ok()) {
    SendLoginPage(session.status(), response);
    return;
  }
  // A session this browser held before ends.
  sessions_.Close(SessionIdFrom(request.get_header_value("Cookie"), cookie_name_));
  response.set_header("Set-Cookie", absl::StrCat(cookie_name_, "=", *session,
                                                 "; HttpOnly; SameSite=Strict; Path=/; Max-Age=",
                                                 absl::ToInt64Seconds(sessions_.lifetime()),
                                                 options_.tls.enabled() ? "; Secure" : ""));
  response.set_header("Cache-Control", "no-store");
  response.set_redirect("/", 303);
}

void HttpServer::RouteLogin() {
  // A form for the token, POSTed to /login: the token never is in a URL.
  server_->Get("/login", [](const httplib::Request&, httplib::Response& response) {
    SendLoginPage(absl::OkStatus(), response);
  });
  // (A handler that reads its body itself: cpp-httplib tries those first.)
  server_->Post("/login", [this](const httplib::Request& request, httplib::Response& response,
                                 const httplib::ContentReader& reader) {
    RequestBodyReader body(kMaxLoginBodyBytes, request.get_header_value("Content-Encoding"));
    const bool read = reader([&body](const char* data, size_t size) {
      return body.Append(std::string_view(data, size));
    });
    const absl::StatusOr<std::string> form = body.Finish(read, response.status);
    if (!form.ok()) {
      SendLoginPage(form.status(), response);
      return;
    }
    const auto fields = QueryString::Parse(*form);
    const auto token = fields.find("token");
    LogIn(request, token == fields.end() ? std::string() : token->second, response);
  });
}

void HttpServer::RouteDashboard() {
  // The dashboard's files; /?token=T logs in with T (LogIn) and reloads
  // without it in the URL.
  server_->Get(R"(/|/assets/[A-Za-z0-9._-]+)", [this](const httplib::Request& request,
                                                      httplib::Response& response) {
    const auto query = QueryOf(request);
    if (const auto token = query.find("token"); request.path == "/" && token != query.end()) {
      LogIn(request, token->second, response);
      return;
    }
    const web::WebAsset* asset = web::FindWebAsset(request.path);
    if (asset == nullptr) {
      SendError(absl::NotFoundError(absl::StrCat("no file ", request.path)), response);
      return;
    }
    if (absl::StartsWith(asset->content_type, "text/javascript")) {
      SetCompressed(request, std::string(asset->body), "application/javascript; charset=utf-8",
                    response);
    } else {
      response.set_content(std::string(asset->body), std::string(asset->content_type).c_str());
    }
  });
  // Server-sent events of jobs and studies: first everything, then what
  // changed. Each holds one of its caller's stream slots while it is open.
  const auto stream = [this](const std::string& authorization, auto poll,
                             httplib::Response& response) {
    absl::StatusOr<std::shared_ptr<void>> slot = stream_slots_.Take(authorization);
    if (!slot.ok()) {
      SendError(slot.status(), response);
      return;
    }
    auto seen = std::make_shared<ChangeTracker>();
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider(
        "text/event-stream", [this, seen, authorization, poll, slot = *std::move(slot)](
                                 size_t, httplib::DataSink& sink) {
          return SendEvents(poll(*seen, authorization), sink);
        });
  };
  server_->Get("/events", [this, stream](const httplib::Request& request,
                                         httplib::Response& response) {
    stream(CallerAuthorization(request),
           [this](ChangeTracker& seen, const std::string& authorization) {
             return feed_->ListEvents(seen, authorization);
           },
           response);
  });
  // A study's trials that changed since the stream opened (DashboardFeed
  // keeps the study's table; the stream, the last sequence number it sent).
  server_->Get(R"(/events/studies/([^/]+))",
               [this, stream](const httplib::Request& request, httplib::Response& response) {
                 const std::string study = request.matches[1];
                 auto sequence = std::make_shared<int64_t>(-1);
                 stream(
                     CallerAuthorization(request),
                     [this, study, sequence](ChangeTracker&, const std::string& authorization) {
                       return feed_->TrialEvents(study, *sequence, authorization);
                     },
                     response);
               });
  // The study page's bounded views (docs/web.md, "Server-side aggregates"):
  // the query's parameters set the request message's fields by name.
  const auto view = [this](const char* pattern, auto request_type, auto answer) {
    server_->Get(pattern, [this, request_type, answer](const httplib::Request& request,
                                                       httplib::Response& response) {
      decltype(request_type) fields;
      const ApiRequest api = ToApiRequest(request, CallerAuthorization(request));
      for (const auto& [name, value] : api.query) {
        if (const absl::Status set = SetFieldFromText(name, value, fields); !set.ok()) {
          SendError(set, response);
          return;
        }
      }
      const auto body = answer(request.matches[1], fields, api.authorization);
      if (!body.ok()) {
        SendError(body.status(), response);
        return;
      }
      std::string json;
      (void)google::protobuf::util::MessageToJsonString(*body, &json);
      SetJson(request, std::move(json), response);
    });
  };
  view(R"(/dashboard/studies/([^/]+)/trials)", v1::DashboardTrialsRequest(),
       [this](const std::string& study, const v1::DashboardTrialsRequest& fields,
              const std::string& authorization) {
         return feed_->Leaderboard(study, fields, authorization);
       });
  view(R"(/dashboard/studies/([^/]+)/summary)", v1::DashboardSummaryRequest(),
       [this](const std::string& study, const v1::DashboardSummaryRequest& fields,
              const std::string& authorization) {
         return feed_->Summary(study, fields, authorization);
       });
  view(R"(/dashboard/studies/([^/]+)/curves)", v1::DashboardCurvesRequest(),
       [this](const std::string& study, const v1::DashboardCurvesRequest& fields,
              const std::string& authorization) {
         return feed_->Curves(study, fields, authorization);
       });
  // A job's (or one trial's) logs as they are written: "event: log" per
  // line, "event: end" when the job has ended and every line was sent.
  server_->Get(R"(/events/jobs/([^/:]+)/logs)", [this](const httplib::Request& request,
                                                      httplib::Response& response) {
    v1::StreamLogsRequest logs;
    logs.set_job_id(request.matches[1]);
    logs.set_follow(true);
    int64_t trial_id = 0;
    if (const absl::Status read = ReadIntParam(request, "trialId", trial_id); !read.ok()) {
      SendError(read, response);
      return;
    }
    logs.set_trial_id(trial_id);
    const std::string authorization = CallerAuthorization(request);
    absl::StatusOr<std::shared_ptr<void>> slot = stream_slots_.Take(authorization);
    if (!slot.ok()) {
      SendError(slot.status(), response);
      return;
    }
    struct Stream {
      grpc::ClientContext context;
      std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader;
      std::shared_ptr<void> slot;
    };
    auto stream = std::make_shared<Stream>();
    stream->slot = *std::move(slot);
    {
      absl::MutexLock lock(&streams_mutex_);
      if (stopping_) return;
      log_streams_.insert(&stream->context);
    }
    stream->reader = feed_->OpenLogs(stream->context, logs, authorization);
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider(
        "text/event-stream",
        [stream](size_t, httplib::DataSink& sink) {
          v1::LogLine line;
          if (stream->reader->Read(&line)) {
            std::string json;
            (void)google::protobuf::util::MessageToJsonString(line, &json);
            const std::string text = absl::StrCat("event: log\ndata: ", json, "\n\n");
            return sink.write(text.data(), text.size());
          }
          const absl::Status status = FromGrpcStatus(stream->reader->Finish());
          const std::string text =
              status.ok() ? std::string("event: end\ndata: {}\n\n")
                          : absl::StrCat("event: failure\ndata: ", ErrorBody(status), "\n\n");
          sink.write(text.data(), text.size());
          sink.done();
          return true;
        },
        [this, stream](bool) {
          stream->context.TryCancel();
          absl::MutexLock lock(&streams_mutex_);
          log_streams_.erase(&stream->context);
        });
  });
}

}  // namespace vernier::http
