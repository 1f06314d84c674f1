// Load generator: N concurrent clients, each on its own connection with one
// call in flight, run trials against a live `vernier serve` (suggest, k
// measurements, complete; with --measurements-per-call and
// --complete-in-suggest, in fewer calls); reports trials/s, measurements/s, per-RPC latency
// percentiles and the CPU each process used, per store, beside a baseline
// of a no-op RPC measured in the same run. See docs/benchmarks.md.
//
//   build/bin/load_bench --db sqlite,postgres --clients 32 --measurements 10 --seconds 10
//
// scripts/load-bench.sh runs it with a PostgreSQL server and the Optuna
// baseline; --help lists the flags.
//
// The clients use gRPC's callback API, so that the generator, which shares
// the machine with the server, spends as little CPU as it can.
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "tests/support/server_process.h"
#include "tests/support/study_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"
#include "tests/support/test_database.h"

namespace vernier::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> stores = {"sqlite", "postgres"};
  std::string server;  // an external server; empty: start one per store
  int clients = 32;
  int measurements = 10;
  // Measurements per AddMeasurement call (the last call of a trial may
  // carry fewer); 1 sends `measurement`, more send `measurements`.
  int measurements_per_call = 1;
  // Each trial's completion rides on the next SuggestTrials
  // (`complete_trial`) instead of a CompleteTrial call of its own.
  bool complete_in_suggest = false;
  int studies = 1;
  double seconds = 10;
  double warmup_seconds = 2;
  // Trials started per second over all clients; 0: each client starts its
  // next trial as soon as its last one completed (closed loop).
  double trials_per_second = 0;
  std::string log_level = "info";
  // Also run each store's server with TLS, right after it without.
  bool compare_tls = false;
  // CPU lists (as taskset's: 0,1 or 2-15) for the servers it starts and for
  // the load generator; empty: wherever the kernel puts them.
  std::string server_cpus;
  std::string client_cpus;
  // Fault mode: the PostgreSQL server of this scripts/postgres-up.sh
  // directory (the one the postgres store is on) is stopped `fault_at`
  // seconds into the measured window, stays down `fault_down` seconds, and
  // starts again (scripts/postgres-restart.sh); empty: no fault.
  std::string restart_postgres;
  double fault_at = 5;
  double fault_down = 5;
};

// "0,2-5" as a CPU set; an error names the part that is not a CPU or range.
absl::StatusOr<cpu_set_t> ParseCpuList(const std::string& list) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    const std::pair<absl::string_view, absl::string_view> range = absl::StrSplit(part, '-');
    int first = 0, last = 0;
    if (!absl::SimpleAtoi(range.first, &first) ||
        !absl::SimpleAtoi(range.second.empty() ? range.first : range.second, &last) ||
        first < 0 || last < first || last >= CPU_SETSIZE) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "\"%s\" in \"%s\" is no CPU or FIRST-LAST range", std::string(part), list));
    }
    for (int cpu = first; cpu <= last; ++cpu) CPU_SET(cpu, &set);
  }
  return set;
}

// Puts the calling thread, and the threads and processes it starts from now
// on, on `cpus` (nothing when empty).
void PinTo(const std::string& cpus) {
  if (cpus.empty()) return;
  const absl::StatusOr<cpu_set_t> set = ParseCpuList(cpus);
  if (!set.ok() || sched_setaffinity(0, sizeof(*set), &*set) != 0) {
    std::cerr << "load_bench: cannot run on CPUs " << cpus << ": "
              << (set.ok() ? std::strerror(errno) : set.status().message()) << "\n";
    std::exit(2);
  }
}

enum Rpc { kSuggest, kAddMeasurement, kComplete, kNoop, kRpcCount };
constexpr const char* kRpcNames[] = {"SuggestTrials", "AddMeasurement", "CompleteTrial",
                                     "no-op (GetStudy refused before the store)"};

