#ifndef VERNIER_TUNER_PACKAGED_TRAINER_H_
#define VERNIER_TUNER_PACKAGED_TRAINER_H_

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

// A packaged trainer, as gcloud's --package-path/--module-name and
// trainingInput's pythonModule/packageUris (docs/jobs.md, "Packaged
// trainers"): the packages are installed once per job, when it starts
// (PREPARING), into JOB_DIR/.vernier-packages with the submitter's Python,
// offline; every replica runs `PYTHON -m MODULE ARGS` with that folder first
// on its PYTHONPATH.
//
// Each package is a local path or file:// URL, absolute, to one of
//   - a project folder (setup.py or pyproject.toml): installed by pip;
//   - a package folder (__init__.py), as --package-path names it: its
//     parent is installed by pip when it holds setup.py or pyproject.toml,
//     else the folder is copied in as it is (gcloud's built-in setup.py);
//   - a wheel (.whl) or source archive (.tar.gz, .zip): installed by pip.
// pip runs with --no-index --no-deps: what the packages import must be
// importable by the submitter's Python already, or be given as packages.
class PackagedTrainer {
 public:
  // Whether the job has a python_module (the rest is then for Plan).
  static bool IsPackaged(const v1::Job& job);

  // At submit: checks the module name and every package (its form, that it
  // exists and what it is), finds the submitter's python3 on the job's PATH
  // (`inherited_path` when the job sends none), and gives the job its
  // command (PYTHON -m MODULE) and PYTHONPATH. INVALID_ARGUMENT naming the
  // field (training_input.package_uris[1], ...) or FAILED_PRECONDITION
  // (no python3 on the PATH) otherwise. A job with a command of its own
  // and a python_module is refused: the module is the command.
  static absl::Status Prepare(v1::Job& job, const std::string& inherited_path);

  // When the job starts: (re)makes JOB_DIR/.vernier-packages and installs
  // the packages of a job that Prepare accepted, with the job's own
  // environment (`environment`), within `timeout`. FAILED_PRECONDITION with
  // the installer's last lines when it fails; CANCELLED, the installer
  // killed, once `*cancelled` turns true (a server stopping: the job is not
  // failed, and installs again on the next one).
  static absl::Status Install(const v1::Job& job,
                              const std::map<std::string, std::string>& environment,
                              std::chrono::milliseconds timeout,
                              const std::atomic<bool>* cancelled = nullptr);

  // JOB_DIR/.vernier-packages.
  static std::string PackagesDir(const v1::Job& job);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_PACKAGED_TRAINER_H_
