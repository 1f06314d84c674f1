#ifndef VERNIER_TESTS_SUPPORT_TEST_SEED_H_
#define VERNIER_TESTS_SUPPORT_TEST_SEED_H_

#include <cstdint>
#include <string>

namespace vernier::testing {

// The seed of a randomised test: $VARIABLE when set, to replay a failing
// run, else a fresh one. Print it where a failure shows it.
uint64_t SeedFrom(const std::string& variable);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TEST_SEED_H_