// Microseconds per call, per RPC.
struct Latencies {
  std::vector<double> micros[kRpcCount];
  int64_t errors = 0;
  std::string first_error;
};

// What every client shares: whether to count, whether to stop, and how
// many are still running.
struct RunState {
  std::atomic<bool> measuring{false};
  std::atomic<bool> stop{false};
  absl::Mutex mutex;
  int running ABSL_GUARDED_BY(mutex) = 0;
};

// Runs each task at its time, on a thread of its own: the paced clients'
// next trial.
class Pacer {
 public:
  Pacer() : thread_([this] { Loop(); }) {}
  ~Pacer() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    woken_.notify_one();
    thread_.join();
  }

  void RunAt(Clock::time_point when, std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.emplace(when, std::move(task));
    }
    woken_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mutex_);
    while (!done_ || !tasks_.empty()) {
      if (tasks_.empty()) {
        woken_.wait(lock);
        continue;
      }
      const auto first = tasks_.begin();
      if (Clock::now() < first->first) {
        woken_.wait_until(lock, first->first);
        continue;
      }
      std::function<void()> task = std::move(first->second);
      tasks_.erase(first);
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable woken_;
  std::multimap<Clock::time_point, std::function<void()>> tasks_;
  bool done_ = false;
  std::thread thread_;
};

// One client: its own channel and one call in flight, issuing the next call
// from the previous one's callback. Its fields are touched by one callback
// at a time.
class LoadClient {
 public:
  // `first_trial` is when a paced client starts its first trial (clients
  // start spread over one period, not all at once).
  LoadClient(const std::string& address,
             const std::shared_ptr<grpc::ChannelCredentials>& credentials, std::string study,
             std::string client_id, const Options& options, RunState& state, bool noop,
             Pacer& pacer, Clock::time_point first_trial)
      : stub_(v1::StudyService::NewStub(testing::OwnChannel(address, credentials))),
        study_(std::move(study)),
        client_id_(std::move(client_id)),
        options_(options),
        state_(state),
        noop_(noop),
        pacer_(pacer),
        next_trial_(first_trial) {}

  void Start() { noop_ ? Noop() : NextTrial(); }

  const Latencies& latencies() const { return latencies_; }
  // When each trial completed, in seconds since `since` (set before Start).
  const std::vector<double>& completions() const { return completions_; }
  void set_since(Clock::time_point since) { since_ = since; }
  // Every measurement the server acknowledged: (trial id, step).
  const std::vector<std::pair<int64_t, int64_t>>& acknowledged() const { return acknowledged_; }
  const std::string& study() const { return study_; }
  int64_t trials() const { return trials_; }
  int64_t measurements() const { return measurements_; }
  int64_t calls() const { return calls_; }

 private:
  // Starts timing a call; false when the run is over.
  bool Begin() {
    if (state_.stop) {
      absl::MutexLock lock(&state_.mutex);
      --state_.running;
      return false;
    }
    context_ = std::make_unique<grpc::ClientContext>();
    context_->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    context_->set_wait_for_ready(true);
    counted_ = state_.measuring;
    started_ = Clock::now();
    return true;
  }

  // Records a finished call; only calls that began and ended inside the
  // measured window count.
  bool End(Rpc rpc, const grpc::Status& status, bool expected_refusal = false) {
    const double micros =
        std::chrono::duration<double, std::micro>(Clock::now() - started_).count();
    const bool counted = counted_ && state_.measuring;
    if (counted) {
      latencies_.micros[rpc].push_back(micros);
      ++calls_;
    }
    const bool ok = status.ok() || expected_refusal;
    if (!ok && latencies_.errors++ == 0) {
      latencies_.first_error = absl::StrFormat("%s: %s", kRpcNames[rpc], status.error_message());
    }
    return ok;
  }

