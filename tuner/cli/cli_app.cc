#include "tuner/cli/cli_app.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "text/control_chars.h"
#include "tls/listen_policy.h"
#include "tuner/cli/auth_commands.h"
#include "tuner/cli/command_context.h"
#include "tuner/cli/gcloud_flags.h"
#include "tuner/cli/job_commands.h"
#include "tuner/cli/output_format.h"
#include "tuner/cli/study_commands.h"
#include "tuner/cli/submit_environment.h"
#include "tuner/cli/vernier_client.h"
#include "tuner/config/training_input_parser.h"

namespace vernier::cli {
namespace {

constexpr char kDefaultServer[] = "127.0.0.1:7730";
constexpr char kSubmitExample[] =
    "vernier jobs submit training my_job --config hptuning.yaml --job-dir /tmp/my_job -- "
    "python3 -m trainer.task";

struct ClientFlags {
  std::string server;
  std::string format = "table";
  tls::ClientTlsOptions tls;
  std::string token;
  std::string token_file;
};

// CLI11's envname() cannot serve here: every command binds --server to the
// same variable, and CLI11 fills the environment value into the options of
// the commands that were not chosen too, over the flag's value.
std::string DefaultServer() {
  const char* from_environment = std::getenv("VERNIER_SERVER");
  return from_environment != nullptr && *from_environment != '\0' ? from_environment
                                                                  : kDefaultServer;
}

// A flag's default from the environment (see DefaultServer): empty if unset.
std::string FromEnvironment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// Storage for every flag of every command; only the chosen command's are read.
struct Flags {
  ClientFlags client;
  ServeFlags serve;
  SubmitJobOptions submit;
  std::string name;  // JOB_ID, STUDY or NAME of the command that takes one
  int page_size = 100;
  bool follow = false;
  int64_t trial_id = 0;
  int top = 10;
  std::vector<std::string> states;
  std::vector<std::string> filters;  // jobs list --filter
  // tokens create, studies/jobs share
  std::string user;
  std::string role;
  std::string expires = "0";
  bool all = false;
  // audit list
  std::string resource;
  std::string since;
  int limit = 0;
  // audit verify
  std::string head_hash;
};

void AddClientOptions(CLI::App* command, ClientFlags* flags) {
  command->add_option("--server", flags->server,
                      "Address of `vernier serve`, HOST:PORT (default: $VERNIER_SERVER, else " +
                          std::string(kDefaultServer) + ")");
  command->add_option("--format", flags->format, "Output format: table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->add_option("--tls-ca", flags->tls.ca_path,
                      "TLS: the CA (PEM) that verifies the server's certificate; TLS is on when "
                      "given (default: $VERNIER_TLS_CA)");
  command->add_option("--tls-cert", flags->tls.cert_path,
                      "Mutual TLS: this client's certificate (PEM) (default: $VERNIER_TLS_CERT)");
  command->add_option(
      "--tls-key", flags->tls.key_path,
      "Mutual TLS: the private key (PEM) of --tls-cert (default: $VERNIER_TLS_KEY)");
  command->add_option("--tls-server-name", flags->tls.server_name,
                      "TLS: the name to check in the server's certificate (default: the host of "
                      "--server, or $VERNIER_TLS_SERVER_NAME)");
  command->add_option("--token", flags->token,
                      "API token (default: $VERNIER_TOKEN, else --token-file, else the file "
                      "`vernier serve` wrote for its own user for --server; docs/security.md). "
                      "Prefer the file or the variable: a flag shows in `ps`");
  command->add_option("--token-file", flags->token_file,
                      "File (mode 0600) holding the API token (default: $VERNIER_TOKEN_FILE)");
}

// Whether the --config file names a packaged trainer's module; a file that
// cannot be read says no here (BuildJob reports why).
bool NamesAPythonModule(const std::string& config_path) {
  if (config_path.empty()) return false;
  absl::StatusOr<v1::TrainingInput> input = config::ParseTrainingInputFile(config_path);
  return input.ok() && !input->python_module().empty();
}

// Prints a parse error the way CLI11 does and maps it to our exit codes.
int ExitForParseError(const CLI::App& app, const CLI::ParseError& error, std::ostream& out,
                      std::ostream& err) {
  const int code = app.exit(error, out, err);
  return code == static_cast<int>(CLI::ExitCodes::Success) ? kExitSuccess : kExitUsage;
}

}  // namespace

CliApp::CliApp(CliDependencies dependencies) : dependencies_(std::move(dependencies)) {}

int CliApp::Run(int argc, const char* const* argv) const {
  return Run(std::vector<std::string>(argv, argv + argc));
}

int CliApp::Run(const std::vector<std::string>& arguments) const {
  std::ostream& out = *dependencies_.out;
  std::ostream& err = *dependencies_.err;

  // The trainer command is cut off before CLI11 sees the line, so that its
  // own flags (--lr=0.1) are never mistaken for ours.
  const auto separator = std::find(arguments.begin(), arguments.end(), "--");
  const bool has_trainer_command = separator != arguments.end();
  std::vector<std::string> cli_arguments(arguments.begin(), separator);
  if (cli_arguments.empty()) cli_arguments.push_back("vernier");

  Flags flags;
  flags.client.server = DefaultServer();
  flags.client.tls.ca_path = FromEnvironment("VERNIER_TLS_CA");
  flags.client.tls.cert_path = FromEnvironment("VERNIER_TLS_CERT");
  flags.client.tls.key_path = FromEnvironment("VERNIER_TLS_KEY");
  flags.client.tls.server_name = FromEnvironment("VERNIER_TLS_SERVER_NAME");
  if (has_trainer_command) flags.submit.command.assign(separator + 1, arguments.end());
  std::function<absl::Status()> action;

  const auto client_for = [this, &flags] {
    return VernierClient(VernierClient::Options{.address = flags.client.server,
                                                .connect_timeout = dependencies_.connect_timeout,
                                                .rpc_timeout = dependencies_.rpc_timeout,
                                                .tls = flags.client.tls,
                                                .token = flags.client.token,
                                                .token_file = flags.client.token_file});
  };
  const auto context_for = [this, &flags, &out] {
    return CommandContext{
        .out = &out,
        .format = flags.client.format == "json" ? OutputFormat::kJson : OutputFormat::kTable,
        .time_zone = dependencies_.time_zone,
        .now = dependencies_.now};
  };
  const auto job_action = [&](std::function<absl::Status(JobCommands&)> body) {
    return [&, body] {
      action = [&, body] {
        VernierClient client = client_for();
        JobCommands commands(&client, context_for());
        return body(commands);
      };
    };
  };
  const auto auth_action = [&](std::function<absl::Status(AuthCommands&)> body) {
    return [&, body] {
      action = [&, body] {
        VernierClient client = client_for();
        AuthCommands commands(&client, context_for());
        return body(commands);
      };
    };
  };
  const auto study_action = [&](std::function<absl::Status(StudyCommands&)> body) {
    return [&, body] {
      action = [&, body] {
        VernierClient client = client_for();
        StudyCommands commands(&client, context_for());
        return body(commands);
      };
    };
  };

  CLI::App app(
      "Vernier: a self-hosted hyperparameter tuning service.\n"
      "Client commands talk to `vernier serve` at --server, default $VERNIER_SERVER, "
      "else 127.0.0.1:7730.",
      "vernier");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("vernier ") + VERNIER_VERSION);

