#include "suggest/designers/gp_bandit_designer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "suggest/designers/quasi_random_designer.h"
#include "suggest/designers/random_search_designer.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using v1::ParameterSpec;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

SearchSpace UnitSquare(int d = 2) {
  std::vector<ParameterSpec> specs;
  for (int i = 0; i < d; ++i) specs.push_back(DoubleSpec("x" + std::to_string(i), 0, 1));
  return MustMakeSpace(specs);
}

using Objective = std::function<double(const ParameterAssignment&)>;

void Complete(DesignerHistory& history, const std::vector<ParameterAssignment>& points,
              const Objective& objective) {
  for (const ParameterAssignment& point : points) {
    TrialObservation trial = Observation(static_cast<int64_t>(history.completed.size()) + 1, point,
                                         v1::Trial::SUCCEEDED);
    trial.objective = objective(point);
    history.completed.push_back(std::move(trial));
  }
}

// Runs `trials` sequential suggestions and returns the best value (smallest).
double RunMinimization(Designer& designer, const Objective& objective, int trials, int batch,
                       uint64_t seed, DesignerHistory* history_out = nullptr) {
  DesignerHistory history;
  double best = INFINITY;
  for (int t = 0; t < trials; t += batch) {
    const Suggestions suggestions = MustSuggest(designer, history, batch, seed * 1000 + t);
    EXPECT_EQ(suggestions.fallback_reason, "");
    Complete(history, suggestions.points, objective);
    for (const ParameterAssignment& point : suggestions.points)
      best = std::min(best, objective(point));
  }
  if (history_out != nullptr) *history_out = history;
  return best;
}

double Branin(const ParameterAssignment& p) {
  const double x = 15 * p[0].double_value() - 5;
  const double y = 15 * p[1].double_value();
  const double pi = 3.14159265358979;
  const double b = 5.1 / (4 * pi * pi);
  return std::pow(y - b * x * x + 5 / pi * x - 6, 2) + 10 * (1 - 1 / (8 * pi)) * std::cos(x) + 10;
}

// A designer whose model takes over after 5 ended trials (the default is
// kDefaultInitialPoints), for tests of the model on short histories.
GpBanditDesigner::Options FiveInitialPoints() {
  GpBanditDesigner::Options options;
  options.initial_points = 5;
  return options;
}

TEST(GpBanditDesignerTest, StartsWithTheQuasiRandomDesign) {
  const SearchSpace space = UnitSquare();
  GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 5);
  QuasiRandomDesigner quasi_random(space, 5);
  EXPECT_EQ(designer.initial_points(), 10);
  const Suggestions gp = MustSuggest(designer, {}, 3);
  const Suggestions quasi = MustSuggest(quasi_random, {}, 3);
  ASSERT_EQ(gp.points.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(SearchSpace::Key(gp.points[i]), SearchSpace::Key(quasi.points[i]));
  }
}

TEST(GpBanditDesignerTest, BeatsRandomSearchOnBraninByFar) {
  const SearchSpace space = UnitSquare();
  // Branin's minimum is 0.397887; random search with 30 trials typically
  // ends above 1.
  std::vector<double> gp_regret;
  std::vector<double> random_regret;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    GpBanditDesigner gp(space, v1::MetricSpec::MINIMIZE, seed);
    RandomSearchDesigner random(space);
    gp_regret.push_back(RunMinimization(gp, Branin, 30, 1, seed) - 0.397887);
    random_regret.push_back(RunMinimization(random, Branin, 30, 1, seed) - 0.397887);
  }
  std::sort(gp_regret.begin(), gp_regret.end());
  std::sort(random_regret.begin(), random_regret.end());
  EXPECT_LT(gp_regret[1], 0.1);
  EXPECT_LT(gp_regret[1], 0.2 * random_regret[1]);
}

TEST(GpBanditDesignerTest, FollowsTheGoal) {
  // 1-d: f(x) = x. Maximising should propose near 1, minimising near 0.
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", 0, 1)});
  for (const auto goal : {v1::MetricSpec::MAXIMIZE, v1::MetricSpec::MINIMIZE}) {
    GpBanditDesigner designer(space, goal, 1, FiveInitialPoints());
    DesignerHistory history;
    std::vector<ParameterAssignment> points;
    for (double x : {0.2, 0.35, 0.5, 0.65, 0.8}) points.push_back({DoubleValue("x", x)});
    Complete(history, points, [](const ParameterAssignment& p) { return p[0].double_value(); });
    const Suggestions next = MustSuggest(designer, history, 1);
    ASSERT_EQ(next.points.size(), 1u);
    EXPECT_EQ(next.fallback_reason, "");
    const double x = next.points[0][0].double_value();
    if (goal == v1::MetricSpec::MAXIMIZE) {
      EXPECT_GT(x, 0.8) << "maximise";
    } else {
      EXPECT_LT(x, 0.2) << "minimise";
    }
  }
}

TEST(GpBanditDesignerTest, InfeasibleAndFailedTrialsSteerTheSearchAway) {
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", 0, 1)});
  GpBanditDesigner designer(space, v1::MetricSpec::MAXIMIZE, 1);
  DesignerHistory history;
  int id = 0;
  for (double x = 0.05; x < 1.0; x += 0.1) {
    TrialObservation trial = Observation(++id, {DoubleValue("x", x)}, v1::Trial::SUCCEEDED);
    if (x < 0.5) {
      trial.objective = 1.0;
    } else {
      trial.state = id % 2 == 0 ? v1::Trial::INFEASIBLE : v1::Trial::FAILED;
    }
    history.completed.push_back(trial);
  }
  const Suggestions next = MustSuggest(designer, history, 4);
  ASSERT_EQ(next.points.size(), 4u);
  EXPECT_EQ(next.fallback_reason, "");
  for (const ParameterAssignment& point : next.points) {
    EXPECT_LT(point[0].double_value(), 0.5) << FormatAssignment(point);
  }
}

