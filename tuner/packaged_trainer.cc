#include "tuner/packaged_trainer.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "scheduler/path_beneath.h"
#include "spdlog/spdlog.h"
#include "tuner/config/environment_rules.h"
#include "tuner/executable_search.h"
#include "tuner/package_installer.h"
#include "tuner/package_requirements.h"
#include "tuner/package_snapshot.h"
#include "tuner/package_sources.h"

namespace vernier::tuner {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kProbeTimeout{60};

// `python -m MODULE` for a Python before 3.11 (no -P): the same, without
// the working directory first on sys.path.
constexpr char kRunModule[] =
    "import runpy, sys; del sys.path[0]; module = sys.argv.pop(1); "
    "runpy.run_module(module, run_name='__main__', alter_sys=True)";

bool IsIdentifier(absl::string_view name) {
  return config::IsEnvironmentVariableName(std::string_view(name.data(), name.size()));
}

bool IsModuleName(absl::string_view module) {
  if (module.empty()) return false;
  for (absl::string_view part : absl::StrSplit(module, '.')) {
    if (!IsIdentifier(part)) return false;
  }
  return true;
}

absl::Status CheckFindLinks(const v1::Job& job) {
  const auto& folders = job.training_input().find_links();
  for (int i = 0; i < folders.size(); ++i) {
    std::error_code error;
    if (folders[i].empty() || folders[i][0] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat("training_input.find_links[", i, "]: \"", folders[i],
                       "\" is not an absolute path (the CLI makes relative paths absolute)"));
    }
    if (!fs::is_directory(folders[i], error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("training_input.find_links[", i, "]: \"", folders[i],
                       "\" is not a folder where the server runs (a folder of wheels and "
                       "source archives, as pip's --find-links)"));
    }
  }
  return absl::OkStatus();
}

std::string FormatRequirements(const std::vector<PythonProbe::Requirement>& requirements,
                               const v1::Job& job) {
  std::vector<std::string> parts;
  for (const PythonProbe::Requirement& requirement : requirements) {
    parts.push_back(
        absl::StrCat(requirement.spec, " (training_input.package_uris[", requirement.package_index,
                     "] ", job.training_input().package_uris(requirement.package_index), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

bool PackagedTrainer::IsPackaged(const v1::Job& job) {
  return !job.training_input().python_module().empty();
}

std::string PackagedTrainer::PackagesDir(const v1::Job& job) {
  return absl::StrCat(job.job_dir(), "/.vernier-packages");
}

absl::Status PackagedTrainer::Prepare(v1::Job& job, const std::string& inherited_path) {
  const std::string& module = job.training_input().python_module();
  if (!IsModuleName(module)) {
    return absl::InvalidArgumentError(
        absl::StrCat("training_input.python_module: \"", module,
                     "\" is not a module name (dotted Python identifiers, e.g. trainer.task)"));
  }
  if (!job.command().empty()) {
    return absl::InvalidArgumentError(
        "job.command: a job with training_input.python_module runs `python3 -m MODULE`; give "
        "the trainer's arguments as training_input.args (after `--` on the CLI), not a command");
  }
  VERNIER_ASSIGN_OR_RETURN(const std::vector<PackageSource> sources, PackageSources::Resolve(job));
  VERNIER_RETURN_IF_ERROR(CheckFindLinks(job));
  const auto path = job.environment().find("PATH");
  const std::string search_path = path != job.environment().end() ? path->second : inherited_path;
  const std::string python = FindExecutable("python3", search_path);
  if (python.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("training_input.python_module: no python3 on the job's PATH (", search_path,
                     ") to install the packages with and run ", module,
                     "; submit from a shell whose PATH has it, or give PATH with --env"));
  }
  // What the job's Python is, and which requirements it cannot import
  // (pip runs offline, with --no-deps: they would fail every trial).
  std::map<std::string, std::string> environment(job.environment().begin(),
                                                 job.environment().end());
  environment.emplace("PATH", search_path);
  absl::StatusOr<PythonProbe> probe = PackageRequirements::Probe(
      python, environment, sources,
      {job.training_input().find_links().begin(), job.training_input().find_links().end()},
      kProbeTimeout);
  if (!probe.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("training_input.python_module: the job's python3 (", python,
                     ") cannot read the packages: ", probe.status().message()));
  }
  if (!probe->missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "training_input.package_uris: the packages require ",
        FormatRequirements(probe->missing, job), ", which the job's python3 (", python,
        ") cannot import; packages are installed offline, without their requirements: install "
        "them into that Python (its virtualenv), give a folder of their wheels with "
        "--find-links DIR (YAML: findLinks), or give them as --packages"));
  }
  job.add_command(python);
  if (probe->major > 3 || (probe->major == 3 && probe->minor >= 11)) {
    // -P: the working directory (where the package's source may lie) is
    // not put first on sys.path, so the installed copy is what runs.
    job.add_command("-P");
    job.add_command("-m");
  } else {
    job.add_command("-c");
    job.add_command(kRunModule);
  }
  job.add_command(module);
  std::string& python_path = (*job.mutable_environment())["PYTHONPATH"];
  python_path =
      python_path.empty() ? PackagesDir(job) : absl::StrCat(PackagesDir(job), ":", python_path);
  return absl::OkStatus();
}

