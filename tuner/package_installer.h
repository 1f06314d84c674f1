#ifndef VERNIER_TUNER_PACKAGE_INSTALLER_H_
#define VERNIER_TUNER_PACKAGE_INSTALLER_H_

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/slurm/command_runner.h"
#include "tuner/package_sources.h"

namespace vernier::tuner {

// Installs a packaged trainer's packages into its packages folder, offline
// (docs/jobs.md, "Packaged trainers"). First with the job's Python:
// `PYTHON -m pip install --no-index --no-deps --no-build-isolation --target
// FOLDER ...`. When that fails for want of a tool (no pip, no setuptools,
// no wheel: "invalid command 'bdist_wheel'"), each package is built into a
// wheel by the first Python that can (the job's, then the server's python3
// and /usr/bin/python3), the wheel installed by the first with pip (or
// unpacked, for a Python without pip), and a project no Python can build
// has its top-level modules and packages copied in (a pure-Python
// project's plain PYTHONPATH entry). Any other failure (the package's own
// error) fails at once with pip's last lines.
class PackageInstaller {
 public:
  struct Settings {
    std::string job_id;
    std::string python;                              // the job's
    std::map<std::string, std::string> environment;  // the job's (env -i)
    std::string target;                              // JOB_DIR/.vernier-packages
    std::string work_dir;                            // scratch for wheels, removed after
    // Other Pythons that may build wheels; the job's own is left out.
    std::vector<std::string> fallback_pythons;
    absl::Time deadline;
    const std::atomic<bool>* cancelled = nullptr;
  };

  explicit PackageInstaller(Settings settings);

  // The server's python3 (on `server_path`) and /usr/bin/python3, those
  // that exist and are not `job_python`.
  static std::vector<std::string> FallbackPythons(const std::string& job_python,
                                                  const std::string& server_path);

  // Installs projects, wheels and source archives (PackageSource::kPip).
  // FAILED_PRECONDITION with what each way said when none worked;
  // CANCELLED once *cancelled turns true; DEADLINE_EXCEEDED past the
  // deadline.
  absl::Status InstallWithPip(const std::vector<PackageSource>& sources);

  // Installs `specs` (numpy>=1.24) from the --find-links folders only.
  absl::Status InstallFromLinks(const std::vector<std::string>& specs,
                                const std::vector<std::string>& find_links);

 private:
  // `python ARGS` under env -i with the job's environment (a fallback
  // Python without the job's PYTHONPATH, PYTHONHOME, VIRTUAL_ENV and
  // CONDA_PREFIX).
  absl::StatusOr<scheduler::CommandOutput> RunPython(const std::string& python,
                                                     const std::vector<std::string>& args);
  // Every Python to try: the job's first.
  std::vector<std::string> Pythons() const;
  absl::StatusOr<std::string> BuildWheel(const PackageSource& source, int index,
                                         std::vector<std::string>& notes);
  absl::Status InstallWheel(const std::string& wheel, std::vector<std::string>& notes);
  absl::Status CopyModules(const std::string& project, std::vector<std::string>& notes);

  Settings settings_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_PACKAGE_INSTALLER_H_
