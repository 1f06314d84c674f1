#include "tuner/local_admin_token.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "auth/api_token_codec.h"
#include "auth/token_file.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "tuner/auth_service_impl.h"
#include "tuner/clock.h"

namespace vernier::tuner {

std::string LocalUserName() {
  if (const passwd* entry = getpwuid(getuid()); entry != nullptr && entry->pw_name != nullptr) {
    return entry->pw_name;
  }
  const char* user = std::getenv("USER");
  return user != nullptr && *user != '\0' ? user : absl::StrCat("uid", getuid());
}

absl::StatusOr<std::string> EnsureLocalAdminToken(storage::Storage& store,
                                                  const std::string& data_dir, absl::Time now) {
  const std::string path = absl::StrCat(data_dir, "/admin.token");
  absl::StatusOr<std::string> kept = auth::ReadTokenFile(path);
  if (kept.ok()) {
    absl::StatusOr<v1::ApiToken> stored = store.FindApiToken(auth::HashToken(*kept));
    if (stored.ok() && !stored->has_revoke_time() &&
        (!stored->has_expire_time() || FromTimestamp(stored->expire_time()) > now)) {
      return *kept;
    }
    if (!stored.ok() && !absl::IsNotFound(stored.status())) return stored.status();
    spdlog::info("the admin token in {} is unknown to the store, revoked or expired; issuing a "
                 "new one",
                 path);
  } else if (!absl::IsNotFound(kept.status())) {
    return kept.status();
  }
  const std::string user = LocalUserName();
  VERNIER_ASSIGN_OR_RETURN(
      const v1::CreateTokenResponse issued,
      IssueApiToken(store, user, v1::ADMIN, absl::ZeroDuration(), "vernier serve", now));
  VERNIER_RETURN_IF_ERROR(auth::WriteTokenFile(path, issued.token()));
  spdlog::info("wrote the admin token of {} (id {}) to {}", user, issued.info().id(), path);
  return issued.token();
}

std::vector<std::string> ClientTokenFilesFor(const std::string& host, int port) {
  std::vector<std::string> hosts = {host};
  if (host == "0.0.0.0" || host == "::" || host == "[::]") {
    // Clients on this machine may dial any of its addresses or its name.
    hosts = {"127.0.0.1"};
    char name[256] = {};
    if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') hosts.push_back(name);
    ifaddrs* interfaces = nullptr;
    if (getifaddrs(&interfaces) == 0) {
      for (const ifaddrs* entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr) continue;
        const int family = entry->ifa_addr->sa_family;
        if (family != AF_INET && family != AF_INET6) continue;
        char text[INET6_ADDRSTRLEN] = {};
        const void* address =
            family == AF_INET
                ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr)
                : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr)->sin6_addr);
        if (inet_ntop(family, address, text, sizeof(text)) != nullptr) hosts.push_back(text);
      }
      freeifaddrs(interfaces);
    }
  }
  std::vector<std::string> files;
  for (const std::string& one : hosts) {
    const bool bare_v6 = one.find(':') != std::string::npos && one.front() != '[';
    const std::string file = auth::TokenFileForAddress(
        absl::StrCat(bare_v6 ? "[" : "", one, bare_v6 ? "]" : "", ":", port));
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  }
  return files;
}

}  // namespace vernier::tuner
