#include "tuner/package_requirements.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scheduler/slurm/command_runner.h"

namespace vernier::tuner {
namespace {

// Runs in the job's Python; prints "version MAJOR MINOR", then one
// "missing|linked<TAB>INDEX<TAB>NAME<TAB>SPEC" line per requirement it
// cannot import. Arguments: "L:FOLDER" (a --find-links folder) and
// "P:PATH" (a package, in order).
constexpr char kProbeScript[] = R"PY(
import ast, configparser, os, re, sys, tarfile, zipfile
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
import importlib.util
try:
    import importlib.metadata as metadata
except ImportError:
    metadata = None
Marker = None
for module in ("packaging.markers", "pip._vendor.packaging.markers"):
    try:
        Marker = __import__(module, fromlist=["Marker"]).Marker
        break
    except Exception:
        pass

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def literal(node, assigned):
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    try:
        return ast.literal_eval(node)
    except Exception:
        return None

def from_setup_py(path):
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), path)
    assigned = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    name, requires = None, []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if called != "setup":
            continue
        for keyword in node.keywords:
            value = literal(keyword.value, assigned)
            if keyword.arg == "name" and isinstance(value, str):
                name = value
            if keyword.arg == "install_requires":
                if isinstance(value, str):
                    value = value.splitlines()
                if isinstance(value, (list, tuple)):
                    requires += [r for r in value if isinstance(r, str)]
    return name, requires

def from_setup_cfg(path):
    config = configparser.ConfigParser(interpolation=None)
    config.read(path)
    requires = config.get("options", "install_requires", fallback="")
    return config.get("metadata", "name", fallback=None), requires.splitlines()

def from_pyproject(path):
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            return None, []
    with open(path, "rb") as f:
        project = tomllib.load(f).get("project", {})
    return project.get("name"), list(project.get("dependencies", []))

def from_metadata(text):
    name, requires = None, []
    for line in text.splitlines():
        if not line.strip():
            break
        if line.startswith("Name:"):
            name = line[5:].strip()
        elif line.startswith("Requires-Dist:"):
            requires.append(line[14:].strip())
    return name, requires

def from_project(path):
    name, requires = None, []
    for file, read in (("pyproject.toml", from_pyproject), ("setup.cfg", from_setup_cfg),
                       ("setup.py", from_setup_py)):
        if os.path.isfile(os.path.join(path, file)):
            try:
                found, more = read(os.path.join(path, file))
            except Exception:
                continue
            name = name or found
            requires += more
    return name, requires

def archive_name(file):
    if file.endswith(".whl"):
        return file.split("-")[0]
    for suffix in (".tar.gz", ".tgz", ".zip"):
        if file.endswith(suffix):
            return file[: -len(suffix)].rsplit("-", 1)[0]
    return None

def from_archive(path):
    name = archive_name(os.path.basename(path))
    try:
        if path.endswith(".whl") or path.endswith(".zip"):
            archive = zipfile.ZipFile(path)
            names, read = archive.namelist(), archive.read
        else:
            archive = tarfile.open(path)
            names, read = archive.getnames(), lambda i: archive.extractfile(i).read()
        for entry in names:
            if entry.count("/") == 1 and (entry.endswith(".dist-info/METADATA") or entry.endswith("/PKG-INFO")):
                found, requires = from_metadata(read(entry).decode("utf-8", "replace"))
                return found or name, requires
    except Exception:
        pass
    return name, []

def importable(name):
    if metadata is not None:
        try:
            metadata.distribution(name)
            return True
        except Exception:
            pass
    try:
        return importlib.util.find_spec(name.replace("-", "_")) is not None
    except Exception:
        return False

print("version", sys.version_info[0], sys.version_info[1])
links, packages = [], []
for argument in sys.argv[1:]:
    (links if argument.startswith("L:") else packages).append(argument[2:])
linked = set()
for folder in links:
    try:
        for file in os.listdir(folder):
            if archive_name(file):
                linked.add(norm(archive_name(file)))
    except OSError:
        pass
read = [from_project(p) if os.path.isdir(p) else from_archive(p) for p in packages]
provided = {norm(name) for name, _ in read if name}
for index, (_, requires) in enumerate(read):
    for requirement in requires:
        requirement = requirement.split("#")[0].strip()
        spec, _, marker = requirement.partition(";")
        if not spec.strip() or "extra" in marker:
            continue
        if marker.strip() and Marker is not None:
            try:
                if not Marker(marker).evaluate():
                    continue
            except Exception:
                pass
        found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec.strip())
        if not found:
            continue
        name = found.group(0)
        if norm(name) in provided or importable(name):
            continue
        spec = name if "@" in spec else spec.strip()
        print("linked" if norm(name) in linked else "missing", index, name, spec, sep="\t")
)PY";

}  // namespace

absl::StatusOr<PythonProbe> PackageRequirements::Probe(
    const std::string& python, const std::map<std::string, std::string>& environment,
    const std::vector<PackageSource>& sources, const std::vector<std::string>& find_links,
    std::chrono::milliseconds timeout, const std::atomic<bool>* cancelled) {
  std::vector<std::string> argv = {"/usr/bin/env", "-i"};
  for (const auto& [name, value] : environment) argv.push_back(absl::StrCat(name, "=", value));
  argv.insert(argv.end(), {python, "-c", kProbeScript});
  for (const std::string& folder : find_links) argv.push_back(absl::StrCat("L:", folder));
  for (const PackageSource& source : sources) {
    // A bare package folder declares nothing.
    argv.push_back(absl::StrCat("P:", source.way == PackageSource::Way::kPip ? source.path : ""));
  }
  absl::StatusOr<scheduler::CommandOutput> output =
      scheduler::RunCommand(argv, {}, timeout, cancelled);
  if (!output.ok()) return output.status();
  PythonProbe probe;
  bool versioned = false;
  for (absl::string_view line : absl::StrSplit(output->out, '\n', absl::SkipEmpty())) {
    std::vector<std::string> words = absl::StrSplit(line, absl::ByAnyChar(" \t"));
    if (words.size() == 3 && words[0] == "version") {
      versioned =
          absl::SimpleAtoi(words[1], &probe.major) && absl::SimpleAtoi(words[2], &probe.minor);
      continue;
    }
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    PythonProbe::Requirement requirement;
    if (fields.size() != 4 || !absl::SimpleAtoi(fields[1], &requirement.package_index)) continue;
    requirement.name = fields[2];
    requirement.spec = fields[3];
    (fields[0] == "linked" ? probe.linked : probe.missing).push_back(std::move(requirement));
  }
  if (output->exit_code != 0 || !versioned) {
    return absl::FailedPreconditionError(absl::StrCat(
        python, " could not read the packages' requirements (exit ", output->exit_code, "): ",
        output->err.size() > 2000 ? output->err.substr(output->err.size() - 2000) : output->err));
  }
  return probe;
}

}  // namespace vernier::tuner