// Runs `trials` sequential suggestions on `objective`, whose trials fail
// (INFEASIBLE, no value) where `fails`; returns the best value with one.
double RunWithFailures(Designer& designer, const Objective& objective,
                       const std::function<bool(const ParameterAssignment&)>& fails, int trials,
                       uint64_t seed) {
  DesignerHistory history;
  double best = INFINITY;
  for (int t = 0; t < trials; ++t) {
    const Suggestions suggestions = MustSuggest(designer, history, 1, seed * 1000 + t);
    EXPECT_EQ(suggestions.fallback_reason, "");
    for (const ParameterAssignment& point : suggestions.points) {
      TrialObservation trial = Observation(static_cast<int64_t>(history.completed.size()) + 1,
                                           point, v1::Trial::SUCCEEDED);
      if (fails(point)) {
        trial.state = v1::Trial::INFEASIBLE;
      } else {
        trial.objective = objective(point);
        best = std::min(best, *trial.objective);
      }
      history.completed.push_back(std::move(trial));
    }
  }
  return best;
}

TEST(GpBanditDesignerTest, AFailureRegionsEdgeIsSearchedWithTheFeasibilityModel) {
  // A bowl in 4-d whose minimum (0 at 0.6 in every coordinate) lies just
  // inside a failure region's edge, x0 + x1 > 1.25, as the best learning
  // rate lies just short of divergence. With the failed trials placed below
  // the worst value in the objective's model, the model's mean sinks along
  // the edge and the search keeps away from the minimum.
  const SearchSpace space = UnitSquare(4);
  const Objective bowl = [](const ParameterAssignment& p) {
    double sum = 0;
    for (const v1::ParameterValue& value : p) sum += std::pow(value.double_value() - 0.6, 2);
    return sum;
  };
  const auto fails = [](const ParameterAssignment& p) {
    return p[0].double_value() + p[1].double_value() > 1.25;
  };
  double with_model = 0;
  double without_model = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    GpBanditDesigner::Options options;
    GpBanditDesigner modelled(space, v1::MetricSpec::MINIMIZE, seed, options);
    with_model += RunWithFailures(modelled, bowl, fails, 30, seed);
    options.feasibility_model = false;
    GpBanditDesigner placed_below(space, v1::MetricSpec::MINIMIZE, seed, options);
    without_model += RunWithFailures(placed_below, bowl, fails, 30, seed);
  }
  // 0.042 against 0.100 when written.
  EXPECT_LT(with_model, 0.6 * without_model);
}

// Runs `trials` sequential suggestions on `objective`, whose every
// `period`-th trial reports `spike` more than its value (a run that met a
// bad seed or node); returns the value of the trial reported best.
double RunWithSpikes(Designer& designer, const Objective& objective, int period, double spike,
                     int trials, uint64_t seed) {
  DesignerHistory history;
  double best_reported = INFINITY;
  double best = INFINITY;
  for (int t = 0; t < trials; ++t) {
    const Suggestions suggestions = MustSuggest(designer, history, 1, seed * 1000 + t);
    EXPECT_EQ(suggestions.fallback_reason, "");
    for (const ParameterAssignment& point : suggestions.points) {
      const int64_t id = static_cast<int64_t>(history.completed.size()) + 1;
      TrialObservation trial = Observation(id, point, v1::Trial::SUCCEEDED);
      const double value = objective(point);
      trial.objective = value + ((id + static_cast<int64_t>(seed)) % period == 0 ? spike : 0.0);
      if (*trial.objective < best_reported) {
        best_reported = *trial.objective;
        best = value;
      }
      history.completed.push_back(std::move(trial));
    }
  }
  return best;
}

TEST(GpBanditDesignerTest, PoorReportsAmongGoodTrialsAreLeftOutOfTheModel) {
  // A bowl (minimum 0 at 0.6) whose every tenth report comes out worse by
  // 1, the bowl's spread over the square. Taken at its word, such a report
  // beside the best trials carves a pit in the model there.
  const SearchSpace space = UnitSquare(2);
  const Objective bowl = [](const ParameterAssignment& p) {
    double sum = 0;
    for (const v1::ParameterValue& value : p) sum += std::pow(value.double_value() - 0.6, 2);
    return sum;
  };
  double filtered = 0;
  double taken = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GpBanditDesigner::Options options;
    // The filter alone: on this small bowl the input warp, kept in some
    // seeds, moves both arms (0.0038 against 0.0035 with it); on the
    // spiky benchmark functions it is level (docs/benchmarks.md).
    options.input_warping = false;
    GpBanditDesigner with_filter(space, v1::MetricSpec::MINIMIZE, seed, options);
    filtered += RunWithSpikes(with_filter, bowl, 10, 1.0, 30, seed);
    options.outlier_rounds = 0;
    GpBanditDesigner without_filter(space, v1::MetricSpec::MINIMIZE, seed, options);
    taken += RunWithSpikes(without_filter, bowl, 10, 1.0, 30, seed);
  }
  // 0.0018 against 0.0028 when written.
  EXPECT_LT(filtered, 0.8 * taken);

  // With more trials than the hyper-parameters are fitted on, nothing is
  // left out: the same run with the filter on and off.
  GpBanditDesigner::Options subset;
  subset.input_warping = false;
  subset.max_fit_points = 9;
  GpBanditDesigner on(space, v1::MetricSpec::MINIMIZE, 2, subset);
  subset.outlier_rounds = 0;
  GpBanditDesigner off(space, v1::MetricSpec::MINIMIZE, 2, subset);
  // (Without that rule, 1.7e-6 against 4.2e-5 when written.)
  EXPECT_EQ(RunWithSpikes(on, bowl, 10, 1.0, 30, 2), RunWithSpikes(off, bowl, 10, 1.0, 30, 2));
}

TEST(GpBanditDesignerTest, AParameterOnTheWrongScaleIsWarped) {
  // x0 is a logarithm over three decades declared linear: the minimum at
  // x0 = 0.016, the function's whole range of x0 in its first tenth.
  const SearchSpace space = UnitSquare(2);
  const Objective misscaled = [](const ParameterAssignment& p) {
    const double u = (std::log10(1e-3 + p[0].double_value() * (1 - 1e-3)) + 3) / 3;
    return std::pow(u - 0.4, 2) + std::pow(p[1].double_value() - 0.6, 2);
  };
  double warped = 0;
  double plain = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GpBanditDesigner::Options options;
    options.input_warping = true;
    GpBanditDesigner with_warp(space, v1::MetricSpec::MINIMIZE, seed, options);
    warped += RunMinimization(with_warp, misscaled, 25, 1, seed);
    options.input_warping = false;
    GpBanditDesigner without_warp(space, v1::MetricSpec::MINIMIZE, seed, options);
    plain += RunMinimization(without_warp, misscaled, 25, 1, seed);
  }
  EXPECT_LT(warped, 0.5 * plain) << warped << " against " << plain;
}

