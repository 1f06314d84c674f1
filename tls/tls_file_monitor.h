#ifndef VERNIER_TLS_TLS_FILE_MONITOR_H_
#define VERNIER_TLS_TLS_FILE_MONITOR_H_

#include <optional>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "tls/tls_options.h"

namespace vernier::tls {

// Looks at the server's TLS files as often as gRPC re-reads them, and says
// when what it sees changes: replaced files that pass CheckServerTlsFiles
// (served to new connections from then on), or files that no longer do
// (gRPC then fails new handshakes until they are fixed), naming the file
// and the problem. The start-time checks, repeated for the life of the
// server.
class TlsFileMonitor {
 public:
  struct Change {
    bool ok = true;
    std::string message;
  };

  explicit TlsFileMonitor(ServerTlsOptions options);
  ~TlsFileMonitor();
  TlsFileMonitor(const TlsFileMonitor&) = delete;
  TlsFileMonitor& operator=(const TlsFileMonitor&) = delete;

  // One look at `now`: the change since the last look (the first look
  // takes the files as the ones the server started with), or nothing.
  std::optional<Change> Check(absl::Time now);

  // Looks every reload_interval on a thread of its own, logging each
  // change (spdlog: info when good, error when not), until destroyed.
  // Nothing when TLS is off.
  void Start();

 private:
  // The files' contents, to tell a replacement from the same files.
  std::string Fingerprint() const;

  const ServerTlsOptions options_;
  std::optional<std::string> fingerprint_;
  bool ok_ = true;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace vernier::tls

#endif  // VERNIER_TLS_TLS_FILE_MONITOR_H_