  // vernier serve
  CLI::App* serve = app.add_subcommand("serve", "Run the Vernier server in this process");
  serve->add_option("--host", flags.serve.host, "Address to listen on")->capture_default_str();
  serve->add_option("--port", flags.serve.port, "Port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve->add_option("--http-port", flags.serve.http_port,
                    "Port of the HTTP/JSON API and the dashboard, on --host with the same TLS "
                    "(default: 7731; any free port when --port is 0; 0: any free port; "
                    "docs/http-api.md)");
  serve->add_flag("--no-http", flags.serve.no_http,
                  "Serve gRPC only: no HTTP API and no dashboard");
  serve->add_option("--data-dir", flags.serve.data_dir,
                    "Directory of the SQLite database (default: $HOME/.vernier)");
  serve->add_option("--db", flags.serve.db_url,
                    "Storage: sqlite:PATH, a plain path, or postgresql://... "
                    "(default: DATA_DIR/vernier.db)");
  serve->add_option("--agent-path", flags.serve.agent_path,
                    "The vernier-agent binary (default: beside this binary)");
  serve->add_option("--podman", flags.serve.podman_path,
                    "The podman that runs replicas with an imageUri in containers (default: the "
                    "first podman on PATH; without one such jobs are refused)");
  serve
      ->add_option("--grace-period-ms", flags.serve.grace_period_ms,
                   "Time between SIGTERM and SIGKILL when a replica is stopped")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      ->add_option("--agent-timeout", flags.serve.agent_timeout,
                   "Fail a running trial whose agent sends no heartbeat or report for this long, "
                   "and end its processes (e.g. 30s, 2m; 0: never)")
      ->capture_default_str();
  serve
      ->add_option("--lease-time", flags.serve.lease_time,
                   "Servers sharing one PostgreSQL store: how long a server's hold on a job lasts "
                   "unrenewed, so how soon another server takes over the jobs of one that died "
                   "(e.g. 10s; see docs/postgresql.md)")
      ->capture_default_str();
  serve
      ->add_option("--store-outage-limit", flags.serve.store_outage_limit,
                   "How long the store (PostgreSQL, or SQLite's disk) may stay unavailable before "
                   "jobs that wait for it may fail; until then they wait and retry, and their "
                   "trials keep running (e.g. 10m; see docs/postgresql.md)")
      ->capture_default_str();
  serve
      ->add_option("--slurm-outage-limit", flags.serve.slurm_outage_limit,
                   "With --scheduler slurm: how long slurmctld may stay unreachable before a "
                   "trial that cannot be submitted (or a replica whose step cannot start) "
                   "fails; until then trials to start wait and retry, and running ones keep "
                   "running (e.g. 10m; see docs/slurm.md)")
      ->capture_default_str();
  serve
      ->add_option("--scheduler", flags.serve.scheduler,
                   "Where trials run: local (this machine) or slurm (one sbatch job per trial, "
                   "see docs/slurm.md)")
      ->capture_default_str();
  serve->add_option("--slurm-partition", flags.serve.slurm_partition,
                    "Slurm partition for the trials (default: the cluster's default)");
  serve->add_option("--slurm-command-timeout", flags.serve.slurm_command_timeout,
                    "How long a Slurm command (sinfo, sbatch, squeue, scancel) may take before "
                    "it counts as failed, e.g. 30s or 2m (default: 30s)");
  serve->add_option("--advertise-host", flags.serve.advertise_host,
                    "Host the agents dial to reach this server, e.g. its name on the cluster "
                    "network (default: --host)");
  serve->add_option("--gpus", flags.serve.gpus,
                    "GPUs replicas may be granted: indexes such as 0,1,2,3 (used as given), or "
                    "none (default: discovered through NVML or nvidia-smi, within "
                    "CUDA_VISIBLE_DEVICES)");
  serve
      ->add_option("--gpu-share", flags.serve.gpu_shares,
                   "USER=WEIGHT (repeatable, or comma-separated): the user's weight in the fair "
                   "share of the GPUs (local scheduler), 1 for users not named. Freed GPUs go to "
                   "the waiting trial of the user holding the fewest GPUs per weight "
                   "(docs/cli-reference.md)")
      ->delimiter(',');
  serve->add_option("--gpu-quota-per-user", flags.serve.gpu_quota_per_user,
                    "The most GPUs one user's trials may hold at once (local scheduler); beyond "
                    "it they wait even when GPUs are free (default: no quota)");
  serve
      ->add_option("--gpu-quota", flags.serve.gpu_quotas,
                   "USER=N (repeatable): this user's quota, in place of --gpu-quota-per-user "
                   "(0: no GPUs)")
      ->delimiter(',');
  serve->add_option("--gpu-quota-per-job", flags.serve.gpu_quota_per_job,
                    "The most GPUs one job's trials may hold at once (local scheduler; default: "
                    "no quota)");
  serve
      ->add_option("--slurm-account", flags.serve.slurm_accounts,
                   "USER=ACCOUNT (repeatable): the Slurm account (sbatch --account) the user's "
                   "trials are charged to, so that Slurm's fair share applies (docs/slurm.md)")
      ->delimiter(',');
  serve->add_flag("--slurm-account-from-owner", flags.serve.slurm_account_from_owner,
                  "Charge each user's trials to the Slurm account named after the user, unless "
                  "--slurm-account names another");
  serve
      ->add_option("--slurm-qos", flags.serve.slurm_qos,
                   "USER=QOS (repeatable): the Slurm QoS (sbatch --qos) of the user's trials")
      ->delimiter(',');
  serve
      ->add_option("--replica-ports", flags.serve.replica_ports,
                   "TCP ports (FIRST-LAST) for trials' replicas: TF_CONFIG addresses and "
                   "MASTER_PORT; no two running trials share one")
      ->capture_default_str();
  serve->add_option("--machine-types", flags.serve.machine_types,
                    "YAML of the machine types and scale tiers jobs may ask for, replacing the "
                    "built-in config/machine-types.yaml");
  serve->add_option("--tls-cert", flags.serve.tls_cert,
                    "TLS: the server's certificate (PEM, chain), re-read when it changes; with "
                    "--tls-key and --tls-ca (docs/security.md; scripts/make-certs.sh DIR makes "
                    "them)");
  serve->add_option("--tls-key", flags.serve.tls_key, "TLS: the server's private key (PEM)");
  serve->add_option("--tls-ca", flags.serve.tls_ca,
                    "TLS: the CA (PEM) that verifies the server's certificate; the trials' agents "
                    "get its path to check the server with");
  serve->add_option("--tls-client-ca", flags.serve.tls_client_ca,
                    "Mutual TLS: clients must present a certificate this CA (PEM) signed; its "
                    "subject CN names the caller. Needs --tls-agent-cert and --tls-agent-key");
  serve->add_option("--tls-agent-cert", flags.serve.tls_agent_cert,
                    "Mutual TLS: the client certificate (PEM) the trials' agents present; they "
                    "get its path, so it must be readable where they run");
  serve->add_option("--tls-agent-key", flags.serve.tls_agent_key,
                    "Mutual TLS: the private key (PEM) of --tls-agent-cert, by path like it");
  serve->add_option("--tls-server-name", flags.serve.tls_server_name,
                    "TLS: the name agents check in the server's certificate (default: the host "
                    "they dial, --advertise-host else --host; localhost for 0.0.0.0 or ::)");
  serve
      ->add_option("--tls-reload-interval", flags.serve.tls_reload_interval,
                   "TLS: how often the certificate, key and client CA files are re-read; "
                   "replaced files serve new connections, open ones stay (at least 1s)")
      ->capture_default_str();
  serve->add_flag("--insecure", flags.serve.insecure,
                  "Serve off loopback (--host other than 127.0.0.1, ::1, localhost) without TLS, "
                  "with a warning: anyone who reaches the port can run commands as this user");
  serve->add_flag("--audit-data-access", flags.serve.audit_data_access,
                  "The audit log also records reads and measurement writes (data access), "
                  "not only changes and refused calls");
  serve->add_option("--trial-user", flags.serve.trial_user,
                    "Run trainers and their agents as this unprivileged user, not as the server's: "
                    "the server must run as root, with the local scheduler; the data directory "
                    "(database, tokens) stays closed to them (docs/security.md)");
  serve->add_option("--log-level", flags.serve.log_level, "Log verbosity")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  serve->callback(
      [&] { action = [&] { return ServeCommand(dependencies_.run_server).Run(flags.serve); }; });

