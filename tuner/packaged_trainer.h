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
// trainers"): the packages are copied at submit (PackageSnapshot) and
// installed from that copy once per job, when it starts (PREPARING), into
// JOB_DIR/.vernier-packages, offline (PackageInstaller); every replica runs
// `PYTHON -P -m MODULE ARGS` (the working directory, where the source may
// lie, kept off sys.path) with that folder first on its PYTHONPATH.
//
// Each package is a local path or file:// URL, absolute (PackageSources).
// pip runs with --no-index --no-deps: what the packages require must be
// importable by the submitter's Python already, be given as packages, or
// lie in a training_input.find_links folder; a requirement that is none of
// these is refused at submit.
class PackagedTrainer {
 public:
  // Whether the job has a python_module (the rest is then for Plan).
  static bool IsPackaged(const v1::Job& job);

  // At submit: checks the module name, every package (its form, that it
  // exists and what it is) and find_links folder, finds the submitter's
  // python3 on the job's PATH (`inherited_path` when the job sends none),
  // asks it which of the packages' requirements it cannot import, and gives
  // the job its command (PYTHON -P -m MODULE; before Python 3.11, which has
  // no -P, `PYTHON -c RUNPY MODULE`, the same) and PYTHONPATH.
  // INVALID_ARGUMENT naming the field (training_input.package_uris[1], ...)
  // or FAILED_PRECONDITION (no python3 on the PATH; requirements it cannot
  // import, named) otherwise. A job with a command of its own and a
  // python_module is refused: the module is the command.
  static absl::Status Prepare(v1::Job& job, const std::string& inherited_path);

  // When the job starts: (re)makes JOB_DIR/.vernier-packages and installs
  // the packages of a job that Prepare accepted, from their copy made at
  // submit, and the requirements found in find_links, with the job's own
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
