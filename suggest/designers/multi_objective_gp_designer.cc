#include "suggest/designers/multi_objective_gp_designer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "suggest/designers/model_fallback.h"
#include "suggest/gp/front_reference.h"
#include "suggest/gp/gp_log_posterior.h"
#include "suggest/gp/hyperparameter_fitter.h"
#include "suggest/gp/hypervolume_scalarization.h"
#include "suggest/gp/leave_one_out_rank_agreement.h"
#include "suggest/gp/matern_kernel.h"
#include "suggest/gp/normal_tail.h"
#include "suggest/gp/output_warper.h"
#include "suggest/gp/training_set_selector.h"
#include "suggest/history_points.h"
#include "suggest/random_numbers.h"
#include "suggest/scrambled_halton_sequence.h"

namespace vernier::suggest {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Weight of mean_w s_w(UCB), which ranks points where no improvement seems
// possible, against the hypervolume improvement.
constexpr double kTieBreak = 1e-3;
// Perturbation scales in unit-cube widths: screening around the front,
// and around the best screened points.
constexpr double kNearScale = 0.02;
constexpr double kFarScale = 0.1;
constexpr double kRefineNearScale = 0.005;
constexpr double kRefineFarScale = 0.03;
// A believed point counts in the front when it is feasible with at least
// this probability.
constexpr double kBelievedFeasible = 0.5;
// From this many objectives on, each point has directions of its own
// (Options::directions_past_three_objectives).
constexpr int kDirectionPerPointObjectives = 4;
// From this many objectives on, the objectives' worse halves keep their
// magnitudes (Options::clipped_outputs_past_three_objectives).
constexpr int kClippedOutputObjectives = 4;
// With exactly this many objectives, each objective's warp is chosen by
// leave-one-out (Options::output_warp_by_leave_one_out), once this many
// trials have values.
constexpr int kLeaveOneOutWarpObjectives = 3;
constexpr int kLeaveOneOutWarpTrials = 8;
static_assert(kLeaveOneOutWarpObjectives < kClippedOutputObjectives,
              "the choice is between the rank warp, the default there, and the clipped one");
// How far ahead of the designer's generator the other warp's fit draws, so
// that the draws after it are the same whichever warp is kept.
constexpr unsigned long long kOtherWarpStream = 1000003;

bool Ended(const TrialObservation& trial) {
  return trial.state == v1::Trial::SUCCEEDED || trial.state == v1::Trial::STOPPED_EARLY;
}

// Metric `index` of an ended trial, if reported and finite. A history that
// only has `objective` (a designer of one objective fed it) gives it as the
// first metric.
std::optional<double> MetricOf(const TrialObservation& trial, int index) {
  if (!Ended(trial)) return std::nullopt;
  std::optional<double> value;
  if (index < static_cast<int>(trial.metrics.size())) {
    value = trial.metrics[index];
  } else if (index == 0) {
    value = trial.objective;
  }
  if (value.has_value() && !std::isfinite(*value)) return std::nullopt;
  return value;
}

// Appends the columns (entries) of `more` to `all`; either may be empty.
void Append(Eigen::MatrixXd& all, const Eigen::MatrixXd& more) {
  const Eigen::Index start = all.cols();
  all.conservativeResize(more.rows(), start + more.cols());
  all.rightCols(more.cols()) = more;
}

void Append(Eigen::VectorXd& all, const Eigen::VectorXd& more) {
  const Eigen::Index start = all.size();
  all.conservativeResize(start + more.size());
  all.tail(more.size()) = more;
}

// Whether a dominates b (every value at least as large, one larger).
bool Dominates(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a.array() >= b.array()).all() && (a.array() > b.array()).any();
}

}  // namespace

MultiObjectiveGpDesigner::MultiObjectiveGpDesigner(SearchSpace space,
                                                   std::vector<v1::MetricSpec> metrics,
                                                   uint64_t seed, Options options)
    : encoder_(space),
      metrics_(std::move(metrics)),
      options_(options),
      initial_points_(options.initial_points > 0
                          ? options.initial_points
                          : std::min(std::max(space.dimension() + 1, 5), 10)),
      initial_design_(std::move(space), seed) {
  for (int i = 0; i < static_cast<int>(metrics_.size()); ++i) {
    (metrics_[i].has_constraint() ? constraint_metrics_ : objective_metrics_).push_back(i);
  }
}

