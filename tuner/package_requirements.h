#ifndef VERNIER_TUNER_PACKAGE_REQUIREMENTS_H_
#define VERNIER_TUNER_PACKAGE_REQUIREMENTS_H_

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/package_sources.h"

namespace vernier::tuner {

// What a job's Python says about its packaged trainer's packages.
struct PythonProbe {
  int major = 0;
  int minor = 0;
  struct Requirement {
    int package_index = 0;  // in training_input.package_uris
    std::string name;       // the distribution's name (numpy)
    std::string spec;       // as the package wrote it, without its marker (numpy>=1.24)
  };
  // Requirements the Python cannot import and no package provides: in no
  // --find-links folder either (missing), or in one (linked).
  std::vector<Requirement> missing;
  std::vector<Requirement> linked;
};

// Reads a packaged trainer's declared dependencies without running its code
// (install_requires in setup.py, read as Python's syntax tree; setup.cfg;
// pyproject.toml's [project] dependencies; a wheel's or source archive's
// Requires-Dist) and asks the job's Python which of them it can import
// (an installed distribution of that name, or a module). Requirements
// whose environment marker does not hold for that Python, and extras, are
// left out.
class PackageRequirements {
 public:
  // Runs `python` with `environment` only (env -i), within `timeout`.
  // FAILED_PRECONDITION with its output when it cannot run.
  static absl::StatusOr<PythonProbe> Probe(const std::string& python,
                                           const std::map<std::string, std::string>& environment,
                                           const std::vector<PackageSource>& sources,
                                           const std::vector<std::string>& find_links,
                                           std::chrono::milliseconds timeout,
                                           const std::atomic<bool>* cancelled = nullptr);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_PACKAGE_REQUIREMENTS_H_
