#include "tuner/package_installer.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "tuner/executable_search.h"

namespace vernier::tuner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPipFlags[] = {"--no-index", "--disable-pip-version-check", "--no-input"};

// What pip says when a build tool, not the package, is missing.
constexpr const char* kMissingTools[] = {"invalid command 'bdist_wheel'",
                                         "No module named pip",
                                         "No module named 'pip'",
                                         "No module named setuptools",
                                         "No module named 'setuptools'",
                                         "No module named 'wheel'",
                                         "Cannot import 'setuptools.build_meta'",
                                         "BackendUnavailable",
                                         "No matching distribution found for setuptools",
                                         "No matching distribution found for wheel"};

bool MissesATool(const scheduler::CommandOutput& output) {
  for (const char* sign : kMissingTools) {
    if (absl::StrContains(output.out, sign) || absl::StrContains(output.err, sign)) return true;
  }
  return false;
}

// The last `count` lines of a program's output.
std::string LastLines(const scheduler::CommandOutput& output, size_t count) {
  const std::string text = absl::StrCat(output.out, "\n", output.err);
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipWhitespace());
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<long>(count));
  return absl::StrJoin(lines, "\n");
}

std::string LastLine(const scheduler::CommandOutput& output) { return LastLines(output, 1); }

bool IsExecutable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

}  // namespace

PackageInstaller::PackageInstaller(Settings settings) : settings_(std::move(settings)) {}

std::vector<std::string> PackageInstaller::FallbackPythons(const std::string& job_python,
                                                           const std::string& server_path) {
  std::vector<std::string> pythons;
  for (std::string candidate :
       {FindExecutable("python3", server_path), std::string("/usr/bin/python3")}) {
    if (candidate.empty() || candidate == job_python || !IsExecutable(candidate)) continue;
    std::error_code error;
    if (fs::equivalent(candidate, job_python, error)) continue;
    bool seen = false;
    for (const std::string& known : pythons) seen = seen || fs::equivalent(known, candidate, error);
    if (!seen) pythons.push_back(candidate);
  }
  return pythons;
}

std::vector<std::string> PackageInstaller::Pythons() const {
  std::vector<std::string> pythons = {settings_.python};
  pythons.insert(pythons.end(), settings_.fallback_pythons.begin(),
                 settings_.fallback_pythons.end());
  return pythons;
}

absl::StatusOr<scheduler::CommandOutput> PackageInstaller::RunPython(
    const std::string& python, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env", "-i"};
  const bool own = python == settings_.python;
  for (const auto& [name, value] : settings_.environment) {
    if (!own && (name == "PYTHONPATH" || name == "PYTHONHOME" || name == "VIRTUAL_ENV" ||
                 name == "CONDA_PREFIX")) {
      continue;
    }
    argv.push_back(absl::StrCat(name, "=", value));
  }
  argv.push_back(python);
  argv.insert(argv.end(), args.begin(), args.end());
  const absl::Duration left = settings_.deadline - absl::Now();
  if (left <= absl::ZeroDuration()) {
    return absl::DeadlineExceededError("installing the job's packages took too long");
  }
  return scheduler::RunCommand(argv, {}, absl::ToChronoMilliseconds(left), settings_.cancelled);
}

