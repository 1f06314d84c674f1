#include "tests/support/store_test.h"

namespace vernier::testing {

void StoreTest::SetUp() {
  if (!StoreAvailable(GetParam())) GTEST_SKIP() << kNoPostgresServer;
  database_ = std::make_unique<TestDatabase>(GetParam(), dir_.path());
}

std::unique_ptr<ServerProcess> StoreTest::MakeServer(const std::string& name, int port) {
  return std::make_unique<ServerProcess>(dir_.path() + "/" + name, port,
                                         std::vector<std::string>{"--db", database_->url()});
}

std::string StoreParamName(const ::testing::TestParamInfo<StoreKind>& info) {
  return StoreKindName(info.param);
}

}  // namespace vernier::testing
