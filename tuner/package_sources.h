#ifndef VERNIER_TUNER_PACKAGE_SOURCES_H_
#define VERNIER_TUNER_PACKAGE_SOURCES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

// How one of a packaged trainer's packages gets into the job's packages
// folder: pip installs a project folder, a wheel or a source archive; a bare
// package folder (__init__.py, no project around it) is copied as it is.
struct PackageSource {
  enum class Way { kPip, kCopy };
  Way way = Way::kPip;
  // The project folder, the archive, or the package folder (absolute).
  std::string path;
};

// What each of a job's training_input.package_uris is (docs/jobs.md,
// "Packaged trainers").
class PackageSources {
 public:
  // Every package of the job, in order; INVALID_ARGUMENT naming the field
  // (training_input.package_uris[1]) for one that is not a local absolute
  // path or file:// URL, does not exist, or is none of the forms above.
  static absl::StatusOr<std::vector<PackageSource>> Resolve(const v1::Job& job);

  // One path (package_uris[index], as a plain absolute path).
  static absl::StatusOr<PackageSource> ResolveOne(int index, const std::string& uri);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_PACKAGE_SOURCES_H_
