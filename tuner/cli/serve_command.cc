#include "tuner/cli/serve_command.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "scheduler/gpu_inventory.h"
#include "scheduler/trial_user.h"
#include "tls/listen_policy.h"

namespace vernier::cli {
namespace {

constexpr int kDefaultHttpPort = 7731;

absl::StatusOr<std::string> AbsolutePath(const std::string& flag, const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " \"", path, "\": ", error.message()));
  }
  return absolute.lexically_normal().string();
}

// Only plain paths are relative to the working directory; URLs are passed
// through for the storage factory to read.
bool IsPlainPath(const std::string& db_url) {
  return db_url.find("://") == std::string::npos && !db_url.starts_with("sqlite:");
}

// A duration flag: seconds ("30") or a duration ("2m", "1m30s").
absl::StatusOr<absl::Duration> ParseDurationFlag(const std::string& flag, const std::string& text,
                                                 const std::string& zero_means) {
  absl::Duration duration;
  int64_t seconds = 0;
  if (absl::SimpleAtoi(text, &seconds)) {
    duration = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(text, &duration) || duration == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " \"", text, "\" is not a duration; use e.g. 30s, 2m or 1m30s",
                     zero_means.empty() ? "" : " (0 ", zero_means, zero_means.empty() ? "" : ")"));
  }
  if (duration < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", text, " is negative"));
  }
  if (duration == absl::ZeroDuration() && zero_means.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", text, " must be more than 0"));
  }
  return duration;
}

// The server's TLS from its flags: both of a pair or neither, the rest only
// beside --tls-cert, paths absolute (agents run elsewhere).
absl::StatusOr<tls::ServerTlsOptions> BuildTlsOptions(const ServeFlags& flags) {
  const auto pair_error = [](const std::string& given, const char* given_flag,
                             const std::string& other, const char* other_flag) -> absl::Status {
    if (!given.empty() && other.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(given_flag, " needs ", other_flag));
    }
    return absl::OkStatus();
  };
  VERNIER_RETURN_IF_ERROR(pair_error(flags.tls_cert, "--tls-cert", flags.tls_key, "--tls-key"));
  VERNIER_RETURN_IF_ERROR(pair_error(flags.tls_key, "--tls-key", flags.tls_cert, "--tls-cert"));
  VERNIER_RETURN_IF_ERROR(
      pair_error(flags.tls_agent_cert, "--tls-agent-cert", flags.tls_agent_key, "--tls-agent-key"));
  VERNIER_RETURN_IF_ERROR(
      pair_error(flags.tls_agent_key, "--tls-agent-key", flags.tls_agent_cert, "--tls-agent-cert"));
  tls::ServerTlsOptions tls;
  if (flags.tls_cert.empty()) {
    const std::pair<const char*, const std::string*> needing_tls[] = {
        {"--tls-ca", &flags.tls_ca},
        {"--tls-client-ca", &flags.tls_client_ca},
        {"--tls-agent-cert", &flags.tls_agent_cert},
        {"--tls-server-name", &flags.tls_server_name}};
    for (const auto& [flag, value] : needing_tls) {
      if (!value->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, " needs --tls-cert and --tls-key, which turn TLS on"));
      }
    }
    return tls;
  }
  if (flags.tls_ca.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert needs --tls-ca: the CA that verifies the server's certificate, which the "
        "trials' agents are given to check it (scripts/make-certs.sh writes DIR/ca.pem)");
  }
  if (!flags.tls_client_ca.empty() && flags.tls_agent_cert.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca (mutual TLS) needs --tls-agent-cert and --tls-agent-key: the client "
        "certificate the trials' agents present (scripts/make-certs.sh writes DIR/agent.pem and "
        "DIR/agent.key)");
  }
  if (flags.tls_client_ca.empty() && !flags.tls_agent_cert.empty()) {
    return absl::InvalidArgumentError(
        "--tls-agent-cert is for mutual TLS: it needs --tls-client-ca");
  }
  VERNIER_ASSIGN_OR_RETURN(
      const absl::Duration reload_interval,
      ParseDurationFlag("--tls-reload-interval", flags.tls_reload_interval, ""));
  if (reload_interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls-reload-interval ", flags.tls_reload_interval, " is under the shortest, 1s"));
  }
  tls.reload_interval = absl::Seconds(absl::ToInt64Seconds(reload_interval));
  const std::pair<std::string*, std::pair<const char*, const std::string*>> paths[] = {
      {&tls.cert_path, {"--tls-cert", &flags.tls_cert}},
      {&tls.key_path, {"--tls-key", &flags.tls_key}},
      {&tls.ca_path, {"--tls-ca", &flags.tls_ca}},
      {&tls.client_ca_path, {"--tls-client-ca", &flags.tls_client_ca}},
      {&tls.agent_cert_path, {"--tls-agent-cert", &flags.tls_agent_cert}},
      {&tls.agent_key_path, {"--tls-agent-key", &flags.tls_agent_key}}};
  for (const auto& [path, flag] : paths) {
    if (flag.second->empty()) continue;
    VERNIER_ASSIGN_OR_RETURN(*path, AbsolutePath(flag.first, *flag.second));
  }
  tls.agent_server_name =
      !flags.tls_server_name.empty()
          ? flags.tls_server_name
          : tls::DefaultAgentServerName(flags.advertise_host.empty() ? flags.host
                                                                     : flags.advertise_host);
  return tls;
}