  // vernier jobs ...
  CLI::App* jobs = app.add_subcommand("jobs", "Submit, inspect, cancel and delete training jobs");
  jobs->require_subcommand(1);
  CLI::App* submit = jobs->add_subcommand("submit", "Submit a job");
  submit->require_subcommand(1);
  CLI::App* training =
      submit->add_subcommand("training", "Submit a hyperparameter tuning training job");
  training->footer(
      std::string("The trainer command follows `--`; its own flags stay its own:\n  ") +
      kSubmitExample);
  training
      ->add_option("JOB_ID", flags.submit.job_id,
                   "Letters, digits and underscores, starting with a letter")
      ->required();
  training
      ->add_option("--config", flags.submit.config_path,
                   "YAML file with the AI Platform `trainingInput:` block")
      ->required();
  training
      ->add_option("--job-dir", flags.submit.job_dir,
                   "Output directory; trial N writes to JOB_DIR/N")
      ->required();
  training->add_option("--package-path", flags.submit.package_path,
                       "A packaged trainer's package folder (gcloud's flag), copied at submit and "
                       "installed from the copy once per job; needs --module-name");
  training->add_option("--module-name", flags.submit.module_name,
                       "The module every replica runs as `python3 -P -m MODULE ARGS`; the words "
                       "after `--` are its ARGS");
  training
      ->add_option("--packages", flags.submit.packages,
                   "More packages to install: wheels, source archives or folders "
                   "(comma-separated)")
      ->delimiter(',');
  training
      ->add_option("--find-links", flags.submit.find_links,
                   "Folders of wheels and source archives for the packages' requirements, "
                   "installed offline with them (pip's --find-links; comma-separated)")
      ->delimiter(',');
  training
      ->add_option("--labels", flags.submit.labels,
                   "KEY=VALUE labels (comma-separated; gcloud's flag): stored, shown by `jobs "
                   "describe`, matched by `jobs list --filter labels.KEY=VALUE`")
      ->delimiter(',');
  training->add_option("--region", flags.submit.region,
                       "gcloud's flag: stored and shown, with a warning; no effect here");
  training->add_option("--runtime-version", flags.submit.runtime_version,
                       "gcloud's flag: stored and shown, with a warning; no effect here");
  training->add_option("--python-version", flags.submit.python_version,
                       "gcloud's flag: stored and shown, with a warning; no effect here (the "
                       "trials run the submitter's python3)");
  training->add_option("--env", flags.submit.env,
                       "NAME=VALUE: a variable every replica gets (repeatable); see "
                       "docs/jobs.md, \"The trial's environment\"");
  training->add_option("--env-file", flags.submit.env_file,
                       "File of NAME=VALUE lines every replica gets (# comments)");
  training->add_flag("--dry-run", flags.submit.dry_run,
                     "Print what the server would start for the first trial (the sbatch "
                     "script on Slurm) and create nothing");
  training->add_flag("--wait", flags.submit.wait,
                     "Stay until the job ends: a line per trial as it ends and the progress, "
                     "then the leaderboard; exit code 1 unless the job SUCCEEDED");
  training->add_flag("--stream-logs", flags.submit.stream_logs,
                     "As --wait, and print every replica's output meanwhile (gcloud's flag)");
  AddClientOptions(training, &flags.client);
  // Collected rather than refused, to say where the trainer command goes.
  training->allow_extras();
  training->callback(job_action([&](JobCommands& commands) {
    // The submitter's PATH, PYTHONPATH, ... go with the job (docs/jobs.md).
    flags.submit.submitter_env = SubmitterVariables(environ);
    return commands.Submit(flags.submit);
  }));

