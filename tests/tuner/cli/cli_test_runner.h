#ifndef VERNIER_TESTS_TUNER_CLI_CLI_TEST_RUNNER_H_
#define VERNIER_TESTS_TUNER_CLI_CLI_TEST_RUNNER_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tuner/cli/cli_app.h"

namespace vernier::cli::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `vernier ARGS...` in process with captured streams. Times print in
// UTC; `dependencies` may set the clock, the server function and timeouts.
inline CliRun RunCli(const std::vector<std::string>& args, CliDependencies dependencies = {}) {
  std::ostringstream out;
  std::ostringstream err;
  dependencies.out = &out;
  dependencies.err = &err;
  dependencies.time_zone = absl::UTCTimeZone();
  std::vector<std::string> argv = {"vernier"};
  argv.insert(argv.end(), args.begin(), args.end());
  CliRun run;
  run.exit_code = CliApp(std::move(dependencies)).Run(argv);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// A loopback port that nothing listens on: bound, read, closed.
inline int ClosedLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace vernier::cli::testing

#endif  // VERNIER_TESTS_TUNER_CLI_CLI_TEST_RUNNER_H_
