#ifndef VERNIER_TESTS_SUPPORT_NON_LOOPBACK_ADDRESS_H_
#define VERNIER_TESTS_SUPPORT_NON_LOOPBACK_ADDRESS_H_

#include <string>

namespace vernier::testing {

// An IPv4 address of this machine off loopback; empty when it has none.
std::string NonLoopbackAddress();

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_NON_LOOPBACK_ADDRESS_H_