  CLI::App* describe_job = jobs->add_subcommand("describe", "Show a job, its trials and replicas");
  describe_job->add_option("JOB_ID", flags.name, "The job")->required();
  AddClientOptions(describe_job, &flags.client);
  describe_job->callback(job_action([&](JobCommands& commands) {
    const absl::Status status = commands.Describe(flags.name);
    // Plaintext off loopback reaches only a server started with --insecure.
    if (status.code() != absl::StatusCode::kUnavailable && !flags.client.tls.enabled() &&
        !tls::IsLoopbackAddress(flags.client.server)) {
      err << "warning: " << flags.client.server
          << " was reached without TLS, so it runs with --insecure: API tokens cross its "
             "network in the clear, and anyone who sees one can use it (see docs/security.md)"
          << std::endl;
    }
    return status;
  }));

  CLI::App* list_jobs = jobs->add_subcommand("list", "List the jobs");
  list_jobs->add_option("--page-size", flags.page_size, "Jobs per request (all pages are read)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  list_jobs
      ->add_option("--filter", flags.filters,
                   "Only jobs matching every term: labels.KEY=VALUE, labels.KEY, "
                   "state=STATE (repeat or separate with commas)")
      ->delimiter(',');
  AddClientOptions(list_jobs, &flags.client);
  list_jobs->callback(job_action(
      [&](JobCommands& commands) { return commands.List(flags.page_size, flags.filters); }));

  CLI::App* cancel_job = jobs->add_subcommand("cancel", "Cancel a job and stop its trials");
  cancel_job->add_option("JOB_ID", flags.name, "The job")->required();
  AddClientOptions(cancel_job, &flags.client);
  cancel_job->callback(
      job_action([&](JobCommands& commands) { return commands.Cancel(flags.name); }));

  CLI::App* delete_job = jobs->add_subcommand(
      "delete", "Delete an ended job with its study, trials and logs (trainer outputs stay)");
  delete_job->add_option("JOB_ID", flags.name, "The job")->required();
  AddClientOptions(delete_job, &flags.client);
  delete_job->callback(
      job_action([&](JobCommands& commands) { return commands.Delete(flags.name); }));

  CLI::App* stream_logs = jobs->add_subcommand("stream-logs", "Print the output of a job's trials");
  stream_logs->add_option("JOB_ID", flags.name, "The job")->required();
  stream_logs->add_flag("--follow", flags.follow, "Keep printing new lines until the job ends");
  stream_logs->add_option("--trial", flags.trial_id, "Only this trial (0: every trial)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  AddClientOptions(stream_logs, &flags.client);
  stream_logs->callback(job_action([&](JobCommands& commands) {
    return commands.StreamLogs(flags.name, flags.follow, flags.trial_id);
  }));

  // vernier trials ...
  CLI::App* trials = app.add_subcommand("trials", "Inspect the trials of a study");
  trials->require_subcommand(1);
  CLI::App* leaderboard =
      trials->add_subcommand("leaderboard", "The best trials of a job's study, best first");
  leaderboard->add_option("JOB_ID_OR_STUDY", flags.name, "A study; a job's study has its name")
      ->required();
  leaderboard->add_option("--top", flags.top, "How many trials (0: every ranked trial)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  AddClientOptions(leaderboard, &flags.client);
  leaderboard->callback(study_action(
      [&](StudyCommands& commands) { return commands.Leaderboard(flags.name, flags.top); }));

  CLI::App* describe_trial = trials->add_subcommand(
      "describe", "One trial: every metric of every measurement and the objective's curve");
  describe_trial->add_option("JOB_ID_OR_STUDY", flags.name, "A study; a job's study has its name")
      ->required();
  describe_trial->add_option("TRIAL_ID", flags.trial_id, "The trial (from 1)")
      ->required()
      ->check(CLI::PositiveNumber);
  AddClientOptions(describe_trial, &flags.client);
  describe_trial->callback(study_action(
      [&](StudyCommands& commands) { return commands.DescribeTrial(flags.name, flags.trial_id); }));

  CLI::App* list_trials = trials->add_subcommand("list", "List the trials of a study");
  list_trials->add_option("STUDY", flags.name, "The study")->required();
  list_trials
      ->add_option("--state", flags.states,
                   "Only trials in these states (repeat or separate with commas): requested, "
                   "active, stopping, succeeded, failed, infeasible, stopped-early")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& state) {
            absl::StatusOr<v1::Trial::State> parsed = ParseTrialState(state);
            return parsed.ok() ? std::string() : std::string(parsed.status().message());
          },
          "STATE"));
  AddClientOptions(list_trials, &flags.client);
  list_trials->callback(study_action([&](StudyCommands& commands) {
    std::vector<v1::Trial::State> states;
    for (const std::string& name : flags.states) {
      absl::StatusOr<v1::Trial::State> state = ParseTrialState(name);
      if (!state.ok()) return state.status();
      states.push_back(*state);
    }
    return commands.ListTrials(flags.name, states);
  }));

