#include "tuner/storage/audit_chain.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace vernier::storage {
namespace {

// Each part with its length, so no two different rows hash the same bytes.
void AppendPart(std::string& out, absl::string_view part) {
  absl::StrAppend(&out, part.size(), ":", part, ";");
}

int64_t TimeMicros(const v1::AuditEntry& entry) {
  return entry.time().seconds() * 1'000'000 + entry.time().nanos() / 1000;
}

}  // namespace

std::string AuditRowHash(absl::string_view previous_hash, const StoredAuditRow& row) {
  std::string bytes;
  AppendPart(bytes, previous_hash);
  AppendPart(bytes, absl::StrCat(row.sequence));
  AppendPart(bytes, absl::StrCat(row.time_micros));
  AppendPart(bytes, row.user);
  AppendPart(bytes, row.resource);
  AppendPart(bytes, row.body);
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

StoredAuditRow ChainAuditRow(const StoredAuditRow* previous, const v1::AuditEntry& entry) {
  v1::AuditEntry body = entry;
  body.clear_sequence();
  body.clear_hash();
  StoredAuditRow row;
  row.sequence = previous == nullptr ? 1 : previous->sequence + 1;
  row.time_micros = TimeMicros(entry);
  row.user = entry.user();
  row.resource = entry.resource();
  row.body = body.SerializeAsString();
  row.hash = AuditRowHash(previous == nullptr ? "" : previous->hash, row);
  return row;
}

absl::StatusOr<v1::AuditEntry> AuditEntryOfRow(const StoredAuditRow& row) {
  v1::AuditEntry entry;
  if (!entry.ParseFromString(row.body)) {
    return absl::DataLossError(
        absl::StrCat("audit row ", row.sequence, " has a body that does not parse"));
  }
  entry.set_sequence(row.sequence);
  entry.set_hash(row.hash);
  return entry;
}

v1::VerifyAuditLogResponse VerifyAuditChain(std::span<const StoredAuditRow> rows,
                                            absl::string_view noted_head) {
  v1::VerifyAuditLogResponse answer;
  answer.set_entry_count(static_cast<int64_t>(rows.size()));
  const auto broken = [&](int64_t sequence, std::string problem) {
    answer.set_intact(false);
    answer.set_first_bad_sequence(sequence);
    answer.set_problem(std::move(problem));
    return answer;
  };
  std::string previous_hash;
  int64_t expected = 1;
  for (const StoredAuditRow& row : rows) {
    if (row.sequence != expected) {
      return broken(expected, absl::StrCat("row ", expected, " is missing (the next row is ",
                                           row.sequence, "): a row was deleted"));
    }
    if (AuditRowHash(previous_hash, row) != row.hash) {
      return broken(row.sequence,
                    absl::StrCat("row ", row.sequence,
                                 " does not match its hash: it, or the row before it, was changed"));
    }
    absl::StatusOr<v1::AuditEntry> entry = AuditEntryOfRow(row);
    if (!entry.ok()) return broken(row.sequence, std::string(entry.status().message()));
    if (entry->user() != row.user || entry->resource() != row.resource ||
        TimeMicros(*entry) != row.time_micros) {
      return broken(row.sequence, absl::StrCat("row ", row.sequence,
                                               "'s user, resource or time columns differ from "
                                               "the row's recorded body: it was changed"));
    }
    if (!noted_head.empty() && row.hash == noted_head) {
      answer.set_noted_head_sequence(row.sequence);
    }
    previous_hash = row.hash;
    ++expected;
  }
  if (!noted_head.empty() && answer.noted_head_sequence() == 0) {
    return broken(0, absl::StrCat("no row has the hash ", noted_head,
                                  " of the head noted before: rows up to it were removed or "
                                  "changed, and the rows after them rehashed"));
  }
  answer.set_intact(true);
  answer.set_head_sequence(expected - 1);
  answer.set_head_hash(previous_hash);
  return answer;
}

}  // namespace vernier::storage
