#ifndef VERNIER_TUNER_CLI_FETCH_ALL_PAGES_H_
#define VERNIER_TUNER_CLI_FETCH_ALL_PAGES_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace vernier::cli {

// Reads a paginated list to its end: `fetch(page_token)` returns a
// StatusOr of a response with next_page_token(), and `take(response)` keeps
// what it holds. A server that hands the same token back twice would loop
// forever, so that is INTERNAL naming `server_address`.
template <typename Fetch, typename Take>
absl::Status FetchAllPages(const std::string& server_address, Fetch fetch, Take take) {
  std::string page_token;
  do {
    auto page = fetch(page_token);
    if (!page.ok()) return page.status();
    std::string next_page_token = page->next_page_token();
    take(*page);
    if (!next_page_token.empty() && next_page_token == page_token) {
      return absl::InternalError(absl::StrCat("the server at ", server_address,
                                              " returned the same page token \"", page_token,
                                              "\" twice"));
    }
    page_token = std::move(next_page_token);
  } while (!page_token.empty());
  return absl::OkStatus();
}

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_FETCH_ALL_PAGES_H_
