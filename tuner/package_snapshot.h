#ifndef VERNIER_TUNER_PACKAGE_SNAPSHOT_H_
#define VERNIER_TUNER_PACKAGE_SNAPSHOT_H_

#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/package_sources.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

// A packaged trainer's packages as they were at submit (docs/jobs.md,
// "Packaged trainers"): copied into JOB_DIR/.vernier-source when the job is
// submitted, so that the install (when the job starts) and every trial run
// what was submitted, whatever happens to the source afterwards. Package i
// is copied to JOB_DIR/.vernier-source/i/NAME (NAME: the project folder,
// package folder or archive PackageSources resolved).
//
// Left out of a copied folder: version control (.git, .hg, .svn), caches
// (__pycache__, .pytest_cache, .mypy_cache, .tox, .nox, *.pyc), virtual
// environments (a folder holding pyvenv.cfg), job dirs (a folder holding
// .vernier-packages or .vernier-source, and the job's own), and at a
// project's top build/, dist/ and *.egg-info. At most kMaxBytes in
// kMaxFiles files.
class PackageSnapshot {
 public:
  static constexpr uintmax_t kMaxBytes = uintmax_t{1} << 30;
  static constexpr int kMaxFiles = 50000;

  // JOB_DIR/.vernier-source.
  static std::string Dir(const v1::Job& job);

  // At submit, before the job is stored: copies the packages into a new
  // folder beside Dir(job) and returns it. FAILED_PRECONDITION naming the
  // field (training_input.package_uris[0]) when a package is over the
  // limits or cannot be copied; what was copied is removed then.
  static absl::StatusOr<std::string> Take(const v1::Job& job);
  // Once the job is stored: `taken` becomes Dir(job), replacing an older one.
  // FAILED_PRECONDITION naming the packages when it cannot be moved there;
  // `taken` is removed then, and no Dir(job) is left (the job must not run
  // the packages as they are now).
  static absl::Status Keep(const v1::Job& job, const std::string& taken);
  // When the job was not stored after all.
  static void Discard(const std::string& taken);

  // What to install: each package's copy, resolved as PackageSources does;
  // for a job stored before snapshots existed (no Dir(job)), the submitted
  // paths themselves.
  static absl::StatusOr<std::vector<PackageSource>> Sources(const v1::Job& job);

  // Where tests make a step fail as a full disk or a refused rename would:
  // the hook is called before each file is copied (kCopy, with the file)
  // and before the copy is moved into place (kMove, with Dir(job)); an error
  // it returns is that step's. nullptr: none (the default).
  enum class Step { kCopy, kMove };
  using FaultHook = std::function<std::error_code(Step step, const std::string& path)>;
  static void SetFaultHookForTesting(FaultHook hook);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_PACKAGE_SNAPSHOT_H_
