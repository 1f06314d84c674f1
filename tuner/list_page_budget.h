#ifndef VERNIER_TUNER_LIST_PAGE_BUDGET_H_
#define VERNIER_TUNER_LIST_PAGE_BUDGET_H_

#include <cstddef>
#include <vector>

namespace vernier::tuner {

// The answers that list studies, trials and jobs stay under this many bytes
// whatever page size was asked, so that a client with gRPC's default 4 MiB
// receive limit reads every page: a page that would pass it ends early,
// with a next_page_token after its last item. A page holds at least one
// item (a study's spec is at most config::kMaxSpecBytes).
inline constexpr size_t kMaxListAnswerBytes = 3 << 20;

// How many of `items`, from the first, fit in kMaxListAnswerBytes (at
// least one, when there is one); `size_of(item)` is an item's serialized
// size.
template <typename Item, typename SizeOf>
size_t ItemsWithinListBudget(const std::vector<Item>& items, SizeOf size_of) {
  size_t bytes = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    // The item's bytes plus its tag and length in the answer.
    bytes += size_of(items[i]) + 8;
    if (bytes > kMaxListAnswerBytes && i > 0) return i;
  }
  return items.size();
}

template <typename Message>
size_t ItemsWithinListBudget(const std::vector<Message>& items) {
  return ItemsWithinListBudget(items, [](const Message& item) { return item.ByteSizeLong(); });
}

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_LIST_PAGE_BUDGET_H_