  void Noop() {
    if (!Begin()) return;
    noop_request_.set_study_name("");
    stub_->async()->GetStudy(
        context_.get(), &noop_request_, &noop_response_, [this](grpc::Status status) {
          End(kNoop, status, status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
          Noop();
        });
  }

  // Paced, a client starts trial k at first_trial + k * clients / rate, or
  // at once when it is behind that schedule; the schedule never slips, so
  // the offered rate holds whatever the latencies.
  void NextTrial() {
    if (options_.trials_per_second <= 0) {
      Suggest();
      return;
    }
    const Clock::time_point when = next_trial_;
    next_trial_ += std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options_.clients / options_.trials_per_second));
    if (when <= Clock::now()) {
      Suggest();
    } else {
      pacer_.RunAt(when, [this] { Suggest(); });
    }
  }

  void Suggest() {
    if (!Begin()) return;
    suggest_request_.set_study_name(study_);
    suggest_request_.set_count(1);
    suggest_request_.set_client_id(client_id_);
    suggest_request_.clear_complete_trial();
    if (completing_trial_id_ > 0) {
      suggest_request_.mutable_complete_trial()->set_trial_id(completing_trial_id_);
    }
    suggest_response_.Clear();
    const bool completing_counted = trial_counted_;
    trial_counted_ = counted_;
    stub_->async()->SuggestTrials(
        context_.get(), &suggest_request_, &suggest_response_,
        [this, completing_counted](grpc::Status status) {
          if (status.ok() && suggest_response_.has_completed_trial()) {
            Completed(completing_counted);
            completing_trial_id_ = 0;
          }
          if (!End(kSuggest, status) || suggest_response_.trials_size() != 1) {
            trial_counted_ = completing_counted;
            Suggest();
            return;
          }
          const v1::Trial& trial = suggest_response_.trials(0);
          trial_id_ = trial.id();
          x_ = trial.parameters(0).double_value();
          step_ = trial.measurement_count();
          Measure();
        });
  }

  void Measure() {
    if (step_ >= options_.measurements) {
      if (options_.complete_in_suggest) {
        completing_trial_id_ = trial_id_;
        NextTrial();
      } else {
        Complete();
      }
      return;
    }
    if (!Begin()) return;
    const int64_t first = step_ + 1;
    const int64_t sent = std::min<int64_t>(std::max(1, options_.measurements_per_call),
                                           options_.measurements - step_);
    step_ += sent;
    measurement_request_.Clear();
    measurement_request_.set_study_name(study_);
    measurement_request_.set_trial_id(trial_id_);
    for (int64_t step = first; step <= step_; ++step) {
      const v1::Measurement measurement =
          testing::MakeMeasurement(step, step, "accuracy", x_ * step / options_.measurements);
      if (options_.measurements_per_call > 1) {
        *measurement_request_.add_measurements() = measurement;
      } else {
        *measurement_request_.mutable_measurement() = measurement;
      }
    }
    stub_->async()->AddMeasurement(context_.get(), &measurement_request_, &trial_response_,
                                   [this, first, sent](grpc::Status status) {
                                     if (End(kAddMeasurement, status)) {
                                       for (int64_t step = first; step <= step_; ++step) {
                                         acknowledged_.emplace_back(trial_id_, step);
                                       }
                                       if (counted_ && state_.measuring) measurements_ += sent;
                                     } else {
                                       step_ -= sent;  // Sent again, same sequence numbers.
                                     }
                                     Measure();
                                   });
  }

  // A trial's completion was acknowledged (by CompleteTrial, or by the
  // SuggestTrials that carried it).
  void Completed(bool counted) {
    if (counted && state_.measuring) ++trials_;
    completions_.push_back(std::chrono::duration<double>(Clock::now() - since_).count());
  }

  void Complete() {
    if (!Begin()) return;
    complete_request_.set_study_name(study_);
    complete_request_.set_trial_id(trial_id_);
    stub_->async()->CompleteTrial(context_.get(), &complete_request_, &trial_response_,
                                  [this](grpc::Status status) {
                                    if (!End(kComplete, status)) {
                                      Complete();
                                      return;
                                    }
                                    Completed(trial_counted_);
                                    NextTrial();
                                  });
  }

  std::unique_ptr<v1::StudyService::Stub> stub_;
  std::string study_;
  std::string client_id_;
  const Options& options_;
  RunState& state_;
  bool noop_;
  Pacer& pacer_;
  Clock::time_point next_trial_;

  std::unique_ptr<grpc::ClientContext> context_;
  Clock::time_point started_;
  bool counted_ = false;
  bool trial_counted_ = false;
  v1::GetStudyRequest noop_request_;
  v1::Study noop_response_;
  v1::SuggestTrialsRequest suggest_request_;
  v1::SuggestTrialsResponse suggest_response_;
  v1::AddMeasurementRequest measurement_request_;
  v1::CompleteTrialRequest complete_request_;
  v1::Trial trial_response_;
  int64_t trial_id_ = 0;
  // The trial the next SuggestTrials completes (complete_in_suggest); 0: none.
  int64_t completing_trial_id_ = 0;
  int64_t step_ = 0;
  double x_ = 0;

  Latencies latencies_;
  int64_t trials_ = 0, measurements_ = 0, calls_ = 0;
  Clock::time_point since_ = Clock::now();
  std::vector<double> completions_;
  std::vector<std::pair<int64_t, int64_t>> acknowledged_;
};

