// Many clients on one study at once, each on its own connection to real
// `vernier serve` processes, on every store: suggestions never hand one
// trial to two clients, never exceed max_parallel_trials or max_trials, and
// a client that asks again gets its unfinished trials back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kScoreMetric[] = "score";

// What every client saw, checked at the end on the main thread.
class Observations {
 public:
  void Violation(std::string what) {
    std::lock_guard lock(mutex_);
    violations_.push_back(std::move(what));
  }
  // Records that `client` was handed `trial_id`; a trial handed to two
  // clients is a violation.
  void HandedOut(int64_t trial_id, const std::string& client) {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = owners_.emplace(trial_id, client);
    if (!inserted && it->second != client) {
      violations_.push_back(
          absl::StrFormat("trial %d was handed to %s and to %s", trial_id, it->second, client));
    }
  }
  std::vector<std::string> violations() const {
    std::lock_guard lock(mutex_);
    return violations_;
  }
  std::map<int64_t, std::string> owners() const {
    std::lock_guard lock(mutex_);
    return owners_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> violations_;
  std::map<int64_t, std::string> owners_;
};

struct StudyLimits {
  int max_trials;
  int max_parallel_trials;
};

// One client: asks for 1 to 3 trials, checks that its unfinished ones come
// back first, reports a measurement and completes some of what it holds,
// until the study has handed out all its trials.
void RunClient(const std::string& address, const std::string& study, const std::string& client_id,
               uint32_t seed, std::latch& start, std::atomic<int>& held_by_all,
               std::atomic<int>& most_held, Observations& observations) {
  StudyClient client(address);
  std::mt19937 rng(seed);
  std::set<int64_t> held;
  start.arrive_and_wait();
  for (int round = 0; round < 10'000; ++round) {
    const int count = 1 + static_cast<int>(rng() % 3);
    v1::SuggestTrialsResponse response;
    grpc::Status status = client.Suggest(study, count, client_id, &response);
    if (!status.ok()) {
      observations.Violation(
          absl::StrFormat("%s: SuggestTrials failed: %s", client_id, status.error_message()));
      return;
    }
    // Its unfinished trials first: as many of them as it asked for.
    const size_t held_before = held.size();
    size_t got_back = 0;
    for (const v1::Trial& trial : response.trials()) got_back += held.contains(trial.id()) ? 1 : 0;
    if (got_back != std::min<size_t>(held_before, count) || response.trials_size() > count) {
      observations.Violation(absl::StrFormat(
          "%s holding %d unfinished trials asked for %d and got %d trials, %d of them its own",
          client_id, held_before, count, response.trials_size(), got_back));
    }
    for (const v1::Trial& trial : response.trials()) {
      observations.HandedOut(trial.id(), client_id);
      if (trial.state() != v1::Trial::ACTIVE || trial.client_id() != client_id) {
        observations.Violation(
            absl::StrFormat("%s got trial %d in state %s of client \"%s\"", client_id, trial.id(),
                            v1::Trial::State_Name(trial.state()), trial.client_id()));
      }
      if (held.insert(trial.id()).second) {
        const int now = ++held_by_all;
        int before = most_held.load();
        while (now > before && !most_held.compare_exchange_weak(before, now)) {
        }
      }
    }
    if (held.empty()) {
      if (response.trials().empty() && absl::StrContains(response.reason(), "max_trials")) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    // Finish a random part of what it holds, at least one trial.
    std::vector<int64_t> finishing(held.begin(), held.end());
    std::shuffle(finishing.begin(), finishing.end(), rng);
    finishing.resize(1 + rng() % finishing.size());
    for (int64_t trial_id : finishing) {
      const v1::Measurement measurement = MakeMeasurement(1, 1, kScoreMetric, trial_id * 0.5);
      if (grpc::Status added = client.AddMeasurement(study, trial_id, measurement); !added.ok()) {
        observations.Violation(absl::StrFormat("%s: AddMeasurement on trial %d failed: %s",
                                               client_id, trial_id, added.error_message()));
        return;
      }
      // No longer counted before the server hears of it, so the count of
      // held trials never exceeds the server's count of ACTIVE ones.
      held.erase(trial_id);
      --held_by_all;
      if (grpc::Status completed = client.Complete(study, trial_id, nullptr); !completed.ok()) {
        observations.Violation(absl::StrFormat("%s: CompleteTrial on trial %d failed: %s",
                                               client_id, trial_id, completed.error_message()));
        return;
      }
    }
  }
  observations.Violation(client_id + " never saw the study run out of trials");
}

// `clients` clients spread over `addresses` run the study to its end; checks
// the limits while it runs and the trials after.
void RunStudyConcurrently(const std::vector<std::string>& addresses, const std::string& study,
                          const StudyLimits& limits, int clients) {
  StudyClient admin(addresses.front());
  ASSERT_TRUE(admin
                  .CreateStudy(SimpleStudy(study, kScoreMetric, limits.max_trials,
                                           limits.max_parallel_trials))
                  .ok());

  Observations observations;
  std::atomic<int> held_by_all{0}, most_held{0};
  std::atomic<bool> done{false};
  std::latch start(clients);
  // Watches the store's view while the clients run.
  std::thread monitor([&] {
    StudyClient watcher(addresses.back());
    int most_active = 0;
    while (!done) {
      std::vector<v1::Trial> trials;
      if (grpc::Status status = watcher.ListTrials(study, false, &trials); !status.ok()) {
        observations.Violation("ListTrials failed: " + status.error_message());
        return;
      }
      const int active = std::count_if(trials.begin(), trials.end(), [](const v1::Trial& trial) {
        return trial.state() == v1::Trial::ACTIVE;
      });
      most_active = std::max(most_active, active);
      if (active > limits.max_parallel_trials ||
          static_cast<int>(trials.size()) > limits.max_trials) {
        observations.Violation(
            absl::StrFormat("the study had %d ACTIVE of %d trials", active, trials.size()));
      }
    }
  });
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      RunClient(addresses[i % addresses.size()], study, absl::StrFormat("client-%d", i), 1000 + i,
                start, held_by_all, most_held, observations);
    });
  }
  for (std::thread& thread : threads) thread.join();
  done = true;
  monitor.join();

  EXPECT_THAT(observations.violations(), IsEmpty());
  EXPECT_LE(most_held.load(), limits.max_parallel_trials);

  std::vector<v1::Trial> trials;
  ASSERT_TRUE(admin.ListTrials(study, true, &trials).ok());
  ASSERT_EQ(static_cast<int>(trials.size()), limits.max_trials);
  const std::map<int64_t, std::string> owners = observations.owners();
  std::vector<int64_t> ids;
  for (const v1::Trial& trial : trials) {
    ids.push_back(trial.id());
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED) << trial.DebugString();
    EXPECT_EQ(trial.measurements_size(), 1) << trial.DebugString();
    ASSERT_TRUE(owners.contains(trial.id())) << "trial " << trial.id() << " reached no client";
    EXPECT_EQ(trial.client_id(), owners.at(trial.id()));
  }
  std::vector<int64_t> one_to_max(limits.max_trials);
  std::iota(one_to_max.begin(), one_to_max.end(), 1);
  EXPECT_THAT(ids, ElementsAreArray(one_to_max));
}

