#ifndef VERNIER_TESTS_TRAINER_AGENT_CAPTURED_LOG_H_
#define VERNIER_TESTS_TRAINER_AGENT_CAPTURED_LOG_H_

#include <spdlog/logger.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <memory>
#include <string>

namespace vernier::agent::testing {

// A logger whose lines the test can read back, as "level: message".
class CapturedLog {
 public:
  CapturedLog()
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000)),
        logger_(std::make_shared<spdlog::logger>("test", sink_)) {
    logger_->set_pattern("%l: %v");
    logger_->set_level(spdlog::level::debug);
  }

  const std::shared_ptr<spdlog::logger>& logger() const { return logger_; }

  std::string Text() const {
    std::string text;
    for (const std::string& line : sink_->last_formatted()) text += line;
    return text;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace vernier::agent::testing

#endif  // VERNIER_TESTS_TRAINER_AGENT_CAPTURED_LOG_H_
