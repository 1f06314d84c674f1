#ifndef VERNIER_TRAINER_AGENT_OUTPUT_HYPERTUNE_FILE_READER_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_HYPERTUNE_FILE_READER_H_

#include <spdlog/logger.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainer-agent/output/warning_limiter.h"
#include "vernier/v1/study.pb.h"

namespace vernier::agent {

// Follows the metrics file that the cloudml-hypertune library writes (the path
// in CLOUD_ML_HP_METRIC_FILE) and turns each of its records into a
// measurement, exactly once.
//
// The library keeps a history of its last 100 reports and REWRITES THE WHOLE
// FILE (truncate, then write) on every report, one JSON object per line:
//   {"checkpoint_path": "", "global_step": "120", "accuracy": "0.91",
//    "timestamp": 1700000000.1, "trial": "3"}
// Every key other than checkpoint_path, global_step, timestamp and trial whose
// value is a number, or a string holding one, is a metric.
//
// New records are found in two ways. When the file still starts with the
// bytes already consumed (it only grew), the new records are the lines after
// them. Otherwise (the history window slid, or the read caught the file in the
// middle of a rewrite) the file's lines are aligned against the records
// already emitted, so that neither a rewrite nor a half-written file yields a
// record twice. A last line without its newline is left for a later poll.
//
// Writers that append (vernier.report, vernier/report.h) make files that
// grow without bound; for those only the new bytes and the last
// kTailCheckBytes already consumed (to recognise the file) are read per poll.
// A record longer than kMaxRecordBytes is skipped with a warning, and so is
// one that grows past it without a newline, so memory stays bounded.
//
// The file is the trainer's to write, so nothing about it is trusted: it is
// opened without blocking (a FIFO does not hang the agent) and without
// following a symbolic link (one to /dev/zero, or out of the trial
// directory, is refused with a warning), and only a regular file is read.
// A poll reads at most kMaxReadBytes; the rest waits for the next poll
// (Finish reads on to the end, window by window). NUL bytes separate records
// like newlines, so the hole of a sparse file (a writer that truncated the
// file while another wrote at its old offset) is skipped, not one huge record.
class HypertuneFileReader {
 public:
  // Records remembered for aligning rewrites; the library keeps 100.
  static constexpr size_t kRememberedRecords = 1000;
  // ... and at most this many bytes of them.
  static constexpr size_t kRememberedBytes = 2 << 20;
  static constexpr size_t kTailCheckBytes = 256 * 1024;
  static constexpr size_t kMaxRecordBytes = 1 << 20;
  // The most one poll reads; more than a record and the tail it follows, so
  // every window either ends a record or proves it oversized.
  static constexpr size_t kMaxReadBytes = 4 << 20;

  HypertuneFileReader(std::string path, std::shared_ptr<spdlog::logger> logger);

  // Reads the file if its size, modification time or inode changed since the
  // last poll and returns the records not returned before. A missing file
  // yields nothing.
  std::vector<v1::Measurement> Poll();
  // The writer has exited: reads the file whatever its stamp says and treats
  // an unterminated last line as a complete record.
  std::vector<v1::Measurement> Finish();

  const std::string& path() const { return path_; }
  // The bytes the read buffer holds room for: at most 2 * kMaxReadBytes
  // whatever the file's size.
  size_t buffer_capacity() const { return content_.capacity(); }

 private:
  struct FileStamp {
    uint64_t device = 0;
    uint64_t inode = 0;
    int64_t size = -1;
    int64_t mtime_ns = 0;
    bool operator==(const FileStamp&) const = default;
  };

  std::vector<v1::Measurement> Read(bool writer_exited);
  // Opens the file for a poll: -1 when it is missing or refused (a symbolic
  // link, not a regular file; reported), else the descriptor and its stat.
  int Open(struct stat& info);
  // Reads the file from `offset` into content_, up to its end or
  // kMaxReadBytes; false (with the error reported) on failure. `reached_end`
  // tells which.
  bool ReadFrom(int fd, size_t offset, bool& reached_end);
  // Whether file bytes [base, base + content.size()) extend what was consumed.
  bool ExtendsConsumed(std::string_view content, size_t base) const;
  // The records appended after the consumed bytes; `content` holds the file
  // from offset `base`.
  std::vector<std::string_view> AppendedLines(std::string_view content, size_t base,
                                              bool writer_exited);
  // The records of a rewritten file (`content` from offset 0) not emitted yet.
  std::vector<std::string_view> RewrittenLines(std::string_view content, bool writer_exited);
  void MarkConsumed(std::string_view content, size_t base, size_t consumed_bytes);
  std::optional<v1::Measurement> ToMeasurement(std::string_view line);
  void Warn(std::string_view kind, const std::string& message);
  void ReportError(std::string message);

  std::string path_;
  std::shared_ptr<spdlog::logger> logger_;
  std::optional<FileStamp> last_stamp_;
  // The last read stopped at kMaxReadBytes before the end of the file.
  bool read_cut_short_ = false;
  // The window of the file read by the current poll.
  std::string content_;
  size_t remembered_bytes_ = 0;
  std::string last_error_;
  // The complete lines already consumed, as their length and the last bytes
  // of them, for the cheap "the file only grew" check.
  size_t consumed_bytes_ = 0;
  std::string consumed_tail_;
  // Inside a record that grew past kMaxRecordBytes: bytes up to the next
  // newline are skipped.
  bool skipping_oversized_record_ = false;
  WarningLimiter warnings_;
  std::deque<std::string> emitted_lines_;
  int64_t record_count_ = 0;
  int64_t last_step_ = 0;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_HYPERTUNE_FILE_READER_H_
