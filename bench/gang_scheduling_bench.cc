// Gang scheduling on a simulated large cluster.
//
//   gang_scheduling_bench [--seed=1] [--nodes=1000] [--gpus_per_node=8]
//                         [--trials=20000] [--load=1.1]
//                         [--patience_per_gpu=40] [--behind_exponent=1.25]
//                         [--keep_whole_nodes=1] [--pack_busy_nodes=0]
//                         [--vernier_only=0] [--waits_out=FILE]
// An event-driven simulation (simulated clock) of `nodes` x `gpus_per_node`
// GPUs: `trials` trials arrive as a Poisson process, each a gang of 1 to 64
// GPUs made of replicas of 1, 2, 4 or 8 GPUs, running for a log-normal time
// (mean one hour); the arrival rate makes the offered load `load` (GPU-hours
// asked per GPU-hour the cluster has). At every instant where something
// arrives or ends, the scheduler is asked once which gangs start.
//
// Schedulers on the very same arrivals:
// - vernier: scheduler::GangAllocator as configured by default
//   (kHeadReservation with behind_first, keep_whole_nodes and
//   pack_busy_nodes; the flags --behind_exponent, --keep_whole_nodes and
//   --pack_busy_nodes change it);
// - vernier third round: the default of issue 37 part 3's third round
//   (the default without pack_busy_nodes: best fit's ties go to the node
//   touched last rather than to the one running the most gangs);
// - vernier head reservation: the default before issue 37 part 3
//   (BackfillPolicy::kHeadReservation alone: FIFO, reservation for the head
//   that moves onto whole free nodes at once, backfill onto unreserved GPUs,
//   best fit), the baseline;
// - vernier bounded backfill: kBoundedBackfill alone (the head's
//   reservation moves onto whole free nodes only once backfill has placed
//   --patience_per_gpu x its GPUs past it);
// - vernier behind first: kHeadReservation with behind_first measured per
//   GPU (behind_exponent 1: the waiting gangs at least as far behind as the
//   head, in GPUs placed since queued per GPU, take open GPUs before the
//   head's reservation moves), without keep_whole_nodes;
// - strict FIFO first fit: the head blocks everyone behind it;
// - greedy first fit: any gang that fits starts, blocked ones are skipped
//   (large gangs starve);
// - fluid bound: a gang starts as soon as enough GPUs are free anywhere,
//   as if it could be split over any free GPUs (greedy over the queue): the
//   utilisation of an ideal packing, against which the others are measured.
// --vernier_only=1 runs only the fluid bound, vernier and vernier third
// round.
// --waits_out=FILE writes one line per trial, tab-separated with a header:
// its index, GPUs, GPUs per replica, arrival and duration (seconds), and
// its wait in minutes under `vernier` and under the fluid bound, to tell
// which gangs make a size's p99 (their shape, when they arrived).
// Printed: wall time of each Schedule decision (measured, not simulated),
// GPU utilisation over the arrival window, the waits per gang size, and each
// size's p99 wait over the fluid bound's (issue 37's target: at most 1.5).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "scheduler/gang_allocator.h"