TEST(GpBanditDesignerTest, AWarpWithoutTheEvidenceAskedForIsLeftOut) {
  const SearchSpace space = UnitSquare(2);
  const Objective waves = [](const ParameterAssignment& p) {
    return std::sin(5 * p[0].double_value()) * std::cos(4 * p[1].double_value());
  };
  const auto run = [&](bool input_warping, double warp_evidence) {
    GpBanditDesigner::Options options;
    options.input_warping = input_warping;
    options.warp_evidence = warp_evidence;
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 3, options);
    DesignerHistory history;
    RunMinimization(designer, waves, 25, 1, 3, &history);
    std::vector<std::string> keys;
    for (const TrialObservation& trial : history.completed) {
      keys.push_back(SearchSpace::Key(trial.parameters));
    }
    return keys;
  };
  const std::vector<std::string> plain = run(false, 1.0);
  // A warp that must bring more than any fit can: the plain run, trial for
  // trial (the warp's fit draws no random numbers and leaves the plain fit
  // as it was).
  EXPECT_EQ(run(true, 1e9), plain);
  // Kept whenever it fits better at all, it changes the run.
  EXPECT_NE(run(true, 0.0), plain);
}

TEST(GpBanditDesignerTest, BatchesAreDistinctSpreadAndAvoidPendingTrials) {
  const SearchSpace space = UnitSquare();
  GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 2);
  DesignerHistory history;
  RunMinimization(designer, Branin, 12, 4, 2, &history);
  history.pending.push_back(
      Observation(100, {DoubleValue("x0", 0.5), DoubleValue("x1", 0.5)}, v1::Trial::ACTIVE));
  const Suggestions batch = MustSuggest(designer, history, 8);
  ASSERT_EQ(batch.points.size(), 8u);
  EXPECT_EQ(batch.fallback_reason, "");
  std::set<std::string> keys;
  for (const auto* trials : {&history.completed, &history.pending}) {
    for (const TrialObservation& trial : *trials) keys.insert(SearchSpace::Key(trial.parameters));
  }
  std::vector<Eigen::Vector2d> chosen = {{0.5, 0.5}};
  for (const ParameterAssignment& point : batch.points) {
    EXPECT_TRUE(keys.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
    chosen.emplace_back(point[0].double_value(), point[1].double_value());
  }
  // The kriging believer leaves no two points of the batch (or the pending
  // one) on top of each other.
  for (size_t a = 0; a < chosen.size(); ++a) {
    for (size_t b = a + 1; b < chosen.size(); ++b) {
      EXPECT_GT((chosen[a] - chosen[b]).norm(), 1e-3) << a << " " << b;
    }
  }
}

// Six ended Branin trials (a multiple of the exploration period, 3) whose
// latest is the best when `latest_is_best`, else not.
DesignerHistory SixBraninTrials(bool latest_is_best) {
  const SearchSpace space = UnitSquare();
  QuasiRandomDesigner quasi_random(space, 3);
  DesignerHistory history;
  Complete(history, MustSuggest(quasi_random, {}, 6).points, Branin);
  auto best = std::min_element(history.completed.begin(), history.completed.end(),
                               [](const TrialObservation& a, const TrialObservation& b) {
                                 return *a.objective < *b.objective;
                               });
  const bool is_latest = best == history.completed.end() - 1;
  if (latest_is_best != is_latest) {
    // Swap the best trial's point and value with the latest's.
    std::swap(best->parameters, history.completed.back().parameters);
    std::swap(best->objective, history.completed.back().objective);
  }
  return history;
}

// The batch of 4 that a designer seeded `seed`, with `options`, suggests
// for `history` (minimising; request seed `seed`).
Suggestions BatchOfFour(const SearchSpace& space, const DesignerHistory& history, uint64_t seed,
                        const GpBanditDesigner::Options& options) {
  GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, seed, options);
  Suggestions batch = MustSuggest(designer, history, 4, seed);
  EXPECT_EQ(batch.points.size(), 4u);
  EXPECT_EQ(batch.fallback_reason, "");
  return batch;
}

// A bowl in the unit cube of any dimension, lowest where every coordinate
// is `centre`.
Objective BowlAt(double centre) {
  return [centre](const ParameterAssignment& p) {
    double total = 0;
    for (const v1::ParameterValue& value : p) total += std::pow(value.double_value() - centre, 2);
    return total;
  };
}

TEST(GpBanditDesignerTest, ABatchsLaterPointsStayNearerTheGoodTrialsAndOffTheBoxsCornersIn8d) {
  // Minimising a bowl centred inside the box, in batches of 4: searched
  // over the whole box, EI with the batch's first point believed sends the
  // later points towards the box's corners (coordinates at a bound), where
  // the variance is highest; searched around the best quarter of the
  // trials, they stay nearer the bowl's bottom.
  const SearchSpace space = UnitSquare(8);
  const Objective bowl = BowlAt(0.3);
  int at_bounds_around = 0;
  int at_bounds_anywhere = 0;
  double bowl_around = 0;
  double bowl_anywhere = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    QuasiRandomDesigner quasi_random(space, seed);
    DesignerHistory history;
    Complete(history, MustSuggest(quasi_random, {}, 20).points, bowl);
    for (const bool local : {true, false}) {
      GpBanditDesigner::Options options;
      options.local_batch_points = local;
      const Suggestions batch = BatchOfFour(space, history, seed, options);
      ASSERT_EQ(batch.points.size(), 4u);
      for (size_t i = 1; i < batch.points.size(); ++i) {
        for (const v1::ParameterValue& value : batch.points[i]) {
          if (value.double_value() <= 0.0 || value.double_value() >= 1.0) {
            ++(local ? at_bounds_around : at_bounds_anywhere);
          }
        }
        (local ? bowl_around : bowl_anywhere) += bowl(batch.points[i]);
      }
    }
  }
  // Of 3 seeds x 3 points x 8 coordinates: 12 against 22 when measured.
  EXPECT_LT(at_bounds_around, at_bounds_anywhere);
  // The bowl summed over those 9 points: 4.4 against 6.6 when measured.
  EXPECT_LT(bowl_around, 0.8 * bowl_anywhere)
      << "around " << at_bounds_around << ", anywhere " << at_bounds_anywhere << "; bowl "
      << bowl_around << " against " << bowl_anywhere;
}

