#ifndef VERNIER_SUGGEST_HEAP_RETENTION_H_
#define VERNIER_SUGGEST_HEAP_RETENTION_H_

namespace vernier::suggest {

// A Gaussian-process suggestion allocates and frees a few megabytes of
// matrices (covariances, their factors and inverses, cross-covariances).
// glibc's malloc, left to its defaults, hands the top of the heap back to
// the kernel as soon as 128 KiB of it are free and maps anything larger
// than 128 KiB afresh, so every suggestion paid for the same pages again in
// page faults: 13% of a 200-trial suggestion's time, and up to a quarter
// with an exploration step (docs/benchmarks.md, "Suggestion speed").
//
// Called once at start-up by a process that suggests (`vernier serve`, and
// the benchmarks that time suggestions as the server makes them): freed
// memory up to 64 MiB stays in each malloc arena for the next suggestion,
// and blocks up to 16 MiB come from the heap. A process's memory then stays
// near its peak rather than falling back between suggestions. False where
// the C library is not glibc's (or refuses), which changes nothing but the
// speed.
bool RetainFreedHeap();

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_HEAP_RETENTION_H_