namespace vernier::bench {
namespace {

struct Settings {
  uint64_t seed = 1;
  int nodes = 1000;
  int gpus_per_node = 8;
  int trials = 20000;
  double load = 1.1;
  int patience_per_gpu = scheduler::GangAllocatorOptions{}.patience_per_gpu;
  double behind_exponent = scheduler::GangAllocatorOptions{}.behind_exponent;
  bool keep_whole_nodes = scheduler::GangAllocatorOptions{}.keep_whole_nodes;
  bool pack_busy_nodes = scheduler::GangAllocatorOptions{}.pack_busy_nodes;
  bool vernier_only = false;
  std::string waits_out;
};

struct Trial {
  double arrival = 0;
  double duration = 0;
  std::vector<int> replicas;
  int gpus = 0;
};

constexpr double kMeanDurationSeconds = 3600;
constexpr int kGangSizes[] = {1, 2, 4, 8, 16, 32, 64};
constexpr double kGangSizeWeights[] = {0.30, 0.20, 0.15, 0.15, 0.10, 0.06, 0.04};

std::vector<Trial> MakeTrials(const Settings& settings) {
  std::mt19937_64 rng(settings.seed);
  std::discrete_distribution<int> size_class(std::begin(kGangSizeWeights),
                                             std::end(kGangSizeWeights));
  constexpr double kSigma = 1.0;
  std::lognormal_distribution<double> duration(std::log(kMeanDurationSeconds) - kSigma * kSigma / 2,
                                               kSigma);
  std::vector<Trial> trials(settings.trials);
  double mean_gpus = 0;
  for (size_t i = 0; i < std::size(kGangSizes); ++i)
    mean_gpus += kGangSizes[i] * kGangSizeWeights[i];
  const double rate =
      settings.load * settings.nodes * settings.gpus_per_node / (mean_gpus * kMeanDurationSeconds);
  std::exponential_distribution<double> gap(rate);
  double now = 0;
  for (Trial& trial : trials) {
    now += gap(rng);
    trial.arrival = now;
    trial.duration = duration(rng);
    trial.gpus = kGangSizes[size_class(rng)];
    // Replicas of 1, 2, 4 or 8 GPUs (at most the gang's size and a node).
    std::vector<int> replica_sizes;
    for (int size : {1, 2, 4, 8}) {
      if (size <= trial.gpus && size <= settings.gpus_per_node) replica_sizes.push_back(size);
    }
    const int replica =
        replica_sizes[std::uniform_int_distribution<size_t>(0, replica_sizes.size() - 1)(rng)];
    trial.replicas.assign(trial.gpus / replica, replica);
  }
  return trials;
}

// What a scheduler under test offers the simulation.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void Enqueue(int trial) = 0;
  virtual void Release(int trial) = 0;
  virtual std::vector<int> Schedule() = 0;
};

class VernierScheduler : public Scheduler {
 public:
  VernierScheduler(const Settings& settings, const std::vector<Trial>& trials,
                   const scheduler::GangAllocatorOptions& options)
      : allocator_(std::vector<int>(settings.nodes, settings.gpus_per_node), options),
        trials_(trials) {}
  void Enqueue(int trial) override {
    absl::Status status =
        allocator_.Enqueue(scheduler::GangRequest{std::to_string(trial), trials_[trial].replicas});
    if (!status.ok()) std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
  }
  void Release(int trial) override { allocator_.Release(std::to_string(trial)); }
  std::vector<int> Schedule() override {
    std::vector<int> started;
    for (const scheduler::GangPlacement& placement : allocator_.Schedule()) {
      int trial = 0;
      (void)absl::SimpleAtoi(placement.id, &trial);
      started.push_back(trial);
    }
    return started;
  }

 private:
  scheduler::GangAllocator allocator_;
  const std::vector<Trial>& trials_;
};

// First fit (each replica, largest first, on the lowest-numbered node with
// room), either strictly in order or skipping the gangs that do not fit.
class FirstFitScheduler : public Scheduler {
 public:
  FirstFitScheduler(const Settings& settings, const std::vector<Trial>& trials, bool skip_blocked)
      : free_(settings.nodes, settings.gpus_per_node),
        free_total_(settings.nodes * settings.gpus_per_node),
        trials_(trials),
        skip_blocked_(skip_blocked),
        placements_(trials.size()) {}
  void Enqueue(int trial) override { queue_.push_back(trial); }
  void Release(int trial) override {
    for (int node : placements_[trial]) ++free_[node];
    free_total_ += static_cast<int>(placements_[trial].size());
    placements_[trial].clear();
  }
  std::vector<int> Schedule() override {
    std::vector<int> started;
    std::set<std::vector<int>> failed_shapes;
    for (auto it = queue_.begin(); it != queue_.end();) {
      const Trial& trial = trials_[*it];
      if (trial.gpus <= free_total_ && !failed_shapes.contains(trial.replicas) && Place(*it)) {
        started.push_back(*it);
        it = queue_.erase(it);
        continue;
      }
      if (!skip_blocked_) break;
      failed_shapes.insert(trial.replicas);
      ++it;
    }
    return started;
  }

 private:
  bool Place(int index) {
    std::vector<int> taken;  // One entry per GPU: its node.
    for (int replica : trials_[index].replicas) {
      auto node =
          std::find_if(free_.begin(), free_.end(), [&](int free) { return free >= replica; });
      if (node == free_.end()) {
        for (int undo : taken) ++free_[undo];
        return false;
      }
      *node -= replica;
      taken.insert(taken.end(), replica, static_cast<int>(node - free_.begin()));
    }
    free_total_ -= static_cast<int>(taken.size());
    placements_[index] = std::move(taken);
    return true;
  }