  // vernier studies ...
  CLI::App* studies = app.add_subcommand("studies", "Inspect and delete studies");
  studies->require_subcommand(1);
  CLI::App* list_studies = studies->add_subcommand("list", "List the studies");
  AddClientOptions(list_studies, &flags.client);
  list_studies->callback(
      study_action([&](StudyCommands& commands) { return commands.ListStudies(); }));

  CLI::App* describe_study =
      studies->add_subcommand("describe", "Show a study's search space, limits and trial counts");
  describe_study->add_option("NAME", flags.name, "The study")->required();
  AddClientOptions(describe_study, &flags.client);
  describe_study->callback(
      study_action([&](StudyCommands& commands) { return commands.Describe(flags.name); }));

  CLI::App* delete_study = studies->add_subcommand("delete", "Delete a study and its trials");
  delete_study->add_option("NAME", flags.name, "The study")->required();
  AddClientOptions(delete_study, &flags.client);
  delete_study->callback(
      study_action([&](StudyCommands& commands) { return commands.Delete(flags.name); }));

  CLI::App* share_study = studies->add_subcommand(
      "share", "Let another user read (viewer) or change (developer) a study you own");
  share_study->add_option("NAME", flags.name, "The study")->required();
  share_study->add_option("--user", flags.user, "The user to share with")->required();
  share_study->add_option("--role", flags.role, "viewer, developer, or none to unshare")
      ->required();
  AddClientOptions(share_study, &flags.client);
  share_study->callback(auth_action([&](AuthCommands& commands) {
    return commands.Share(/*job=*/false, flags.name, flags.user, flags.role);
  }));

