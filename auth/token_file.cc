#include "auth/token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tls/listen_policy.h"

namespace vernier::auth {

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  struct stat info = {};
  if (stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat("token file ", path, ": no such file"));
    return absl::PermissionDeniedError(
        absl::StrCat("token file ", path, ": cannot read it: ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("token file ", path, ": is not a file"));
  }
  if ((info.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "token file %s: others may read it (mode %04o); a token file must be mode 0600: "
        "chmod 600 %s",
        path, info.st_mode & 07777, path));
  }
  std::ifstream in(path);
  if (!in) {
    return absl::PermissionDeniedError(
        absl::StrCat("token file ", path, ": cannot read it: ", std::strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(text.str()));
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat("token file ", path, ": is empty"));
  return token;
}

absl::Status WriteTokenFile(const std::string& path, absl::string_view token) {
  const std::filesystem::path target(path);
  std::error_code error;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create ", target.parent_path().string(), " for a token file: ", error.message()));
    }
  }
  const std::string temporary = absl::StrCat(path, ".tmp", getpid());
  // A new file, never one found there: in a folder another user may write
  // (an agent's credential in a trial folder that `--trial-user` owns), a
  // link planted at the temporary name must not be written through.
  unlink(temporary.c_str());
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write the token file ", path, ": ", std::strerror(errno)));
  }
  const std::string text = absl::StrCat(token, "\n");
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       fchmod(fd, 0600) == 0 && fsync(fd) == 0;
  const int write_errno = errno;
  close(fd);
  if (!written || rename(temporary.c_str(), path.c_str()) != 0) {
    const int why = written ? errno : write_errno;
    unlink(temporary.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write the token file ", path, ": ", std::strerror(why)));
  }
  return absl::OkStatus();
}

std::string ClientConfigDir() {
  if (const char* dir = std::getenv("VERNIER_CONFIG_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/vernier");
  }
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr && *home != '\0' ? home : "/tmp", "/.config/vernier");
}

std::string TokenFileNameForAddress(absl::string_view address) {
  absl::string_view host = address;
  absl::string_view port;
  if (!address.empty() && address.front() == '[') {
    if (const size_t close = address.find("]:"); close != absl::string_view::npos) {
      host = address.substr(0, close + 1);
      port = address.substr(close + 2);
    }
  } else if (const size_t colon = address.find(':');
             colon != absl::string_view::npos && address.rfind(':') == colon) {
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (tls::IsLoopbackHost(std::string_view(host.data(), host.size()))) return absl::StrCat("loopback-", port);
  std::string name = absl::StrCat(host, "-", port);
  for (char& c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return name;
}

std::string TokenFileForAddress(absl::string_view address) {
  return absl::StrCat(ClientConfigDir(), "/tokens/", TokenFileNameForAddress(address));
}

}  // namespace vernier::auth