  std::vector<int> free_;
  int free_total_;
  const std::vector<Trial>& trials_;
  bool skip_blocked_;
  std::vector<std::vector<int>> placements_;
  std::list<int> queue_;
};

// The fluid bound: only the count of free GPUs matters.
class FluidScheduler : public Scheduler {
 public:
  FluidScheduler(const Settings& settings, const std::vector<Trial>& trials)
      : free_(settings.nodes * settings.gpus_per_node), trials_(trials) {}
  void Enqueue(int trial) override { queue_.push_back(trial); }
  void Release(int trial) override { free_ += trials_[trial].gpus; }
  std::vector<int> Schedule() override {
    std::vector<int> started;
    for (auto it = queue_.begin(); it != queue_.end() && free_ > 0;) {
      if (trials_[*it].gpus <= free_) {
        free_ -= trials_[*it].gpus;
        started.push_back(*it);
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    return started;
  }

 private:
  int free_;
  const std::vector<Trial>& trials_;
  std::list<int> queue_;
};

struct Result {
  std::vector<double> decision_seconds;
  std::vector<double> start;
  double busy_gpu_seconds = 0;  // Within the arrival window.
  double makespan = 0;
  double mean_queue = 0;
};

Result Simulate(const std::vector<Trial>& trials, Scheduler& scheduler) {
  Result result;
  result.start.assign(trials.size(), -1);
  const double window = trials.back().arrival;
  using Ending = std::pair<double, int>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> endings;
  size_t next = 0;
  int queued = 0;
  double queue_area = 0;
  double last = 0;
  while (next < trials.size() || !endings.empty()) {
    const double now = std::min(next < trials.size() ? trials[next].arrival : INFINITY,
                                endings.empty() ? INFINITY : endings.top().first);
    if (now <= window) queue_area += queued * (now - last);
    last = now;
    while (!endings.empty() && endings.top().first == now) {
      scheduler.Release(endings.top().second);
      endings.pop();
    }
    while (next < trials.size() && trials[next].arrival == now) {
      scheduler.Enqueue(static_cast<int>(next++));
      ++queued;
    }
    const auto begin = std::chrono::steady_clock::now();
    const std::vector<int> started = scheduler.Schedule();
    result.decision_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    for (int trial : started) {
      --queued;
      result.start[trial] = now;
      const double end = now + trials[trial].duration;
      endings.emplace(end, trial);
      result.busy_gpu_seconds += trials[trial].gpus * std::max(0.0, std::min(end, window) - now);
      result.makespan = std::max(result.makespan, end);
    }
  }
  result.mean_queue = queue_area / window;
  return result;
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(q * values.size()))];
}

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *value = arg + length + 1;
  return true;
}