TEST(GpBanditDesignerTest, ABatchsLaterPointsFollowTheModelsMeanAlongAValleyIn8d) {
  // Rosenbrock's curved valley in eight dimensions ([-2, 2]^8), 40 trials
  // in batches of 4. A batch's later points by EI (the earlier points
  // believed) go where the model knows least near the good trials; by the
  // upper confidence bound (mean + 0.7 sigma) where it expects the most,
  // so they land lower in the valley.
  const SearchSpace space = UnitSquare(8);
  const Objective valley = [](const ParameterAssignment& p) {
    double total = 0;
    for (size_t i = 0; i + 1 < p.size(); ++i) {
      const double x = 4 * p[i].double_value() - 2;
      const double next = 4 * p[i + 1].double_value() - 2;
      total += 100 * std::pow(next - x * x, 2) + std::pow(1 - x, 2);
    }
    return total;
  };
  double log_sum[2] = {0, 0};
  int later_points[2] = {0, 0};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (const int bound : {0, 1}) {
      GpBanditDesigner::Options options;
      options.batch_confidence_beta = bound == 1 ? 0.7 : -1.0;
      GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, seed, options);
      DesignerHistory history;
      for (int t = 0; t < 40; t += 4) {
        const Suggestions batch = MustSuggest(designer, history, 4, seed * 1000 + t);
        ASSERT_EQ(batch.points.size(), 4u);
        EXPECT_EQ(batch.fallback_reason, "");
        if (static_cast<int>(history.completed.size()) >= designer.initial_points()) {
          for (size_t i = 1; i < batch.points.size(); ++i) {
            log_sum[bound] += std::log(valley(batch.points[i]));
            ++later_points[bound];
          }
        }
        Complete(history, batch.points, valley);
      }
    }
  }
  ASSERT_EQ(later_points[0], later_points[1]);
  ASSERT_GT(later_points[0], 0);
  const double ei_mean = log_sum[0] / later_points[0];
  const double bound_mean = log_sum[1] / later_points[1];
  // The later points' mean log value: 6.60 against 7.40 when measured
  // (seeds 5 to 16, four at a time: 0.53 to 0.67 lower). The search's best
  // at 40 trials differs too little over four seeds to be tested here;
  // bench/realistic measures it (docs/benchmarks.md).
  EXPECT_LT(bound_mean, ei_mean - 0.3) << "EI " << ei_mean << ", bound " << bound_mean;
}

// A bowl in the unit cube, lowest at (0.3, 0.6, 0.5).
double Bowl3d(const ParameterAssignment& p) {
  return std::pow(p[0].double_value() - 0.3, 2) + std::pow(p[1].double_value() - 0.6, 2) +
         std::pow(p[2].double_value() - 0.5, 2);
}

// The keys of the `count` points a designer seeded `seed`, with
// batch_confidence_beta `beta` and batch_confidence_points `bound_points`,
// suggests for `history` (request seed 7).
std::vector<std::string> SuggestedKeys(const SearchSpace& space, const DesignerHistory& history,
                                       int count, uint64_t seed, double beta,
                                       int bound_points = 3) {
  GpBanditDesigner::Options options;
  options.batch_confidence_beta = beta;
  options.batch_confidence_points = bound_points;
  GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, seed, options);
  const Suggestions suggestions = MustSuggest(designer, history, count, 7);
  EXPECT_EQ(suggestions.points.size(), static_cast<size_t>(count));
  EXPECT_EQ(suggestions.fallback_reason, "");
  std::vector<std::string> keys;
  for (const ParameterAssignment& point : suggestions.points) {
    keys.push_back(SearchSpace::Key(point));
  }
  return keys;
}

TEST(GpBanditDesignerTest, AfterBatchesThatFoundNothingTheLaterPointsSearchNearerTheBestTrial) {
  // A bowl in eight dimensions: 12 quasi-random trials, then four batches
  // of 4 far from the bowl's bottom, none of which beats the best (four
  // failures: the trust region is at a quarter). The next batch's later
  // points keep to the best trial's close neighbourhood; without the trust
  // region they search the best quarter's at the full scales.
  const SearchSpace space = UnitSquare(8);
  const Objective bowl = BowlAt(0.4);
  double distance[2] = {0, 0};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    QuasiRandomDesigner quasi_random(space, seed);
    DesignerHistory history;
    Complete(history, MustSuggest(quasi_random, {}, 12).points, bowl);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> corner(0.9, 1.0);
    for (int k = 0; k < 16; ++k) {
      ParameterAssignment far = MustSuggest(quasi_random, {}, 1).points[0];
      for (v1::ParameterValue& value : far) value.set_double_value(corner(rng));
      Complete(history, {far}, bowl);
    }
    const auto best = std::min_element(history.completed.begin(), history.completed.end(),
                                       [](const TrialObservation& a, const TrialObservation& b) {
                                         return *a.objective < *b.objective;
                                       });
    for (const bool region : {true, false}) {
      GpBanditDesigner::Options options;
      options.batch_trust_region = region;
      const Suggestions batch = BatchOfFour(space, history, seed, options);
      ASSERT_EQ(batch.points.size(), 4u);
      for (size_t i = 1; i < batch.points.size(); ++i) {
        double squared = 0;
        for (size_t j = 0; j < batch.points[i].size(); ++j) {
          squared +=
              std::pow(batch.points[i][j].double_value() - best->parameters[j].double_value(), 2);
        }
        distance[region ? 0 : 1] += std::sqrt(squared);
      }
    }
  }
  // The later points' summed distance to the best trial over 3 seeds:
  // 2.17 against 3.62 when measured.
  EXPECT_LT(distance[0], 0.75 * distance[1])
      << "with the region " << distance[0] << ", without " << distance[1];
}

