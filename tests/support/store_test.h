#ifndef VERNIER_TESTS_SUPPORT_STORE_TEST_H_
#define VERNIER_TESTS_SUPPORT_STORE_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_database.h"

namespace vernier::testing {

// A test that runs once per store against real `vernier serve` processes:
// SQLite always, PostgreSQL where VERNIER_TEST_POSTGRES_URL names a server
// (skipped with the reason otherwise). Each test gets its own database.
class StoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override;

  // A server on this test's database; `name` keeps the data dirs (and
  // logs) of several servers apart, `port` 0 picks a free one.
  std::unique_ptr<ServerProcess> MakeServer(const std::string& name = "server", int port = 0);

  TempDir dir_;
  std::unique_ptr<TestDatabase> database_;
};

// For INSTANTIATE_TEST_SUITE_P: "SQLite", "PostgreSQL".
std::string StoreParamName(const ::testing::TestParamInfo<StoreKind>& info);

}  // namespace vernier::testing

#define VERNIER_INSTANTIATE_FOR_EVERY_STORE(suite)                                      \
  INSTANTIATE_TEST_SUITE_P(Stores, suite,                                               \
                           ::testing::Values(::vernier::testing::StoreKind::kSqlite,    \
                                             ::vernier::testing::StoreKind::kPostgres), \
                           ::vernier::testing::StoreParamName)

#endif  // VERNIER_TESTS_SUPPORT_STORE_TEST_H_
