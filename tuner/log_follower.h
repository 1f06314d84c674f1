#ifndef VERNIER_TUNER_LOG_FOLLOWER_H_
#define VERNIER_TUNER_LOG_FOLLOWER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vernier/v1/job_service.pb.h"

namespace vernier::tuner {

// Reads replicas' log files as they grow, a whole line at a time, each
// line tagged with its trial, role, index and attempt. Files may not exist
// yet; a file that shrinks (replaced) is read again from its start. A line's
// text is made valid UTF-8 (invalid bytes become U+FFFD), whatever bytes the
// file holds. Only regular files are read: a symbolic link at a log's path
// is not followed, and yields no lines. Lines come in trial id order; those
// a replica's vernier-agent wrote are marked `agent`, without its prefix.
class LogFollower {
 public:
  // Adding the same path again is a no-op, unless the attempt differs (a
  // retry appends to the same file): then the lines written so far are kept
  // under the old attempt for the next Poll, and later ones get the new one.
  void AddSource(int64_t trial_id, const std::string& role, int index, const std::string& path,
                 int attempt = 0);
  // Complete lines written since the last call, file by file.
  std::vector<v1::LogLine> Poll();
  // Also the unterminated last line of each file: for the end of a stream.
  std::vector<v1::LogLine> Drain();

 private:
  struct Source {
    int64_t trial_id = 0;
    std::string role;
    int index = 0;
    int attempt = 0;
    uint64_t offset = 0;
    std::string partial;
  };
  // Appends the source's new complete lines (and, with include_partial, its
  // unterminated last one) to `lines`.
  static void ReadSource(const std::string& path, Source& source, bool include_partial,
                         std::vector<v1::LogLine>& lines);
  std::vector<v1::LogLine> Read(bool include_partial);

  std::map<std::string, Source> sources_;
  // Lines of an earlier attempt, read when the next one was added.
  std::vector<v1::LogLine> earlier_attempts_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_LOG_FOLLOWER_H_
