#include "trainer-agent/server_target.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace vernier::agent {
namespace {

// The addresses of `host` in `family`, as text.
std::vector<std::string> Resolve(const std::string& host, int family) {
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::vector<std::string> addresses;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return addresses;
  for (addrinfo* entry = found; entry != nullptr; entry = entry->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(entry->ai_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(entry->ai_addr)->sin6_addr);
    if (inet_ntop(family, raw, text, sizeof(text)) != nullptr) addresses.push_back(text);
  }
  freeaddrinfo(found);
  return addresses;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ServerTargets(std::string_view servers) {
  if (servers.find(',') == std::string_view::npos)
    return std::vector<std::string>{std::string(servers)};
  std::vector<std::string> targets;
  const std::string list(servers);
  for (const std::string& entry : std::vector<std::string>(absl::StrSplit(list, ','))) {
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--server \"%s\" has an empty entry", list));
    }
    const size_t colon = entry.rfind(':');
    const std::string port_text = colon == std::string::npos ? "" : entry.substr(colon + 1);
    int port = 0;
    if (colon == std::string::npos || !absl::SimpleAtoi(port_text, &port) || port <= 0 ||
        port > 65535) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--server entry \"%s\" is not HOST:PORT (a list takes no unix: paths)", entry));
    }
    std::string host(entry.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (Resolve(host, AF_INET).empty() && Resolve(host, AF_INET6).empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--server entry \"%s\": host \"%s\" does not resolve", entry, host));
    }
    targets.push_back(entry);
  }
  return targets;
}

}  // namespace vernier::agent
