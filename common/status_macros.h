#ifndef VERNIER_COMMON_STATUS_MACROS_H_
#define VERNIER_COMMON_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"

// Early returns for fallible steps, used everywhere instead of hand-written
// `if (!status.ok()) return status;`.
//
//   VERNIER_RETURN_IF_ERROR(storage.PutStudy(study));
//   VERNIER_ASSIGN_OR_RETURN(v1::Study study, storage.GetStudy(name));
#define VERNIER_RETURN_IF_ERROR(expr)                   \
  do {                                                  \
    if (absl::Status status_ = (expr); !status_.ok()) { \
      return status_;                                   \
    }                                                   \
  } while (false)
#define VERNIER_STATUS_CONCAT_INNER(a, b) a##b
#define VERNIER_STATUS_CONCAT(a, b) VERNIER_STATUS_CONCAT_INNER(a, b)
#define VERNIER_ASSIGN_OR_RETURN_IMPL(result, lhs, expr) \
  auto result = (expr);                                  \
  if (!result.ok()) return result.status();              \
  lhs = *std::move(result)
#define VERNIER_ASSIGN_OR_RETURN(lhs, expr) \
  VERNIER_ASSIGN_OR_RETURN_IMPL(VERNIER_STATUS_CONCAT(result_, __LINE__), lhs, expr)

#endif  // VERNIER_COMMON_STATUS_MACROS_H_
