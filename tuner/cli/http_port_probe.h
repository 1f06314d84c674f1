#ifndef VERNIER_TUNER_CLI_HTTP_PORT_PROBE_H_
#define VERNIER_TUNER_CLI_HTTP_PORT_PROBE_H_

#include <string>

#include "absl/time/time.h"

namespace vernier::cli {

// Why a gRPC connection failed, when it is that --server names an HTTP/1.x
// server (`vernier serve`'s HTTP port, the dashboard's): one plain request,
// and whether the answer starts "HTTP/1.".
class HttpPortProbe {
 public:
  // `address` is HOST:PORT or [IPV6]:PORT; false when it cannot be reached
  // within `timeout` or answers anything else.
  static bool AnswersHttp1(const std::string& address, absl::Duration timeout);
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_HTTP_PORT_PROBE_H_
