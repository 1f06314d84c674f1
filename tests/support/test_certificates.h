#ifndef VERNIER_TESTS_SUPPORT_TEST_CERTIFICATES_H_
#define VERNIER_TESTS_SUPPORT_TEST_CERTIFICATES_H_

#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace vernier::testing {

// A CA and server, client and agent certificates made by the project's own
// scripts/make-certs.sh in a temporary directory (removed with it). The
// server's certificate names localhost, 127.0.0.1, ::1, this host and
// `names`; the client's CN is `user`. They last `days` (0: the script's
// default, 825).
class TestCertificates {
 public:
  explicit TestCertificates(const std::vector<std::string>& names = {},
                            const std::string& user = "alice", int days = 0);

  const std::string& dir() const { return dir_.path(); }
  // DIR/NAME, e.g. Path("server.pem").
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  // The text of DIR/NAME.
  std::string Read(const std::string& name) const;

 private:
  TempDir dir_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TEST_CERTIFICATES_H_
