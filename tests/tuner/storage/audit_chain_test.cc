#include "tuner/storage/audit_chain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "google/protobuf/util/time_util.h"

namespace vernier::storage {
namespace {

using ::testing::HasSubstr;

// A chain of `count` rows, resources "r1", "r2", ...
std::vector<StoredAuditRow> Chain(int count) {
  std::vector<StoredAuditRow> rows;
  for (int i = 1; i <= count; ++i) {
    v1::AuditEntry entry;
    *entry.mutable_time() = google::protobuf::util::TimeUtil::SecondsToTimestamp(1000 + i);
    entry.set_user("dora");
    entry.set_method("/vernier.v1.JobService/CancelJob");
    entry.set_resource("r" + std::to_string(i));
    rows.push_back(ChainAuditRow(rows.empty() ? nullptr : &rows.back(), entry));
  }
  return rows;
}

// The attack: with the triggers dropped, row `removed` is deleted
// and every later row renumbered and rehashed, which the hash (it has no
// key) lets anyone with the database do.
std::vector<StoredAuditRow> RemoveAndRehash(std::vector<StoredAuditRow> rows, int64_t removed) {
  rows.erase(rows.begin() + (removed - 1));
  std::string previous = removed > 1 ? rows[removed - 2].hash : "";
  for (size_t i = removed - 1; i < rows.size(); ++i) {
    rows[i].sequence = static_cast<int64_t>(i) + 1;
    rows[i].hash = AuditRowHash(previous, rows[i]);
    previous = rows[i].hash;
  }
  return rows;
}

TEST(AuditChainTest, AnIntactChainHoldsAHeadNotedBefore) {
  std::vector<StoredAuditRow> rows = Chain(3);
  const std::string noted = VerifyAuditChain(rows).head_hash();
  const std::vector<StoredAuditRow> more = Chain(5);
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(more, noted);
  EXPECT_TRUE(verified.intact()) << verified.problem();
  EXPECT_EQ(verified.noted_head_sequence(), 3);
  EXPECT_EQ(verified.head_sequence(), 5);
}

TEST(AuditChainTest, ARowRemovedAndTheRestRehashedFailsAgainstANotedHead) {
  const std::vector<StoredAuditRow> rows = Chain(5);
  const std::string noted = VerifyAuditChain(rows).head_hash();
  const std::vector<StoredAuditRow> forged = RemoveAndRehash(rows, 2);
  // The chain alone cannot tell.
  EXPECT_TRUE(VerifyAuditChain(forged).intact());
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(forged, noted);
  EXPECT_FALSE(verified.intact());
  EXPECT_THAT(verified.problem(), HasSubstr("no row has the hash " + noted +
                                            " of the head noted before: rows up to it were "
                                            "removed or changed"));
}

TEST(AuditChainTest, TheNewestRowsRemovedFailAgainstANotedHead) {
  const std::vector<StoredAuditRow> rows = Chain(5);
  const std::string noted = VerifyAuditChain(rows).head_hash();
  const std::vector<StoredAuditRow> cut(rows.begin(), rows.begin() + 3);
  EXPECT_TRUE(VerifyAuditChain(cut).intact());
  EXPECT_FALSE(VerifyAuditChain(cut, noted).intact());
}

TEST(AuditChainTest, ABrokenChainIsReportedBeforeTheHead) {
  std::vector<StoredAuditRow> rows = Chain(3);
  const std::string noted = VerifyAuditChain(rows).head_hash();
  rows[1].resource = "z";
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(rows, noted);
  EXPECT_FALSE(verified.intact());
  EXPECT_EQ(verified.first_bad_sequence(), 2);
}

}  // namespace
}  // namespace vernier::storage
