#include "scheduler/nvidia_smi_gpu_source.h"

#include <stdio.h>
#include <sys/wait.h>

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace vernier::scheduler {

absl::StatusOr<std::vector<GpuDevice>> ListNvidiaSmiGpus() {
  // The shell reports a missing nvidia-smi as exit status 127.
  FILE* pipe = popen(absl::StrCat(kNvidiaSmiQuery, " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return absl::UnavailableError("cannot run nvidia-smi");
  std::string output;
  char buffer[4096];
  for (size_t read = 0; (read = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    output.append(buffer, read);
  }
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    return absl::UnavailableError("nvidia-smi is not on the PATH");
  }
  if (WEXITSTATUS(status) != 0) {
    return absl::UnavailableError(
        absl::StrCat("`", kNvidiaSmiQuery, "` exited with status ", WEXITSTATUS(status)));
  }
  return ParseNvidiaSmiGpus(output);
}

absl::StatusOr<std::vector<GpuDevice>> ParseNvidiaSmiGpus(std::string_view output) {
  std::vector<GpuDevice> devices;
  int line_number = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(output.data(), output.size()), '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    GpuDevice device;
    if (fields.size() > 2 ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[0]), &device.index) ||
        device.index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("nvidia-smi output line ", line_number, " \"",
                                                     std::string(line),
                                                     "\" is not \"INDEX, UUID\""));
    }
    if (fields.size() == 2) device.uuid = std::string(absl::StripAsciiWhitespace(fields[1]));
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace vernier::scheduler
