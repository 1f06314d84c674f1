#include "tls/tls_file_monitor.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tls/server_credentials.h"

namespace vernier::tls {

TlsFileMonitor::TlsFileMonitor(ServerTlsOptions options) : options_(std::move(options)) {}

TlsFileMonitor::~TlsFileMonitor() {
  stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

std::string TlsFileMonitor::Fingerprint() const {
  std::string fingerprint;
  for (const std::string* path : {&options_.cert_path, &options_.key_path, &options_.client_ca_path}) {
    if (path->empty()) continue;
    std::ifstream file(*path, std::ios::binary);
    std::ostringstream text;
    if (file) text << file.rdbuf();
    absl::StrAppend(&fingerprint, file ? "+" : "-", text.str().size(), ":", text.str(), "|");
  }
  return fingerprint;
}

std::optional<TlsFileMonitor::Change> TlsFileMonitor::Check(absl::Time now) {
  std::string fingerprint = Fingerprint();
  const bool first = !fingerprint_.has_value();
  if (!first && fingerprint == *fingerprint_) return std::nullopt;
  fingerprint_ = std::move(fingerprint);
  const absl::Status status = CheckServerTlsFiles(options_, now);
  const bool was_ok = ok_;
  ok_ = status.ok();
  if (first && ok_) return std::nullopt;
  if (!ok_) {
    return Change{false, absl::StrCat("TLS files changed and fail their checks; new connections "
                                      "fail until they are fixed (open ones stay): ",
                                      status.message())};
  }
  return Change{true, absl::StrCat(was_ok ? "TLS files replaced" : "TLS files fixed",
                                   ": new connections get the certificate in ", options_.cert_path,
                                   " as it is now within ",
                                   absl::FormatDuration(options_.reload_interval))};
}

void TlsFileMonitor::Start() {
  if (!options_.enabled() || thread_.joinable()) return;
  Check(absl::Now());
  thread_ = std::thread([this] {
    while (!stop_.WaitForNotificationWithTimeout(options_.reload_interval)) {
      if (std::optional<Change> change = Check(absl::Now()); change.has_value()) {
        if (change->ok) {
          spdlog::info("{}", change->message);
        } else {
          spdlog::error("{}", change->message);
        }
      }
    }
  });
}

}  // namespace vernier::tls