absl::StatusOr<Suggestions> MultiObjectiveGpDesigner::Suggest(const DesignerHistory& history,
                                                              int count, std::mt19937_64& rng) {
  return SuggestFromModelOrInitialDesign(
      history, count, rng,
      /*model_ready=*/static_cast<int>(history.completed.size()) >= initial_points_ &&
          !objective_metrics_.empty(),
      "Gaussian-process models", initial_design_,
      [&] { return SuggestFromModels(history, count, rng); });
}

absl::StatusOr<GaussianProcess> MultiObjectiveGpDesigner::FitModel(
    const Eigen::MatrixXd& points, const Eigen::VectorXd& values, std::mt19937_64& rng,
    Eigen::VectorXd* model_values_out) const {
  const int d = encoder_.dimension();
  const TrainingSetSelector selector(encoder_.categorical());
  const std::vector<int> kept = selector.Select(points, values, options_.max_model_points);
  Eigen::MatrixXd model_points(d, kept.size());
  Eigen::VectorXd model_values(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    model_points.col(i) = points.col(kept[i]);
    model_values[i] = values[kept[i]];
  }
  const std::vector<int> fitted =
      selector.Select(model_points, model_values, options_.max_fit_points);
  Eigen::MatrixXd fit_points(d, fitted.size());
  Eigen::VectorXd fit_values(fitted.size());
  for (size_t i = 0; i < fitted.size(); ++i) {
    fit_points.col(i) = model_points.col(fitted[i]);
    fit_values[i] = model_values[fitted[i]];
  }
  const GpLogPosterior posterior(encoder_.categorical(), fit_points, fit_values);
  std::vector<Eigen::VectorXd> starts = {posterior.PriorMean()};
  const Eigen::VectorXd deviation = posterior.PriorStandardDeviation();
  while (static_cast<int>(starts.size()) < options_.fit_starts) {
    Eigen::VectorXd draw = posterior.PriorMean();
    for (Eigen::Index i = 0; i < draw.size(); ++i) {
      draw[i] += 0.5 * deviation[i] * StandardNormal(rng);
    }
    starts.push_back(std::move(draw));
  }
  HyperparameterFitter::Options fit;
  fit.max_evaluations = options_.fit_evaluations;
  VERNIER_ASSIGN_OR_RETURN(const Eigen::VectorXd theta,
                           HyperparameterFitter(fit).Fit(posterior, starts));
  if (!theta.allFinite()) return absl::InternalError("the fitted hyper-parameters are not finite");
  if (model_values_out != nullptr) *model_values_out = model_values;
  return GaussianProcess::Create(posterior.Kernel(theta),
                                 GpLogPosterior::NoiseVariance(posterior.dimension(), theta),
                                 std::move(model_points), std::move(model_values));
}

void MultiObjectiveGpDesigner::Predict(const Models& models, const Eigen::MatrixXd& points,
                                       Eigen::MatrixXd* means, Eigen::MatrixXd* deviations,
                                       Eigen::VectorXd* feasibility) const {
  const Eigen::Index n = points.cols();
  means->resize(models.objectives.size(), n);
  deviations->resize(models.objectives.size(), n);
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  for (size_t k = 0; k < models.objectives.size(); ++k) {
    models.objectives[k].Predict(points, &mean, &variance);
    means->row(k) = mean.transpose();
    deviations->row(k) = variance.cwiseMax(0.0).cwiseSqrt().transpose();
  }
  feasibility->setOnes(n);
  for (size_t c = 0; c < models.constraints.size(); ++c) {
    const GaussianProcess& model = models.constraints[c];
    model.Predict(points, &mean, &variance);
    for (Eigen::Index i = 0; i < n; ++i) {
      // The metric as a trial would report it: the latent value plus noise.
      const double deviation = std::sqrt(std::max(variance[i], 0.0) + model.noise_variance());
      const double within = NormalTail::Cdf((models.bounds[c].upper - mean[i]) / deviation) -
                            NormalTail::Cdf((models.bounds[c].lower - mean[i]) / deviation);
      (*feasibility)[i] *= std::clamp(within, 0.0, 1.0);
    }
  }
}