TEST(GpBanditDesignerTest, WithACategoricalParameterABatchsLaterPointsKeepExpectedImprovement) {
  // A category tried on few trials has a mean near the prior's, so the
  // upper confidence bound would seldom leave the incumbent's category: in
  // a space with a categorical parameter the batch is EI's, whatever
  // batch_confidence_beta says.
  const SearchSpace space = MustMakeSpace(
      {DoubleSpec("x0", 0, 1), DoubleSpec("x1", 0, 1), CategoricalSpec("kind", {"a", "b", "c"})});
  const Objective objective = [](const ParameterAssignment& p) {
    const double shift = p[2].string_value() == "b" ? 0.0 : 0.5;
    return std::pow(p[0].double_value() - 0.3, 2) + std::pow(p[1].double_value() - 0.6, 2) + shift;
  };
  QuasiRandomDesigner quasi_random(space, 5);
  DesignerHistory history;
  Complete(history, MustSuggest(quasi_random, {}, 14).points, objective);
  EXPECT_EQ(SuggestedKeys(space, history, 4, 5, 0.7), SuggestedKeys(space, history, 4, 5, -1.0));
  // So is one point asked for while trials run (17 started: place 1 of 4).
  DesignerHistory running = history;
  for (int k = 0; k < 3; ++k) {
    running.pending.push_back(
        Observation(100 + k, MustSuggest(quasi_random, history, 3).points[k], v1::Trial::ACTIVE));
  }
  EXPECT_EQ(SuggestedKeys(space, running, 1, 5, 0.7), SuggestedKeys(space, running, 1, 5, -1.0));

  // Without it, the bound changes the later points, not the first, unless
  // it places none of them.
  const SearchSpace square = UnitSquare(3);
  QuasiRandomDesigner square_random(square, 5);
  DesignerHistory square_history;
  Complete(square_history, MustSuggest(square_random, {}, 14).points, Bowl3d);
  const std::vector<std::string> by_ei = SuggestedKeys(square, square_history, 4, 5, -1.0);
  const std::vector<std::string> by_bound = SuggestedKeys(square, square_history, 4, 5, 0.7);
  ASSERT_EQ(by_bound.size(), 4u);
  ASSERT_EQ(by_ei.size(), 4u);
  EXPECT_EQ(by_bound[0], by_ei[0]);
  EXPECT_NE(by_bound, by_ei);
  EXPECT_EQ(SuggestedKeys(square, square_history, 4, 5, 0.7, /*bound_points=*/0), by_ei);
}

TEST(GpBanditDesignerTest, WhileTrialsRunOnePointInEachBatchOfThemIsEisTheOthersTheBounds) {
  // One point asked for while 3 trials run is placed in a batch of 4 made
  // of them and it, by the count of started trials: the batch's first
  // place maximises EI over the whole box, as before; the others the
  // upper confidence bound near the good trials.
  const SearchSpace space = UnitSquare(3);
  QuasiRandomDesigner quasi_random(space, 9);
  const std::vector<ParameterAssignment> points = MustSuggest(quasi_random, {}, 20).points;
  for (int ended = 13; ended <= 16; ++ended) {
    DesignerHistory history;
    Complete(history, {points.begin(), points.begin() + ended}, Bowl3d);
    for (int k = 0; k < 3; ++k) {
      history.pending.push_back(Observation(100 + k, points[ended + k], v1::Trial::ACTIVE));
    }
    const std::vector<std::string> by_ei = SuggestedKeys(space, history, 1, 9, -1.0);
    const std::vector<std::string> by_bound = SuggestedKeys(space, history, 1, 9, 0.7);
    // Started trials: ended + 3; place (ended + 3) mod 4.
    if ((ended + 3) % 4 == 0) {
      EXPECT_EQ(by_bound, by_ei) << ended;
    } else {
      EXPECT_NE(by_bound, by_ei) << ended;
    }
  }
}

TEST(GpBanditDesignerTest, AStalledSequentialSearchGetsTheSecondPointOfABatchOfTwo) {
  const SearchSpace space = UnitSquare();
  const DesignerHistory history = SixBraninTrials(/*latest_is_best=*/false);
  GpBanditDesigner one(space, v1::MetricSpec::MINIMIZE, 3, FiveInitialPoints());
  // The step's second point is searched over the whole box, as a batch's
  // was before its later points searched around the good trials.
  GpBanditDesigner::Options whole_box = FiveInitialPoints();
  whole_box.local_batch_points = false;
  GpBanditDesigner two(space, v1::MetricSpec::MINIMIZE, 3, whole_box);
  const Suggestions step = MustSuggest(one, history, 1, 9);
  const Suggestions batch = MustSuggest(two, history, 2, 9);
  ASSERT_EQ(step.points.size(), 1u);
  ASSERT_EQ(batch.points.size(), 2u);
  EXPECT_EQ(step.fallback_reason, "");
  EXPECT_EQ(SearchSpace::Key(step.points[0]), SearchSpace::Key(batch.points[1]));
  EXPECT_NE(SearchSpace::Key(step.points[0]), SearchSpace::Key(batch.points[0]));

  // Turned off, the same request gets EI's maximum: the batch's first point.
  GpBanditDesigner::Options options = FiveInitialPoints();
  options.exploration_period = 0;
  GpBanditDesigner greedy(space, v1::MetricSpec::MINIMIZE, 3, options);
  EXPECT_EQ(SearchSpace::Key(MustSuggest(greedy, history, 1, 9).points[0]),
            SearchSpace::Key(batch.points[0]));
}

TEST(GpBanditDesignerTest, AnImprovingSearchOffPeriodOrWithPendingTrialsStaysGreedy) {
  const SearchSpace space = UnitSquare();
  auto first_of_batch = [&](const DesignerHistory& history) {
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 3);
    return SearchSpace::Key(MustSuggest(designer, history, 2, 9).points[0]);
  };
  auto sequential = [&](const DesignerHistory& history) {
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 3);
    return SearchSpace::Key(MustSuggest(designer, history, 1, 9).points[0]);
  };
  // The latest trial improved the best value.
  const DesignerHistory improving = SixBraninTrials(/*latest_is_best=*/true);
  EXPECT_EQ(sequential(improving), first_of_batch(improving));
  // Seven ended trials: not a multiple of the period.
  DesignerHistory off_period = SixBraninTrials(/*latest_is_best=*/false);
  Complete(off_period, {{DoubleValue("x0", 0.99), DoubleValue("x1", 0.99)}}, Branin);
  EXPECT_EQ(sequential(off_period), first_of_batch(off_period));
  // A trial pending: the request is one of a parallel study's, whose
  // pending trials already spread the search.
  DesignerHistory pending = SixBraninTrials(/*latest_is_best=*/false);
  pending.pending.push_back(
      Observation(7, {DoubleValue("x0", 0.5), DoubleValue("x1", 0.01)}, v1::Trial::ACTIVE));
  EXPECT_EQ(sequential(pending), first_of_batch(pending));
}