// USER=VALUE, as --gpu-share, --gpu-quota, --slurm-account and --slurm-qos
// take them: the user before the first '=', neither part empty, each user
// once. `what` names the value in messages ("WEIGHT").
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseUserValues(
    const char* flag, const char* what, const std::vector<std::string>& entries) {
  std::map<std::string, std::string, std::less<>> values;
  for (const std::string& entry : entries) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " \"", entry, "\" is not USER=", what));
    }
    const std::string user = entry.substr(0, equals);
    if (!values.emplace(user, entry.substr(equals + 1)).second) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " names ", user, " twice"));
    }
  }
  return values;
}

// A GPU count of a quota: a whole number, at least `least`; `given` is the
// flag and value as messages show them.
absl::StatusOr<int> ParseQuota(const std::string& given, const std::string& text, int least) {
  int quota = 0;
  if (!absl::SimpleAtoi(text, &quota) || quota < least) {
    return absl::InvalidArgumentError(
        absl::StrCat(given, " is not a number of GPUs (a whole number, ", least, " or more)"));
  }
  return quota;
}

// A Slurm account or QoS name: one word, as sbatch takes it.
absl::Status CheckSlurmName(const char* flag, const std::string& user, const std::string& name) {
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) ||
        std::iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", user, "=\"", name, "\": a Slurm name has no spaces"));
    }
  }
  return absl::OkStatus();
}

// The local scheduler's fair share and quotas (--gpu-share, --gpu-quota-*).
absl::StatusOr<scheduler::GpuSharePolicy> BuildGpuSharePolicy(const ServeFlags& flags) {
  scheduler::GpuSharePolicy share;
  const bool any = !flags.gpu_shares.empty() || !flags.gpu_quota_per_user.empty() ||
                   !flags.gpu_quotas.empty() || !flags.gpu_quota_per_job.empty();
  if (any && flags.scheduler != "local") {
    return absl::InvalidArgumentError(
        "--gpu-share and --gpu-quota* are for --scheduler local; on Slurm, Slurm's own fair "
        "share applies (--slurm-account, --slurm-qos; docs/slurm.md)");
  }
  VERNIER_ASSIGN_OR_RETURN(const auto weights,
                           ParseUserValues("--gpu-share", "WEIGHT", flags.gpu_shares));
  for (const auto& [user, text] : weights) {
    double weight = 0;
    if (!absl::SimpleAtod(text, &weight) || !std::isfinite(weight) || weight <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("--gpu-share ", user, "=", text,
                                                     ": the weight is not a number more than 0"));
    }
    share.weights[user] = weight;
  }
  if (!flags.gpu_quota_per_user.empty()) {
    VERNIER_ASSIGN_OR_RETURN(
        share.quota_per_user,
        ParseQuota(absl::StrCat("--gpu-quota-per-user \"", flags.gpu_quota_per_user, "\""),
                   flags.gpu_quota_per_user, 1));
  }
  VERNIER_ASSIGN_OR_RETURN(const auto quotas,
                           ParseUserValues("--gpu-quota", "GPUS", flags.gpu_quotas));
  for (const auto& [user, text] : quotas) {
    VERNIER_ASSIGN_OR_RETURN(share.user_quotas[user],
                             ParseQuota(absl::StrCat("--gpu-quota ", user, "=", text), text, 0));
  }
  if (!flags.gpu_quota_per_job.empty()) {
    VERNIER_ASSIGN_OR_RETURN(
        share.quota_per_job,
        ParseQuota(absl::StrCat("--gpu-quota-per-job \"", flags.gpu_quota_per_job, "\""),
                   flags.gpu_quota_per_job, 1));
  }
  return share;
}