  CLI::App* share_job = jobs->add_subcommand(
      "share", "Let another user read (viewer) or change (developer) a job you own, and its study");
  share_job->add_option("JOB_ID", flags.name, "The job")->required();
  share_job->add_option("--user", flags.user, "The user to share with")->required();
  share_job->add_option("--role", flags.role, "viewer, developer, or none to unshare")->required();
  AddClientOptions(share_job, &flags.client);
  share_job->callback(auth_action([&](AuthCommands& commands) {
    return commands.Share(/*job=*/true, flags.name, flags.user, flags.role);
  }));

  // vernier tokens ... (admin)
  CLI::App* tokens = app.add_subcommand("tokens", "Create, list and revoke API tokens (admin)");
  tokens->require_subcommand(1);
  CLI::App* create_token =
      tokens->add_subcommand("create", "Create an API token; it is shown once");
  create_token->add_option("--user", flags.user, "Whom the token stands for")->required();
  create_token->add_option("--role", flags.role, "viewer, developer or admin")->required();
  create_token
      ->add_option("--expires", flags.expires,
                   "Lifetime: a whole number with s, m, h or d (e.g. 30d); 0: never")
      ->capture_default_str();
  AddClientOptions(create_token, &flags.client);
  create_token->callback(auth_action([&](AuthCommands& commands) {
    return commands.CreateToken(flags.user, flags.role, flags.expires);
  }));
  CLI::App* list_tokens = tokens->add_subcommand("list", "List the API tokens (never the tokens)");
  list_tokens->add_flag("--all", flags.all, "Also revoked and expired ones");
  AddClientOptions(list_tokens, &flags.client);
  list_tokens->callback(
      auth_action([&](AuthCommands& commands) { return commands.ListTokens(flags.all); }));
  CLI::App* revoke_token = tokens->add_subcommand("revoke", "Revoke an API token at once");
  revoke_token->add_option("TOKEN_ID", flags.name, "The token's id (tokens list)")->required();
  AddClientOptions(revoke_token, &flags.client);
  revoke_token->callback(
      auth_action([&](AuthCommands& commands) { return commands.RevokeToken(flags.name); }));

