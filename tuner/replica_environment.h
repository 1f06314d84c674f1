#ifndef VERNIER_TUNER_REPLICA_ENVIRONMENT_H_
#define VERNIER_TUNER_REPLICA_ENVIRONMENT_H_

#include <map>
#include <string>

#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

// The trial's environment (docs/jobs.md, "The trial's environment"): what a
// replica starts with before Vernier adds its own variables (TF_CONFIG,
// MASTER_ADDR, ...). In order, later ones winning:
//   1. from the server's environment only `inherited` (InheritedVariables),
//      with its PATH only when the job sends none;
//   2. the job's environment (the submitter's PATH, PYTHONPATH, VIRTUAL_ENV,
//      CONDA_PREFIX and LD_LIBRARY_PATH as the CLI sent them, --env and
//      --env-file);
//   3. the replica's role's `env:` map.
std::map<std::string, std::string> ReplicaEnvironment(
    const std::map<std::string, std::string>& inherited, const v1::Job& job,
    const v1::ReplicaSpec& spec);

// What of a server's environment (NAME=VALUE strings, as `environ`) a
// replica may see: HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ,
// TMPDIR, XDG_RUNTIME_DIR (where a rootless podman keeps its state) and
// PATH (the fallback above), and the sanitizer runtimes' options
// (ASAN_OPTIONS, LSAN_OPTIONS, UBSAN_OPTIONS) so that the agents of a
// sanitizer build report as the server does. Nothing else: not the
// server's tokens, database URL or SLURM_CONF.
std::map<std::string, std::string> InheritedVariables(const char* const* environment);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_REPLICA_ENVIRONMENT_H_
