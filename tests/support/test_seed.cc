#include "tests/support/test_seed.h"

#include <cstdlib>
#include <random>

namespace vernier::testing {

uint64_t SeedFrom(const std::string& variable) {
  if (const char* given = std::getenv(variable.c_str()); given != nullptr && *given != '\0') {
    return std::strtoull(given, nullptr, 10);
  }
  return (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
}

}  // namespace vernier::testing