void CompleteWithValue(DesignerHistory& history, const ParameterAssignment& point, double value) {
  Complete(history, {point}, [value](const ParameterAssignment&) { return value; });
}

ParameterAssignment Sgd(double lr) { return OptimizerBranchPoint("sgd", lr); }
ParameterAssignment Adam(double lr) { return OptimizerBranchPoint("adam", lr); }

// Six trials of OptimizerBranchesSpec: the best is sgd at 0.5, adam was
// tried only at the bounds of its learning rate, and the latest trial is
// not the best.
DesignerHistory StalledOnTheSgdBranch() {
  DesignerHistory history;
  for (const auto& [point, value] :
       std::vector<std::pair<ParameterAssignment, double>>{{Sgd(0.3), 0.5},
                                                           {Sgd(0.5), 0.1},
                                                           {Adam(0), 2.0},
                                                           {Sgd(0.7), 0.4},
                                                           {Adam(1), 2.0},
                                                           {Sgd(0.45), 0.15}}) {
    CompleteWithValue(history, point, value);
  }
  return history;
}

// A designer with the neighbour probes and one without, on the stalled
// history above.
class GpBanditDesignerProbeTest : public ::testing::Test {
 protected:
  static GpBanditDesigner::Options Probes(bool on) {
    GpBanditDesigner::Options options = FiveInitialPoints();
    options.neighbour_probes = on;
    return options;
  }
  // The keys of a request for `count` points from `designer`.
  std::vector<std::string> Keys(GpBanditDesigner& designer, int count) {
    const Suggestions suggestions = MustSuggest(designer, history_, count, 9);
    EXPECT_EQ(suggestions.fallback_reason, "");
    std::vector<std::string> keys;
    for (const ParameterAssignment& point : suggestions.points) {
      keys.push_back(SearchSpace::Key(point));
    }
    EXPECT_EQ(keys.size(), static_cast<size_t>(count));
    return keys;
  }

  const SearchSpace space_ = MustMakeSpace({OptimizerBranchesSpec()});
  GpBanditDesigner probing_{space_, v1::MetricSpec::MINIMIZE, 3, Probes(true)};
  GpBanditDesigner plain_{space_, v1::MetricSpec::MINIMIZE, 3, Probes(false)};
  DesignerHistory history_ = StalledOnTheSgdBranch();
  const std::string adam_mid_ = SearchSpace::Key(Adam(0.5));
};

TEST_F(GpBanditDesignerProbeTest, AStalledSearchProbesTheSiblingBranchItTriedOnlyAtItsBounds) {
  // Six ended trials, the latest not the best: an exploration step.
  EXPECT_EQ(Keys(probing_, 1), std::vector<std::string>{adam_mid_});
  // Without the probe the step looks over the whole box.
  EXPECT_NE(Keys(plain_, 1), std::vector<std::string>{adam_mid_});
  // Once adam was tried near the middle, the step looks over the whole box
  // again: the probe's only neighbour is tried.
  CompleteWithValue(history_, Adam(0.55), 1.0);
  CompleteWithValue(history_, Sgd(0.52), 0.12);
  CompleteWithValue(history_, Sgd(0.48), 0.11);
  EXPECT_EQ(Keys(probing_, 1), Keys(plain_, 1));
}

TEST_F(GpBanditDesignerProbeTest, ABatchAfterATrialThatFoundNothingEndsWithAProbe) {
  CompleteWithValue(history_, Sgd(0.9), 0.8);
  CompleteWithValue(history_, Sgd(0.1), 0.9);
  // The latest ended trial did not improve the best: the batch's last point
  // is the best trial's untried neighbour, adam at mid-range; the first
  // three are the batch's as without the probe, which proposes no adam at
  // mid-range.
  const std::vector<std::string> probed = Keys(probing_, 4);
  const std::vector<std::string> plain = Keys(plain_, 4);
  ASSERT_EQ(probed.size(), 4u);
  EXPECT_EQ(probed[3], adam_mid_);
  EXPECT_EQ(std::vector<std::string>(probed.begin(), probed.begin() + 3),
            std::vector<std::string>(plain.begin(), plain.begin() + 3));
  EXPECT_THAT(plain, ::testing::Not(::testing::Contains(adam_mid_)));
  // A batch after a trial that improved the best has no probe.
  CompleteWithValue(history_, Sgd(0.52), 0.05);
  EXPECT_EQ(Keys(probing_, 4), Keys(plain_, 4));
}

TEST(GpBanditDesignerTest, TheSameSeedAndHistoryGiveTheSameSuggestions) {
  const SearchSpace space = MustMakeSpace(
      {DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE), IntegerSpec("layers", 1, 8),
       CategoricalSpec("optimizer", {"adam", "sgd"}), DiscreteSpec("batch", {16, 32, 64})});
  DesignerHistory history;
  RandomSearchDesigner random(space);
  Complete(history, MustSuggest(random, {}, 15).points, [](const ParameterAssignment& p) {
    return std::log(p[0].double_value()) + p[1].int_value() * 0.1 +
           (p[2].string_value() == "adam" ? 1.0 : 0.0) - p[3].double_value() / 64;
  });
  GpBanditDesigner first(space, v1::MetricSpec::MAXIMIZE, 9);
  GpBanditDesigner second(space, v1::MetricSpec::MAXIMIZE, 9);
  const Suggestions a = MustSuggest(first, history, 3, 77);
  const Suggestions b = MustSuggest(second, history, 3, 77);
  const Suggestions again = MustSuggest(first, history, 3, 77);
  const Suggestions other = MustSuggest(first, history, 3, 78);
  ASSERT_EQ(a.points.size(), 3u);
  ASSERT_EQ(b.points.size(), 3u);
  ASSERT_EQ(again.points.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(SearchSpace::Key(a.points[i]), SearchSpace::Key(b.points[i]));
    EXPECT_EQ(SearchSpace::Key(a.points[i]), SearchSpace::Key(again.points[i]));
  }
  ASSERT_EQ(other.points.size(), 3u);
}

