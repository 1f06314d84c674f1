#include "tuner/server.h"

#include <fcntl.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "auth/token_file.h"
#include "common/status_macros.h"
#include "http/http_server.h"
#include "scheduler/trial_user.h"
#include "spdlog/spdlog.h"
#include "suggest/heap_retention.h"
#include "tls/listen_policy.h"
#include "tls/server_credentials.h"
#include "tls/tls_file_monitor.h"
#include "tuner/agent_service_impl.h"
#include "tuner/audit_log.h"
#include "tuner/audit_service_impl.h"
#include "tuner/auth_service_impl.h"
#include "tuner/authorized_services.h"
#include "tuner/backend_factory.h"
#include "tuner/data_dir_permissions.h"
#include "tuner/executable_search.h"
#include "tuner/grpc_socket_poller.h"
#include "tuner/job_controller.h"
#include "tuner/job_service_impl.h"
#include "tuner/local_admin_token.h"
#include "tuner/replica_environment.h"
#include "tuner/rpc_authorizer.h"
#include "tuner/single_server_lock.h"
#include "tuner/storage/storage_factory.h"
#include "tuner/study_manager.h"
#include "tuner/study_service_impl.h"

namespace vernier::tuner {
namespace {

// --host unix:PATH (or unix-abstract:NAME): gRPC listens on a Unix socket.
bool IsUnixSocket(const std::string& host) {
  return host.starts_with("unix:") || host.starts_with("unix-abstract:");
}

// Leaves out gRPC's reflection service, which linking grpc++_reflection adds
// to every server (docs/security.md: off loopback it is not offered).
class WithoutReflection final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    std::erase_if(*plugins, [](const std::unique_ptr<grpc::ServerBuilderPlugin>& plugin) {
      return plugin->name() == "proto_server_reflection";
    });
  }
};

// Names this process among the servers sharing a store, in logs and the
// store's job leases: host, PID and a random part (PIDs repeat).
std::string ServerId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrFormat("%s:%d:%08x", host[0] != '\0' ? host : "host", getpid(), random());
}

int shutdown_pipe[2] = {-1, -1};

// Idle gRPC handler threads kept for the next calls. gRPC's default keeps 2,
// so under load nearly every thread whose call ended exited and the next
// call started a new one: with 32 clients, about 2,000 threads were created
// and torn down a second, a quarter of the server's CPU
// (docs/benchmarks.md, "Handler threads kept").
constexpr int kIdleHandlerThreads = 256;

constexpr char kShutdownByte = 1;
constexpr char kHangupByte = 2;

void OnShutdownSignal(int) {
  const char byte = kShutdownByte;
  // Async-signal-safe: just wake the thread that waits for shutdown.
  [[maybe_unused]] ssize_t written = write(shutdown_pipe[1], &byte, 1);
}

// SIGHUP reloads nothing beyond what the server re-reads anyway (its TLS
// files, every --tls-reload-interval); it is logged rather than ending the
// server as by default.
void OnHangupSignal(int) {
  const char byte = kHangupByte;
  [[maybe_unused]] ssize_t written = write(shutdown_pipe[1], &byte, 1);
}

absl::Status InstallShutdownHandlers() {
  if (shutdown_pipe[0] < 0 && pipe2(shutdown_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  // A handler (not a blocked mask) so that the replicas we start, which
  // inherit the mask but not handlers, still get SIGTERM.
  struct sigaction action = {};
  action.sa_handler = OnShutdownSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  action.sa_handler = OnHangupSignal;
  sigaction(SIGHUP, &action, nullptr);
  return absl::OkStatus();
}

void WaitForShutdownSignal(const tls::ServerTlsOptions& tls) {
  char byte = 0;
  while (byte != kShutdownByte) {
    const ssize_t got = read(shutdown_pipe[0], &byte, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    if (byte != kHangupByte) continue;
    if (tls.enabled()) {
      spdlog::info("SIGHUP: the TLS files are re-read every {}s anyway; nothing else to reload",
                   absl::ToInt64Seconds(tls.reload_interval));
    } else {
      spdlog::info("SIGHUP: nothing to reload");
    }
  }
}

std::string DefaultDataDir() {
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr && *home != '\0' ? home : "/tmp", "/.vernier");
}

absl::StatusOr<std::string> DefaultAgentPath() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return absl::InternalError(absl::StrCat("cannot find this binary: ", error.message()));
  return (self.parent_path() / "vernier-agent").string();
}

// The podman that runs replicas with an image: `given` (--podman), which
// must be executable, or else the first podman on PATH (FindExecutable);
// empty when there is none (jobs with an imageUri are then refused at
// submit).
absl::StatusOr<std::string> FindPodman(const std::string& given) {
  if (!given.empty()) {
    if (access(given.c_str(), X_OK) != 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "--podman %s is missing or not executable; install podman or name it", given));
    }
    return given;
  }
  const char* path = std::getenv("PATH");
  return FindExecutable("podman", path != nullptr ? path : "");
}

}  // namespace