// CPU seconds (user + system) of the processes whose command line contains
// `marker`, or of `pid` when marker is empty.
double CpuSeconds(int pid, const std::string& marker = "") {
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto of = [&](const std::filesystem::path& dir) -> double {
    std::ifstream stat(dir / "stat");
    std::string line;
    if (!std::getline(stat, line)) return 0;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(line.substr(close + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    }
    return (utime + stime) / ticks;
  };
  if (marker.empty()) return pid > 0 ? of("/proc/" + std::to_string(pid)) : 0;
  double total = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (absl::StrContains(text, marker)) total += of(entry.path());
  }
  return total;
}

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec / 1e6;
}

// Whose CPU to report: the server's PID, and a command-line marker of the
// database's PostgreSQL backends ("" for none).
struct Watched {
  int server_pid = -1;
  std::string postgres_marker;
};

// What fault mode measured: trials/s before PostgreSQL went down, while it
// was down and after it was back; how long after it was back the rate came
// back to half the one before; acknowledged measurements not stored.
struct FaultResult {
  bool injected = false;
  std::string error;
  double before = 0, during = 0, after = 0;
  double down_seconds = 0;
  double recovery_seconds = -1;  // -1: not within the run
  int64_t acknowledged = 0, lost = 0;
};

struct RunResult {
  std::string label;
  double seconds = 0;
  int64_t trials = 0, measurements = 0, calls = 0;
  Latencies latencies;
  double client_cpu = 0, server_cpu = 0, postgres_cpu = 0;
  FaultResult fault;
};

// Trials completed per second in [from, to) of the run, from the clients'
// completion times.
double RateBetween(const std::vector<double>& completions, double from, double to) {
  if (to <= from) return 0;
  const auto count = std::count_if(completions.begin(), completions.end(),
                                   [&](double t) { return t >= from && t < to; });
  return count / (to - from);
}