TEST(GpBanditDesignerTest, RespectsEveryParameterTypeAndScale) {
  const SearchSpace space = MustMakeSpace(
      {DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE),
       DoubleSpec("momentum", 0.9, 0.999, ParameterSpec::UNIT_REVERSE_LOG_SCALE),
       IntegerSpec("layers", 1, 8), IntegerSpec("units", 16, 1024, ParameterSpec::UNIT_LOG_SCALE),
       CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}),
       DiscreteSpec("batch", {16, 32, 64, 128}, ParameterSpec::UNIT_LOG_SCALE)});
  GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 4);
  const Objective objective = [](const ParameterAssignment& p) {
    return std::pow(std::log10(p[0].double_value()) + 2.5, 2) + std::abs(p[2].int_value() - 3) +
           (p[4].string_value() == "sgd" ? 0.0 : 0.5) + std::log2(p[5].double_value()) * 0.1;
  };
  DesignerHistory history;
  RunMinimization(designer, objective, 20, 4, 4, &history);
  const Suggestions next = MustSuggest(designer, history, 6);
  ASSERT_EQ(next.points.size(), 6u);
  for (const auto* points : {&next.points}) {
    for (const ParameterAssignment& point : *points) {
      ASSERT_TRUE(space.Encode(point).ok()) << space.Encode(point).status();
    }
  }
  for (const TrialObservation& trial : history.completed) {
    ASSERT_TRUE(space.Encode(trial.parameters).ok());
  }
}

TEST(GpBanditDesignerTest, AllEqualValuesStillGiveDistinctModelPoints) {
  const SearchSpace space = UnitSquare(3);
  GpBanditDesigner designer(space, v1::MetricSpec::MAXIMIZE, 1);
  DesignerHistory history;
  RunMinimization(
      designer, [](const ParameterAssignment&) { return 4.2; }, 16, 4, 1, &history);
  const Suggestions next = MustSuggest(designer, history, 4);
  EXPECT_EQ(next.points.size(), 4u);
  EXPECT_EQ(next.fallback_reason, "");
}

TEST(GpBanditDesignerTest, ExhaustsAnAllCategoricalSpaceWithoutRepeats) {
  const SearchSpace space =
      MustMakeSpace({CategoricalSpec("a", {"x", "y", "z"}), CategoricalSpec("b", {"u", "v"}),
                     CategoricalSpec("c", {"p", "q"})});
  GpBanditDesigner designer(space, v1::MetricSpec::MAXIMIZE, 3);
  const Objective objective = [](const ParameterAssignment& p) {
    return (p[0].string_value() == "z" ? 2.0 : 0.0) + (p[1].string_value() == "u" ? 1.0 : 0.0) +
           (p[2].string_value() == "q" ? 0.5 : 0.0);
  };
  DesignerHistory history;
  std::set<std::string> keys;
  for (int call = 0; call < 6; ++call) {
    const Suggestions suggestions = MustSuggest(designer, history, 2, call);
    ASSERT_EQ(suggestions.points.size(), 2u) << call;
    EXPECT_EQ(suggestions.fallback_reason, "");
    for (const ParameterAssignment& point : suggestions.points) {
      EXPECT_TRUE(keys.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
    }
    Complete(history, suggestions.points, objective);
  }
  const Suggestions none = MustSuggest(designer, history, 1);
  EXPECT_TRUE(none.points.empty());
  EXPECT_THAT(none.shortfall_reason, HasSubstr("all 12 points"));
}

TEST(GpBanditDesignerTest, WorksFromOneToFiftyDimensions) {
  for (int d : {1, 50}) {
    const SearchSpace space = UnitSquare(d);
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 1);
    const Objective sphere = [](const ParameterAssignment& p) {
      double total = 0;
      for (const v1::ParameterValue& v : p) total += std::pow(v.double_value() - 0.3, 2);
      return total;
    };
    DesignerHistory history;
    RunMinimization(designer, sphere, 16, 4, 1, &history);
    const Suggestions next = MustSuggest(designer, history, 2);
    EXPECT_EQ(next.points.size(), 2u) << d;
    EXPECT_EQ(next.fallback_reason, "") << d;
  }
}

TEST(GpBanditDesignerTest, HandlesFiveThousandTrialsOfHistory) {
  const SearchSpace space = UnitSquare(5);
  RandomSearchDesigner random(space);
  DesignerHistory history;
  Complete(history, MustSuggest(random, {}, 5000).points, [](const ParameterAssignment& p) {
    return std::sin(10 * p[0].double_value()) + p[1].double_value();
  });
  GpBanditDesigner designer(space, v1::MetricSpec::MAXIMIZE, 1);
  const Suggestions next = MustSuggest(designer, history, 2);
  EXPECT_EQ(next.points.size(), 2u);
  EXPECT_EQ(next.fallback_reason, "");
}

TEST(GpBanditDesignerTest, PastItsCapacityFindsTheBestOfANoisyHistory) {
  // 400 noisy trials of a bowl whose minimum is at (0.7, 0.3), for a model
  // of 60: the suggestion still lands by the minimum, from the model, with
  // the best, latest and spread trials, with the neighbourhood of the best
  // point, with every other trial folded into the model, and with every
  // other trial projected onto its nearest model points.
  const SearchSpace space = UnitSquare(2);
  RandomSearchDesigner random(space);
  DesignerHistory history;
  std::mt19937_64 noise_rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  Complete(history, MustSuggest(random, {}, 400).points, [&](const ParameterAssignment& p) {
    const double x = p[0].double_value() - 0.7;
    const double y = p[1].double_value() - 0.3;
    return x * x + y * y + noise(noise_rng);
  });
  for (const auto& [share, fold, project] : {std::tuple{0.0, false, 0}, std::tuple{0.5, false, 0},
                                             std::tuple{0.0, true, 0}, std::tuple{0.0, false, 8}}) {
    GpBanditDesigner::Options options;
    options.max_model_points = 60;
    options.neighbourhood_share = share;
    options.fold_history = fold;
    options.project_history = project;
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 1, options);
    const Suggestions next = MustSuggest(designer, history, 1);
    ASSERT_EQ(next.points.size(), 1u);
    EXPECT_EQ(next.fallback_reason, "");
    EXPECT_NEAR(next.points[0][0].double_value(), 0.7, 0.1)
        << share << " " << fold << " " << project;
    EXPECT_NEAR(next.points[0][1].double_value(), 0.3, 0.1)
        << share << " " << fold << " " << project;
  }
}