// The Slurm accounts and QoS of users' trials (--slurm-account, --slurm-qos).
absl::Status BuildSlurmFairShare(const ServeFlags& flags, tuner::ServerOptions& options) {
  const std::pair<const char*, bool> slurm_only[] = {
      {"--slurm-account", !flags.slurm_accounts.empty()},
      {"--slurm-account-from-owner", flags.slurm_account_from_owner},
      {"--slurm-qos", !flags.slurm_qos.empty()}};
  for (const auto& [flag, given] : slurm_only) {
    if (given && flags.scheduler != "slurm") {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs --scheduler slurm"));
    }
  }
  VERNIER_ASSIGN_OR_RETURN(const auto accounts,
                           ParseUserValues("--slurm-account", "ACCOUNT", flags.slurm_accounts));
  for (const auto& [user, account] : accounts) {
    VERNIER_RETURN_IF_ERROR(CheckSlurmName("--slurm-account", user, account));
    options.slurm_accounts[user] = account;
  }
  VERNIER_ASSIGN_OR_RETURN(const auto qos, ParseUserValues("--slurm-qos", "QOS", flags.slurm_qos));
  for (const auto& [user, name] : qos) {
    VERNIER_RETURN_IF_ERROR(CheckSlurmName("--slurm-qos", user, name));
    options.slurm_qos[user] = name;
  }
  options.slurm_account_from_owner = flags.slurm_account_from_owner;
  return absl::OkStatus();
}

}  // namespace

ServeCommand::ServeCommand(RunServerFunction run_server) : run_server_(std::move(run_server)) {}

