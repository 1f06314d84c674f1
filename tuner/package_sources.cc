#include "tuner/package_sources.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tuner/config/environment_rules.h"

namespace vernier::tuner {
namespace {

namespace fs = std::filesystem;

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

}  // namespace

absl::StatusOr<PackageSource> PackageSources::ResolveOne(int index, const std::string& uri) {
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
      const std::string name = package.filename().string();
      if (!config::IsEnvironmentVariableName(name)) {
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
    if (absl::EndsWith(path, suffix)) {
      return PackageSource{PackageSource::Way::kPip, package.string()};
    }
  }
  return BadPackage(index, uri, "is not a wheel (.whl) or a source archive (.tar.gz, .zip)");
}

absl::StatusOr<std::vector<PackageSource>> PackageSources::Resolve(const v1::Job& job) {
  std::vector<PackageSource> sources;
  const auto& uris = job.training_input().package_uris();
  for (int i = 0; i < uris.size(); ++i) {
    VERNIER_ASSIGN_OR_RETURN(PackageSource source, ResolveOne(i, uris[i]));
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace vernier::tuner
