// The two services outside the gate (docs/security.md): gRPC health
// checking answers SERVING without a token, on loopback and off it (probes
// send none); reflection answers on loopback only.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/non_loopback_address.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

// Health's Check and reflection's list_services as raw bytes with
// Debian's python3-grpcio, no token; prints what each answered.
constexpr char kProbe[] = R"(
import sys, grpc
address, ca = sys.argv[1], sys.argv[2]
channel = (grpc.secure_channel(address, grpc.ssl_channel_credentials(open(ca, 'rb').read()))
           if ca else grpc.insecure_channel(address))
try:
    print('health', channel.unary_unary('/grpc.health.v1.Health/Check')(b'', timeout=10).hex())
except grpc.RpcError as error:
    print('health', error.code().name)
try:
    answers = channel.stream_stream(
        '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo')(
            iter([b'\x3a\x00']), timeout=10)
    print('reflection', b'vernier.v1.StudyService' in b''.join(answers))
except grpc.RpcError as error:
    print('reflection', error.code().name)
)";

std::string Probe(const std::string& address, const std::string& ca = "") {
  const CommandResult probed =
      RunCommand({"/usr/bin/python3", "-c", kProbe, address, ca}, std::chrono::seconds(60));
  EXPECT_EQ(probed.exit_code, 0) << probed.err;
  return probed.out;
}

TEST(HealthReflectionTest, OnLoopbackHealthAndReflectionAnswerWithoutAToken) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  server.Start();
  const std::string answers = Probe(server.address());
  // HealthCheckResponse{status: SERVING}: field 1, value 1.
  EXPECT_THAT(answers, HasSubstr("health 0801"));
  EXPECT_THAT(answers, HasSubstr("reflection True"));
}

TEST(HealthReflectionTest, OffLoopbackHealthAnswersAndReflectionIsOff) {
  const std::string host = NonLoopbackAddress();
  if (host.empty()) GTEST_SKIP() << "this machine has no IPv4 address off loopback";
  TestCertificates certs({host}, "alice");
  TempDir dir;
  ServerProcess server(dir.path() + "/data", 0,
                       {"--host", host, "--tls-cert", certs.Path("server.pem"), "--tls-key",
                        certs.Path("server.key"), "--tls-ca", certs.Path("ca.pem")});
  server.Start();
  const std::string answers =
      Probe(host + ":" + std::to_string(server.port()), certs.Path("ca.pem"));
  EXPECT_THAT(answers, HasSubstr("health 0801"));
  EXPECT_THAT(answers, HasSubstr("reflection UNIMPLEMENTED"));
}

}  // namespace
}  // namespace vernier::testing
