#ifndef VERNIER_TESTS_SUPPORT_SERVER_PROCESS_H_
#define VERNIER_TESTS_SUPPORT_SERVER_PROCESS_H_

#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::testing {

// A real `vernier serve` on loopback, started from the build tree with its
// own data directory and stopped by PID.
class ServerProcess {
 public:
  // port 0 picks a free one; `extra_args` go to `vernier serve`.
  ServerProcess(std::string data_dir, int port = 0, std::vector<std::string> extra_args = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts it and waits until it listens; throws with the log when it fails.
  void Start();
  // SIGTERM, then SIGKILL after `grace`.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // SIGKILL: a crash.
  void Kill();

  int pid() const { return pid_; }
  int port() const { return port_; }
  // 127.0.0.1:PORT, or unix:PATH for a server on a Unix socket.
  std::string address() const {
    return !unix_address_.empty() ? unix_address_ : "127.0.0.1:" + std::to_string(port_);
  }
  std::string log() const;
  const std::string& data_dir() const { return data_dir_; }

  std::unique_ptr<v1::StudyService::Stub> StudyStub() const;
  std::unique_ptr<v1::JobService::Stub> JobStub() const;
  // What the stubs dial with (a server with --tls-cert); default: plaintext.
  void set_channel_credentials(std::shared_ptr<grpc::ChannelCredentials> credentials) {
    credentials_ = std::move(credentials);
  }

 private:
  std::string data_dir_;
  int port_;
  // Set when the server listens on a Unix socket (--host unix:PATH).
  std::string unix_address_;
  std::vector<std::string> extra_args_;
  std::string log_path_;
  int pid_ = -1;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
};

// `vernier serve` flags with replica ports of this test process's own
// (--replica-ports added to `flags`), so that tests run in parallel never hand
// their trainers the same port.
std::vector<std::string> WithReplicaPorts(std::vector<std::string> flags);

// A free loopback port below the kernel's ephemeral range
// (scripts/free-ports.sh), for a server that a test stops and starts again on
// the same port: a port 0 gave is ephemeral, and any connection the suite
// opens meanwhile may take it. Throws std::runtime_error when there is none.
int RestartablePort();

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SERVER_PROCESS_H_