TEST(GpBanditDesignerTest, ProjectingTheHistoryChangesTheModelOnlyPastItsCapacity) {
  const SearchSpace space = UnitSquare(2);
  RandomSearchDesigner random(space);
  DesignerHistory history;
  std::mt19937_64 noise_rng(9);
  std::normal_distribution<double> noise(0.0, 0.1);
  Complete(history, MustSuggest(random, {}, 90).points, [&](const ParameterAssignment& p) {
    const double x = p[0].double_value() - 0.37;
    const double y = p[1].double_value() - 0.61;
    return std::sin(4 * x) * std::cos(3 * y) + x * x + noise(noise_rng);
  });
  const auto suggest = [&](int capacity, int project) {
    GpBanditDesigner::Options options;
    options.max_model_points = capacity;
    options.project_history = project;
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 3, options);
    const Suggestions next = MustSuggest(designer, history, 2);
    EXPECT_EQ(next.fallback_reason, "");
    std::vector<double> coordinates;
    for (const ParameterAssignment& point : next.points) {
      for (const auto& value : point) coordinates.push_back(value.double_value());
    }
    return coordinates;
  };
  // The model holds every trial: projecting has nothing to project.
  EXPECT_EQ(suggest(400, 8), suggest(400, 0));
  // 90 trials for a model of 30: the 60 left out move the model.
  const std::vector<double> projected = suggest(30, 8);
  ASSERT_EQ(projected.size(), 4u);
  EXPECT_NE(projected, suggest(30, 0));
}

TEST(GpBanditDesignerTest, FoldingChangesNothingWhileTheModelHoldsEveryTrial) {
  const SearchSpace space = UnitSquare(2);
  RandomSearchDesigner random(space);
  DesignerHistory history;
  Complete(history, MustSuggest(random, {}, 30).points, [](const ParameterAssignment& p) {
    return std::sin(5 * p[0].double_value()) + p[1].double_value();
  });
  GpBanditDesigner::Options folding;
  folding.fold_history = true;
  GpBanditDesigner plain(space, v1::MetricSpec::MINIMIZE, 3);
  GpBanditDesigner folded(space, v1::MetricSpec::MINIMIZE, 3, folding);
  const Suggestions a = MustSuggest(plain, history, 2);
  const Suggestions b = MustSuggest(folded, history, 2);
  ASSERT_EQ(a.points.size(), 2u);
  ASSERT_EQ(b.points.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a.points[i][0].double_value(), b.points[i][0].double_value());
    EXPECT_EQ(a.points[i][1].double_value(), b.points[i][1].double_value());
  }
}

TEST(GpBanditDesignerTest, FallsBackToQuasiRandomWithTheReasonWhenTheModelFails) {
  // Ended trials whose parameters lie outside the space (its range was
  // narrowed, say) leave the model nothing to learn from.
  const SearchSpace space = MustMakeSpace({DoubleSpec("x", 0, 1)});
  GpBanditDesigner designer(space, v1::MetricSpec::MAXIMIZE, 1, FiveInitialPoints());
  DesignerHistory history;
  for (int i = 0; i < 6; ++i) {
    TrialObservation trial = Observation(i + 1, {DoubleValue("x", 2.0 + i)}, v1::Trial::SUCCEEDED);
    trial.objective = i;
    history.completed.push_back(trial);
  }
  const Suggestions suggestions = MustSuggest(designer, history, 3);
  ASSERT_EQ(suggestions.points.size(), 3u);
  EXPECT_THAT(suggestions.fallback_reason,
              HasSubstr("the Gaussian-process model failed (no ended trial has parameters of the "
                        "search space); quasi-random points instead"));
  for (const ParameterAssignment& point : suggestions.points) EXPECT_TRUE(space.Encode(point).ok());
}

TEST(GpBanditDesignerTest, RejectsANegativeCountAndAcceptsZero) {
  GpBanditDesigner designer(UnitSquare(), v1::MetricSpec::MAXIMIZE, 1);
  std::mt19937_64 rng(1);
  EXPECT_EQ(designer.Suggest({}, -1, rng).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MustSuggest(designer, {}, 0).points.empty());
}

// A count-valued objective's plateau: seven trials of x0 in [0.3, 0.6] all
// return exactly the best value, 5 (minimised), and the value rises by
// whole counts away from it on both sides.
DesignerHistory PlateauHistory() {
  DesignerHistory history;
  const std::vector<std::pair<double, double>> trials = {
      {0.0, 9}, {0.1, 8},  {0.2, 7}, {0.3, 5},  {0.35, 5}, {0.4, 5}, {0.45, 5},
      {0.5, 5}, {0.55, 5}, {0.6, 5}, {0.75, 6}, {0.9, 8},  {1.0, 9}};
  for (const auto& [x, value] : trials) {
    Complete(history, {{DoubleValue("x0", x)}},
             [value](const ParameterAssignment&) { return value; });
  }
  return history;
}

TEST(GpBanditDesignerTest, OnAPlateauOfTiesExpectedImprovementMustBeatThePlateau) {
  const SearchSpace space = UnitSquare(1);
  const DesignerHistory history = PlateauHistory();
  for (const bool margin : {true, false}) {
    GpBanditDesigner::Options options;
    options.exploration_period = 0;
    options.plateau_margin = margin;
    GpBanditDesigner designer(space, v1::MetricSpec::MINIMIZE, 3, options);
    const Suggestions suggestions = MustSuggest(designer, history, 1, 9);
    ASSERT_EQ(suggestions.points.size(), 1u);
    EXPECT_EQ(suggestions.fallback_reason, "");
    const double x = suggestions.points[0][0].double_value();
    // Without the margin, expected improvement over the plateau's value pays
    // for the gaps between its trials, which can only equal it; with it, the
    // point leaves the plateau for where the model is least sure.
    if (margin) {
      EXPECT_TRUE(x < 0.3 || x > 0.6) << x;
    } else {
      EXPECT_TRUE(x > 0.3 && x < 0.6) << x;
    }
  }
}

}  // namespace
}  // namespace vernier::suggest