// Fault mode's numbers, once the run is over: rates from the completion
// times, and every acknowledged measurement looked up in the store.
FaultResult MeasureFault(const std::string& address,
                         const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                         const std::vector<std::unique_ptr<LoadClient>>& clients, double start,
                         double down_at, double up_at, double end) {
  FaultResult fault;
  fault.injected = true;
  fault.down_seconds = up_at - down_at;
  std::vector<double> completions;
  for (const auto& client : clients) {
    completions.insert(completions.end(), client->completions().begin(),
                       client->completions().end());
  }
  fault.before = RateBetween(completions, start, down_at);
  fault.during = RateBetween(completions, down_at, up_at);
  fault.after = RateBetween(completions, up_at + 5, end);
  for (double t = up_at; t + 1 <= end; t += 0.5) {
    if (RateBetween(completions, t, t + 1) >= fault.before / 2) {
      fault.recovery_seconds = t - up_at;
      break;
    }
  }
  testing::StudyClient admin(address, std::chrono::seconds(60), credentials);
  std::map<std::string, std::map<int64_t, std::set<int64_t>>> stored;
  for (const auto& client : clients) {
    if (stored.contains(client->study())) continue;
    std::vector<v1::Trial> trials;
    const grpc::Status listed = admin.ListTrials(client->study(), true, &trials);
    if (!listed.ok()) {
      fault.error = absl::StrCat("ListTrials: ", listed.error_message());
      return fault;
    }
    std::map<int64_t, std::set<int64_t>>& steps = stored[client->study()];
    for (const v1::Trial& trial : trials) {
      for (const v1::Measurement& measurement : trial.measurements()) {
        steps[trial.id()].insert(measurement.step());
      }
    }
  }
  for (const auto& client : clients) {
    const std::map<int64_t, std::set<int64_t>>& steps = stored[client->study()];
    for (const auto& [trial_id, step] : client->acknowledged()) {
      ++fault.acknowledged;
      auto trial = steps.find(trial_id);
      if (trial == steps.end() || !trial->second.contains(step)) ++fault.lost;
    }
  }
  return fault;
}

