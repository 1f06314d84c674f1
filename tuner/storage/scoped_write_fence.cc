#include "tuner/storage/scoped_write_fence.h"

#include "absl/strings/str_format.h"

namespace vernier::storage {
namespace {

thread_local const WriteFence* current_fence = nullptr;

}  // namespace

ScopedWriteFence::ScopedWriteFence(WriteFence fence)
    : fence_(std::move(fence)), outer_(current_fence) {
  current_fence = &fence_;
}

ScopedWriteFence::~ScopedWriteFence() { current_fence = outer_; }

const WriteFence* ScopedWriteFence::Current() { return current_fence; }

absl::Status ScopedWriteFence::Refused(const WriteFence& fence, const std::string& holder,
                                       int64_t token) {
  if (holder.empty()) {
    return absl::AbortedError(absl::StrFormat(
        "server %s no longer holds the lease of job \"%s\" (nobody does; it held token %d): "
        "its write was refused",
        fence.holder, fence.job_id, fence.token));
  }
  return absl::AbortedError(absl::StrFormat(
      "server %s no longer holds the lease of job \"%s\": server %s does (token %d; this one "
      "held %d), so this server's write was refused",
      fence.holder, fence.job_id, holder, token, fence.token));
}

}  // namespace vernier::storage