absl::Status PackageInstaller::InstallWithPip(const std::vector<PackageSource>& sources) {
  if (sources.empty()) return absl::OkStatus();
  std::vector<std::string> args = {"-m", "pip", "install"};
  args.insert(args.end(), std::begin(kPipFlags), std::end(kPipFlags));
  for (const char* flag :
       {"--no-deps", "--no-build-isolation", "--no-warn-script-location", "--target"}) {
    args.push_back(flag);
  }
  args.push_back(settings_.target);
  for (const PackageSource& source : sources) args.push_back(source.path);
  spdlog::info("job={} installing {} package(s) with {} into {}", settings_.job_id, sources.size(),
               settings_.python, settings_.target);
  absl::StatusOr<scheduler::CommandOutput> output = RunPython(settings_.python, args);
  if (absl::IsCancelled(output.status())) return output.status();
  if (!output.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("installing the job's packages with ",
                                                      settings_.python,
                                                      " failed: ", output.status().message()));
  }
  if (output->exit_code == 0) return absl::OkStatus();
  const std::string failure = absl::StrCat("installing the job's packages with `", settings_.python,
                                           " -m pip install` failed (exit ", output->exit_code,
                                           "); its last lines:\n", LastLines(*output, 15));
  if (!MissesATool(*output)) return absl::FailedPreconditionError(failure);

  // A tool is missing, not the package broken: other ways, one package at a time.
  spdlog::info("job={} {} lacks a build tool ({}); trying other ways", settings_.job_id,
               settings_.python, LastLine(*output));
  std::vector<std::string> notes;
  absl::Status result = absl::OkStatus();
  for (size_t i = 0; i < sources.size() && result.ok(); ++i) {
    const PackageSource& source = sources[i];
    std::string wheel = source.path;
    if (!absl::EndsWith(source.path, ".whl")) {
      absl::StatusOr<std::string> built = BuildWheel(source, static_cast<int>(i), notes);
      if (absl::IsCancelled(built.status()) || absl::IsDeadlineExceeded(built.status())) {
        return built.status();
      }
      if (!built.ok()) {
        std::error_code error;
        result =
            fs::is_directory(source.path, error) ? CopyModules(source.path, notes) : built.status();
        continue;
      }
      wheel = *built;
    }
    result = InstallWheel(wheel, notes);
  }
  std::error_code ignored;
  fs::remove_all(settings_.work_dir, ignored);
  if (absl::IsCancelled(result) || absl::IsDeadlineExceeded(result)) return result;
  if (!result.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(failure, "\nand no other way worked:\n", absl::StrJoin(notes, "\n")));
  }
  spdlog::info("job={} packages installed another way: {}", settings_.job_id,
               absl::StrJoin(notes, "; "));
  return absl::OkStatus();
}

absl::StatusOr<std::string> PackageInstaller::BuildWheel(const PackageSource& source, int index,
                                                         std::vector<std::string>& notes) {
  const std::string folder = absl::StrCat(settings_.work_dir, "/", index);
  for (const std::string& python : Pythons()) {
    std::error_code error;
    fs::remove_all(folder, error);
    fs::create_directories(folder, error);
    std::vector<std::string> args = {"-m", "pip", "wheel"};
    args.insert(args.end(), std::begin(kPipFlags), std::end(kPipFlags));
    args.insert(args.end(), {"--no-deps", "--no-build-isolation", "-w", folder, source.path});
    absl::StatusOr<scheduler::CommandOutput> output = RunPython(python, args);
    if (absl::IsCancelled(output.status()) || absl::IsDeadlineExceeded(output.status())) {
      return output.status();
    }
    if (output.ok() && output->exit_code == 0) {
      for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        if (entry.path().extension() == ".whl") {
          notes.push_back(absl::StrCat(source.path, ": wheel built with ", python));
          return entry.path().string();
        }
      }
    }
    notes.push_back(absl::StrCat(source.path, ": building a wheel with ", python, " failed: ",
                                 output.ok() ? LastLine(*output) : output.status().message()));
  }
  return absl::FailedPreconditionError("no Python could build a wheel");
}

