#include "tests/support/server_process.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/source_script.h"
#include "tests/support/subprocess.h"
#include "tests/support/token_channel.h"

namespace vernier::testing {

ServerProcess::ServerProcess(std::string data_dir, int port, std::vector<std::string> extra_args)
    : data_dir_(std::move(data_dir)), port_(port), extra_args_(std::move(extra_args)) {
  std::filesystem::create_directories(data_dir_);
  log_path_ = data_dir_ + "/serve.log";
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) Stop(std::chrono::seconds(5));
}

std::string ServerProcess::log() const {
  std::ifstream file(log_path_);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void ServerProcess::Start() {
  std::vector<std::string> argv = {BinaryPath("vernier"), "serve",      "--port",
                                   std::to_string(port_), "--data-dir", data_dir_,
                                   "--grace-period-ms",   "2000"};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  // A free HTTP port too, also when restarted on a given gRPC port: tests
  // run side by side and never share the default 7731.
  if (std::find_if(extra_args_.begin(), extra_args_.end(), [](const std::string& arg) {
        return arg.starts_with("--http-port") || arg == "--no-http";
      }) == extra_args_.end()) {
    argv.insert(argv.end(), {"--http-port", "0"});
  }
  const size_t log_start = log().size();
  // Everything the child needs is made before fork(): between fork() and
  // exec() a child of a process with threads (the tests' clients) may only
  // make async-signal-safe calls. An allocation there can hang for good
  // when another thread held the allocator's lock at the fork (seen under
  // AddressSanitizer).
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  const char* log_path = log_path_.c_str();
  pid_ = fork();
  if (pid_ == 0) {
    const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  // Any host (--host 0.0.0.0 too); address() dials it on 127.0.0.1. A
  // Unix socket (--host unix:PATH) has no port.
  const std::regex listening("vernier serve listening on (unix:\\S+|\\S+:(\\d+))");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = log().substr(log_start);
    std::smatch match;
    if (std::regex_search(text, match, listening)) {
      if (match[2].matched) {
        port_ = std::stoi(match[2]);
      } else {
        unix_address_ = match[1];
      }
      return;
    }
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("vernier serve exited at start:\n" + text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("vernier serve did not start within 30 s:\n" + log());
}

void ServerProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill();
}

void ServerProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::unique_ptr<v1::StudyService::Stub> ServerProcess::StudyStub() const {
  return v1::StudyService::NewStub(ChannelWithLocalToken(
      address(), credentials_ != nullptr ? credentials_ : grpc::InsecureChannelCredentials()));
}

std::unique_ptr<v1::JobService::Stub> ServerProcess::JobStub() const {
  return v1::JobService::NewStub(ChannelWithLocalToken(
      address(), credentials_ != nullptr ? credentials_ : grpc::InsecureChannelCredentials()));
}

std::vector<std::string> WithReplicaPorts(std::vector<std::string> flags) {
  const int first = 20000 + static_cast<int>(getpid() % 400) * 100;
  flags.push_back("--replica-ports");
  flags.push_back(std::to_string(first) + "-" + std::to_string(first + 99));
  return flags;
}

int RestartablePort() {
  const absl::StatusOr<std::string> port = RunSourceScript("free-ports.sh");
  if (!port.ok()) throw std::runtime_error(std::string(port.status().message()));
  return std::stoi(*port);
}

}  // namespace vernier::testing
