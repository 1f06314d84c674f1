// What the local admission's fair-share order costs per decision.
//
//   fair_share_bench [--benchmark_filter=...]
// A LocalAdmission over 8 GPUs whose every GPU is held by one-GPU gangs,
// with `waiting` more one-GPU gangs queued, spread over `users` users (one
// job each). An iteration is what a trial's end costs the admission: one
// gang released, its job's next gang requested, and Schedule deciding
// which waiting gang takes the freed GPU (FairShareQueue::Next over the
// users' first waiting gangs). users=1 is the order one user's gangs always
// had (first come, first served). BM_WaitingPosition is what `jobs
// describe` of the job last in the queue adds (Admission::Waiting: the
// order simulated up to that job's first gang).
#include <benchmark/benchmark.h>

#include <deque>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/local/local_admission.h"

namespace vernier::bench {
namespace {

constexpr int kGpus = 8;

scheduler::GangOwner OwnerOf(int user) {
  return scheduler::GangOwner{absl::StrCat("user", user), absl::StrCat("job", user)};
}

struct Admission {
  Admission(int users, int waiting)
      : admission(std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}, {20000, 29999},
                  [](int) { return true; }) {
    for (int i = 0; i < kGpus + waiting; ++i) {
      const int user = i % users;
      tickets.push_back({*admission.Request({1}, OwnerOf(user)), user});
    }
    admission.Schedule();
  }
  scheduler::LocalAdmission admission;
  // Every ticket with its user, oldest first.
  std::deque<std::pair<scheduler::GangTicket, int>> tickets;
};

void BM_TrialEndsAndTheNextGangIsChosen(benchmark::State& state) {
  const int users = static_cast<int>(state.range(0));
  const int waiting = static_cast<int>(state.range(1));
  Admission setup(users, waiting);
  for (auto _ : state) {
    // The oldest granted gang ends; its job asks for its next one. (Finding
    // it is the benchmark's bookkeeping, not timed.)
    state.PauseTiming();
    auto granted = setup.tickets.begin();
    while (!setup.admission.IsGranted(granted->first)) ++granted;
    const int user = granted->second;
    state.ResumeTiming();
    setup.admission.Release(granted->first);
    setup.tickets.erase(granted);
    setup.tickets.push_back({*setup.admission.Request({1}, OwnerOf(user)), user});
    setup.admission.Schedule();
  }
}

void BM_WaitingPosition(benchmark::State& state) {
  const int users = static_cast<int>(state.range(0));
  const int waiting = static_cast<int>(state.range(1));
  Admission setup(users, waiting);
  const std::string last_job = OwnerOf(users - 1).job_id;
  for (auto _ : state) benchmark::DoNotOptimize(setup.admission.Waiting(last_job));
}

void Sizes(benchmark::internal::Benchmark* bench) {
  for (int users : {1, 2, 10, 50}) {
    for (int waiting : {10, 100, 1000}) bench->Args({users, waiting});
  }
}

BENCHMARK(BM_TrialEndsAndTheNextGangIsChosen)->Apply(Sizes);
BENCHMARK(BM_WaitingPosition)->Apply(Sizes);

}  // namespace
}  // namespace vernier::bench

BENCHMARK_MAIN();