int Run(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string value;
    bool ok = true;
    if (ParseFlag(argv[i], "--seed", &value)) {
      ok = absl::SimpleAtoi(value, &settings.seed);
    } else if (ParseFlag(argv[i], "--nodes", &value)) {
      ok = absl::SimpleAtoi(value, &settings.nodes);
    } else if (ParseFlag(argv[i], "--gpus_per_node", &value)) {
      ok = absl::SimpleAtoi(value, &settings.gpus_per_node);
    } else if (ParseFlag(argv[i], "--trials", &value)) {
      ok = absl::SimpleAtoi(value, &settings.trials) && settings.trials > 0;
    } else if (ParseFlag(argv[i], "--patience_per_gpu", &value)) {
      ok = absl::SimpleAtoi(value, &settings.patience_per_gpu) && settings.patience_per_gpu >= 0;
    } else if (ParseFlag(argv[i], "--behind_exponent", &value)) {
      ok = absl::SimpleAtod(value, &settings.behind_exponent) && settings.behind_exponent >= 0;
    } else if (ParseFlag(argv[i], "--keep_whole_nodes", &value)) {
      ok = absl::SimpleAtob(value, &settings.keep_whole_nodes);
    } else if (ParseFlag(argv[i], "--pack_busy_nodes", &value)) {
      ok = absl::SimpleAtob(value, &settings.pack_busy_nodes);
    } else if (ParseFlag(argv[i], "--vernier_only", &value)) {
      ok = absl::SimpleAtob(value, &settings.vernier_only);
    } else if (ParseFlag(argv[i], "--waits_out", &value)) {
      settings.waits_out = value;
      ok = !value.empty();
    } else if (ParseFlag(argv[i], "--load", &value)) {
      ok = absl::SimpleAtod(value, &settings.load) && settings.load > 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "bad argument %s\n", argv[i]);
      return 2;
    }
  }
  // Opened before the simulation, so that a bad path fails at once.
  std::unique_ptr<FILE, int (*)(FILE*)> waits_out(nullptr, &std::fclose);
  if (!settings.waits_out.empty()) {
    waits_out.reset(std::fopen(settings.waits_out.c_str(), "w"));
    if (waits_out == nullptr) {
      std::fprintf(stderr, "--waits_out: cannot write %s: %s\n", settings.waits_out.c_str(),
                   std::strerror(errno));
      return 2;
    }
  }
  const std::vector<Trial> trials = MakeTrials(settings);
  const double window = trials.back().arrival;
  double offered = 0;
  for (const Trial& trial : trials) offered += trial.gpus * trial.duration;
  const double capacity = static_cast<double>(settings.nodes) * settings.gpus_per_node;
  std::printf("%d nodes x %d GPUs, %d trials over %.1f h (offered load %.3f), seed %llu\n\n",
              settings.nodes, settings.gpus_per_node, settings.trials, window / 3600,
              offered / (capacity * window), static_cast<unsigned long long>(settings.seed));

  struct Entry {
    const char* name;
    std::function<std::unique_ptr<Scheduler>()> make;
    Result result;
  };
  std::vector<Entry> entries;
  entries.push_back(
      {"fluid bound", [&] { return std::make_unique<FluidScheduler>(settings, trials); }, {}});
  // The allocator's options for a row: `policy` alone, or with the
  // extras named.
  auto options = [&](scheduler::BackfillPolicy policy, bool behind_first, double behind_exponent,
                     bool keep_whole_nodes, bool pack_busy_nodes = false) {
    scheduler::GangAllocatorOptions options;
    options.policy = policy;
    options.patience_per_gpu = settings.patience_per_gpu;
    options.behind_first = behind_first;
    options.behind_exponent = behind_exponent;
    options.keep_whole_nodes = keep_whole_nodes;
    options.pack_busy_nodes = pack_busy_nodes;
    return options;
  };
  auto vernier = [&](scheduler::GangAllocatorOptions allocator_options) {
    return [&, allocator_options] {
      return std::make_unique<VernierScheduler>(settings, trials, allocator_options);
    };
  };
  const auto kHead = scheduler::BackfillPolicy::kHeadReservation;
  const auto kBounded = scheduler::BackfillPolicy::kBoundedBackfill;
  entries.push_back({"vernier",
                     vernier(options(kHead, /*behind_first=*/true, settings.behind_exponent,
                                     settings.keep_whole_nodes, settings.pack_busy_nodes)),
                     {}});
  entries.push_back({"vernier third round",
                     vernier(options(kHead, /*behind_first=*/true, /*behind_exponent=*/1.25,
                                     /*keep_whole_nodes=*/true, /*pack_busy_nodes=*/false)),
                     {}});
  const size_t vernier_rows = entries.size();
  entries.push_back({"vernier head reservation", vernier(options(kHead, false, 1.0, false)), {}});
  entries.push_back(
      {"vernier bounded backfill", vernier(options(kBounded, false, 1.0, false)), {}});
  entries.push_back({"vernier behind first", vernier(options(kHead, true, 1.0, false)), {}});
  entries.push_back({"strict FIFO first fit",
                     [&] { return std::make_unique<FirstFitScheduler>(settings, trials, false); },
                     {}});
  entries.push_back({"greedy first fit",
                     [&] { return std::make_unique<FirstFitScheduler>(settings, trials, true); },
                     {}});
  if (settings.vernier_only) entries.resize(vernier_rows);
  for (Entry& entry : entries) {
    std::unique_ptr<Scheduler> scheduler = entry.make();
    entry.result = Simulate(trials, *scheduler);
  }
  const double bound = entries[0].result.busy_gpu_seconds / (capacity * window);
  if (waits_out != nullptr) {
    // Row 1 is `vernier`, row 0 the fluid bound.
    std::fprintf(waits_out.get(),
                 "trial\tgpus\treplica_gpus\tarrival_s\tduration_s\tvernier_wait_min\t"
                 "fluid_wait_min\n");
    for (size_t i = 0; i < trials.size(); ++i) {
      std::fprintf(waits_out.get(), "%zu\t%d\t%d\t%.1f\t%.1f\t%.2f\t%.2f\n", i, trials[i].gpus,
                   trials[i].replicas.front(), trials[i].arrival, trials[i].duration,
                   (entries[1].result.start[i] - trials[i].arrival) / 60,
                   (entries[0].result.start[i] - trials[i].arrival) / 60);
    }
    if (std::fflush(waits_out.get()) != 0 || std::ferror(waits_out.get())) {
      std::fprintf(stderr, "--waits_out: cannot write %s: %s\n", settings.waits_out.c_str(),
                   std::strerror(errno));
      return 1;
    }
  }

  std::printf(
      "| scheduler | decision p50 | decision p99 | decision p99.9 | decision max | utilisation | "
      "vs bound | mean queue | makespan h |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Entry& entry : entries) {
    const Result& result = entry.result;
    const double utilisation = result.busy_gpu_seconds / (capacity * window);
    std::printf("| %s | %.1f us | %.1f us | %.1f us | %.1f us | %.1f%% | %.3f | %.0f | %.1f |\n",
                entry.name, Quantile(result.decision_seconds, 0.5) * 1e6,
                Quantile(result.decision_seconds, 0.99) * 1e6,
                Quantile(result.decision_seconds, 0.999) * 1e6,
                Quantile(result.decision_seconds, 1.0) * 1e6, utilisation * 100,
                utilisation / bound, result.mean_queue, result.makespan / 3600);
  }

  std::printf("\nWait in minutes by gang size: p50 / p99 / max\n\n| scheduler |");
  for (int size : kGangSizes) std::printf(" %d GPUs |", size);
  std::printf("\n|---|");
  for (size_t i = 0; i < std::size(kGangSizes); ++i) std::printf("---:|");
  std::printf("\n");
  for (const Entry& entry : entries) {
    std::printf("| %s |", entry.name);
    for (int size : kGangSizes) {
      std::vector<double> waits;
      for (size_t i = 0; i < trials.size(); ++i) {
        if (trials[i].gpus == size)
          waits.push_back((entry.result.start[i] - trials[i].arrival) / 60);
      }
      std::printf(" %.0f / %.0f / %.0f |", Quantile(waits, 0.5), Quantile(waits, 0.99),
                  Quantile(waits, 1.0));
    }
    std::printf("\n");
  }

  // Issue 37's target: every size's p99 wait within 1.5 x the bound's, and
  // utilisation at least 0.99 of the bound's.
  std::printf("\np99 wait over the fluid bound's p99, by gang size\n\n| scheduler |");
  for (int size : kGangSizes) std::printf(" %d |", size);
  std::printf(" worst | vs bound |\n|---|");
  for (size_t i = 0; i <= std::size(kGangSizes); ++i) std::printf("---:|");
  std::printf("---:|\n");
  auto p99_wait = [&](const Result& result, int size) {
    std::vector<double> waits;
    for (size_t i = 0; i < trials.size(); ++i) {
      if (trials[i].gpus == size) waits.push_back((result.start[i] - trials[i].arrival) / 60);
    }
    return Quantile(waits, 0.99);
  };
  for (const Entry& entry : entries) {
    std::printf("| %s |", entry.name);
    double worst = 0;
    for (int size : kGangSizes) {
      const double bound_wait = p99_wait(entries[0].result, size);
      const double ratio = bound_wait > 0 ? p99_wait(entry.result, size) / bound_wait : 0;
      worst = std::max(worst, ratio);
      std::printf(" %.2f |", ratio);
    }
    std::printf(" %.2f | %.3f |\n", worst,
                entry.result.busy_gpu_seconds / (capacity * window) / bound);
  }
  return 0;
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) { return vernier::bench::Run(argc, argv); }
