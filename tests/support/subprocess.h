#ifndef VERNIER_TESTS_SUPPORT_SUBPROCESS_H_
#define VERNIER_TESTS_SUPPORT_SUBPROCESS_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace vernier::testing {

struct CommandResult {
  int exit_code = -1;  // 128+signal when killed; -1 when it timed out
  std::string out;
  std::string err;
};

// Runs a real program to completion (killing it after `timeout`), with its
// output captured.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60),
                         const std::map<std::string, std::string>& env = {});

// $VERNIER_BUILD_DIR/bin/NAME, as ctest sets it.
std::string BinaryPath(const std::string& name);
// $VERNIER_SOURCE_DIR/RELATIVE.
std::string SourcePath(const std::string& relative);

// A fresh directory under $TMPDIR, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The whole file; empty when it cannot be read.
std::string ReadFile(const std::string& path);

// Everything before the first newline (all of `text` when it has none).
std::string FirstLine(const std::string& text);

// Whether a process with this pid exists (and is not a zombie).
bool ProcessAlive(int pid);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SUBPROCESS_H_