class ConcurrentClientsTest : public StoreTest {};

TEST_P(ConcurrentClientsTest, SuggestionsNeverDuplicateOrExceedTheStudyLimits) {
  std::unique_ptr<ServerProcess> server = MakeServer();
  server->Start();
  RunStudyConcurrently({server->address()}, "crowded", {.max_trials = 80, .max_parallel_trials = 6},
                       24);
}

TEST_P(ConcurrentClientsTest, AClientThatAsksAgainGetsItsUnfinishedTrialBack) {
  std::unique_ptr<ServerProcess> server = MakeServer();
  server->Start();
  const std::string study = "returning";
  ASSERT_TRUE(
      StudyClient(server->address()).CreateStudy(SimpleStudy(study, kScoreMetric, 0, 0)).ok());
  constexpr int kClients = 16;
  Observations observations;
  std::latch start(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      const std::string client_id = absl::StrFormat("agent-%d", i);
      start.arrive_and_wait();
      v1::SuggestTrialsResponse first;
      if (!StudyClient(server->address()).Suggest(study, 1, client_id, &first).ok() ||
          first.trials_size() != 1) {
        observations.Violation(client_id + ": no first trial");
        return;
      }
      const int64_t mine = first.trials(0).id();
      observations.HandedOut(mine, client_id);
      // Reconnecting (a new connection each time) gives the same trial.
      for (int again = 0; again < 3; ++again) {
        v1::SuggestTrialsResponse response;
        grpc::Status status =
            StudyClient(server->address()).Suggest(study, 1, client_id, &response);
        if (!status.ok() || response.trials_size() != 1 || response.trials(0).id() != mine) {
          observations.Violation(absl::StrFormat("%s asked again and did not get trial %d back: %s",
                                                 client_id, mine, response.DebugString()));
        }
      }
      // Asking for two: its own first, then a new one.
      StudyClient client(server->address());
      v1::SuggestTrialsResponse two;
      if (!client.Suggest(study, 2, client_id, &two).ok() || two.trials_size() != 2 ||
          two.trials(0).id() != mine || two.trials(1).id() == mine) {
        observations.Violation(absl::StrFormat("%s asked for 2 trials holding trial %d: %s",
                                               client_id, mine, two.DebugString()));
        return;
      }
      observations.HandedOut(two.trials(1).id(), client_id);
      for (const v1::Trial& trial : two.trials()) {
        const v1::Measurement final = MakeMeasurement(1, 1, kScoreMetric, 0.5);
        if (!client.Complete(study, trial.id(), &final).ok()) {
          observations.Violation(
              absl::StrFormat("%s cannot complete trial %d", client_id, trial.id()));
        }
      }
      // Nothing unfinished: a new trial.
      v1::SuggestTrialsResponse next;
      if (!client.Suggest(study, 1, client_id, &next).ok() || next.trials_size() != 1 ||
          next.trials(0).id() == mine || next.trials(0).id() == two.trials(1).id()) {
        observations.Violation(
            absl::StrFormat("%s with nothing unfinished got %s", client_id, next.DebugString()));
        return;
      }
      observations.HandedOut(next.trials(0).id(), client_id);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(observations.violations(), IsEmpty());
  std::vector<v1::Trial> trials;
  ASSERT_TRUE(StudyClient(server->address()).ListTrials(study, false, &trials).ok());
  EXPECT_EQ(trials.size(), 3u * kClients);
  EXPECT_EQ(observations.owners().size(), 3u * kClients);
}

TEST_P(ConcurrentClientsTest, TwoServersOnOneDatabaseShareAStudy) {
  if (GetParam() == StoreKind::kSqlite) {
    GTEST_SKIP() << "several servers share one PostgreSQL database; a SQLite file belongs to "
                    "one server";
  }
  std::unique_ptr<ServerProcess> first = MakeServer("first");
  std::unique_ptr<ServerProcess> second = MakeServer("second");
  first->Start();
  second->Start();
  RunStudyConcurrently({first->address(), second->address()}, "shared",
                       {.max_trials = 80, .max_parallel_trials = 6}, 24);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(ConcurrentClientsTest);

}  // namespace
}  // namespace vernier::testing
