// End to end: `vernier serve --trial-user USER` (docs/security.md, "Trainers
// as another user"). The real server, run as root, starts each trial's
// agent and trainer as a throw-away system user: the trainer works in its
// job dir and reports its metrics through the agent, but cannot read the
// admin token, the database or its WAL, nor list the data directory.
// Without root, with an unknown user, with root itself or with Slurm the
// server refuses to start, naming the flag.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNeedsRoot[] =
    "--trial-user needs root (the server switches users, and the test makes a system user); "
    "the CI runs the tests as root";

// A system user made for the test and removed at its end.
class ThrowAwayUser {
 public:
  ThrowAwayUser() : name_("vtrial" + std::to_string(getpid())) {
    const CommandResult added =
        RunCommand({"useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                    "/nonexistent", "--shell", "/usr/sbin/nologin", name_});
    if (added.exit_code != 0) error_ = "useradd " + name_ + ": " + added.err + added.out;
  }
  ~ThrowAwayUser() {
    if (!error_.empty()) return;
    RunCommand({"userdel", name_});
    RunCommand({"groupdel", name_});
  }
  ThrowAwayUser(const ThrowAwayUser&) = delete;
  ThrowAwayUser& operator=(const ThrowAwayUser&) = delete;

  const std::string& name() const { return name_; }
  // Why the user could not be made; empty when it was.
  const std::string& error() const { return error_; }
  std::string uid() const { return Trimmed(RunCommand({"id", "-u", name_}).out); }

 private:
  static std::string Trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  std::string name_;
  std::string error_;
};

// A copy of the build's `binary` in `folder` (mode 0755), which any user may
// run wherever the build tree lies (under /root, say).
std::string RunnableCopy(const std::string& binary, const std::string& folder) {
  std::filesystem::create_directories(folder);
  EXPECT_EQ(chmod(folder.c_str(), 0755), 0);
  const std::string copy = folder + "/" + binary;
  std::filesystem::copy_file(BinaryPath(binary), copy,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(chmod(copy.c_str(), 0755), 0);
  return copy;
}

// Reports, into the trial's folder, who it runs as (and its agent, its
// parent) and what of the data directory it could read, then the metric.
std::vector<std::string> ProbingTrainer(const std::string& data_dir) {
  const std::string script =
      "for a; do case $a in --job-dir=*) d=${a#--job-dir=};; esac; done; "
      "D='" +
      data_dir +
      "'; "
      "probe() { if cat \"$D/$1\" >/dev/null 2>&1; then echo \"$1=read\"; "
      "else echo \"$1=denied\"; fi; }; "
      "{ echo \"uid=$(id -u) agent_uid=$(stat -c %u /proc/$PPID) home=$HOME\"; "
      "probe admin.token; probe vernier.db; probe vernier.db-wal; "
      "if ls \"$D\" >/dev/null 2>&1; then echo listing=read; else echo listing=denied; fi; "
      "} > \"$d/probe.txt\"; echo accuracy=0.5";
  return {"/bin/sh", "-c", script, "trainer"};
}

TEST(TrialUserTest, TrainersRunAsTheTrialUserAndCannotReadTheDataDirectory) {
  if (geteuid() != 0) GTEST_SKIP() << kNeedsRoot;
  ThrowAwayUser user;
  ASSERT_EQ(user.error(), "");
  TempDir dir;
  // The trial user must pass through the test's folder to the jobs'.
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
  const std::string agent = RunnableCopy("vernier-agent", dir.path() + "/bin");
  const std::string data_dir = dir.path() + "/data";
  ServerProcess server(data_dir, 0, {"--trial-user", user.name(), "--agent-path", agent});
  server.Start();
  // The harness's own log, not the server's business.
  ASSERT_EQ(chmod((data_dir + "/serve.log").c_str(), 0600), 0);
  EXPECT_THAT(server.log(), HasSubstr("trainers and agents run as " + user.name()));
  EXPECT_THAT(server.log(), Not(HasSubstr("other users may")));

  const std::string config = dir.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  const std::string job_dir = data_dir + "/jobs/separated";
  const CommandResult submitted =
      RunCommand(Submit(server, "separated", config, job_dir, ProbingTrainer(data_dir)),
                 std::chrono::seconds(60));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const v1::GetJobResponse job = WaitForJob(server, "separated", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();

  // The metric came through the agent.
  const std::vector<v1::Trial> trials = ListTrials(server, "separated");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::SUCCEEDED);
  ASSERT_EQ(trials[0].final_measurement().metrics_size(), 1);
  EXPECT_EQ(trials[0].final_measurement().metrics(0).value(), 0.5);

  const std::string probe = ReadFile(job_dir + "/" + std::to_string(trials[0].id()) + "/probe.txt");
  const std::string uid = user.uid();
  EXPECT_THAT(probe, HasSubstr("uid=" + uid + " agent_uid=" + uid + " home=/nonexistent\n"));
  EXPECT_THAT(probe, AllOf(HasSubstr("admin.token=denied"), HasSubstr("vernier.db=denied"),
                           HasSubstr("vernier.db-wal=denied"), HasSubstr("listing=denied")));
  EXPECT_THAT(probe, Not(HasSubstr("=read")));

  // The data directory only lets it through; the job's folder is its own.
  struct stat info = {};
  ASSERT_EQ(stat(data_dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0711u);
  ASSERT_EQ(stat((data_dir + "/admin.token").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, 0u);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  ASSERT_EQ(stat(job_dir.c_str(), &info), 0);
  EXPECT_EQ(std::to_string(info.st_uid), uid);
  server.Stop();
}

std::vector<std::string> ServeArgvWithoutHttp(const std::string& data_dir) {
  return {BinaryPath("vernier"), "serve", "--port", "0", "--no-http", "--data-dir", data_dir};
}

TEST(TrialUserTest, AnUnknownUserStopsTheServerAtStart) {
  TempDir dir;
  std::vector<std::string> argv = ServeArgvWithoutHttp(dir.path() + "/data");
  argv.insert(argv.end(), {"--trial-user", "no-such-vernier-user"});
  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  if (geteuid() == 0) {
    EXPECT_THAT(serve.err + serve.out,
                HasSubstr("--trial-user no-such-vernier-user: no such user on this machine"));
  } else {
    EXPECT_THAT(serve.err + serve.out, HasSubstr("--trial-user no-such-vernier-user needs the "
                                                 "server to run as root"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/data/vernier.db"));
}

TEST(TrialUserTest, RootIsRefusedAsTheTrialUser) {
  if (geteuid() != 0) GTEST_SKIP() << kNeedsRoot;
  TempDir dir;
  std::vector<std::string> argv = ServeArgvWithoutHttp(dir.path() + "/data");
  argv.insert(argv.end(), {"--trial-user", "root"});
  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out, HasSubstr("--trial-user root is root (uid 0)"));
}

TEST(TrialUserTest, AServerNotRunningAsRootIsRefused) {
  TempDir dir;
  std::vector<std::string> argv = ServeArgvWithoutHttp(dir.path() + "/data");
  argv.insert(argv.end(), {"--trial-user", "nobody"});
  if (geteuid() == 0) {
    // The server runs as nobody, from a copy it may run.
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    argv[0] = RunnableCopy("vernier", dir.path() + "/bin");
    argv.insert(argv.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }
  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30), {{"HOME", "/"}});
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out,
              HasSubstr("--trial-user nobody needs the server to run as root (it runs as uid "));
}

TEST(TrialUserTest, TheSlurmSchedulerIsRefused) {
  TempDir dir;
  std::vector<std::string> argv = ServeArgvWithoutHttp(dir.path() + "/data");
  argv.insert(argv.end(), {"--trial-user", "nobody", "--scheduler", "slurm"});
  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out, HasSubstr("--trial-user needs --scheduler local"));
}

TEST(TrialUserTest, AFolderAboveTheDataDirectoryThatKeepsTheUserOutStopsTheServer) {
  if (geteuid() != 0) GTEST_SKIP() << kNeedsRoot;
  TempDir dir;  // mode 0700: nobody may not enter it
  const std::string agent = RunnableCopy(
      "vernier-agent", "/tmp/" + std::string("vernier-agent-") + std::to_string(getpid()));
  std::vector<std::string> argv = ServeArgvWithoutHttp(dir.path() + "/data");
  argv.insert(argv.end(), {"--trial-user", "nobody", "--agent-path", agent});
  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30));
  std::filesystem::remove_all(std::filesystem::path(agent).parent_path());
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out,
              AllOf(HasSubstr("--trial-user nobody cannot enter " + dir.path() + " (mode 0700"),
                    HasSubstr("choose a --data-dir the trial user can reach")));
}

}  // namespace
}  // namespace vernier::testing
