// vernier-agent: runs one replica of a trial's training program and reports
// its measurements and exit to the Vernier service.
//
//   vernier-agent --server HOST:PORT --study S --trial T [flags] -- COMMAND [ARGS...]

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tls/channel_credentials.h"
#include "trainer-agent/agent.h"
#include "trainer-agent/agent_token.h"
#include "trainer-agent/server_target.h"

namespace {

std::atomic<int> stop_signal{0};

void RequestStop(int signal) { stop_signal.store(signal); }

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  // A closed log pipe must not kill the agent before it reports the exit.
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int main(int argc, char** argv) {
  static_assert(std::atomic<int>::is_always_lock_free, "signal handler needs a lock-free atomic");
  // Everything after the first "--" is the program, untouched by flag parsing.
  std::vector<std::string> command;
  int agent_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      agent_argc = i;
      command.assign(argv + i + 1, argv + argc);
      break;
    }
  }

  vernier::agent::AgentOptions options;
  int64_t grace_period_ms = 10'000;
  int64_t give_up_after_s = 3600;
  int64_t heartbeat_interval_ms = 5000;
  int64_t max_buffer_mb = 64;
  CLI::App app{"Runs one replica of a trial's training program and reports it to Vernier.",
               "vernier-agent"};
  app.add_option("--server", options.server,
                 "AgentService address, HOST:PORT or unix:PATH, or HOST:PORT,HOST:PORT,... of "
                 "servers sharing one store, tried in turn when one does not answer")
      ->required();
  app.add_option("--study", options.study, "Study name");
  app.add_option("--trial", options.trial, "Trial id");
  app.add_option("--role", options.role, "Replica role: master, worker or ps")
      ->capture_default_str();
  app.add_option("--index", options.index, "Replica index within the role")->capture_default_str();
  app.add_option("--attempt", options.attempt, "Which attempt of the trial this is (0: the first)")
      ->capture_default_str();
  app.add_option("--metric-tag", options.metric_tag, "Objective metric name (informative)");
  app.add_option("--metric-regex", options.metric_regex,
                 "RE2 pattern that finds metrics in the program's output: groups (?P<name>) and "
                 "(?P<value>), or one group per metric named after it; default: name=value");
  app.add_option("--trial-dir", options.trial_dir,
                 "Trial directory; the hypertune metrics file goes under .vernier/ in it");
  app.add_option("--grace-period-ms", grace_period_ms,
                 "Time between SIGTERM and SIGKILL when stopping the program")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--give-up-after-s", give_up_after_s,
                 "How long to keep retrying an unreachable service after the program exits")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--heartbeat-interval-ms", heartbeat_interval_ms,
                 "How often to tell the service the agent is alive (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-buffer-mb", max_buffer_mb,
                 "Unacknowledged measurements kept (on disk and in memory) before the oldest are "
                 "dropped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  vernier::tls::ClientTlsOptions tls;
  app.add_option("--tls-ca", tls.ca_path,
                 "TLS: the CA (PEM) that verifies the server's certificate; without it the agent "
                 "dials in plaintext");
  app.add_option("--tls-cert", tls.cert_path,
                 "Mutual TLS: the agent's client certificate (PEM), with --tls-key");
  app.add_option("--tls-key", tls.key_path, "Mutual TLS: the private key (PEM) of --tls-cert");
  app.add_option("--tls-server-name", tls.server_name,
                 "TLS: the name checked in the server's certificate (default: the host dialled; "
                 "needed with several servers)");
  app.add_option("--container", options.container,
                 "The podman container the program runs in (podman run --name NAME); removed "
                 "once the program ended");
  app.add_option("--podman", options.podman, "The podman binary that runs --container");
  app.footer("The program and its arguments follow '--'.");
  try {
    app.parse(agent_argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  if (command.empty()) {
    std::cerr << "vernier-agent: no program given; usage: vernier-agent --server ADDRESS "
                 "[flags] -- COMMAND [ARGS...]\n";
    return 2;
  }
  absl::StatusOr<std::vector<std::string>> targets = vernier::agent::ServerTargets(options.server);
  if (!targets.ok()) {
    std::cerr << "vernier-agent: " << targets.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      vernier::tls::MakeChannelCredentials(tls, absl::Now());
  if (!credentials.ok()) {
    std::cerr << "vernier-agent: " << credentials.status().message() << "\n";
    return 2;
  }
  options.reporter.credentials = *std::move(credentials);
  // The attempt's credential: from the file the server names in the
  // environment (never a flag, which `ps` would show); neither the variable
  // nor the token reaches the trainer.
  absl::StatusOr<std::string> token = vernier::agent::TakeAgentToken();
  if (!token.ok()) {
    std::cerr << "vernier-agent: " << token.status().message() << "\n";
    return 2;
  }
  options.reporter.token = *std::move(token);
  if (tls.enabled()) options.reporter.tls_server_name = tls.server_name;
  options.command = std::move(command);
  options.grace_period = absl::Milliseconds(grace_period_ms);
  options.give_up_after = absl::Seconds(give_up_after_s);
  options.heartbeat_interval = absl::Milliseconds(heartbeat_interval_ms);
  options.reporter.max_queued_bytes = static_cast<size_t>(max_buffer_mb) << 20;
  options.stop_signal = &stop_signal;

  InstallSignalHandlers();
  auto logger = vernier::agent::Agent::CreateLogger(options);
  vernier::agent::Agent agent(options, logger);
  return agent.Run();
}