RunResult Run(const Options& options, const std::string& address, const std::string& label,
              const Watched& watched, bool noop,
              const std::shared_ptr<grpc::ChannelCredentials>& credentials =
                  grpc::InsecureChannelCredentials()) {
  std::vector<std::string> studies;
  if (!noop) {
    testing::StudyClient admin(address, std::chrono::seconds(10), credentials);
    const std::string run_id =
        absl::StrFormat("%d_%d", getpid(), Clock::now().time_since_epoch().count() % 1000000);
    for (int s = 0; s < options.studies; ++s) {
      studies.push_back(absl::StrFormat("load_%s_%d", run_id, s));
      grpc::Status created =
          admin.CreateStudy(testing::SimpleStudy(studies.back(), "accuracy", 0, 0));
      if (!created.ok()) {
        std::cerr << "CreateStudy failed: " << created.error_message() << "\n";
        std::exit(1);
      }
    }
  }
  RunState state;
  Pacer pacer;
  std::vector<std::unique_ptr<LoadClient>> clients;
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < options.clients; ++i) {
    const Clock::time_point first_trial =
        options.trials_per_second <= 0
            ? now
            : now + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(i / options.trials_per_second));
    clients.push_back(std::make_unique<LoadClient>(address, credentials,
                                                   noop ? "" : studies[i % studies.size()],
                                                   absl::StrFormat("client-%d", i), options, state,
                                                   noop, pacer, first_trial));
  }
  {
    absl::MutexLock lock(&state.mutex);
    state.running = options.clients;
  }
  const Clock::time_point since = Clock::now();
  for (auto& client : clients) {
    client->set_since(since);
    client->Start();
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(options.warmup_seconds));

  const double client_cpu = SelfCpuSeconds();
  const double server_cpu = CpuSeconds(watched.server_pid);
  const double postgres_cpu =
      watched.postgres_marker.empty() ? 0 : CpuSeconds(0, watched.postgres_marker);
  state.measuring = true;
  const Clock::time_point start = Clock::now();
  // Fault mode: PostgreSQL stopped (fast shutdown) and started again during
  // the window, on a thread of its own.
  const bool inject = !noop && !options.restart_postgres.empty();
  std::atomic<double> down_at{0}, up_at{0};
  std::string fault_error;
  std::thread fault;
  if (inject) {
    fault = std::thread([&] {
      const auto since_start = [&] {
        return std::chrono::duration<double>(Clock::now() - since).count();
      };
      std::this_thread::sleep_for(std::chrono::duration<double>(options.fault_at));
      const std::string script = testing::SourcePath("scripts/postgres-restart.sh");
      down_at = since_start();
      testing::CommandResult stopped =
          testing::RunCommand({script, options.restart_postgres, "stop", "fast"});
      std::this_thread::sleep_for(std::chrono::duration<double>(options.fault_down));
      testing::CommandResult started =
          testing::RunCommand({script, options.restart_postgres, "start"});
      up_at = since_start();
      if (stopped.exit_code != 0 || started.exit_code != 0) {
        fault_error = stopped.err + started.err;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  if (fault.joinable()) fault.join();
  state.measuring = false;
  RunResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.client_cpu = SelfCpuSeconds() - client_cpu;
  result.server_cpu = CpuSeconds(watched.server_pid) - server_cpu;
  if (!watched.postgres_marker.empty()) {
    result.postgres_cpu = CpuSeconds(0, watched.postgres_marker) - postgres_cpu;
  }
  state.stop = true;
  {
    absl::MutexLock lock(&state.mutex);
    auto all_stopped = [&state]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mutex) {
      return state.running == 0;
    };
    state.mutex.Await(absl::Condition(&all_stopped));
  }

  result.label = label;
  if (inject) {
    const double window_start = std::chrono::duration<double>(start - since).count();
    result.fault = MeasureFault(address, credentials, clients, window_start, down_at, up_at,
                                window_start + result.seconds);
    if (!fault_error.empty()) result.fault.error = fault_error;
  }
  for (const auto& client : clients) {
    result.trials += client->trials();
    result.measurements += client->measurements();
    result.calls += client->calls();
    const Latencies& latencies = client->latencies();
    for (int rpc = 0; rpc < kRpcCount; ++rpc) {
      result.latencies.micros[rpc].insert(result.latencies.micros[rpc].end(),
                                          latencies.micros[rpc].begin(),
                                          latencies.micros[rpc].end());
    }
    if (result.latencies.errors == 0) result.latencies.first_error = latencies.first_error;
    result.latencies.errors += latencies.errors;
  }
  return result;
}

double Percentile(std::vector<double>& values, double fraction) {
  const size_t index = std::min(values.size() - 1, static_cast<size_t>(fraction * values.size()));
  std::nth_element(values.begin(), values.begin() + index, values.end());
  return values[index];
}

void Print(const Options& options, RunResult result) {
  std::cout << absl::StrFormat(
      "\n%s: %d clients, %.1f s measured%s\n", result.label, options.clients, result.seconds,
      options.trials_per_second > 0 && result.trials > 0
          ? absl::StrFormat(", %.0f trials/s offered", options.trials_per_second)
          : "");
  if (result.trials > 0) {
    std::cout << absl::StrFormat(
        "  %.0f trials/s with %d measurements each (%d studies), %.0f measurements/s, %.0f "
        "RPC/s\n",
        result.trials / result.seconds, options.measurements, options.studies,
        result.measurements / result.seconds, result.calls / result.seconds);
    std::cout << absl::StrFormat(
        "  calls: %d measurement%s per AddMeasurement, completion %s\n",
        std::max(1, options.measurements_per_call),
        options.measurements_per_call > 1 ? "s" : "",
        options.complete_in_suggest ? "with the next SuggestTrials" : "by CompleteTrial");
  } else {
    std::cout << absl::StrFormat("  %.0f RPC/s\n", result.calls / result.seconds);
  }
  for (int rpc = 0; rpc < kRpcCount; ++rpc) {
    std::vector<double>& micros = result.latencies.micros[rpc];
    if (micros.empty()) continue;
    const double p50 = Percentile(micros, 0.50) / 1000;
    const double p99 = Percentile(micros, 0.99) / 1000;
    const double max = *std::max_element(micros.begin(), micros.end()) / 1000;
    std::cout << absl::StrFormat("  %-42s n=%-7d p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms\n",
                                 kRpcNames[rpc], micros.size(), p50, p99, max);
  }
  // CPU per process as a share of one core over the window.
  std::cout << absl::StrFormat(
      "  CPU: vernier serve %.0f%%, PostgreSQL backends %.0f%%, load "
      "generator %.0f%% (of one core)\n",
      100 * result.server_cpu / result.seconds, 100 * result.postgres_cpu / result.seconds,
      100 * result.client_cpu / result.seconds);
  if (result.calls > 0) {
    std::cout << absl::StrFormat("  CPU per RPC: vernier serve %.0f us, PostgreSQL %.0f us\n",
                                 1e6 * result.server_cpu / result.calls,
                                 1e6 * result.postgres_cpu / result.calls);
  }
  if (result.latencies.errors > 0) {
    std::cout << absl::StrFormat("  %d errors; the first: %s\n", result.latencies.errors,
                                 result.latencies.first_error);
  }
  const FaultResult& fault = result.fault;
  if (fault.injected) {
    std::cout << absl::StrFormat(
        "  fault: PostgreSQL down %.1f s (fast shutdown); trials/s before %.0f, while down %.0f, "
        "after (from 5 s on) %.0f; back to half the rate before %s after it was up; "
        "acknowledged measurements %d, lost %d%s\n",
        fault.down_seconds, fault.before, fault.during, fault.after,
        fault.recovery_seconds < 0 ? std::string("not within the run")
                                   : absl::StrFormat("%.1f s", fault.recovery_seconds),
        fault.acknowledged, fault.lost,
        fault.error.empty() ? "" : absl::StrCat(" (", fault.error, ")"));
  }
}

std::string StoreLabel(const std::string& store) {
  if (store == "sqlite") return "SQLite";
  if (store == "postgres") return "PostgreSQL";
  return store;
}

// Starts a server on `store` (with TLS from scripts/make-certs.sh when
// `tls`), runs the no-op baseline and the tuning load against it, stops it.
void BenchStore(const Options& options, const std::string& store, bool tls) {
  testing::TempDir dir;
  std::unique_ptr<testing::TestDatabase> database;
  std::string url = store;
  Watched watched;
  if (store == "sqlite" || store == "postgres") {
    const testing::StoreKind kind =
        store == "sqlite" ? testing::StoreKind::kSqlite : testing::StoreKind::kPostgres;
    if (!testing::StoreAvailable(kind)) {
      std::cout << "\nPostgreSQL: skipped: " << testing::kNoPostgresServer << "\n";
      return;
    }
    database = std::make_unique<testing::TestDatabase>(kind, dir.path());
    url = database->url();
  }
  if (database != nullptr && database->postgres() != nullptr) {
    // Backends show their database in their command line.
    watched.postgres_marker = " " + database->postgres()->name() + " ";
  }
  std::vector<std::string> flags = {"--db", url, "--log-level", options.log_level};
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  std::unique_ptr<testing::TestCertificates> certificates;
  if (tls) {
    certificates = std::make_unique<testing::TestCertificates>();
    flags.insert(flags.end(), {"--tls-cert", certificates->Path("server.pem"), "--tls-key",
                               certificates->Path("server.key"), "--tls-ca",
                               certificates->Path("ca.pem")});
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = certificates->Read("ca.pem");
    credentials = grpc::SslCredentials(ssl);
  }
  testing::ServerProcess server(dir.path() + "/server", 0, flags);
  // The server inherits this thread's CPUs; the clients' threads, made
  // after it started, get the generator's.
  PinTo(options.server_cpus);
  server.Start();
  PinTo(options.client_cpus);
  watched.server_pid = server.pid();
  const std::string label = StoreLabel(store) + (tls ? " (TLS, token)" : " (plaintext, token)");
  Print(options,
        Run(options, server.address(), label + " server, no-op RPC", watched, true, credentials));
  Print(options,
        Run(options, server.address(), label + " tuning load", watched, false, credentials));
  server.Stop();
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  using namespace vernier::bench;
  Options options;
  CLI::App app{
      "Load: N concurrent clients run trials (suggest, k measurements, complete) against a live "
      "vernier serve per store, beside a no-op RPC baseline."};
  app.add_option("--db", options.stores,
                 "Stores, comma-separated: sqlite (a temporary file), postgres (a fresh database "
                 "on $VERNIER_TEST_POSTGRES_URL, skipped without it) or a postgresql:// URL")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--server", options.server, "Drive this running server (HOST:PORT) instead");
  app.add_option("--clients", options.clients, "Concurrent clients, one connection each")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--measurements", options.measurements, "Measurements per trial")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--measurements-per-call", options.measurements_per_call,
                 "Measurements per AddMeasurement call (more than 1: the batch field)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_flag("--complete-in-suggest", options.complete_in_suggest,
               "Complete each trial with the next SuggestTrials (complete_trial) instead of "
               "a CompleteTrial call");
  app.add_option("--studies", options.studies, "Studies the clients are spread over")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--seconds", options.seconds, "Measured time per run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup-seconds", options.warmup_seconds, "Unmeasured time before it")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--trials-per-second", options.trials_per_second,
                 "Offered load: trials started per second over all clients, each client on a "
                 "fixed schedule (open loop); 0 runs each client's trials back to back")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--log-level", options.log_level, "The server's --log-level")
      ->capture_default_str();
  app.add_flag("--tls", options.compare_tls,
               "Run each store's server again with TLS (certificates from "
               "scripts/make-certs.sh), right after it without, in the same run");
  const auto cpu_list = [](const std::string& list) {
    const absl::StatusOr<cpu_set_t> set = ParseCpuList(list);
    return set.ok() ? std::string() : std::string(set.status().message());
  };
  app.add_option("--server-cpus", options.server_cpus,
                 "CPUs for the servers it starts (taskset's list: 0,1 or 0-3), so that the "
                 "generator does not take the server's cores")
      ->check(cpu_list);
  app.add_option("--client-cpus", options.client_cpus, "CPUs for the load generator (2-15)")
      ->check(cpu_list);
  app.add_option("--restart-postgres", options.restart_postgres,
                 "Fault mode: the scripts/postgres-up.sh directory of the PostgreSQL server the "
                 "postgres store is on; it is stopped (fast shutdown) --fault-at seconds into "
                 "the measured window and started again --fault-down seconds later. Prints "
                 "trials/s before, during and after, the seconds to recover and the "
                 "acknowledged measurements lost");
  app.add_option("--fault-at", options.fault_at, "Fault mode: when PostgreSQL stops (s)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--fault-down", options.fault_down, "Fault mode: how long it stays down (s)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  PinTo(options.client_cpus);

  // ServerProcess finds `vernier` through VERNIER_BUILD_DIR, as ctest sets
  // it; this binary lives in the same build/bin.
  if (std::getenv("VERNIER_BUILD_DIR") == nullptr) {
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    setenv("VERNIER_BUILD_DIR", self.parent_path().parent_path().c_str(), 1);
  }
  std::cout << absl::StrFormat("load_bench: %d cores, load average at start %s\n",
                               std::thread::hardware_concurrency(), [] {
                                 std::ifstream loadavg("/proc/loadavg");
                                 std::string first;
                                 loadavg >> first;
                                 return first;
                               }());
  if (!options.server.empty()) {
    Print(options, Run(options, options.server, options.server + " no-op RPC", {}, true));
    Print(options, Run(options, options.server, options.server + " tuning load", {}, false));
    return 0;
  }
  for (const std::string& store : options.stores) {
    BenchStore(options, store, /*tls=*/false);
    if (options.compare_tls) BenchStore(options, store, /*tls=*/true);
  }
  return 0;
}
