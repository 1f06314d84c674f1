#ifndef VERNIER_TRAINER_AGENT_MEASUREMENT_LOG_H_
#define VERNIER_TRAINER_AGENT_MEASUREMENT_LOG_H_

#include <spdlog/logger.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::agent {

// The agent's durable buffer: an append-only file in the trial's directory
// holding every measurement before it is sent, and how far the service has
// acknowledged them, so that neither a service outage nor a restart of the
// agent loses or repeats a measurement.
//
// Records are framed as [u32 payload length][u32 checksum][u8 type][payload]
// (little endian): a header naming the replica, then measurements and
// "settled through sequence number N" marks (acknowledged by the service, or
// given up). Open replays the file: a torn record at the end (the agent was
// killed mid-write) is cut off, and the measurements above the last mark are
// the ones still to send. A file written for another replica (a job dir
// reused by another job) is moved aside to PATH.stale.
//
// Not thread-safe; the reporter serialises calls.
class MeasurementLog {
 public:
  // What a previous agent left to do.
  struct Recovered {
    // Sequence numbers above `settled_through`, in order.
    std::vector<v1::Measurement> unsettled;
    int64_t settled_through = 0;
    // The highest sequence number ever written; new ones continue from it.
    int64_t last_sequence_number = 0;
  };

  // Opens or creates the log at `path` (its directory is created).
  static absl::StatusOr<std::unique_ptr<MeasurementLog>> Open(
      std::string path, const v1::ReplicaId& replica, std::shared_ptr<spdlog::logger> logger);
  ~MeasurementLog();

  MeasurementLog(const MeasurementLog&) = delete;
  MeasurementLog& operator=(const MeasurementLog&) = delete;

  // What Open found; moved out by the first call.
  Recovered TakeRecovered() { return std::move(recovered_); }

  // Appends; durable against a crash of the agent at once, against a crash of
  // the machine after Sync.
  absl::Status Append(const v1::Measurement& measurement);
  // The service acknowledged every sequence number up to `sequence_number`.
  absl::Status MarkAcknowledged(int64_t sequence_number);
  // Measurements up to `sequence_number` were given up (dropped).
  absl::Status MarkDropped(int64_t sequence_number);
  // fdatasync: everything appended so far survives a crash of the machine.
  absl::Status Sync();

  // Rewrites the file as header, settled mark and `unsettled`, atomically
  // (write a new file, fsync, rename), so that it does not keep growing
  // with measurements long acknowledged.
  absl::Status Compact(int64_t settled_through, const std::deque<v1::Measurement>& unsettled);

  const std::string& path() const { return path_; }
  // The file's size as written so far.
  uint64_t size_bytes() const { return size_bytes_; }

 private:
  enum RecordType : uint8_t { kHeader = 1, kMeasurement = 2, kAcknowledged = 3, kDropped = 4 };

  MeasurementLog(std::string path, v1::ReplicaId replica, std::shared_ptr<spdlog::logger> logger);

  absl::Status Recover();
  absl::Status Create();
  absl::Status AppendRecord(RecordType type, std::string_view payload);
  static std::string Frame(RecordType type, std::string_view payload);
  static std::string EncodeSequenceNumber(int64_t sequence_number);

  std::string path_;
  v1::ReplicaId replica_;
  std::shared_ptr<spdlog::logger> logger_;
  int fd_ = -1;
  uint64_t size_bytes_ = 0;
  Recovered recovered_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_MEASUREMENT_LOG_H_
