// Fuzzes the trainingInput YAML reader: any text either parses into a
// validated TrainingInput or gives INVALID_ARGUMENT; nothing else (no crash,
// no exception, no other code) is allowed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/statusor.h"
#include "tuner/config/training_input_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<vernier::v1::TrainingInput> input =
      vernier::config::ParseTrainingInputYaml(text, "fuzz.yaml");
  if (!input.ok() && !absl::IsInvalidArgument(input.status())) std::abort();
  return 0;
}