  // vernier audit ... (admin)
  CLI::App* audit =
      app.add_subcommand("audit", "Read and verify the audit log (admin; docs/security.md)");
  audit->require_subcommand(1);
  CLI::App* list_audit = audit->add_subcommand("list", "List audit log entries, oldest first");
  list_audit->add_option("--user", flags.user, "Only this user's calls");
  list_audit->add_option("--resource", flags.resource,
                         "Only calls naming this study, job or token id");
  list_audit->add_option("--since", flags.since,
                         "Only calls since an RFC 3339 time or for a while (90m, 2h, 7d)");
  list_audit->add_option("--limit", flags.limit, "Only the newest N matching entries (0: all)")
      ->capture_default_str();
  AddClientOptions(list_audit, &flags.client);
  list_audit->callback(auth_action([&](AuthCommands& commands) {
    return commands.ListAudit(flags.user, flags.resource, flags.since, flags.limit);
  }));
  CLI::App* verify_audit = audit->add_subcommand(
      "verify", "Check the audit log's hash chain; fails if a row was changed or removed");
  verify_audit->add_option("--head", flags.head_hash,
                           "A head hash an earlier run printed (kept away from the server): "
                           "fail unless the log still holds it");
  AddClientOptions(verify_audit, &flags.client);
  verify_audit->callback(
      auth_action([&](AuthCommands& commands) { return commands.VerifyAudit(flags.head_hash); }));

