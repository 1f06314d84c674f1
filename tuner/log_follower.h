#ifndef VERNIER_TUNER_LOG_FOLLOWER_H_
#define VERNIER_TUNER_LOG_FOLLOWER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vernier/v1/job_service.pb.h"

namespace vernier::tuner {

// Reads replicas' log files as they grow, a whole line at a time, each
// line tagged with its trial, role and index. Files may not exist yet.
class LogFollower {
 public:
  // Adding the same path again is a no-op.
  void AddSource(int64_t trial_id, const std::string& role, int index, const std::string& path);
  // Complete lines written since the last call, file by file.
  std::vector<v1::LogLine> Poll();
  // Also the unterminated last line of each file: for the end of a stream.
  std::vector<v1::LogLine> Drain();

 private:
  struct Source {
    int64_t trial_id = 0;
    std::string role;
    int index = 0;
    uint64_t offset = 0;
    std::string partial;
  };
  std::vector<v1::LogLine> Read(bool include_partial);

  std::map<std::string, Source> sources_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_LOG_FOLLOWER_H_