absl::StatusOr<tuner::ServerOptions> ServeCommand::BuildServerOptions(const ServeFlags& flags,
                                                                      const char* home) {
  if (flags.port < 0 || flags.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--port ", flags.port, " is not a TCP port (0 to 65535, 0: any free port)"));
  }
  if (flags.http_port.has_value() && (*flags.http_port < 0 || *flags.http_port > 65535)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--http-port ", *flags.http_port, " is not a TCP port (0 to 65535, 0: any free port)"));
  }
  if (flags.http_port.has_value() && flags.no_http) {
    return absl::InvalidArgumentError("--http-port and --no-http exclude each other");
  }
  if (flags.http_port.has_value() && *flags.http_port != 0 && *flags.http_port == flags.port) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--http-port ", *flags.http_port, " is --port too: gRPC and HTTP need a port each"));
  }
  if (flags.grace_period_ms < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grace-period-ms ", flags.grace_period_ms, " is negative"));
  }
  absl::StatusOr<absl::Duration> agent_timeout =
      ParseDurationFlag("--agent-timeout", flags.agent_timeout, "turns the check off");
  if (!agent_timeout.ok()) return agent_timeout.status();
  absl::StatusOr<absl::Duration> lease_time =
      ParseDurationFlag("--lease-time", flags.lease_time, "");
  if (!lease_time.ok()) return lease_time.status();
  absl::StatusOr<absl::Duration> store_outage_limit =
      ParseDurationFlag("--store-outage-limit", flags.store_outage_limit, "");
  if (!store_outage_limit.ok()) return store_outage_limit.status();
  absl::StatusOr<absl::Duration> slurm_outage_limit =
      ParseDurationFlag("--slurm-outage-limit", flags.slurm_outage_limit, "");
  if (!slurm_outage_limit.ok()) return slurm_outage_limit.status();
  tuner::ServerOptions options;
  options.store_outage_limit = *store_outage_limit;
  options.slurm_outage_limit = *slurm_outage_limit;
  options.agent_timeout = *agent_timeout;
  options.lease_time = *lease_time;
  options.host = flags.host;
  options.port = flags.port;
  options.serve_http = !flags.no_http;
  options.http_port = flags.http_port.value_or(flags.port == 0 ? 0 : kDefaultHttpPort);
  options.grace_period = std::chrono::milliseconds(flags.grace_period_ms);
  if (flags.scheduler != "local" && flags.scheduler != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--scheduler \"", flags.scheduler, "\" is not local or slurm"));
  }
  if (!flags.slurm_partition.empty() && flags.scheduler != "slurm") {
    return absl::InvalidArgumentError("--slurm-partition needs --scheduler slurm");
  }
  if (!flags.slurm_command_timeout.empty()) {
    if (flags.scheduler != "slurm") {
      return absl::InvalidArgumentError("--slurm-command-timeout needs --scheduler slurm");
    }
    VERNIER_ASSIGN_OR_RETURN(
        options.slurm_command_timeout,
        ParseDurationFlag("--slurm-command-timeout", flags.slurm_command_timeout, ""));
  }
  if (!flags.trial_user.empty() && flags.scheduler != "local") {
    return absl::InvalidArgumentError(scheduler::kTrialUserNotOnSlurm);
  }
  options.trial_user = flags.trial_user;
  options.scheduler = flags.scheduler;
  VERNIER_ASSIGN_OR_RETURN(options.gpu_share, BuildGpuSharePolicy(flags));
  VERNIER_RETURN_IF_ERROR(BuildSlurmFairShare(flags, options));
  options.slurm_partition = flags.slurm_partition;
  options.advertise_host = flags.advertise_host;
  absl::StatusOr<scheduler::PortRange> replica_ports =
      scheduler::PortRange::Parse(flags.replica_ports);
  if (!replica_ports.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replica-ports: ", replica_ports.status().message()));
  }
  options.replica_ports = *replica_ports;
  VERNIER_ASSIGN_OR_RETURN(options.tls, BuildTlsOptions(flags));
  VERNIER_RETURN_IF_ERROR(tls::CheckListenSecurity(flags.host, options.tls, flags.insecure));
  options.insecure = flags.insecure;
  options.audit_data_access = flags.audit_data_access;

  std::string data_dir = flags.data_dir;
  if (data_dir.empty()) {
    if (home == nullptr || *home == '\0') {
      return absl::InvalidArgumentError(
          "--data-dir is required when HOME is not set (it defaults to $HOME/.vernier)");
    }
    data_dir = (std::filesystem::path(home) / ".vernier").string();
  }
  absl::StatusOr<std::string> absolute_data_dir = AbsolutePath("--data-dir", data_dir);
  if (!absolute_data_dir.ok()) return absolute_data_dir.status();
  options.data_dir = *absolute_data_dir;

  options.db_url = flags.db_url;
  if (!flags.db_url.empty() && IsPlainPath(flags.db_url)) {
    absl::StatusOr<std::string> absolute_db = AbsolutePath("--db", flags.db_url);
    if (!absolute_db.ok()) return absolute_db.status();
    options.db_url = *absolute_db;
  }
  if (!flags.agent_path.empty()) {
    absl::StatusOr<std::string> absolute_agent = AbsolutePath("--agent-path", flags.agent_path);
    if (!absolute_agent.ok()) return absolute_agent.status();
    options.agent_path = *absolute_agent;
  }
  if (!flags.podman_path.empty()) {
    absl::StatusOr<std::string> podman = AbsolutePath("--podman", flags.podman_path);
    if (!podman.ok()) return podman.status();
    options.podman_path = *podman;
  }
  if (!flags.machine_types.empty()) {
    absl::StatusOr<std::string> machine_types =
        AbsolutePath("--machine-types", flags.machine_types);
    if (!machine_types.ok()) return machine_types.status();
    options.machine_types_path = *machine_types;
  }
  return options;
}

absl::Status ServeCommand::Run(const ServeFlags& flags) const {
  absl::StatusOr<tuner::ServerOptions> options = BuildServerOptions(flags, std::getenv("HOME"));
  if (!options.ok()) return options.status();
  spdlog::set_level(spdlog::level::from_str(flags.log_level));
  absl::StatusOr<scheduler::GpuInventory> gpus = scheduler::TakeGpuInventory(
      flags.gpus, std::getenv("CUDA_VISIBLE_DEVICES"), scheduler::LocalGpuSources());
  if (!gpus.ok()) return gpus.status();
  options->gpus = gpus->gpus;
  spdlog::info("GPUs: {} (source: {}{}{})",
               gpus->gpus.empty() ? "none" : absl::StrJoin(gpus->gpus, ","), gpus->source,
               gpus->detail.empty() ? "" : "; ", gpus->detail);
  return run_server_(*options);
}

}  // namespace vernier::cli
