#include "tests/support/test_certificates.h"

#include <stdexcept>

namespace vernier::testing {

TestCertificates::TestCertificates(const std::vector<std::string>& names, const std::string& user,
                                   int days) {
  std::vector<std::string> argv = {SourcePath("scripts/make-certs.sh"), "--user", user};
  if (days > 0) argv.insert(argv.end(), {"--days", std::to_string(days)});
  argv.push_back(dir_.path());
  argv.insert(argv.end(), names.begin(), names.end());
  const CommandResult result = RunCommand(argv);
  if (result.exit_code != 0) {
    throw std::runtime_error("scripts/make-certs.sh failed: " + result.err + result.out);
  }
}

std::string TestCertificates::Read(const std::string& name) const { return ReadFile(Path(name)); }

}  // namespace vernier::testing
