#ifndef VERNIER_WEB_WEB_ASSETS_H_
#define VERNIER_WEB_WEB_ASSETS_H_

#include "absl/strings/string_view.h"

namespace vernier::web {

// One file of the dashboard, built into the binary (web/CMakeLists.txt).
struct WebAsset {
  absl::string_view path;  // the URL path it is served at, e.g. "/assets/app.js"
  absl::string_view content_type;
  absl::string_view body;
};

// The asset served at `path`; nullptr when there is none.
const WebAsset* FindWebAsset(absl::string_view path);

}  // namespace vernier::web

#endif  // VERNIER_WEB_WEB_ASSETS_H_
