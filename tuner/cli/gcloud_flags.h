#ifndef VERNIER_TUNER_CLI_GCLOUD_FLAGS_H_
#define VERNIER_TUNER_CLI_GCLOUD_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>

namespace vernier::cli {

// What to do instead of a flag of `gcloud ai-platform jobs submit training`
// that `vernier jobs submit training` does not take, e.g. for "--region"
// (also "--region=us-central1"): a sentence naming the flag. nullopt for a
// flag gcloud does not have either.
std::optional<std::string> GcloudFlagAdvice(std::string_view argument);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_GCLOUD_FLAGS_H_
