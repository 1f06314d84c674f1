#include "tests/support/store_test.h"

namespace vernier::testing {

void StoreTest::SetUp() {
  if (GetParam() == StoreKind::kPostgres && !TestPostgresUrl().has_value()) {
    GTEST_SKIP() << PostgresSkipReason();
  }
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
