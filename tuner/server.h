#ifndef VERNIER_TUNER_SERVER_H_
#define VERNIER_TUNER_SERVER_H_

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "scheduler/gpu_share_policy.h"
#include "scheduler/port_allocator.h"
#include "tls/tls_options.h"

namespace vernier::tuner {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 7730;
  // Holds the SQLite database (vernier.db) unless `db_url` names a store.
  std::string data_dir;  // default: $HOME/.vernier
  std::string db_url;    // "sqlite:PATH", a plain path, or "postgresql://..."
  // The vernier-agent binary; default: beside the running vernier binary.
  std::string agent_path;
  // The podman that runs replicas with an image (a role's imageUri; see
  // docs/containers.md); empty: the first podman on PATH, if any.
  std::string podman_path;
  // How long a cancelled or stopped replica gets between SIGTERM and SIGKILL.
  std::chrono::milliseconds grace_period{10000};
  // How often the job controller looks at running jobs.
  std::chrono::milliseconds poll_interval{200};
  // A trial whose agent sends nothing for this long fails; zero: never.
  absl::Duration agent_timeout = absl::Seconds(60);
  // How long this server's lease of a job lasts unrenewed (servers sharing a
  // store; see JobController).
  absl::Duration lease_time = absl::Seconds(10);
  // How long the store may stay unavailable before jobs waiting for it may
  // fail (TrialRunSupervisorOptions::store_outage_limit).
  absl::Duration store_outage_limit = absl::Minutes(10);
  // How long slurmctld may stay unreachable before a trial that cannot be
  // submitted fails (TrialRunSupervisorOptions::slurm_outage_limit), or a
  // replica whose Slurm step cannot start (SbatchOptions::
  // slurmctld_wait_limit).
  absl::Duration slurm_outage_limit = absl::Minutes(10);
  // Where trials run: "local" (this machine) or "slurm" (one sbatch job per
  // trial; see docs/slurm.md).
  std::string scheduler = "local";
  // The Slurm partition trials go to; empty: the cluster's default.
  std::string slurm_partition;
  // How long a Slurm command (sinfo, sbatch, squeue, scancel) may take
  // before it counts as failed.
  absl::Duration slurm_command_timeout = absl::Seconds(30);
  // The host that agents (on Slurm, on the compute nodes) dial to reach
  // this server; empty: `host`.
  std::string advertise_host;
  // The TCP ports trials' replicas get (TF_CONFIG, MASTER_PORT).
  scheduler::PortRange replica_ports;
  // This machine's GPUs that replicas may be granted (device indexes).
  std::vector<int> gpus;
  // How users and jobs share `gpus` (the local scheduler's fair share and
  // quotas; docs/cli-reference.md, "Sharing the GPUs between users").
  scheduler::GpuSharePolicy gpu_share;
  // On Slurm: the account (sbatch --account) of each user's trials; users
  // not named get their own name with `slurm_account_from_owner`, else the
  // server user's default account. And the QoS (sbatch --qos) of each
  // user's trials (docs/slurm.md, "Fair share between users").
  std::map<std::string, std::string, std::less<>> slurm_accounts;
  bool slurm_account_from_owner = false;
  std::map<std::string, std::string, std::less<>> slurm_qos;
  // Machine types and scale tiers (YAML); empty: the built-in ones.
  std::string machine_types_path;
  // TLS of the server and of its agents' connections (docs/security.md).
  tls::ServerTlsOptions tls;
  // The HTTP/JSON API and the dashboard (docs/http-api.md), on `host` with
  // the same TLS: this port (0: any free one), unless `serve_http` is false.
  int http_port = 7731;
  bool serve_http = true;
  // Serves off loopback without TLS (tls::CheckListenSecurity), warning.
  bool insecure = false;
  // The audit log also records reads and measurement writes (data access),
  // not only changes and refusals.
  bool audit_data_access = false;
  // Trainers and their agents run as this user (docs/security.md,
  // "Trainers as another user"); empty: as the server's. Needs root and the
  // local scheduler.
  std::string trial_user;
};

// Serves StudyService, JobService, AgentService, AuthService and
// AuditService (with health checking and, on loopback, reflection) until
// SIGINT or SIGTERM. Returns the reason it could not start, or OK after a
// clean shutdown.
absl::Status RunServer(const ServerOptions& options);

// How often agents send heartbeats under `agent_timeout`: a quarter of it,
// between 100 ms and 5 s, so that a few lost beats never fail a trial.
std::chrono::milliseconds HeartbeatIntervalFor(absl::Duration agent_timeout);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_SERVER_H_