Eigen::MatrixXd MultiObjectiveGpDesigner::Perturb(std::span<const Eigen::VectorXd> centres,
                                                  int per_centre, double scale,
                                                  std::mt19937_64& rng) const {
  const int d = encoder_.dimension();
  Eigen::MatrixXd points(d, static_cast<Eigen::Index>(centres.size()) * per_centre);
  Eigen::Index column = 0;
  for (const Eigen::VectorXd& centre : centres) {
    for (int k = 0; k < per_centre; ++k) {
      // Half the draws near, half five times farther.
      const double step = k % 2 == 0 ? scale : 5.0 * scale;
      Eigen::VectorXd point = centre;
      for (int j = 0; j < d; ++j) {
        if (encoder_.categorical()[j]) {
          // Another category for about one categorical parameter in d.
          if (UniformIndex(rng, d) == 0) {
            point[j] = static_cast<double>(UniformIndex(rng, encoder_.category_count(j)));
          }
        } else {
          point[j] += step * StandardNormal(rng);
        }
      }
      points.col(column++) = encoder_.Snap(point);
    }
  }
  return points;
}

absl::StatusOr<Suggestions> MultiObjectiveGpDesigner::SuggestFromModels(
    const DesignerHistory& history, int count, std::mt19937_64& rng) {
  const int d = encoder_.dimension();
  const int objective_count = static_cast<int>(objective_metrics_.size());
  std::vector<Eigen::VectorXd> encoded;
  std::vector<const TrialObservation*> observed;
  for (const TrialObservation& trial : history.completed) {
    absl::StatusOr<Eigen::VectorXd> point = encoder_.Encode(trial.parameters);
    if (!point.ok()) continue;  // Not a point of this space: nothing to learn from it.
    encoded.push_back(*std::move(point));
    observed.push_back(&trial);
  }
  if (encoded.empty()) {
    return absl::FailedPreconditionError("no ended trial has parameters of the search space");
  }
  const auto n = static_cast<Eigen::Index>(encoded.size());
  Eigen::MatrixXd points(d, n);
  for (Eigen::Index i = 0; i < n; ++i) points.col(i) = encoded[i];

  // Objectives: larger is better, warped and standardised; a trial without
  // the value lands below the worst.
  Models models;
  Eigen::MatrixXd warped(objective_count, n);
  const OutputWarper warper(options_.clipped_outputs_past_three_objectives &&
                                    objective_count >= kClippedOutputObjectives
                                ? OutputWarper::Lower::kClipped
                                : OutputWarper::Lower::kHalfRank);
  // Three objectives: the rank warp above, or the clipped one.
  const bool choose_warp = options_.output_warp_by_leave_one_out &&
                           objective_count == kLeaveOneOutWarpObjectives &&
                           n >= kLeaveOneOutWarpTrials;
  const OutputWarper clipped_warper(OutputWarper::Lower::kClipped);
  for (int k = 0; k < objective_count; ++k) {
    const v1::MetricSpec& metric = metrics_[objective_metrics_[k]];
    std::vector<std::optional<double>> values;
    for (const TrialObservation* trial : observed) {
      std::optional<double> value = MetricOf(*trial, objective_metrics_[k]);
      if (value.has_value() && metric.goal() == v1::MetricSpec::MINIMIZE) *value = -*value;
      values.push_back(value);
    }
    warped.row(k) = warper.Warp(values).transpose();
    Eigen::VectorXd model_values;
    VERNIER_ASSIGN_OR_RETURN(GaussianProcess model,
                             FitModel(points, warped.row(k).transpose(), rng, &model_values));
    if (choose_warp) {
      // The clipped warp's model; kept when, each trial left out in turn,
      // it orders the trials better. A failed fit keeps the first.
      const Eigen::VectorXd other_values = clipped_warper.Warp(values);
      std::mt19937_64 other_rng = rng;
      other_rng.discard(kOtherWarpStream);
      Eigen::VectorXd other_model_values;
      absl::StatusOr<GaussianProcess> other =
          FitModel(points, other_values, other_rng, &other_model_values);
      if (other.ok() && LeaveOneOutRankAgreement::Of(*other, other_model_values) >
                            LeaveOneOutRankAgreement::Of(model, model_values)) {
        warped.row(k) = other_values.transpose();
        model = *std::move(other);
      }
    }
    models.objectives.push_back(std::move(model));
  }

  // Constraints: a GP of the metric where trials reported it, standardised;
  // the bounds in the same units. Which observed trials are feasible.
  std::vector<bool> feasible(n, true);
  for (int c : constraint_metrics_) {
    const v1::MetricSpec::Constraint& constraint = metrics_[c].constraint();
    std::vector<int> reported;
    for (Eigen::Index i = 0; i < n; ++i) {
      std::optional<double> value = MetricOf(*observed[i], c);
      const bool within = value.has_value() &&
                          (!constraint.has_min_value() || *value >= constraint.min_value()) &&
                          (!constraint.has_max_value() || *value <= constraint.max_value());
      if (!within) feasible[i] = false;
      if (value.has_value()) reported.push_back(static_cast<int>(i));
    }
    if (reported.empty()) continue;  // Nothing known: every point may be feasible.
    Eigen::VectorXd values(reported.size());
    Eigen::MatrixXd where(d, reported.size());
    for (size_t i = 0; i < reported.size(); ++i) {
      values[i] = *MetricOf(*observed[reported[i]], c);
      where.col(i) = points.col(reported[i]);
    }
    const double mean = values.mean();
    double deviation = std::sqrt((values.array() - mean).square().mean());
    if (!(deviation > 0)) deviation = std::max(std::abs(mean), 1.0);
    values = (values.array() - mean) / deviation;
    Constraint bounds{c, -kInfinity, kInfinity};
    if (constraint.has_min_value()) bounds.lower = (constraint.min_value() - mean) / deviation;
    if (constraint.has_max_value()) bounds.upper = (constraint.max_value() - mean) / deviation;
    VERNIER_ASSIGN_OR_RETURN(GaussianProcess model, FitModel(where, values, rng));
    models.constraints.push_back(std::move(model));
    models.bounds.push_back(bounds);
  }

  // The front so far: feasible trials with every objective.
  std::vector<int> front;
  for (Eigen::Index i = 0; i < n; ++i) {
    bool has_all = true;
    for (int k = 0; k < objective_count; ++k) {
      has_all = has_all && MetricOf(*observed[i], objective_metrics_[k]).has_value();
    }
    if (has_all && feasible[i]) front.push_back(static_cast<int>(i));
  }
  const std::vector<int> feasible_trials = front;
  std::erase_if(front, [&](int i) {
    return std::any_of(front.begin(), front.end(),
                       [&](int j) { return Dominates(warped.col(j), warped.col(i)); });
  });
  // Three objectives or more: the expected improvement, from a reference
  // point inside the front's worst values, at times tight in the least
  // explored objective (FrontReference; see the class comment).
  const bool many_objectives = objective_count >= 3;
  const Eigen::VectorXd reference = many_objectives && !front.empty()
                                        ? FrontReference().InsideFront(warped, front, rng)
                                        : FrontReference().BelowTrials(warped);
  // Four objectives or more: one direction for each point, drawn anew for
  // each point of a batch (see the class comment).
  const bool direction_per_point = objective_count >= kDirectionPerPointObjectives;
  const int directions =
      direction_per_point ? options_.directions_past_three_objectives : options_.directions;
  // What the scalarised bests count: every feasible trial (a dominated one
  // never raises them), then each believed point.
  std::vector<Eigen::VectorXd> counted;
  for (int i : feasible_trials) counted.push_back(warped.col(i));
  std::optional<HypervolumeScalarization> scalarization;
  Eigen::VectorXd best;
  const auto draw_directions = [&] {
    scalarization.emplace(reference, directions, rng);
    best = scalarization->Empty();
    for (const Eigen::VectorXd& value : counted) scalarization->Include(value, best);
  };
  draw_directions();
  std::vector<Eigen::VectorXd> incumbents;
  while (!front.empty() && static_cast<int>(incumbents.size()) < options_.incumbents) {
    const size_t pick = UniformIndex(rng, front.size());
    incumbents.push_back(points.col(front[pick]));
    front.erase(front.begin() + static_cast<std::ptrdiff_t>(pick));
  }

  // Kriging believer: a point to come is observed at the posterior mean in
  // every model, and counts in the front when likely feasible.
  const auto believe = [&](const Eigen::VectorXd& point) {
    Eigen::MatrixXd means;
    Eigen::MatrixXd deviations;
    Eigen::VectorXd feasibility;
    Predict(models, point, &means, &deviations, &feasibility);
    for (int k = 0; k < objective_count; ++k) {
      models.objectives[k].AddObservation(point, means(k, 0), /*noise_variance=*/0.0);
    }
    Eigen::VectorXd mean;
    Eigen::VectorXd variance;
    for (GaussianProcess& model : models.constraints) {
      model.Predict(point, &mean, &variance);
      model.AddObservation(point, mean[0], /*noise_variance=*/0.0);
    }
    if (feasibility[0] >= kBelievedFeasible) {
      counted.push_back(means.col(0));
      scalarization->Include(means.col(0), best);
    }
  };
  const size_t pending_start =
      history.pending.size() > static_cast<size_t>(options_.max_model_points)
          ? history.pending.size() - options_.max_model_points
          : 0;
  for (size_t i = pending_start; i < history.pending.size(); ++i) {
    absl::StatusOr<Eigen::VectorXd> point = encoder_.Encode(history.pending[i].parameters);
    if (point.ok()) believe(*point);
  }

  Eigen::MatrixXd normals(objective_count, many_objectives ? options_.monte_carlo_samples : 0);
  for (Eigen::Index i = 0; i < normals.size(); ++i) normals.data()[i] = StandardNormal(rng);
  const auto score = [&](const Eigen::MatrixXd& candidates) {
    Eigen::MatrixXd means;
    Eigen::MatrixXd deviations;
    Eigen::VectorXd feasibility;
    Predict(models, candidates, &means, &deviations, &feasibility);
    Eigen::VectorXd scores(candidates.cols());
    for (Eigen::Index i = 0; i < candidates.cols(); ++i) {
      const Eigen::VectorXd ucb = means.col(i) + options_.ucb_coefficient * deviations.col(i);
      const double improvement =
          many_objectives
              ? scalarization->ExpectedImprovement(means.col(i), deviations.col(i), normals, best)
              : scalarization->Improvement(ucb, best);
      const double value = feasibility[i] * (improvement + kTieBreak * scalarization->Mean(ucb));
      scores[i] = std::isfinite(value) ? value : -kInfinity;
    }
    return scores;
  };

  absl::flat_hash_set<std::string> used = UsedPointKeys(history);
  const int quasi_random =
      options_.screening_points > 0 ? options_.screening_points : std::clamp(50 * d, 300, 1000);
  Suggestions suggestions;
  std::vector<double> unit(d);
  for (int s = 0; s < count; ++s) {
    if (s > 0 && direction_per_point) draw_directions();
    // Screening: quasi-random points and perturbations of the front.
    const ScrambledHaltonSequence sequence(d, rng());
    Eigen::MatrixXd screened(d, quasi_random);
    for (int i = 0; i < quasi_random; ++i) {
      sequence.Point(static_cast<uint64_t>(i), unit);
      screened.col(i) = encoder_.FromUnit(unit);
    }
    Eigen::MatrixXd candidates = screened;
    Append(candidates, Perturb(incumbents, options_.perturbations_per_incumbent, kNearScale, rng));
    Append(candidates,
           Perturb(incumbents, options_.perturbations_per_incumbent / 2, kFarScale, rng));
    const Eigen::VectorXd scores = score(candidates);
    // Refinement: perturbations of the best screened points.
    std::vector<int> order(candidates.cols());
    std::iota(order.begin(), order.end(), 0);
    const int starts = std::min<int>(options_.refine_starts, static_cast<int>(order.size()));
    std::partial_sort(order.begin(), order.begin() + starts, order.end(),
                      [&](int a, int b) { return scores[a] > scores[b]; });
    std::vector<Eigen::VectorXd> best_screened;
    for (int i = 0; i < starts; ++i) best_screened.push_back(candidates.col(order[i]));
    Eigen::MatrixXd refined =
        Perturb(best_screened, options_.refine_perturbations, kRefineNearScale, rng);
    Append(refined,
           Perturb(best_screened, options_.refine_perturbations / 2, kRefineFarScale, rng));
    Eigen::MatrixXd all = candidates;
    Append(all, refined);
    Eigen::VectorXd all_scores = scores;
    Append(all_scores, score(refined));

    order.resize(all.cols());
    std::iota(order.begin(), order.end(), 0);
    // Best first; equal scores keep their order, so the result is deterministic.
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return all_scores[a] > all_scores[b]; });
    std::optional<int> chosen;
    ParameterAssignment parameters;
    for (int i : order) {
      if (!std::isfinite(all_scores[i])) break;
      parameters = encoder_.Decode(all.col(i));
      if (!used.contains(SearchSpace::Key(parameters))) {
        chosen = i;
        break;
      }
    }
    if (!chosen.has_value()) break;
    used.insert(SearchSpace::Key(parameters));
    if (s + 1 < count) believe(all.col(*chosen));
    suggestions.points.push_back(std::move(parameters));
  }

  // When every good candidate was taken (a small finite space), the rest
  // come from the quasi-random design, which knows when the space is
  // exhausted.
  VERNIER_RETURN_IF_ERROR(CompleteBatch(initial_design_, history, count, rng, suggestions));
  return suggestions;
}

}  // namespace vernier::suggest
