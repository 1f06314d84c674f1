#ifndef VERNIER_TESTS_SUPPORT_LOG_CAPTURE_H_
#define VERNIER_TESTS_SUPPORT_LOG_CAPTURE_H_

#include <memory>
#include <sstream>
#include <string>

#include "spdlog/logger.h"

namespace vernier::testing {

// Sends this process's default-logger lines to a string while alive.
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string Text();

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream stream_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_LOG_CAPTURE_H_
