#include "tuner/cli/gcloud_flags.h"

#include "absl/strings/str_cat.h"

namespace vernier::cli {
namespace {

struct GcloudFlag {
  std::string_view name;
  std::string_view advice;
};

constexpr std::string_view kCloudOnly =
    "has no meaning for a self-hosted server; drop it (trials run where `vernier serve` "
    "runs them: this machine or its Slurm cluster)";
constexpr std::string_view kInConfig =
    "goes in the --config YAML instead: masterConfig/workerConfig/parameterServerConfig with "
    "masterType, workerCount, acceleratorConfig or imageUri (see docs/yaml-reference.md)";
constexpr std::string_view kScaleTier =
    "goes in the --config YAML instead: trainingInput.scaleTier (BASIC, STANDARD_1, "
    "PREMIUM_1, BASIC_GPU, ... or CUSTOM with masterType; see docs/yaml-reference.md)";
constexpr std::string_view kAsync =
    "is not needed: `vernier jobs submit training` returns once the job is queued (unless "
    "given --wait or --stream-logs)";

constexpr GcloudFlag kGcloudFlags[] = {
    {"--staging-bucket", kCloudOnly},
    {"--kms-key", kCloudOnly},
    {"--kms-keyring", kCloudOnly},
    {"--kms-location", kCloudOnly},
    {"--kms-project", kCloudOnly},
    {"--network", kCloudOnly},
    {"--service-account", kCloudOnly},
    {"--enable-web-access", kCloudOnly},
    {"--project", kCloudOnly},
    {"--scale-tier", kScaleTier},
    {"--master-machine-type", kInConfig},
    {"--master-accelerator", kInConfig},
    {"--master-image-uri", kInConfig},
    {"--worker-count", kInConfig},
    {"--worker-machine-type", kInConfig},
    {"--worker-accelerator", kInConfig},
    {"--worker-image-uri", kInConfig},
    {"--parameter-server-count", kInConfig},
    {"--parameter-server-machine-type", kInConfig},
    {"--parameter-server-accelerator", kInConfig},
    {"--parameter-server-image-uri", kInConfig},
    {"--use-chief-in-tf-config", kInConfig},
    {"--async", kAsync},
};

}  // namespace

std::optional<std::string> GcloudFlagAdvice(std::string_view argument) {
  const std::string_view name = argument.substr(0, argument.find('='));
  for (const GcloudFlag& flag : kGcloudFlags) {
    if (flag.name == name) {
      return absl::StrCat("`", std::string(name),
                          "` is a gcloud flag that Vernier does not take: it ",
                          std::string(flag.advice));
    }
  }
  return std::nullopt;
}

}  // namespace vernier::cli
