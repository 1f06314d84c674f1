#include "tuner/packaged_trainer.h"


#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "scheduler/path_beneath.h"
#include "scheduler/slurm/command_runner.h"
#include "spdlog/spdlog.h"
#include "tuner/config/environment_rules.h"
#include "tuner/executable_search.h"

namespace vernier::tuner {
namespace {

namespace fs = std::filesystem;

// How one package gets into the job's packages folder.
struct PackageSource {
  enum class Way { kPip, kCopy };
  Way way = Way::kPip;
  std::string path;
};

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

bool HasFile(const fs::path& folder, const char* name) {
  std::error_code error;
  return fs::is_regular_file(folder / name, error);
}

bool IsProject(const fs::path& folder) {
  return HasFile(folder, "setup.py") || HasFile(folder, "pyproject.toml");
}

absl::Status BadPackage(int index, const std::string& uri, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("training_input.package_uris[", index, "]: \"", uri, "\" ", problem));
}

absl::StatusOr<PackageSource> ResolvePackage(int index, const std::string& uri) {
  std::string path = uri;
  if (absl::StartsWith(uri, "file://")) {
    path = uri.substr(std::string("file://").size());
  } else if (absl::StrContains(uri, "://")) {
    return BadPackage(index, uri,
                      "is not a local path or file:// URL; this server reaches no bucket or web "
                      "server, so copy the package where it runs");
  }
  if (path.empty() || path[0] != '/') {
    return BadPackage(index, uri,
                      "is not absolute (the CLI makes relative paths absolute; over the API give "
                      "an absolute path or file:///path)");
  }
  const fs::path package = fs::path(path).lexically_normal();
  std::error_code error;
  const fs::file_status status = fs::status(package, error);
  if (!fs::exists(status)) {
    return BadPackage(index, uri, "does not exist where the server runs");
  }
  if (fs::is_directory(status)) {
    if (IsProject(package)) return PackageSource{PackageSource::Way::kPip, package.string()};
    if (HasFile(package, "__init__.py")) {
      const fs::path parent = package.parent_path();
      if (IsProject(parent)) return PackageSource{PackageSource::Way::kPip, parent.string()};
      if (!IsIdentifier(package.filename().string())) {
        return BadPackage(index, uri,
                          "is a package folder whose name is not a Python identifier, so it "
                          "cannot be imported");
      }
      return PackageSource{PackageSource::Way::kCopy, package.string()};
    }
    return BadPackage(index, uri,
                      "is a folder without setup.py, pyproject.toml or __init__.py: not a Python "
                      "project or package");
  }
  for (const char* suffix : {".whl", ".tar.gz", ".tgz", ".zip"}) {
    if (absl::EndsWith(path, suffix)) return PackageSource{PackageSource::Way::kPip, package.string()};
  }
  return BadPackage(index, uri, "is not a wheel (.whl) or a source archive (.tar.gz, .zip)");
}

absl::StatusOr<std::vector<PackageSource>> ResolvePackages(const v1::Job& job) {
  std::vector<PackageSource> sources;
  const auto& uris = job.training_input().package_uris();
  for (int i = 0; i < uris.size(); ++i) {
    VERNIER_ASSIGN_OR_RETURN(PackageSource source, ResolvePackage(i, uris[i]));
    sources.push_back(std::move(source));
  }
  return sources;
}

// The last `count` lines of the installer's output.
std::string LastLines(const std::string& text, size_t count) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipWhitespace());
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<long>(count));
  return absl::StrJoin(lines, "\n");
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
  VERNIER_RETURN_IF_ERROR(ResolvePackages(job).status());
  const auto path = job.environment().find("PATH");
  const std::string search_path = path != job.environment().end() ? path->second : inherited_path;
  const std::string python = FindExecutable("python3", search_path);
  if (python.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "training_input.python_module: no python3 on the job's PATH (", search_path,
        ") to install the packages with and run ", module,
        "; submit from a shell whose PATH has it, or give PATH with --env"));
  }
  job.add_command(python);
  job.add_command("-m");
  job.add_command(module);
  std::string& python_path = (*job.mutable_environment())["PYTHONPATH"];
  python_path = python_path.empty() ? PackagesDir(job)
                                    : absl::StrCat(PackagesDir(job), ":", python_path);
  return absl::OkStatus();
}

absl::Status PackagedTrainer::Install(const v1::Job& job,
                                      const std::map<std::string, std::string>& environment,
                                      std::chrono::milliseconds timeout,
                                      const std::atomic<bool>* cancelled) {
  VERNIER_ASSIGN_OR_RETURN(const std::vector<PackageSource> sources, ResolvePackages(job));
  if (job.command().empty()) {
    return absl::FailedPreconditionError("the packaged trainer's job has no python3 to run");
  }
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

  std::vector<std::string> pip_sources;
  for (const PackageSource& source : sources) {
    if (source.way == PackageSource::Way::kPip) pip_sources.push_back(source.path);
  }
  if (!pip_sources.empty()) {
    // The job's environment only (docs/jobs.md): env -i, then pip.
    std::vector<std::string> argv = {"/usr/bin/env", "-i"};
    for (const auto& [name, value] : environment) argv.push_back(absl::StrCat(name, "=", value));
    for (const char* word : {"-m", "pip", "install", "--no-index", "--no-deps",
                             "--no-build-isolation", "--disable-pip-version-check", "--no-input",
                             "--no-warn-script-location", "--target"}) {
      if (std::string_view(word) == "-m") argv.push_back(python);
      argv.push_back(word);
    }
    argv.push_back(target);
    argv.insert(argv.end(), pip_sources.begin(), pip_sources.end());
    spdlog::info("job={} installing {} package(s) with {} into {}", job.job_id(),
                 pip_sources.size(), python, target);
    absl::StatusOr<scheduler::CommandOutput> output =
        scheduler::RunCommand(argv, {}, timeout, cancelled);
    if (absl::IsCancelled(output.status())) {
      spdlog::info("job={} package install cancelled", job.job_id());
      return output.status();
    }
    if (!output.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "installing the job's packages with ", python, " failed: ", output.status().message()));
    }
    if (output->exit_code != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "installing the job's packages with `", python, " -m pip install` failed (exit ",
          output->exit_code, "); its last lines:\n",
          LastLines(absl::StrCat(output->out, "\n", output->err), 15)));
    }
  }
  for (const PackageSource& source : sources) {
    if (source.way != PackageSource::Way::kCopy) continue;
    const fs::path destination = fs::path(target) / fs::path(source.path).filename();
    fs::copy(source.path, destination,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat("copying the package ", source.path,
                                                        " into ", target, " failed: ",
                                                        error.message()));
    }
  }
  spdlog::info("job={} packages ready in {}", job.job_id(), target);
  return absl::OkStatus();
}

}  // namespace vernier::tuner
