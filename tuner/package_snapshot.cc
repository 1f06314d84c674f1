#include "tuner/package_snapshot.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSkippedNames[] = {".git", "__pycache__",   ".hg",
                                         ".svn", ".pytest_cache", ".mypy_cache",
                                         ".tox", ".nox",          ".ipynb_checkpoints"};
constexpr const char* kSkippedAtProjectTop[] = {"build", "dist"};

PackageSnapshot::FaultHook& Hook() {
  static PackageSnapshot::FaultHook* hook = new PackageSnapshot::FaultHook();
  return *hook;
}

// The error a test's hook injects before `step`; none without a hook.
std::error_code InjectedFault(PackageSnapshot::Step step, const fs::path& path) {
  const PackageSnapshot::FaultHook& hook = Hook();
  return hook ? hook(step, path.string()) : std::error_code();
}

// "training_input.package_uris[0] (\"trainer/\")", or every package's.
std::string PackagesNamed(const v1::Job& job) {
  std::vector<std::string> named;
  for (int i = 0; i < job.training_input().package_uris_size(); ++i) {
    named.push_back(absl::StrCat("training_input.package_uris[", i, "] (\"",
                                 job.training_input().package_uris(i), "\")"));
  }
  return absl::StrJoin(named, ", ");
}

bool Exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// Folders that are not part of a package: caches, virtualenvs, job dirs.
bool SkipFolder(const fs::path& folder, bool project_top, const fs::path& job_dir) {
  const std::string name = folder.filename().string();
  for (const char* skipped : kSkippedNames) {
    if (name == skipped) return true;
  }
  if (project_top) {
    for (const char* skipped : kSkippedAtProjectTop) {
      if (name == skipped) return true;
    }
    if (absl::EndsWith(name, ".egg-info")) return true;
  }
  std::error_code error;
  if (fs::equivalent(folder, job_dir, error)) return true;
  return Exists(folder / "pyvenv.cfg") || Exists(folder / ".vernier-packages") ||
         Exists(folder / ".vernier-source");
}

struct CopyBudget {
  int index = 0;
  std::string uri;
  uintmax_t bytes = 0;
  int files = 0;
};

absl::Status OverBudget(const CopyBudget& budget, const fs::path& at, absl::string_view what) {
  return absl::FailedPreconditionError(absl::StrCat(
      "training_input.package_uris[", budget.index, "]: \"", budget.uri, "\" holds more than ",
      what, " (", at.string(),
      " is over it); a package is copied when the job is submitted, so that its trials run what "
      "was submitted: move data and outputs out of the project folder, or build a wheel or "
      "source archive (python3 -m build) and give that"));
}

absl::Status CopyFile(const fs::path& from, const fs::path& to, CopyBudget& budget) {
  std::error_code error;
  const uintmax_t size = fs::file_size(from, error);
  budget.bytes += error ? 0 : size;
  if (++budget.files > PackageSnapshot::kMaxFiles) {
    return OverBudget(budget, from, absl::StrCat(PackageSnapshot::kMaxFiles, " files"));
  }
  if (budget.bytes > PackageSnapshot::kMaxBytes) return OverBudget(budget, from, "1 GiB");
  error = InjectedFault(PackageSnapshot::Step::kCopy, from);
  if (!error) fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("training_input.package_uris[", budget.index, "]: \"", budget.uri,
                     "\" cannot be copied at submit: ", from.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status CopyTree(const fs::path& from, const fs::path& to, bool project_top,
                      const fs::path& job_dir, CopyBudget& budget) {
  std::error_code error;
  fs::create_directory(to, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make ", to.string(), ": ", error.message()));
  }
  for (fs::directory_iterator it(from, error), end; !error && it != end; it.increment(error)) {
    const fs::path& entry = it->path();
    const fs::path destination = to / entry.filename();
    const fs::file_status link = it->symlink_status(error);
    if (error) break;
    if (fs::is_symlink(link)) {
      // A link to a file is copied as the file it names (the snapshot must
      // not change with it); a link to a folder stays a link.
      if (fs::is_regular_file(fs::status(entry, error))) {
        VERNIER_RETURN_IF_ERROR(CopyFile(entry, destination, budget));
      } else {
        error.clear();
        fs::copy_symlink(entry, destination, error);
        error.clear();
      }
      continue;
    }
    if (fs::is_directory(link)) {
      if (SkipFolder(entry, project_top, job_dir)) continue;
      VERNIER_RETURN_IF_ERROR(CopyTree(entry, destination, false, job_dir, budget));
    } else if (fs::is_regular_file(link)) {
      if (entry.extension() == ".pyc") continue;
      VERNIER_RETURN_IF_ERROR(CopyFile(entry, destination, budget));
    }
  }
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat("training_input.package_uris[", budget.index,
                                                      "]: cannot read ", from.string(), ": ",
                                                      error.message()));
  }
  return absl::OkStatus();
}

}  // namespace

