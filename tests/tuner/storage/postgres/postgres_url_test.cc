#include "tuner/storage/postgres/postgres_url.h"

#include "gtest/gtest.h"

namespace vernier::storage {
namespace {

TEST(PostgresUrlTest, RedactsPasswordsOnly) {
  EXPECT_EQ(RedactPostgresUrl("postgresql://vernier:s3cret@db:5432/vernier"),
            "postgresql://vernier:***@db:5432/vernier");
  EXPECT_EQ(RedactPostgresUrl("postgresql://vernier@db:5432/vernier"),
            "postgresql://vernier@db:5432/vernier");
  EXPECT_EQ(RedactPostgresUrl("postgresql://db/vernier?user=v&password=s3cret&sslmode=require"),
            "postgresql://db/vernier?user=v&password=***&sslmode=require");
  EXPECT_EQ(RedactPostgresUrl("postgresql://u:p@w@db/x"), "postgresql://u:***@db/x");
  EXPECT_EQ(RedactPostgresUrl("postgresql:///vernier"), "postgresql:///vernier");
  EXPECT_EQ(RedactPostgresUrl("host=db password=s3cret dbname=v"), "host=db password=*** dbname=v");
}

TEST(PostgresUrlTest, AddsAParameterUnlessSet) {
  EXPECT_EQ(WithUrlParameter("postgresql://db/v", "connect_timeout", "10"),
            "postgresql://db/v?connect_timeout=10");
  EXPECT_EQ(WithUrlParameter("postgresql://db/v?sslmode=require", "connect_timeout", "10"),
            "postgresql://db/v?sslmode=require&connect_timeout=10");
  EXPECT_EQ(WithUrlParameter("postgresql://db/v?connect_timeout=3", "connect_timeout", "10"),
            "postgresql://db/v?connect_timeout=3");
}

TEST(PostgresUrlTest, ReplacesTheDatabase) {
  EXPECT_EQ(WithDatabase("postgresql://vernier@127.0.0.1:5432/postgres", "t1"),
            "postgresql://vernier@127.0.0.1:5432/t1");
  EXPECT_EQ(WithDatabase("postgresql://vernier@127.0.0.1:5432", "t1"),
            "postgresql://vernier@127.0.0.1:5432/t1");
  EXPECT_EQ(WithDatabase("postgresql://h/postgres?sslmode=disable", "t1"),
            "postgresql://h/t1?sslmode=disable");
}

}  // namespace
}  // namespace vernier::storage