absl::Status PackagedTrainer::Install(const v1::Job& job,
                                      const std::map<std::string, std::string>& environment,
                                      std::chrono::milliseconds timeout,
                                      const std::atomic<bool>* cancelled) {
  VERNIER_ASSIGN_OR_RETURN(const std::vector<PackageSource> sources, PackageSnapshot::Sources(job));
  if (job.command().empty()) {
    return absl::FailedPreconditionError("the packaged trainer's job has no python3 to run");
  }
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  const std::string& python = job.command(0);
  const std::string target = PackagesDir(job);
  std::error_code error;
  fs::create_directories(job.job_dir(), error);
  fs::remove_all(target, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove the old packages folder ", target, ": ", error.message()));
  }
  VERNIER_RETURN_IF_ERROR(scheduler::MakeDirectoriesBeneath(job.job_dir(), target));

  const char* server_path = std::getenv("PATH");
  PackageInstaller installer(PackageInstaller::Settings{
      .job_id = job.job_id(),
      .python = python,
      .environment = environment,
      .target = target,
      .work_dir = absl::StrCat(job.job_dir(), "/.vernier-wheels"),
      .fallback_pythons =
          PackageInstaller::FallbackPythons(python, server_path != nullptr ? server_path : ""),
      .deadline = deadline,
      .cancelled = cancelled});
  std::vector<PackageSource> pip_sources;
  for (const PackageSource& source : sources) {
    if (source.way == PackageSource::Way::kPip) pip_sources.push_back(source);
  }
  absl::Status installed = installer.InstallWithPip(pip_sources);
  if (absl::IsCancelled(installed)) {
    spdlog::info("job={} package install cancelled", job.job_id());
    return installed;
  }
  VERNIER_RETURN_IF_ERROR(installed);
  for (const PackageSource& source : sources) {
    if (source.way != PackageSource::Way::kCopy) continue;
    const fs::path destination = fs::path(target) / fs::path(source.path).filename();
    fs::copy(source.path, destination,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat(
          "copying the package ", source.path, " into ", target, " failed: ", error.message()));
    }
  }
  const auto& find_links = job.training_input().find_links();
  if (!find_links.empty()) {
    // What the packages require and the job's Python (the packages folder
    // now on its PYTHONPATH) still cannot import, from the wheel folders.
    const std::vector<std::string> folders(find_links.begin(), find_links.end());
    VERNIER_ASSIGN_OR_RETURN(
        PythonProbe probe,
        PackageRequirements::Probe(python, environment, sources, folders,
                                   std::chrono::milliseconds(kProbeTimeout), cancelled));
    std::vector<std::string> specs;
    for (const PythonProbe::Requirement& requirement : probe.linked) {
      specs.push_back(requirement.spec);
    }
    installed = installer.InstallFromLinks(specs, folders);
    if (!installed.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("installing the packages' requirements: ", installed.message()));
    }
  }
  spdlog::info("job={} packages ready in {}", job.job_id(), target);
  return absl::OkStatus();
}

}  // namespace vernier::tuner
