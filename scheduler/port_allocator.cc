#include "scheduler/port_allocator.h"

#include <charconv>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

bool ParsePort(std::string_view text, int& port) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  return error == std::errc() && end == text.data() + text.size() && port >= 1 && port <= 65535;
}

}  // namespace

absl::StatusOr<PortRange> PortRange::Parse(std::string_view text) {
  const size_t dash = text.find('-');
  PortRange range;
  if (dash == std::string_view::npos || !ParsePort(text.substr(0, dash), range.first) ||
      !ParsePort(text.substr(dash + 1), range.last)) {
    return absl::InvalidArgumentError(absl::StrCat("port range \"", std::string(text),
                                                   "\" is not FIRST-LAST with ports 1 to 65535"));
  }
  if (range.first > range.last) {
    return absl::InvalidArgumentError(
        absl::StrCat("port range \"", std::string(text), "\" starts after it ends"));
  }
  return range;
}

PortAllocator::PortAllocator(PortRange range, int start_offset)
    : range_(range), next_(range.first + std::abs(start_offset) % (range.last - range.first + 1)) {}

absl::StatusOr<std::vector<int>> PortAllocator::Acquire(const std::string& owner, int count,
                                                        const std::function<bool(int)>& usable) {
  if (ports_of_.contains(owner)) {
    return absl::AlreadyExistsError(absl::StrCat(owner, " already holds ports"));
  }
  std::vector<int> ports;
  const int size = range_.last - range_.first + 1;
  for (int tried = 0; tried < size && static_cast<int>(ports.size()) < count; ++tried) {
    const int port = next_;
    next_ = port == range_.last ? range_.first : port + 1;
    if (holder_of_.contains(port) || !usable(port)) continue;
    ports.push_back(port);
  }
  if (static_cast<int>(ports.size()) < count) {
    return absl::ResourceExhaustedError(absl::StrCat(
        owner, " needs ", count, " ports but only ", ports.size(), " of ", range_.first, "-",
        range_.last, " are free (", holder_of_.size(), " held by running trials)"));
  }
  for (int port : ports) holder_of_[port] = owner;
  ports_of_[owner] = ports;
  return ports;
}

absl::Status PortAllocator::Restore(const std::string& owner, const std::vector<int>& ports) {
  if (ports_of_.contains(owner)) {
    return absl::AlreadyExistsError(absl::StrCat(owner, " already holds ports"));
  }
  for (int port : ports) {
    if (port < range_.first || port > range_.last) {
      return absl::FailedPreconditionError(
          absl::StrCat(owner, ": port ", port, " is outside ", range_.first, "-", range_.last));
    }
    auto holder = holder_of_.find(port);
    if (holder != holder_of_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat(owner, ": port ", port, " is held by ", holder->second));
    }
  }
  for (int port : ports) holder_of_[port] = owner;
  ports_of_[owner] = ports;
  return absl::OkStatus();
}

void PortAllocator::Release(std::string_view owner) {
  auto held = ports_of_.find(owner);
  if (held == ports_of_.end()) return;
  for (int port : held->second) holder_of_.erase(port);
  ports_of_.erase(held);
}

std::vector<int> PortAllocator::HeldBy(std::string_view owner) const {
  auto held = ports_of_.find(owner);
  return held == ports_of_.end() ? std::vector<int>{} : held->second;
}

std::vector<std::string> PortAllocator::Owners() const {
  std::vector<std::string> owners;
  for (const auto& [owner, ports] : ports_of_) owners.push_back(owner);
  return owners;
}

}  // namespace vernier::scheduler
