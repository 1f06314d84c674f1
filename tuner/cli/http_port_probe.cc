#include "tuner/cli/http_port_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "absl/cleanup/cleanup.h"
#include "absl/time/clock.h"

namespace vernier::cli {
namespace {

// Waits for `events` on `fd` until `deadline`.
bool WaitFor(int fd, short events, absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return false;
  pollfd entry{fd, events, 0};
  return poll(&entry, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) == 1 &&
         (entry.revents & events) != 0;
}

}  // namespace

bool HttpPortProbe::AnswersHttp1(const std::string& address, absl::Duration timeout) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    return false;
  }
  absl::Cleanup free_found = [found] { freeaddrinfo(found); };
  const absl::Time deadline = absl::Now() + timeout;
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  absl::Cleanup close_fd = [fd] { close(fd); };
  if (connect(fd, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS) return false;
  if (!WaitFor(fd, POLLOUT, deadline)) return false;
  int error = 0;
  socklen_t length = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) return false;
  constexpr std::string_view kRequest = "HEAD / HTTP/1.0\r\n\r\n";
  if (send(fd, kRequest.data(), kRequest.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(kRequest.size())) {
    return false;
  }
  std::string answer;
  char buffer[16];
  while (answer.size() < 7 && WaitFor(fd, POLLIN, deadline)) {
    const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) break;
    answer.append(buffer, static_cast<size_t>(got));
  }
  return answer.rfind("HTTP/1.", 0) == 0;
}

}  // namespace vernier::cli
