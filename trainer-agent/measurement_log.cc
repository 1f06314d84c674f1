#include "trainer-agent/measurement_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

namespace vernier::agent {
namespace {

constexpr size_t kFrameBytes = 9;
// No record is anywhere near this; a larger length is a corrupt frame.
constexpr uint32_t kMaxPayloadBytes = 64 << 20;

void PutU32(std::string& out, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>(value >> shift));
}

uint32_t GetU32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  }
  return value;
}

// FNV-1a over the type and the payload: enough to tell a torn or zeroed
// record from a whole one.
uint32_t Checksum(uint8_t type, std::string_view payload) {
  uint32_t hash = 2166136261u;
  const auto mix = [&hash](uint8_t byte) {
    hash ^= byte;
    hash *= 16777619u;
  };
  mix(type);
  for (char c : payload) mix(static_cast<uint8_t>(c));
  return hash;
}

std::string ErrnoText() { return strerror(errno); }

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", ErrnoText()));
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// A new or renamed file is durable only once its directory entry is.
void SyncDirectoryOf(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  const int fd =
      open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

bool SameReplica(const v1::ReplicaId& a, const v1::ReplicaId& b) {
  return a.study_name() == b.study_name() && a.trial_id() == b.trial_id() && a.role() == b.role() &&
         a.index() == b.index();
}

std::string DescribeReplica(const v1::ReplicaId& replica) {
  return absl::StrCat("study=", replica.study_name(), " trial=", replica.trial_id(), " ",
                      replica.role(), "-", replica.index());
}

}  // namespace

MeasurementLog::MeasurementLog(std::string path, v1::ReplicaId replica,
                               std::shared_ptr<spdlog::logger> logger)
    : path_(std::move(path)), replica_(std::move(replica)), logger_(std::move(logger)) {}

MeasurementLog::~MeasurementLog() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<std::unique_ptr<MeasurementLog>> MeasurementLog::Open(
    std::string path, const v1::ReplicaId& replica, std::shared_ptr<spdlog::logger> logger) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the directory of ", path, ": ", error.message()));
  }
  std::unique_ptr<MeasurementLog> log(
      new MeasurementLog(std::move(path), replica, std::move(logger)));
  if (absl::Status status = log->Recover(); !status.ok()) return status;
  return log;
}

std::string MeasurementLog::Frame(RecordType type, std::string_view payload) {
  std::string frame;
  frame.reserve(kFrameBytes + payload.size());
  PutU32(frame, static_cast<uint32_t>(payload.size()));
  PutU32(frame, Checksum(type, payload));
  frame.push_back(static_cast<char>(type));
  frame.append(payload);
  return frame;
}

std::string MeasurementLog::EncodeSequenceNumber(int64_t sequence_number) {
  std::string bytes;
  const auto value = static_cast<uint64_t>(sequence_number);
  PutU32(bytes, static_cast<uint32_t>(value));
  PutU32(bytes, static_cast<uint32_t>(value >> 32));
  return bytes;
}

absl::Status MeasurementLog::Create() {
  if (fd_ >= 0) close(fd_);
  fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot create ", path_, ": ", ErrnoText()));
  }
  size_bytes_ = 0;
  if (absl::Status status = AppendRecord(kHeader, replica_.SerializeAsString()); !status.ok()) {
    return status;
  }
  if (absl::Status status = Sync(); !status.ok()) return status;
  SyncDirectoryOf(path_);
  return absl::OkStatus();
}

