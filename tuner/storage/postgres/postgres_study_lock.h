#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STUDY_LOCK_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STUDY_LOCK_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tuner/storage/postgres/postgres_connection_pool.h"
#include "tuner/storage/study_lock.h"

namespace vernier::storage {

// A study's lock for servers sharing one PostgreSQL database: a session-level
// advisory lock, pg_advisory_lock(kVernierStudyLocks, hashtext(study name)),
// held on a connection of its own for as long as this object lives. The
// server drops it when that session ends, so a holder that dies releases it.
// Two studies whose names hash alike only wait for each other.
//
// If the lock's connection breaks while held, another server may take the
// lock before this holder finishes; writes stay consistent (trial ids come
// from a row lock), only the max_parallel_trials bound could be overrun once.
class PostgresStudyLock : public StudyLock {
 public:
  // The classid half of the advisory lock key: "VRNR" in ASCII.
  static constexpr int kVernierStudyLocks = 0x56524E52;

  // Waits on `lock_connection` (whose session has lock_timeout set) for the
  // lock. UNAVAILABLE naming the study when the wait times out or the
  // connection fails.
  static absl::StatusOr<std::unique_ptr<PostgresStudyLock>> Acquire(
      PostgresConnectionPool::Lease lock_connection, std::string_view study_name);
  ~PostgresStudyLock() override;

 private:
  PostgresStudyLock(PostgresConnectionPool::Lease connection, std::string study_name);

  PostgresConnectionPool::Lease connection_;
  const std::string study_name_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STUDY_LOCK_H_
