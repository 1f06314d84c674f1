#ifndef VERNIER_TESTS_TUNER_STORAGE_SCOPED_TEMP_DIR_H_
#define VERNIER_TESTS_TUNER_STORAGE_SCOPED_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace vernier::storage::testing {

// A fresh directory under the test's temporary directory, removed with all it
// holds when the object goes.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vernier_storage_XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp(" << pattern << ") failed";
      return;
    }
    path_ = pattern;
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  ~ScopedTempDir() {
    if (path_.empty()) return;
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }

  const std::filesystem::path& path() const { return path_; }
  // `name` inside the directory.
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace vernier::storage::testing

#endif  // VERNIER_TESTS_TUNER_STORAGE_SCOPED_TEMP_DIR_H_
