#ifndef VERNIER_HTTP_HTTP_SERVER_H_
#define VERNIER_HTTP_HTTP_SERVER_H_

#include <grpcpp/channel.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "http/dashboard_sessions.h"
#include "http/stream_slots.h"
#include "tls/tls_options.h"

namespace grpc {
class ClientContext;
}
namespace httplib {
class Server;
class DataSink;
class ContentReader;
struct Request;
struct Response;
}  // namespace httplib

namespace vernier::http {

class ApiGateway;
class DashboardFeed;
struct ApiRequest;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  // 0: any free port.
  int port = 7731;
  // The same certificate and key as gRPC's, read at start; with a client CA,
  // clients must present a certificate it signed.
  tls::ServerTlsOptions tls;
};

// `vernier serve`'s HTTP listener: the HTTP/JSON API (ApiGateway, forwarding
// to the gRPC service over `channel`) under /v1/, and the dashboard: its
// files (web/) at / and /assets/, its event streams under /events and its
// leaderboard pages, plot summaries and curves under /dashboard/
// (DashboardFeed), all through the same channel
// with the caller's credentials.
class HttpServer {
 public:
  HttpServer(HttpServerOptions options, std::shared_ptr<grpc::Channel> channel);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving on a thread of its own; answers the bound port.
  // UNAVAILABLE when the port is taken, FAILED_PRECONDITION when the TLS
  // files do not load.
  absl::StatusOr<int> Start();
  // Stops serving and waits for the thread; also done by the destructor.
  void Stop();

  // "http://HOST:PORT/" or "https://HOST:PORT/" once started.
  std::string Url() const;

 private:
  void Route();
  // An API request with its body, read through `reader` after the checks
  // that need none (the path, the CSRF header, the caller when the body is
  // compressed) and up to kMaxRequestBodyBytes; the first failed check's
  // error (413 for a body over the limit).
  absl::StatusOr<ApiRequest> ReadApiRequest(const httplib::Request& request,
                                            httplib::Response& response,
                                            const httplib::ContentReader& reader);
  // The caller's credentials: its Authorization header, else its dashboard
  // session's (caller_credentials.h).
  std::string CallerAuthorization(const httplib::Request& request);
  // GET and POST /login.
  void RouteLogin();
  // Logs the browser in with `token`, checked first: a new session in a
  // cookie and a redirect to /; a login page naming the error (401 for a
  // bad token, 403 for a login from another site) and no cookie otherwise.
  void LogIn(const httplib::Request& request, const std::string& token,
             httplib::Response& response);
  void RouteDashboard();
  // Waits up to `interval` unless the server is stopping; answers whether it
  // goes on.
  bool Pause(std::chrono::milliseconds interval);
  // Writes one look's events to an event stream (a comment when there are
  // none, "event: failure" and the end on an error), then waits for the
  // next look; answers false when the page has gone.
  bool SendEvents(const absl::StatusOr<std::string>& events, httplib::DataSink& sink);

  HttpServerOptions options_;
  std::unique_ptr<ApiGateway> gateway_;
  std::unique_ptr<DashboardFeed> feed_;
  std::atomic<bool> stopping_{false};
  // The calls of open log streams, cancelled by Stop.
  absl::Mutex streams_mutex_;
  std::set<grpc::ClientContext*> log_streams_ ABSL_GUARDED_BY(streams_mutex_);
  // The event streams each caller has open (kMaxStreamsPerCaller).
  StreamSlots stream_slots_;
  // The dashboard's sessions, and the name of their cookie (set by Start,
  // with the port).
  DashboardSessions sessions_;
  std::string cookie_name_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int bound_port_ = 0;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_HTTP_SERVER_H_
