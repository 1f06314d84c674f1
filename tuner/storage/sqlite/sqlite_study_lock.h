#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STUDY_LOCK_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STUDY_LOCK_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/storage/study_lock.h"

namespace vernier::storage {

// A study's lock for processes sharing one SQLite file: an open file
// description lock (F_OFD_SETLK) on the byte of `lock_file` that the study
// name's FNV-1a hash picks. Such locks belong to the open file, not the
// process, so two holders in one process exclude each other too, and the
// kernel drops them when the holder dies. Two studies on the same byte only
// wait for each other.
class SqliteStudyLock : public StudyLock {
 public:
  // Creates `lock_file` if missing. UNAVAILABLE naming the study when another
  // holder keeps the byte past `timeout`; INTERNAL when the file cannot be
  // opened or locked.
  static absl::StatusOr<std::unique_ptr<SqliteStudyLock>> Acquire(const std::string& lock_file,
                                                                  std::string_view study_name,
                                                                  absl::Duration timeout);
  ~SqliteStudyLock() override;

 private:
  explicit SqliteStudyLock(int fd) : fd_(fd) {}

  // Closing the descriptor releases the lock.
  int fd_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STUDY_LOCK_H_
