#ifndef VERNIER_TUNER_CLI_SERVE_COMMAND_H_
#define VERNIER_TUNER_CLI_SERVE_COMMAND_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/server.h"

namespace vernier::cli {

// The flags of `vernier serve`, as typed.
struct ServeFlags {
  std::string host = "127.0.0.1";
  int port = 7730;
  // The HTTP API and dashboard's port; unset: 7731, or any free port when
  // `port` is 0 (so tests and scripts that ask for a free port get two).
  std::optional<int> http_port;
  // No HTTP listener at all.
  bool no_http = false;
  std::string data_dir;  // empty: $HOME/.vernier
  std::string db_url;
  std::string agent_path;
  // The podman for replicas with an imageUri; empty: the first on PATH.
  std::string podman_path;
  int64_t grace_period_ms = 10000;
  // A duration ("30s", "2m", "500ms") or plain seconds; "0" turns it off.
  std::string agent_timeout = "60s";
  std::string lease_time = "10s";
  // A duration or plain seconds, more than 0.
  std::string store_outage_limit = "10m";
  std::string slurm_outage_limit = "10m";
  std::string log_level = "info";
  std::string scheduler = "local";
  std::string slurm_partition;
  // A duration ("30s", "2m") or plain seconds; empty: 30s.
  std::string slurm_command_timeout;
  std::string advertise_host;
  // FIRST-LAST: the TCP ports trials' replicas get.
  std::string replica_ports = "20000-29999";
  // The GPUs to grant: "0,1,2,3" (trusted as given), "none", or empty to
  // discover them (NVML, then nvidia-smi; CUDA_VISIBLE_DEVICES respected).
  std::string gpus;
  // USER=WEIGHT, one per user (docs/cli-reference.md, "Sharing the GPUs
  // between users"); unnamed users weigh 1.
  std::vector<std::string> gpu_shares;
  // Whole numbers; empty: no quota.
  std::string gpu_quota_per_user;
  std::vector<std::string> gpu_quotas;  // USER=N
  std::string gpu_quota_per_job;
  // On Slurm: USER=ACCOUNT and USER=QOS, and accounts named after owners.
  std::vector<std::string> slurm_accounts;
  bool slurm_account_from_owner = false;
  std::vector<std::string> slurm_qos;
  std::string machine_types;  // empty: the built-in config/machine-types.yaml
  // TLS (see docs/security.md): PEM files, made absolute.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  std::string tls_client_ca;
  std::string tls_agent_cert;
  std::string tls_agent_key;
  std::string tls_server_name;  // empty: the host agents dial
  std::string tls_reload_interval = "10s";
  // Serve off loopback without TLS.
  bool insecure = false;
  // Also audit reads and measurement writes (data access).
  bool audit_data_access = false;
  // Trainers and agents run as this user; empty: as the server's.
  std::string trial_user;
};

// `vernier serve`: turns the flags into tuner::ServerOptions and runs the
// server in this process. The server function is injected so that the
// command can be tested without one (and so that the CLI classes link
// without the server).
class ServeCommand {
 public:
  using RunServerFunction = std::function<absl::Status(const tuner::ServerOptions&)>;

  explicit ServeCommand(RunServerFunction run_server);

  // `home` is $HOME, or nullptr where it is unset. Paths become absolute so
  // that the server's working directory does not matter.
  static absl::StatusOr<tuner::ServerOptions> BuildServerOptions(const ServeFlags& flags,
                                                                 const char* home);

  // Sets the spdlog level, takes the GPU inventory (logged with its
  // source), then blocks in the server until it stops.
  absl::Status Run(const ServeFlags& flags) const;

 private:
  RunServerFunction run_server_;
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_SERVE_COMMAND_H_
