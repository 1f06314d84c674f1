#ifndef VERNIER_HTTP_CHANGE_TRACKER_H_
#define VERNIER_HTTP_CHANGE_TRACKER_H_

#include <map>
#include <string>

#include <google/protobuf/message.h>

namespace vernier::http {

// What one live view (a dashboard's event stream) has been sent: a
// fingerprint per key (a job id, a trial id). The stream sends a message only
// when it is new or changed since it was last sent.
class ChangeTracker {
 public:
  // Whether `message` (under `key`) differs from what was last recorded for
  // it; records it.
  bool Changed(const std::string& key, const google::protobuf::Message& message);

  size_t size() const { return fingerprints_.size(); }

 private:
  std::map<std::string, std::string> fingerprints_;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_CHANGE_TRACKER_H_