std::chrono::milliseconds HeartbeatIntervalFor(absl::Duration agent_timeout) {
  constexpr absl::Duration kLongest = absl::Seconds(5);
  if (agent_timeout <= absl::ZeroDuration()) return absl::ToChronoMilliseconds(kLongest);
  return absl::ToChronoMilliseconds(
      std::clamp(agent_timeout / 4, absl::Milliseconds(100), kLongest));
}

absl::Status RunServer(const ServerOptions& given) {
  // Debian's abseil checks every Mutex acquisition for lock-order cycles, a
  // few percent of the server's CPU under load (perf); the tests keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Suggestions reuse the heap's pages instead of faulting them in afresh.
  if (!suggest::RetainFreedHeap()) spdlog::debug("malloc keeps its default trim threshold");
  ServerOptions options = given;
  if (options.data_dir.empty()) options.data_dir = DefaultDataDir();
  std::optional<scheduler::TrialUser> trial_user;
  if (!options.trial_user.empty()) {
    if (options.scheduler != "local") {
      return absl::InvalidArgumentError(scheduler::kTrialUserNotOnSlurm);
    }
    VERNIER_ASSIGN_OR_RETURN(trial_user,
                             scheduler::TrialUser::Lookup(options.trial_user, geteuid()));
  }
  // Everything the server creates is its user's only (DataDirPermissions).
  umask(DataDirPermissions::kServerUmask);
  std::error_code error;
  std::filesystem::create_directories(options.data_dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrFormat("cannot create the data directory %s: %s",
                                                         options.data_dir, error.message()));
  }
  if (trial_user.has_value()) {
    VERNIER_RETURN_IF_ERROR(DataDirPermissions::OpenJobsTo(options.data_dir, *trial_user));
    spdlog::info(
        "trainers and agents run as {} (uid {}, gid {}); the data directory {} is closed "
        "to them but for its jobs' folders",
        trial_user->name, trial_user->uid, trial_user->gid, options.data_dir);
  }
  for (const std::string& warning : DataDirPermissions::Warnings(options.data_dir)) {
    spdlog::warn("{}", warning);
  }
  if (options.db_url.empty())
    options.db_url = absl::StrCat("sqlite:", options.data_dir, "/vernier.db");
  if (options.agent_path.empty()) {
    absl::StatusOr<std::string> agent = DefaultAgentPath();
    if (!agent.ok()) return agent.status();
    options.agent_path = *agent;
  }
  if (access(options.agent_path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "the trainer agent %s is missing or not executable; build vernier-agent or pass "
        "--agent-path",
        options.agent_path));
  }
  if (trial_user.has_value()) {
    if (absl::Status runnable = trial_user->CheckCanRun(options.agent_path); !runnable.ok()) {
      return absl::Status(runnable.code(),
                          absl::StrCat("the trainer agent: ", runnable.message(),
                                       ", or pass --agent-path a copy it can run"));
    }
  }

  VERNIER_ASSIGN_OR_RETURN(options.podman_path, FindPodman(options.podman_path));
  if (options.podman_path.empty()) {
    spdlog::info("containers: no podman found on PATH; jobs with an imageUri are refused");
  } else {
    spdlog::info("containers: replicas with an imageUri run with {}", options.podman_path);
  }

  VERNIER_RETURN_IF_ERROR(tls::CheckListenSecurity(options.host, options.tls, options.insecure));
  VERNIER_ASSIGN_OR_RETURN(const std::shared_ptr<grpc::ServerCredentials> credentials,
                           tls::MakeServerCredentials(options.tls, absl::Now()));

  std::shared_ptr<const config::MachineTypeCatalog> machine_types;
  if (!options.machine_types_path.empty()) {
    absl::StatusOr<config::MachineTypeCatalog> catalog =
        config::MachineTypeCatalog::Load(options.machine_types_path);
    if (!catalog.ok()) return catalog.status();
    machine_types = std::make_shared<const config::MachineTypeCatalog>(*std::move(catalog));
  }

  absl::StatusOr<std::unique_ptr<storage::Storage>> store = storage::OpenStorage(options.db_url);
  if (!store.ok()) return store.status();
  // A SQLite database belongs to one server; several share PostgreSQL.
  std::optional<SingleServerLock> single_server;
  VERNIER_ASSIGN_OR_RETURN(const std::string sqlite_path, storage::SqlitePathOf(options.db_url));
  if (!sqlite_path.empty()) {
    VERNIER_ASSIGN_OR_RETURN(SingleServerLock lock, SingleServerLock::Acquire(sqlite_path));
    single_server.emplace(std::move(lock));
  }
  VERNIER_RETURN_IF_ERROR(InstallShutdownHandlers());

  VERNIER_ASSIGN_OR_RETURN(SchedulerParts scheduler, MakeBackend(options, trial_user));
  StudyManager studies(**store, SystemClock());
  JobControllerOptions controller_options;
  controller_options.poll_interval = options.poll_interval;
  controller_options.lease_ttl = options.lease_time;
  // A SQLite store has one server (SingleServerLock): its id outlives a
  // restart, so a server restarted after a crash drives its jobs at once
  // rather than after the dead one's leases expire.
  controller_options.server_id =
      single_server.has_value() ? absl::StrCat("sole server of ", sqlite_path) : ServerId();
  controller_options.trials.launch.agent_path = options.agent_path;
  controller_options.trials.launch.grace_period = options.grace_period;
  controller_options.trials.launch.agent_tls = options.tls.ForAgents();
  // Replicas get the job's environment, not the server's (docs/jobs.md).
  controller_options.trials.launch.inherited_env = InheritedVariables(environ);
  if (const auto path = controller_options.trials.launch.inherited_env.find("PATH");
      path != controller_options.trials.launch.inherited_env.end()) {
    controller_options.submission.fallback_path = path->second;
  }
  controller_options.trials.launch.heartbeat_interval = HeartbeatIntervalFor(options.agent_timeout);
  controller_options.trials.agent_timeout = options.agent_timeout;
  controller_options.trials.store_outage_limit = options.store_outage_limit;
  controller_options.trials.slurm_outage_limit = options.slurm_outage_limit;
  controller_options.submission.default_job_root = absl::StrCat(options.data_dir, "/jobs");
  controller_options.submission.machine_types = std::move(machine_types);
  controller_options.trials.launch.podman_path = options.podman_path;
  controller_options.submission.podman_path = options.podman_path;
  if (options.scheduler != "local") {
    controller_options.submission.containers_unsupported =
        absl::StrCat("the ", options.scheduler, " scheduler does not run replicas in containers");
  }
  if (trial_user.has_value()) {
    controller_options.submission.containers_unsupported =
        absl::StrCat("this server runs trainers as the user ", trial_user->name,
                     " (--trial-user), and its agents cannot run podman as that user");
    controller_options.submission.packages_unsupported = absl::StrCat(
        "this server runs trainers as the user ", trial_user->name,
        " (--trial-user), but it would copy and build a packaged trainer's packages as its own "
        "user (root)");
  }
  JobController jobs(**store, studies, *scheduler.backend, *scheduler.admission, controller_options,
                     SystemClock());

  // Zero setup for one person: the admin token of this server's user.
  VERNIER_ASSIGN_OR_RETURN(const std::string admin_token,
                           EnsureLocalAdminToken(**store, options.data_dir, absl::Now()));

  StudyServiceImpl study_handlers(studies);
  JobServiceImpl job_handlers(jobs, **store, options.poll_interval);
  AgentServiceImpl agent_handlers(studies, jobs);
  // Every RPC passes the one gate (docs/security.md).
  // The audit log (docs/security.md) is written at the gate.
  AuditLog audit_log(**store, options.audit_data_access);
  RpcAuthorizer gate(**store, SystemClock());
  gate.set_audit_log(&audit_log);
  AuthorizedStudyService study_service(study_handlers, gate);
  AuthorizedJobService job_service(job_handlers, gate);
  AuthorizedAgentService agent_service(agent_handlers, gate);
  AuthServiceImpl auth_service(**store, gate, SystemClock());
  AuditServiceImpl audit_service(**store, audit_log, gate);

  // Health stays open, without a token: it tells only that the server is
  // up, and probes (Kubernetes, load balancers) send none. Reflection (the
  // services' schema, for grpcurl) only on loopback: it needs no token
  // either, and off loopback it would show anyone who reaches the port.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int bound_port = 0;
  // A Unix socket (unix:PATH) has no port: --port does not apply to it.
  const bool unix_socket = IsUnixSocket(options.host);
  const std::string address =
      unix_socket ? options.host : absl::StrCat(options.host, ":", options.port);
  builder.AddListeningPort(address, credentials, &bound_port);
  builder.RegisterService(&study_service);
  builder.RegisterService(&job_service);
  builder.RegisterService(&agent_service);
  builder.RegisterService(&auth_service);
  builder.RegisterService(&audit_service);
  if (!tls::IsLoopbackHost(options.host)) builder.SetOption(std::make_unique<WithoutReflection>());
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              kIdleHandlerThreads);
  // Declared before the server, so destroyed after it.
  GrpcSocketPoller socket_poller(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (bound_port == 0 && !unix_socket)) {
    return absl::UnavailableError(
        absl::StrFormat("cannot listen on %s (is another server using the port?)", address));
  }
  socket_poller.Start();
  const std::string bound_address =
      unix_socket ? options.host : absl::StrCat(options.host, ":", bound_port);
  // Where this user's CLI and Python client find the admin token by the
  // server's address alone; written before
  // anything says the server listens, so a client that waits for that finds it.
  const std::vector<std::string> client_token_files =
      unix_socket ? std::vector<std::string>{auth::TokenFileForAddress(bound_address)}
                  : ClientTokenFilesFor(options.host, bound_port);
  for (const std::string& file : client_token_files) {
    if (absl::Status written = auth::WriteTokenFile(file, admin_token); !written.ok()) {
      spdlog::warn("clients of this user will need --token: {}", written.ToString());
    }
  }
  // The HTTP API calls the same services over the in-process channel, so
  // every check of a gRPC call applies to it too.
  std::optional<http::HttpServer> http_server;
  if (options.serve_http) {
    // Browsers cannot dial a Unix socket: with one, the dashboard and the
    // HTTP API listen on loopback (--http-port), where every call still
    // needs a token.
    http_server.emplace(http::HttpServerOptions{.host = unix_socket ? "127.0.0.1" : options.host,
                                                .port = options.http_port,
                                                .tls = options.tls},
                        server->InProcessChannel(grpc::ChannelArguments()));
    const absl::StatusOr<int> http_port = http_server->Start();
    if (!http_port.ok()) {
      server->Shutdown(std::chrono::system_clock::now());
      return http_port.status();
    }
    // Before any "listening on" line, which those who start the server wait
    // for.
    spdlog::info("HTTP API and dashboard at {}", http_server->Url());
    std::cout << "vernier serve dashboard and HTTP API at " << http_server->Url() << std::endl;
    // The login link carries this user's admin token, as Jupyter's does:
    // printed on a terminal only, never into a log file or the server's log.
    if (isatty(STDOUT_FILENO) == 1) {
      std::cout << "Open the dashboard (this link logs you in as " << LocalUserName()
                << "; keep it private): " << http_server->Url() << "?token=" << admin_token
                << std::endl;
    } else {
      std::cout << "Log in to the dashboard with " << http_server->Url()
                << "?token=TOKEN, TOKEN from " << options.data_dir << "/admin.token" << std::endl;
    }
  }
  jobs.Start(options.advertise_host.empty()
                 ? bound_address
                 : absl::StrCat(options.advertise_host, ":", bound_port));
  spdlog::info("vernier serve listening on {} (store {}, data dir {}, {})", bound_address,
               storage::DescribeStorageUrl(options.db_url), options.data_dir,
               !options.tls.enabled() ? "no TLS"
               : options.tls.mutual() ? "mutual TLS: clients need a certificate"
                                      : "TLS");
  for (const std::string& warning :
       tls::ListenWarnings(options.host, options.tls, options.insecure)) {
    spdlog::warn("{}", warning);
  }
  // Says when replaced TLS files are good, and names a broken one.
  tls::TlsFileMonitor tls_files(options.tls);
  tls_files.Start();
  std::cout << "vernier serve listening on " << bound_address << std::endl;

  WaitForShutdownSignal(options.tls);
  spdlog::info("shutting down; running trials keep running and report to the next server");
  if (http_server.has_value()) http_server->Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  socket_poller.Stop();
  jobs.Stop();
  // Another server may have taken the port's file since.
  for (const std::string& file : client_token_files) {
    absl::StatusOr<std::string> kept = auth::ReadTokenFile(file);
    if (kept.ok() && *kept == admin_token) std::filesystem::remove(file, error);
  }
  return absl::OkStatus();
}

}  // namespace vernier::tuner
