#ifndef VERNIER_TUNER_STORAGE_SCOPED_WRITE_FENCE_H_
#define VERNIER_TUNER_STORAGE_SCOPED_WRITE_FENCE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace vernier::storage {

// The job lease a server's writes are made under.
struct WriteFence {
  std::string job_id;
  std::string holder;
  int64_t token = 0;
};

// While it lives, every write transaction this thread runs on a store is
// fenced: it first checks, under a lock that a new holder's lease must wait
// for, that `fence.holder` still holds the job's lease with `fence.token`,
// and fails with ABORTED, writing nothing, when it does not (a caller that
// retries finds the job driven elsewhere). So
// a server that lost a job's lease (it stalled past the lease time, and
// another server took the job) can no longer change the job, its runs or
// its trials. Scopes nest; the innermost one counts.
class ScopedWriteFence {
 public:
  explicit ScopedWriteFence(WriteFence fence);
  ~ScopedWriteFence();
  ScopedWriteFence(const ScopedWriteFence&) = delete;
  ScopedWriteFence& operator=(const ScopedWriteFence&) = delete;

  // This thread's fence, or null.
  static const WriteFence* Current();
  // The error a store answers when the lease is held by `holder` with
  // `token` now (holder empty: nobody holds it).
  static absl::Status Refused(const WriteFence& fence, const std::string& holder, int64_t token);

 private:
  WriteFence fence_;
  const WriteFence* outer_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SCOPED_WRITE_FENCE_H_
