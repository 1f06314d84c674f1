#include "tests/support/log_capture.h"

#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace vernier::testing {

LogCapture::LogCapture() : previous_(spdlog::default_logger()) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
}

LogCapture::~LogCapture() { spdlog::set_default_logger(previous_); }

std::string LogCapture::Text() {
  spdlog::default_logger()->flush();
  return stream_.str();
}

}  // namespace vernier::testing
