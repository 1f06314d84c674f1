// Fuzzes the agent's hypertune metrics file reader. The input is a series of
// snapshots of the file, each starting at a control byte:
//   \x01  the file is rewritten (truncated, then written) with what follows,
//         as the cloudml-hypertune library does
//   \x02  what follows is appended to the file, as vernier.report does
// Text before the first control byte is the file's first content. The reader
// polls after each snapshot and finishes after the last. Each snapshot gets
// its own modification time, so the run does not depend on the clock.
// Every measurement must carry at least one metric, each with a valid name
// and a finite value.
#include <fcntl.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/measurement_invariants.h"
#include "trainer-agent/output/hypertune_file_reader.h"

using vernier::agent::HypertuneFileReader;

namespace {

constexpr char kRewrite = '\x01';
constexpr char kAppend = '\x02';
constexpr char kControlBytes[] = {kRewrite, kAppend};

// One directory per fuzzing process, removed when it exits normally.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vernier-fuzz.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void Write(const std::string& path, std::string_view content, bool append, int64_t mtime) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) std::abort();
  while (!content.empty()) {
    const ssize_t written = write(fd, content.data(), content.size());
    if (written <= 0) std::abort();
    content.remove_prefix(static_cast<size_t>(written));
  }
  const timespec times[2] = {{mtime, 0}, {mtime, 0}};
  if (futimens(fd, times) != 0) std::abort();
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScratchDirectory scratch;
  static const auto logger =
      std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>());
  const std::string path = scratch.path() + "/hypertune.json";
  unlink(path.c_str());

  std::string_view input(reinterpret_cast<const char*>(data), size);
  HypertuneFileReader reader(path, logger);
  bool append = false;
  int64_t mtime = 1'000'000'000;
  while (true) {
    const size_t next = input.find_first_of(std::string_view(kControlBytes, 2));
    Write(path, input.substr(0, next), append, ++mtime);
    vernier::fuzz::CheckMeasurements(reader.Poll());
    if (next == std::string_view::npos) break;
    append = input[next] == kAppend;
    input.remove_prefix(next + 1);
  }
  vernier::fuzz::CheckMeasurements(reader.Finish());
  return 0;
}