absl::Status MeasurementLog::Recover() {
  fd_ = open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) return Create();
  if (fd_ < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", path_, ": ", ErrnoText()));
  }
  std::string content;
  char buffer[64 * 1024];
  while (true) {
    const ssize_t got = read(fd_, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return absl::FailedPreconditionError(absl::StrCat("cannot read ", path_, ": ", ErrnoText()));
    }
    if (got == 0) break;
    content.append(buffer, static_cast<size_t>(got));
  }

  std::map<int64_t, v1::Measurement> measurements;
  size_t valid_end = 0;
  bool has_header = false;
  while (valid_end + kFrameBytes <= content.size()) {
    const std::string_view frame = std::string_view(content).substr(valid_end);
    const uint32_t length = GetU32(frame.substr(0, 4));
    const uint32_t checksum = GetU32(frame.substr(4, 4));
    const auto type = static_cast<uint8_t>(frame[8]);
    if (length > kMaxPayloadBytes || kFrameBytes + length > frame.size()) break;
    const std::string_view payload = frame.substr(kFrameBytes, length);
    if (Checksum(type, payload) != checksum) break;
    if (!has_header) {
      v1::ReplicaId written;
      if (type != kHeader || !written.ParseFromArray(payload.data(), static_cast<int>(length))) {
        break;
      }
      if (!SameReplica(written, replica_)) {
        logger_->warn("{} was written for {}, not {}; moved it to {}.stale and started afresh",
                      path_, DescribeReplica(written), DescribeReplica(replica_), path_);
        std::error_code error;
        std::filesystem::rename(path_, path_ + ".stale", error);
        return Create();
      }
      has_header = true;
    } else if (type == kMeasurement) {
      v1::Measurement measurement;
      if (!measurement.ParseFromArray(payload.data(), static_cast<int>(length))) break;
      recovered_.last_sequence_number =
          std::max(recovered_.last_sequence_number, measurement.sequence_number());
      measurements[measurement.sequence_number()] = std::move(measurement);
    } else if ((type == kAcknowledged || type == kDropped) && length == 8) {
      const int64_t through =
          static_cast<int64_t>(GetU32(payload.substr(0, 4)) |
                               (static_cast<uint64_t>(GetU32(payload.substr(4, 4))) << 32));
      recovered_.settled_through = std::max(recovered_.settled_through, through);
      recovered_.last_sequence_number = std::max(recovered_.last_sequence_number, through);
    } else {
      break;
    }
    valid_end += kFrameBytes + length;
  }
  if (!has_header) {
    if (!content.empty()) {
      logger_->warn("{} does not start with a measurement log header; moved it to {}.stale", path_,
                    path_);
      std::error_code error;
      std::filesystem::rename(path_, path_ + ".stale", error);
    }
    return Create();
  }
  if (valid_end < content.size()) {
    logger_->warn(
        "{}: cut off {} bytes of an incomplete record at its end (the agent stopped "
        "while writing it)",
        path_, content.size() - valid_end);
    if (ftruncate(fd_, static_cast<off_t>(valid_end)) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot truncate ", path_, " to its last whole record: ", ErrnoText()));
    }
  }
  size_bytes_ = valid_end;
  for (auto& [sequence_number, measurement] : measurements) {
    if (sequence_number > recovered_.settled_through) {
      recovered_.unsettled.push_back(std::move(measurement));
    }
  }
  return absl::OkStatus();
}

absl::Status MeasurementLog::AppendRecord(RecordType type, std::string_view payload) {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, " is not open"));
  const std::string frame = Frame(type, payload);
  if (absl::Status status = WriteAll(fd_, frame, path_); !status.ok()) return status;
  size_bytes_ += frame.size();
  return absl::OkStatus();
}

absl::Status MeasurementLog::Append(const v1::Measurement& measurement) {
  return AppendRecord(kMeasurement, measurement.SerializeAsString());
}

absl::Status MeasurementLog::MarkAcknowledged(int64_t sequence_number) {
  return AppendRecord(kAcknowledged, EncodeSequenceNumber(sequence_number));
}

absl::Status MeasurementLog::MarkDropped(int64_t sequence_number) {
  return AppendRecord(kDropped, EncodeSequenceNumber(sequence_number));
}

absl::Status MeasurementLog::Sync() {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, " is not open"));
  if (fdatasync(fd_) != 0) {
    return absl::InternalError(absl::StrCat("cannot sync ", path_, ": ", ErrnoText()));
  }
  return absl::OkStatus();
}

absl::Status MeasurementLog::Compact(int64_t settled_through,
                                     const std::deque<v1::Measurement>& unsettled) {
  std::string content = Frame(kHeader, replica_.SerializeAsString());
  content += Frame(kAcknowledged, EncodeSequenceNumber(settled_through));
  for (const v1::Measurement& measurement : unsettled) {
    content += Frame(kMeasurement, measurement.SerializeAsString());
  }
  const std::string compacted = path_ + ".compact";
  const int fd = open(compacted.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot create ", compacted, ": ", ErrnoText()));
  }
  absl::Status status = WriteAll(fd, content, compacted);
  if (status.ok() && fsync(fd) != 0) {
    status = absl::InternalError(absl::StrCat("cannot sync ", compacted, ": ", ErrnoText()));
  }
  close(fd);
  if (status.ok() && rename(compacted.c_str(), path_.c_str()) != 0) {
    status = absl::InternalError(
        absl::StrCat("cannot rename ", compacted, " to ", path_, ": ", ErrnoText()));
  }
  if (!status.ok()) {
    unlink(compacted.c_str());
    return status;
  }
  SyncDirectoryOf(path_);
  const int reopened = open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (reopened < 0) {
    return absl::InternalError(absl::StrCat("cannot reopen ", path_, ": ", ErrnoText()));
  }
  close(fd_);
  fd_ = reopened;
  size_bytes_ = content.size();
  return absl::OkStatus();
}

}  // namespace vernier::agent
