#ifndef VERNIER_TUNER_STORAGE_STATUS_MACROS_H_
#define VERNIER_TUNER_STORAGE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"

// Early returns for the many fallible steps of a store's transaction body.
// Only the stores' .cc files include this header.
#define VERNIER_STORAGE_RETURN_IF_ERROR(expr)           \
  do {                                                  \
    if (absl::Status status_ = (expr); !status_.ok()) { \
      return status_;                                   \
    }                                                   \
  } while (false)
#define VERNIER_STORAGE_CONCAT_INNER(a, b) a##b
#define VERNIER_STORAGE_CONCAT(a, b) VERNIER_STORAGE_CONCAT_INNER(a, b)
#define VERNIER_STORAGE_ASSIGN_OR_RETURN_IMPL(result, lhs, expr) \
  auto result = (expr);                                          \
  if (!result.ok()) return result.status();                      \
  lhs = *std::move(result)
#define VERNIER_STORAGE_ASSIGN_OR_RETURN(lhs, expr) \
  VERNIER_STORAGE_ASSIGN_OR_RETURN_IMPL(VERNIER_STORAGE_CONCAT(result_, __LINE__), lhs, expr)

#endif  // VERNIER_TUNER_STORAGE_STATUS_MACROS_H_