  std::vector<const char*> argv;
  for (const std::string& argument : cli_arguments) argv.push_back(argument.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    if (training->parsed() && !training->remaining().empty()) {
      for (const std::string& extra : training->remaining()) {
        if (std::optional<std::string> advice = GcloudFlagAdvice(extra)) {
          throw CLI::ValidationError(*advice);
        }
      }
      // Most often a trainer command typed without the `--` before it.
      throw CLI::ValidationError(absl::StrCat(
          "unexpected arguments before `--`: ", absl::StrJoin(training->remaining(), " "),
          "\nPut the trainer command after `--`, e.g. ", kSubmitExample));
    }
    // A packaged trainer (--module-name, or pythonModule in the YAML) takes
    // only its arguments after `--`, if any.
    if (training->parsed() && flags.submit.command.empty() && flags.submit.module_name.empty() &&
        !NamesAPythonModule(flags.submit.config_path)) {
      throw CLI::ValidationError(
          has_trainer_command ? "the trainer command after `--` is empty"
                              : std::string("the trainer command is missing: end the line with "
                                            "`-- CMD ARGS...`, e.g. ") +
                                    kSubmitExample);
    }
    if (has_trainer_command && !training->parsed()) {
      throw CLI::ValidationError(
          "`-- CMD ARGS...` is only accepted by `vernier jobs submit training`");
    }
  } catch (const CLI::ParseError& error) {
    return ExitForParseError(app, error, out, err);
  }

  if (!action) {
    err << "no command given\nRun with --help for more information.\n";
    return kExitUsage;
  }
  const absl::Status status = action();
  out.flush();
  if (!status.ok()) {
    // The message may quote a name or a value from the server.
    err << "error: " << absl::StatusCodeToString(status.code()) << ": "
        << text::ControlChars::ForTerminal(std::string(status.message())) << std::endl;
    return kExitFailure;
  }
  return kExitSuccess;
}

}  // namespace vernier::cli