absl::Status PackageInstaller::InstallWheel(const std::string& wheel,
                                            std::vector<std::string>& notes) {
  for (const std::string& python : Pythons()) {
    std::vector<std::string> args = {"-m", "pip", "install"};
    args.insert(args.end(), std::begin(kPipFlags), std::end(kPipFlags));
    args.insert(args.end(), {"--no-deps", "--no-warn-script-location", "--upgrade", "--target",
                             settings_.target, wheel});
    absl::StatusOr<scheduler::CommandOutput> output = RunPython(python, args);
    if (absl::IsCancelled(output.status()) || absl::IsDeadlineExceeded(output.status())) {
      return output.status();
    }
    if (output.ok() && output->exit_code == 0) {
      notes.push_back(
          absl::StrCat(fs::path(wheel).filename().string(), ": installed with ", python, "'s pip"));
      return absl::OkStatus();
    }
    notes.push_back(
        absl::StrCat(fs::path(wheel).filename().string(), ": installing with ", python,
                     " failed: ", output.ok() ? LastLine(*output) : output.status().message()));
  }
  // No pip anywhere: a pure-Python wheel is its files.
  absl::StatusOr<scheduler::CommandOutput> output =
      RunPython(settings_.python,
                {"-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
                 wheel, settings_.target});
  if (output.ok() && output->exit_code == 0) {
    notes.push_back(absl::StrCat(fs::path(wheel).filename().string(), ": unpacked"));
    return absl::OkStatus();
  }
  notes.push_back(absl::StrCat(fs::path(wheel).filename().string(), ": unpacking failed: ",
                               output.ok() ? LastLine(*output) : output.status().message()));
  return absl::FailedPreconditionError("the wheel could not be installed");
}

absl::Status PackageInstaller::CopyModules(const std::string& project,
                                           std::vector<std::string>& notes) {
  std::vector<fs::path> modules;
  std::error_code error;
  for (const fs::path& root : {fs::path(project), fs::path(project) / "src"}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
      const fs::path& path = entry.path();
      const bool package = entry.is_directory() && fs::is_regular_file(path / "__init__.py");
      const bool module =
          entry.is_regular_file() && path.extension() == ".py" && path.filename() != "setup.py";
      if (package || module) modules.push_back(path);
    }
    error.clear();
  }
  if (modules.empty()) {
    notes.push_back(absl::StrCat(project, ": no top-level module or package to copy"));
    return absl::FailedPreconditionError("nothing to copy");
  }
  std::vector<std::string> names;
  for (const fs::path& module : modules) {
    fs::copy(module, fs::path(settings_.target) / module.filename(),
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error) {
      notes.push_back(
          absl::StrCat(project, ": copying ", module.string(), " failed: ", error.message()));
      return absl::FailedPreconditionError("copy failed");
    }
    names.push_back(module.filename().string());
  }
  notes.push_back(absl::StrCat(project, ": no Python could build it; copied its modules (",
                               absl::StrJoin(names, ", "), ")"));
  return absl::OkStatus();
}

absl::Status PackageInstaller::InstallFromLinks(const std::vector<std::string>& specs,
                                                const std::vector<std::string>& find_links) {
  if (specs.empty()) return absl::OkStatus();
  std::vector<std::string> notes;
  // With their own dependencies when the folders hold them, else without.
  for (const bool with_deps : {true, false}) {
    for (const std::string& python : Pythons()) {
      std::vector<std::string> args = {"-m", "pip", "install"};
      args.insert(args.end(), std::begin(kPipFlags), std::end(kPipFlags));
      for (const std::string& folder : find_links) {
        args.push_back("--find-links");
        args.push_back(folder);
      }
      if (!with_deps) args.push_back("--no-deps");
      args.insert(args.end(), {"--no-warn-script-location", "--target", settings_.target});
      args.insert(args.end(), specs.begin(), specs.end());
      absl::StatusOr<scheduler::CommandOutput> output = RunPython(python, args);
      if (absl::IsCancelled(output.status()) || absl::IsDeadlineExceeded(output.status())) {
        return output.status();
      }
      if (output.ok() && output->exit_code == 0) {
        spdlog::info("job={} installed {} from --find-links with {}", settings_.job_id,
                     absl::StrJoin(specs, " "), python);
        return absl::OkStatus();
      }
      notes.push_back(
          absl::StrCat(python, with_deps ? "" : " (--no-deps)", ": ",
                       output.ok() ? LastLines(*output, 5) : output.status().message()));
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("installing ", absl::StrJoin(specs, " "), " from --find-links ",
                   absl::StrJoin(find_links, ", "), " failed:\n", absl::StrJoin(notes, "\n")));
}

}  // namespace vernier::tuner
