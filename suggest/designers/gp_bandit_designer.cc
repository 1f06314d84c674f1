#include "suggest/designers/gp_bandit_designer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "suggest/designers/model_fallback.h"
#include "suggest/gp/batch_trust_region.h"
#include "suggest/gp/feasibility_model.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/gp_log_posterior.h"
#include "suggest/gp/history_folder.h"
#include "suggest/gp/history_projector.h"
#include "suggest/gp/hyperparameter_fitter.h"
#include "suggest/gp/input_warp.h"
#include "suggest/gp/input_warp_fitter.h"
#include "suggest/gp/log_expected_improvement.h"
#include "suggest/gp/matern_kernel.h"
#include "suggest/gp/neighbour_probe.h"
#include "suggest/gp/outlier_filter.h"
#include "suggest/gp/output_warper.h"
#include "suggest/gp/plateau_margin.h"
#include "suggest/gp/training_set_selector.h"
#include "suggest/gp/upper_confidence_bound.h"
#include "suggest/history_points.h"
#include "suggest/random_numbers.h"

namespace vernier::suggest {
namespace {

// Best observed points whose neighbourhoods the acquisition screening
// searches.
constexpr int kIncumbents = 3;
// The ended trials a batch's trust region is replayed from, at most (the
// latest): its size forgets faster than that (a restart after five
// halvings).
constexpr int kTrustRegionHistory = 400;
// Starting length scales of the second coarse start, in unit-cube widths:
// a wiggly function, against the prior's smooth one.
constexpr double kShortLengthScale = 0.2;

bool HasObjective(const TrialObservation& trial) {
  return (trial.state == v1::Trial::SUCCEEDED || trial.state == v1::Trial::STOPPED_EARLY) &&
         trial.objective.has_value() && std::isfinite(*trial.objective);
}

Eigen::MatrixXd Columns(const Eigen::MatrixXd& matrix, const std::vector<int>& indices) {
  Eigen::MatrixXd selected(matrix.rows(), indices.size());
  for (size_t i = 0; i < indices.size(); ++i) selected.col(i) = matrix.col(indices[i]);
  return selected;
}

Eigen::VectorXd Entries(const Eigen::VectorXd& vector, const std::vector<int>& indices) {
  Eigen::VectorXd selected(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) selected[i] = vector[indices[i]];
  return selected;
}

}  // namespace

GpBanditDesigner::GpBanditDesigner(SearchSpace space, v1::MetricSpec::Goal goal, uint64_t seed,
                                   Options options)
    : encoder_(space),
      goal_(goal),
      options_(options),
      initial_points_(options.initial_points > 0 ? options.initial_points : kDefaultInitialPoints),
      initial_design_(std::move(space), seed) {
  if (options_.input_warping && encoder_.has_continuous()) {
    for (int j = 0; j < encoder_.dimension(); ++j) warped_.push_back(!encoder_.categorical()[j]);
  }
}

absl::StatusOr<Suggestions> GpBanditDesigner::Suggest(const DesignerHistory& history, int count,
                                                      std::mt19937_64& rng) {
  return SuggestFromModelOrInitialDesign(
      history, count, rng,
      /*model_ready=*/static_cast<int>(history.completed.size()) >= initial_points_,
      "Gaussian-process model", initial_design_,
      [&] { return SuggestFromModel(history, count, rng); });
}

bool GpBanditDesigner::IsExplorationStep(const DesignerHistory& history, int count) const {
  const int ended = static_cast<int>(history.completed.size());
  if (options_.exploration_period <= 0 || count != 1 || !history.pending.empty() || ended == 0 ||
      ended % options_.exploration_period != 0) {
    return false;
  }
  return LatestDidNotImprove(history);
}

bool GpBanditDesigner::LatestDidNotImprove(const DesignerHistory& history) const {
  const int ended = static_cast<int>(history.completed.size());
  if (ended == 0) return false;
  const TrialObservation& latest = history.completed.back();
  if (!HasObjective(latest)) return true;
  const double sign = goal_ == v1::MetricSpec::MINIMIZE ? -1.0 : 1.0;
  for (int i = 0; i + 1 < ended; ++i) {
    const TrialObservation& earlier = history.completed[i];
    if (HasObjective(earlier) && sign * *earlier.objective >= sign * *latest.objective) return true;
  }
  return false;
}

absl::StatusOr<Eigen::VectorXd> GpBanditDesigner::FitHyperparameters(const Eigen::MatrixXd& points,
                                                                     const Eigen::VectorXd& values,
                                                                     std::mt19937_64& rng) const {
  const int d = encoder_.dimension();
  const GpLogPosterior posterior(encoder_.categorical(), points, values);
  std::vector<Eigen::VectorXd> starts;
  starts.push_back(posterior.PriorMean());
  Eigen::VectorXd wiggly = posterior.PriorMean();
  wiggly.head(d).setConstant(std::log(kShortLengthScale * std::sqrt(static_cast<double>(d))));
  starts.push_back(wiggly);
  const Eigen::VectorXd deviation = posterior.PriorStandardDeviation();
  while (static_cast<int>(starts.size()) < options_.coarse_starts) {
    Eigen::VectorXd draw = posterior.PriorMean();
    for (Eigen::Index i = 0; i < draw.size(); ++i)
      draw[i] += 0.5 * deviation[i] * StandardNormal(rng);
    starts.push_back(draw);
  }
  starts.resize(std::max(options_.coarse_starts, 1));
  HyperparameterFitter::Options fit;
  fit.max_evaluations = options_.fit_evaluations;
  const HyperparameterFitter fitter(fit);
  if (points.cols() <= options_.coarse_fit_points) return fitter.Fit(posterior, starts);

  const TrainingSetSelector selector(encoder_.categorical());
  const std::vector<int> coarse = selector.Select(points, values, options_.coarse_fit_points);
  const GpLogPosterior coarse_posterior(encoder_.categorical(), Columns(points, coarse),
                                        Entries(values, coarse));
  absl::StatusOr<Eigen::VectorXd> warm_start = fitter.Fit(coarse_posterior, starts);
  if (!warm_start.ok()) return warm_start.status();
  return fitter.Fit(posterior, {&*warm_start, 1});
}

absl::StatusOr<FeasibilityModel> GpBanditDesigner::FitFeasibility(const Eigen::MatrixXd& points,
                                                                  const std::vector<bool>& feasible,
                                                                  std::mt19937_64& rng) const {
  // As the objective's: past max_model_points trials the labels' model
  // keeps a window (the best, those with a value, beside the latest and
  // the spread), and its hyper-parameters are fitted on at most
  // max_fit_points of it.
  const TrainingSetSelector selector(encoder_.categorical());
  const std::vector<int> kept =
      selector.Select(points, FeasibilityModel::CentredLabels(feasible), options_.max_model_points);
  const Eigen::MatrixXd kept_points = Columns(points, kept);
  std::vector<bool> kept_feasible;
  for (int i : kept) kept_feasible.push_back(feasible[i]);
  const Eigen::VectorXd kept_labels = FeasibilityModel::CentredLabels(kept_feasible);
  const std::vector<int> fitted =
      selector.Select(kept_points, kept_labels, options_.max_fit_points);
  absl::StatusOr<Eigen::VectorXd> theta =
      FitHyperparameters(Columns(kept_points, fitted), Entries(kept_labels, fitted), rng);
  if (!theta.ok()) return theta.status();
  if (!theta->allFinite()) {
    return absl::InternalError("the feasibility model's hyper-parameters are not finite");
  }
  return FeasibilityModel::Create(GpLogPosterior::Kernel(encoder_.categorical(), *theta),
                                  GpLogPosterior::NoiseVariance(encoder_.dimension(), *theta),
                                  kept_points, kept_feasible, options_.feasibility_exponent);
}

absl::StatusOr<Suggestions> GpBanditDesigner::SuggestFromModel(const DesignerHistory& history,
                                                               int count, std::mt19937_64& rng) {
  const int d = encoder_.dimension();
  std::vector<Eigen::VectorXd> encoded;
  std::vector<std::optional<double>> objectives;
  for (const TrialObservation& trial : history.completed) {
    absl::StatusOr<Eigen::VectorXd> point = encoder_.Encode(trial.parameters);
    if (!point.ok()) continue;  // Not a point of this space: nothing to learn from it.
    encoded.push_back(*std::move(point));
    std::optional<double> objective;
    if (HasObjective(trial)) {
      objective = goal_ == v1::MetricSpec::MINIMIZE ? -*trial.objective : *trial.objective;
    }
    objectives.push_back(objective);
  }
  if (encoded.empty()) {
    return absl::FailedPreconditionError("no ended trial has parameters of the search space");
  }
  Eigen::MatrixXd points(d, encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) points.col(i) = encoded[i];

  // Trials without a value: a model of the chance of one beside the
  // objective's model of the trials with one, or (too few with a value, or
  // switched off) a place just below the worst value in the objective's.
  std::vector<bool> feasible(objectives.size());
  int with_value = 0;
  for (size_t i = 0; i < objectives.size(); ++i) {
    feasible[i] = objectives[i].has_value();
    with_value += feasible[i] ? 1 : 0;
  }
  std::optional<FeasibilityModel> feasibility;
  // Once trials are left out of the objective's model (those without a
  // value, for the feasibility model; outliers, below): every ended trial
  // (a neighbour probe's tries), while `points` and `objectives` keep the
  // modelled ones.
  Eigen::MatrixXd all_points;
  const auto leave_out = [&](const std::vector<bool>& leave) {
    std::vector<int> keep;
    std::vector<std::optional<double>> kept_objectives;
    for (size_t i = 0; i < leave.size(); ++i) {
      if (leave[i]) continue;
      keep.push_back(static_cast<int>(i));
      kept_objectives.push_back(objectives[i]);
    }
    if (all_points.size() == 0) all_points = points;
    points = Columns(points, keep);
    objectives = std::move(kept_objectives);
  };
  if (options_.feasibility_model && with_value >= kMinTrialsWithValue &&
      with_value < static_cast<int>(objectives.size())) {
    absl::StatusOr<FeasibilityModel> fitted = FitFeasibility(points, feasible, rng);
    if (!fitted.ok()) return fitted.status();
    feasibility = *std::move(fitted);
    std::vector<bool> without_value(feasible.size());
    for (size_t i = 0; i < feasible.size(); ++i) without_value[i] = !feasible[i];
    leave_out(without_value);
  }
  Eigen::VectorXd values = OutputWarper().Warp(objectives);

  const TrainingSetSelector selector(encoder_.categorical());
  std::vector<int> model_indices;
  Eigen::MatrixXd model_points;
  Eigen::VectorXd model_values;
  absl::StatusOr<Eigen::VectorXd> theta;
  // The trials the hyper-parameters were fitted on.
  Eigen::MatrixXd fit_points;
  Eigen::VectorXd fit_values;
  // The model's trials and its fitted hyper-parameters, from `points` and
  // `values`.
  const auto fit_model = [&]() -> absl::Status {
    model_indices = selector.Select(points, values, options_.max_model_points);
    model_points = Columns(points, model_indices);
    model_values = Entries(values, model_indices);
    const std::vector<int> fit_indices =
        selector.Select(model_points, model_values, options_.max_fit_points);
    fit_points = Columns(model_points, fit_indices);
    fit_values = Entries(model_values, fit_indices);
    theta = FitHyperparameters(fit_points, fit_values, rng);
    if (!theta.ok()) return theta.status();
    if (!theta->allFinite()) {
      return absl::InternalError("the fitted hyper-parameters are not finite");
    }
    return absl::OkStatus();
  };
  VERNIER_RETURN_IF_ERROR(fit_model());

  // Values far below what the other trials predict where they are (a run
  // that met a bad seed or node) leave the objective's model, which is
  // warped and fitted again without them; they still count as tried. Only
  // while the hyper-parameters are fitted on every trial (at most
  // max_fit_points): fitted on a subset, the model misjudges the others
  // often enough that a smooth noiseless loss had 7 to 10 of 400 trials
  // taken for outliers (and a capped model holds the best trials by their
  // values, beside which the unlucky ones look like outliers).
  const bool fitted_on_every_trial = points.cols() <= options_.max_fit_points;
  for (int round = 0; round < options_.outlier_rounds && fitted_on_every_trial; ++round) {
    absl::StatusOr<GaussianProcess> first = GaussianProcess::Create(
        GpLogPosterior::Kernel(encoder_.categorical(), *theta),
        GpLogPosterior::NoiseVariance(d, *theta), model_points, model_values);
    if (!first.ok()) return first.status();
    OutlierFilter::Options filter;
    filter.threshold = options_.outlier_threshold;
    const std::vector<int> outliers = OutlierFilter(filter).Outliers(*first, model_values);
    if (outliers.empty()) break;
    std::vector<bool> drop(points.cols(), false);
    for (int i : outliers) drop[model_indices[i]] = true;
    leave_out(drop);
    values = OutputWarper().Warp(objectives);
    VERNIER_RETURN_IF_ERROR(fit_model());
  }
  // The input warp, fitted once the outliers are out (a warp would
  // otherwise bend the model towards them), and kept only with evidence.
  if (!warped_.empty()) {
    InputWarpFitter::Options warp_fit;
    warp_fit.evaluations = options_.warp_fit_evaluations;
    warp_fit.evidence = options_.warp_evidence;
    warp_fit.fit_points = options_.warp_fit_points;
    warp_fit.refit_evaluations = options_.fit_evaluations;
    theta = InputWarpFitter(warp_fit).Fit(encoder_.categorical(), warped_, fit_points, fit_values,
                                          *theta);
  }
  const MaternKernel kernel = GpLogPosterior::Kernel(encoder_.categorical(), *theta);
  const double noise = GpLogPosterior::NoiseVariance(d, *theta);
  const InputWarp warp = GpLogPosterior::Warp(warped_, *theta);
  const bool capped = static_cast<int>(model_indices.size()) < points.cols();
  if (capped && options_.neighbourhood_share > 0) {
    // A history longer than the model: the model is made again around the
    // point a first model believes best, with every trial nearest it.
    absl::StatusOr<GaussianProcess> first =
        GaussianProcess::Create(kernel, noise, model_points, model_values, warp);
    if (!first.ok()) return first.status();
    Eigen::Index centre = 0;
    first->MeanAtObservations().maxCoeff(&centre);
    TrainingSetSelector::Neighbourhood neighbourhood;
    neighbourhood.share = options_.neighbourhood_share;
    neighbourhood.squared_distances.resize(points.cols());
    const Eigen::VectorXd centre_point = warp.Apply(Eigen::VectorXd(model_points.col(centre)));
    const Eigen::MatrixXd warped_points = warp.Apply(points);
    for (Eigen::Index i = 0; i < points.cols(); ++i) {
      neighbourhood.squared_distances[i] =
          kernel.SquaredDistance(centre_point.data(), warped_points.col(i).data());
    }
    model_indices = selector.Select(points, values, options_.max_model_points, &neighbourhood);
    model_points = Columns(points, model_indices);
    model_values = Entries(values, model_indices);
  }
  Eigen::VectorXd noise_variances = Eigen::VectorXd::Constant(model_values.size(), noise);
  if (capped && options_.fold_history) {
    // The trials the model leaves out still count: each is folded into the
    // model point nearest it, whose value becomes their precision-weighted
    // mean and whose noise shrinks with them.
    HistoryFolder::Folded folded =
        HistoryFolder().Fold(kernel, noise, warp.Apply(points), values, model_indices);
    if (folded.folded > 0) {
      model_values = std::move(folded.values);
      noise_variances = std::move(folded.noise_variances);
    }
  }
  std::optional<HistoryProjector::Projected> projected;
  if (capped && options_.project_history > 0) {
    // The trials the model leaves out still count: each is projected onto
    // the model points nearest it, which become pseudo-observations of the
    // posterior every trial gives.
    absl::StatusOr<HistoryProjector::Projected> projection =
        HistoryProjector(options_.project_history)
            .Project(kernel, noise, warp.Apply(points), values, model_indices);
    if (!projection.ok()) return projection.status();
    if (projection->projected > 0) projected = *std::move(projection);
  }
  absl::StatusOr<GaussianProcess> model =
      projected.has_value()
          ? GaussianProcess::CreateWithNoiseCovariance(kernel, noise, projected->noise_covariance,
                                                       model_points, projected->values, warp)
          : GaussianProcess::Create(kernel, noise, noise_variances, model_points, model_values,
                                    warp);
  if (!model.ok()) return model.status();
  // The model points ranked by their values, or, for pseudo-observations
  // (whose values alone mean little), by the posterior mean there.
  if (projected.has_value()) model_values = model->MeanAtObservations();
  std::vector<int> by_value(model_values.size());
  std::iota(by_value.begin(), by_value.end(), 0);
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&model_values](int a, int b) { return model_values[a] > model_values[b]; });
  std::vector<Eigen::VectorXd> incumbents;
  for (int i = 0; i < kIncumbents && i < static_cast<int>(by_value.size()); ++i) {
    incumbents.push_back(model_points.col(by_value[i]));
  }

  double best = model->MeanAtObservations().maxCoeff();
  if (!std::isfinite(best)) return absl::InternalError("the posterior mean is not finite");
  // On a plateau of exact ties at the best, expected improvement is taken
  // over the best plus half the smallest step among the good trials.
  const double margin = options_.plateau_margin ? PlateauMargin().Margin(values) : 0;

  absl::flat_hash_set<std::string> used = UsedPointKeys(history);
  // Kriging believer: pending trials are observed at the posterior mean,
  // without noise, and count for the incumbent like any observation.
  const size_t pending_start =
      history.pending.size() > static_cast<size_t>(options_.max_model_points)
          ? history.pending.size() - options_.max_model_points
          : 0;
  for (size_t i = pending_start; i < history.pending.size(); ++i) {
    absl::StatusOr<Eigen::VectorXd> point = encoder_.Encode(history.pending[i].parameters);
    if (!point.ok()) continue;
    Eigen::VectorXd mean;
    Eigen::VectorXd variance;
    model->Predict(*point, &mean, &variance);
    model->AddObservation(*point, mean[0], /*noise_variance=*/0.0);
    best = std::max(best, mean[0]);
  }

  const FeasibilityModel* feasible_chance = feasibility.has_value() ? &*feasibility : nullptr;
  const AcquisitionOptimizer optimizer(encoder_, options_.acquisition, feasible_chance);
  Suggestions suggestions;
  // An exploration step computes a batch of two and returns its second point
  // (or the first, if no second is left).
  const bool exploration_step = IsExplorationStep(history, count);
  const int batch_size = exploration_step ? 2 : count;
  std::optional<ParameterAssignment> greedy;
  // Each point's place in its batch: a request for several points places
  // them 0, 1, 2, ...; a request for one point while n trials run places it
  // (started trials mod (n + 1)): it is a point of a batch made of the
  // running trials and it, and while trials keep running one point in
  // n + 1 is a batch's first.
  int first_place = 0;
  if (count == 1 && !history.pending.empty()) {
    const size_t running = history.pending.size();
    first_place = static_cast<int>((history.completed.size() + running) % (running + 1));
  }
  // Whether the point at `place` maximises the upper confidence bound
  // (around the good trials, so only with local_batch_points).
  const auto by_bound = [&](int place) {
    return options_.batch_confidence_beta >= 0 && place >= 1 &&
           place <= options_.batch_confidence_points && !encoder_.has_categorical();
  };
  // A batch's points after its first, and a single point placed under the
  // bound, search around the best quarter of the trials (at least
  // kIncumbents of them).
  std::vector<Eigen::VectorXd> good;
  if (options_.local_batch_points && (batch_size > 1 || by_bound(first_place)) &&
      !exploration_step) {
    const int good_count = std::max(kIncumbents, static_cast<int>(by_value.size()) / 4);
    for (int k = 0; k < good_count && k < static_cast<int>(by_value.size()); ++k) {
      good.push_back(model_points.col(by_value[k]));
    }
  }
  // A request for several points: the later points by the bound search a
  // trust region around the best trial, its size replayed from the last
  // kTrustRegionHistory ended trials' posterior means.
  AcquisitionOptimizer::Options region = options_.acquisition;
  std::span<const Eigen::VectorXd> around = good;
  if (options_.batch_trust_region && count > 1 && !good.empty() && by_bound(first_place + 1)) {
    const Eigen::Index size = points.cols();
    // Whole batches: the window starts at a multiple of the batch's size.
    Eigen::Index start = std::max<Eigen::Index>(0, size - kTrustRegionHistory);
    start -= start % count;
    const Eigen::VectorXd means = model->PredictMean(points.middleCols(start, size - start));
    region.around_factor =
        BatchTrustRegion().Length({means.data(), static_cast<size_t>(means.size())},
                                  start == 0 ? initial_points_ : count, count, d);
    around = around.first(1);
  }
  // The best trial's untried neighbour in a discrete coordinate, if any
  // (with `best` and `used` as they stand when it is asked for).
  const auto probe_neighbour = [&] {
    return NeighbourProbe(encoder_).Best(
        *model, LogExpectedImprovement(best + margin), model_points.col(by_value.front()),
        all_points.size() > 0 ? all_points : points, used, feasible_chance);
  };
  if (exploration_step && options_.neighbour_probes && !by_value.empty()) {
    std::optional<AcquisitionOptimizer::Candidate> probe = probe_neighbour();
    if (probe.has_value()) {
      suggestions.points.push_back(std::move(probe->parameters));
      return suggestions;
    }
  }
  const AcquisitionOptimizer region_optimizer(encoder_, region, feasible_chance);
  // A batch whose predecessor found nothing better spends its last point on
  // a probe too, as a stalled sequential search does.
  const bool probe_last = options_.neighbour_probes && count > 1 && history.pending.empty() &&
                          !by_value.empty() && LatestDidNotImprove(history);
  for (int i = 0; i < batch_size; ++i) {
    if (probe_last && i + 1 == batch_size) {
      std::optional<AcquisitionOptimizer::Candidate> probe = probe_neighbour();
      if (probe.has_value()) {
        suggestions.points.push_back(std::move(probe->parameters));
        break;
      }
    }
    std::optional<AcquisitionOptimizer::Candidate> candidate;
    if (good.empty() || (i == 0 && !by_bound(first_place))) {
      candidate =
          optimizer.Maximize(*model, LogExpectedImprovement(best + margin), incumbents, used, rng);
    } else if (by_bound(first_place + i)) {
      candidate = region_optimizer.MaximizeAround(
          *model, UpperConfidenceBound(options_.batch_confidence_beta), around, used, rng);
    } else {
      candidate =
          optimizer.MaximizeAround(*model, LogExpectedImprovement(best + margin), good, used, rng);
    }
    if (!candidate.has_value()) break;
    used.insert(SearchSpace::Key(candidate->parameters));
    if (i + 1 < batch_size) {
      Eigen::VectorXd mean;
      Eigen::VectorXd variance;
      model->Predict(candidate->point, &mean, &variance);
      model->AddObservation(candidate->point, mean[0], /*noise_variance=*/0.0);
      best = std::max(best, mean[0]);
    }
    if (exploration_step && i == 0) {
      greedy = std::move(candidate->parameters);
      continue;
    }
    suggestions.points.push_back(std::move(candidate->parameters));
  }
  if (exploration_step && suggestions.points.empty() && greedy.has_value()) {
    suggestions.points.push_back(*std::move(greedy));
  }

  // When every good candidate was taken (a small finite space), the rest
  // come from the quasi-random design, which knows when the space is
  // exhausted.
  VERNIER_RETURN_IF_ERROR(CompleteBatch(initial_design_, history, count, rng, suggestions));
  return suggestions;
}

}  // namespace vernier::suggest
