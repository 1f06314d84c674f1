#include "tls/listen_policy.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace vernier::tls {
namespace {

std::string Unbracketed(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

bool IsWildcard(std::string_view host) {
  const std::string bare = Unbracketed(host);
  return bare.empty() || bare == "0.0.0.0" || bare == "::" || bare == "*";
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host.starts_with("unix:") || host.starts_with("unix-abstract:")) return true;
  std::string bare = absl::AsciiStrToLower(Unbracketed(host));
  if (bare.ends_with(".")) bare.pop_back();
  if (bare == "localhost" || bare.ends_with(".localhost")) return true;
  in_addr v4;
  if (inet_pton(AF_INET, bare.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, bare.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    // ::ffff:127.x.y.z
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

bool IsLoopbackAddress(std::string_view address) {
  if (address.starts_with("unix:") || address.starts_with("unix-abstract:")) return true;
  if (address.starts_with("dns:///")) address.remove_prefix(7);
  if (address.starts_with("[")) {
    const size_t close = address.find(']');
    return close != std::string_view::npos && IsLoopbackHost(address.substr(0, close + 1));
  }
  const size_t colon = address.rfind(':');
  // More than one colon without brackets: an IPv6 address without a port.
  if (colon != std::string_view::npos && address.find(':') == colon) {
    address = address.substr(0, colon);
  }
  return IsLoopbackHost(address);
}

absl::Status CheckListenSecurity(std::string_view host, const ServerTlsOptions& tls, bool insecure) {
  if (insecure && tls.enabled()) {
    return absl::InvalidArgumentError("--insecure contradicts --tls-cert: leave one out");
  }
  if (tls.enabled() || insecure || IsLoopbackHost(host)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to serve on ", std::string(host),
      " without TLS: anyone who can reach it could run commands as this user. Add "
      "--tls-cert FILE --tls-key FILE --tls-ca FILE (scripts/make-certs.sh DIR makes them; see "
      "docs/security.md), listen on loopback (--host 127.0.0.1), or pass --insecure on a "
      "network you trust"));
}

std::vector<std::string> ListenWarnings(std::string_view host, const ServerTlsOptions& tls,
                                        bool insecure) {
  std::vector<std::string> warnings;
  if (insecure) {
    warnings.push_back(absl::StrCat(
        "--insecure: serving on ", std::string(host),
        " without TLS: API tokens cross the network in the clear, and anyone who sees one can "
        "use it"));
  } else if (tls.enabled() && !tls.mutual() && !IsLoopbackHost(host)) {
    warnings.push_back(absl::StrCat(
        "serving on ", std::string(host),
        " with TLS but without client certificates: callers are known by their API tokens "
        "alone; add --tls-client-ca to also require a certificate (docs/security.md)"));
  }
  return warnings;
}

std::string DefaultAgentServerName(std::string_view dialled_host) {
  if (IsWildcard(dialled_host)) return "localhost";
  return Unbracketed(dialled_host);
}

}  // namespace vernier::tls
