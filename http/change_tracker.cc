#include "http/change_tracker.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <utility>

namespace vernier::http {
namespace {

// The message's bytes with map entries in a fixed order, so that equal
// messages have equal fingerprints.
std::string Fingerprint(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

bool ChangeTracker::Changed(const std::string& key, const google::protobuf::Message& message) {
  std::string fingerprint = Fingerprint(message);
  auto [it, inserted] = fingerprints_.try_emplace(key, fingerprint);
  if (inserted) return true;
  if (it->second == fingerprint) return false;
  it->second = std::move(fingerprint);
  return true;
}

}  // namespace vernier::http
