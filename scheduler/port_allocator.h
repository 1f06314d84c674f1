#ifndef VERNIER_SCHEDULER_PORT_ALLOCATOR_H_
#define VERNIER_SCHEDULER_PORT_ALLOCATOR_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::scheduler {

// An inclusive range of TCP ports, e.g. 20000-29999.
struct PortRange {
  int first = 20000;
  int last = 29999;

  // "20000-29999" -> {20000, 29999}; InvalidArgument naming what is wrong.
  static absl::StatusOr<PortRange> Parse(std::string_view text);
};

// Hands out the ports of a range to owners (one per trial) so that no port
// is ever held by two owners at once; an owner's ports come back with
// Release. Ports another program uses are skipped through the `usable`
// check the caller passes (see PortProbe for the real one). Pure logic: no
// I/O of its own. Not thread-safe.
class PortAllocator {
 public:
  // The first search starts `start_offset` ports into the range (mod its
  // size): servers of one machine that start at random offsets rarely pick
  // the same port at the same time.
  explicit PortAllocator(PortRange range, int start_offset = 0);

  // `count` free ports for `owner`, each passing `usable`, searched from
  // after the last port handed out so that a just-released port is not
  // reused at once. AlreadyExists when `owner` holds ports;
  // ResourceExhausted when the range has too few free, usable ports.
  absl::StatusOr<std::vector<int>> Acquire(const std::string& owner, int count,
                                           const std::function<bool(int)>& usable);
  // Marks ports an owner held before a restart as held again;
  // FailedPrecondition when one is outside the range or held by another
  // owner, AlreadyExists when `owner` holds ports.
  absl::Status Restore(const std::string& owner, const std::vector<int>& ports);
  // Gives `owner`'s ports back; unknown owners are ignored, so that every
  // exit path may call it.
  void Release(std::string_view owner);

  // The ports `owner` holds, empty when none.
  std::vector<int> HeldBy(std::string_view owner) const;
  int held_count() const { return static_cast<int>(holder_of_.size()); }
  // Every owner that holds ports.
  std::vector<std::string> Owners() const;

 private:
  const PortRange range_;
  std::map<int, std::string> holder_of_;
  std::map<std::string, std::vector<int>, std::less<>> ports_of_;
  int next_ = 0;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_PORT_ALLOCATOR_H_