std::string PackageSnapshot::Dir(const v1::Job& job) {
  return absl::StrCat(job.job_dir(), "/.vernier-source");
}

absl::StatusOr<std::string> PackageSnapshot::Take(const v1::Job& job) {
  VERNIER_ASSIGN_OR_RETURN(const std::vector<PackageSource> sources, PackageSources::Resolve(job));
  std::error_code error;
  fs::create_directories(job.job_dir(), error);
  std::string taken = absl::StrCat(Dir(job), ".new-XXXXXX");
  if (error || mkdtemp(taken.data()) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make a folder in the job dir ", job.job_dir(),
                     " for the packages' copy: ", error ? error.message() : "mkdtemp failed"));
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    const fs::path from(sources[i].path);
    const fs::path folder = fs::path(taken) / std::to_string(i);
    fs::create_directory(folder, error);
    CopyBudget budget{static_cast<int>(i), job.training_input().package_uris(static_cast<int>(i))};
    absl::Status copied =
        fs::is_directory(from, error)
            ? CopyTree(from, folder / from.filename(), sources[i].way == PackageSource::Way::kPip,
                       fs::path(job.job_dir()), budget)
            : CopyFile(from, folder / from.filename(), budget);
    if (!copied.ok()) {
      Discard(taken);
      return copied;
    }
    spdlog::info("job={} package {} copied at submit: {} files, {} bytes", job.job_id(), i,
                 budget.files, budget.bytes);
  }
  return taken;
}

absl::Status PackageSnapshot::Keep(const v1::Job& job, const std::string& taken) {
  std::error_code error;
  fs::remove_all(Dir(job), error);
  error = InjectedFault(Step::kMove, Dir(job));
  if (!error) fs::rename(taken, Dir(job), error);
  if (error) {
    Discard(taken);
    // An older copy may be half gone: none rather than the wrong one.
    std::error_code ignored;
    fs::remove_all(Dir(job), ignored);
    return absl::FailedPreconditionError(absl::StrCat("the copy of ", PackagesNamed(job),
                                                      " taken at submit cannot be moved to ",
                                                      Dir(job), ": ", error.message()));
  }
  return absl::OkStatus();
}

void PackageSnapshot::SetFaultHookForTesting(FaultHook hook) { Hook() = std::move(hook); }

void PackageSnapshot::Discard(const std::string& taken) {
  std::error_code ignored;
  fs::remove_all(taken, ignored);
}

absl::StatusOr<std::vector<PackageSource>> PackageSnapshot::Sources(const v1::Job& job) {
  if (!Exists(Dir(job))) return PackageSources::Resolve(job);
  std::vector<PackageSource> sources;
  for (int i = 0; i < job.training_input().package_uris_size(); ++i) {
    const fs::path folder = fs::path(Dir(job)) / std::to_string(i);
    std::error_code error;
    fs::directory_iterator it(folder, error);
    if (error || it == fs::directory_iterator()) {
      return absl::FailedPreconditionError(
          absl::StrCat("training_input.package_uris[", i,
                       "]: its copy made at submit is missing from ", folder.string()));
    }
    VERNIER_ASSIGN_OR_RETURN(PackageSource source,
                             PackageSources::ResolveOne(i, it->path().string()));
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace vernier::tuner
