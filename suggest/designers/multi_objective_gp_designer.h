#ifndef VERNIER_SUGGEST_DESIGNERS_MULTI_OBJECTIVE_GP_DESIGNER_H_
#define VERNIER_SUGGEST_DESIGNERS_MULTI_OBJECTIVE_GP_DESIGNER_H_

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "suggest/designers/quasi_random_designer.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/gp_input_encoder.h"
#include "suggest/search_space.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// GAUSSIAN_PROCESS_BANDIT for a study with several objectives or with
// outcome constraints (metrics with a constraint):
// - The first trials come from the quasi-random design, as for one
//   objective.
// - One Gaussian process per objective (warped and standardised as for one
//   objective, OutputWarper; with four objectives or more the values below
//   each objective's median keep their magnitudes, only a far tail clipped:
//   OutputWarper::Lower::kClipped, clipped_outputs_past_three_objectives;
//   with three, for each objective whichever of the two warps leave-one-out
//   says orders the trials better, output_warp_by_leave_one_out) and
//   one per constraint metric (its values
//   standardised, not warped, so the bounds keep their meaning), each with
//   the Matérn-5/2 ARD kernel and MAP hyper-parameters (GpLogPosterior).
// - Each point maximises
//     P(feasible) * (HVI + 1e-3 * mean_w s_w(UCB)),
//   where UCB is every objective's upper confidence bound (mean + 1.8 sd),
//   HVI the hypervolume improvement that UCB would bring to the feasible
//   trials' Pareto front, estimated by random hypervolume scalarisations
//   (HypervolumeScalarization; Golovin and Zhang 2020, as OSS Vizier), and
//   P(feasible) the product over constraints of the probability that the
//   constraint's GP puts the metric within its bounds. The small second term
//   ranks points where no improvement seems possible. Before any trial is
//   feasible, HVI is measured from the reference point, so the search heads
//   for the feasible region first.
// - Three objectives or more (objective_count >= 3): the optimism of every
//   objective's UCB at once, and a reference point behind the worst trial,
//   sent the search after the front's extreme corners (on DTLZ2 it did
//   worse than random search). There HVI is instead the expected
//   improvement E[mean_w max(0, s_w(Y) - max_front s_w)] under the
//   objectives' posterior (independent normals; Monte Carlo over 32 draws
//   common to every candidate), from a reference point just *inside* the
//   front's worst value in each objective (by 10% of the front's width),
//   and at times 50 to 70% inside it in one objective, the one whose
//   better half has had the fewest trials (FrontReference). BoTorch's
//   rule, 10% behind the worst, lets points at the ideal in one objective
//   and far behind in the others (a cube's faces on DTLZ2) set the
//   reference, and the search then filled the volume between them instead
//   of nearing the front's knee. From any reference far out in every
//   objective, the improvement pays most at the front's cheapest corner
//   (on gboost_3obj a single depth-1 tree, varied in what does not change
//   its size, took most model trials); the tight objective, rotated to the
//   one whose good end is least explored, spreads the trials over the
//   front's ends. Measured in docs/benchmarks.md.
// - Four objectives or more: the mean over many directions pays most where a
//   point is far ahead in one objective, as the product of the distances to
//   the reference grows with the objectives (on DTLZ2 in four objectives 87%
//   of the model's trials had a position coordinate at the cube's face, and
//   its hypervolume was below random search's). There each point takes one
//   direction of its own (Options::directions_past_three_objectives): the
//   improvement along one ray from the reference, ParEGO's random
//   scalarisation (Knowles 2006) in hypervolume form, so the trials spread
//   over the front instead of gathering on its faces (a curved front's
//   hypervolume 1.2 to 1.45 times the shared directions'; a degenerate
//   one, a curve, 2% lower). Measured in docs/benchmarks.md, "Four and
//   five objectives".
// - The maximisation screens quasi-random points and perturbations of the
//   Pareto front's points, then perturbs the best screened points again.
// - Pending trials and earlier points of a batch are conditioned on in every
//   GP at their posterior mean (kriging believer), and count in the front,
//   so a batch spreads along the front.
// Any failure of a model gives quasi-random points, with the reason in
// fallback_reason.
class MultiObjectiveGpDesigner : public Designer {
 public:
  struct Options {
    // Ended trials before the models take over; 0 picks
    // min(max(d + 1, 5), 10).
    int initial_points = 0;
    int max_model_points = 250;
    int max_fit_points = 80;
    int fit_evaluations = 50;
    int fit_starts = 2;
    // Directions of the hypervolume scalarisation: with up to three
    // objectives, shared by every point of a request; with four or more,
    // drawn anew for each point.
    int directions = 128;
    int directions_past_three_objectives = 1;
    // Four objectives or more: each objective's values keep their
    // magnitudes below its median (OutputWarper::Lower::kClipped) instead of
    // the rank warp of one objective (kHalfRank), which made an objective
    // look flat away from its best values, so that points at one
    // objective's best (a face of the front) outscored the rest of it.
    // With three, neither warp alone did well on every problem (the
    // clipped one lost the real problems' tight hypervolume): see
    // output_warp_by_leave_one_out.
    bool clipped_outputs_past_three_objectives = true;
    // Three objectives: each objective's model is fitted to both warps (the
    // rank warp and the clipped one) and the one kept whose predictions,
    // each trial left out in turn, order the trials better
    // (LeaveOneOutRankAgreement). On DTLZ2 the rank warp alone let the
    // cube's faces take the search (as with four objectives), and the
    // clipped warp alone lost the real problems' tight hypervolume; chosen
    // so, a real problem's error mostly stays ranked and its size and work
    // mostly keep their magnitudes (docs/benchmarks.md, "Three objectives:
    // each objective's warp chosen by leave-one-out"). Two objectives keep
    // the rank warp and four or more the clipped one: the choice lost there
    // (zdt3, dtlz2_m4).
    bool output_warp_by_leave_one_out = true;
    // Three objectives or more: draws of the objectives per candidate for
    // the Monte Carlo expected improvement.
    int monte_carlo_samples = 32;
    double ucb_coefficient = 1.8;
    // Quasi-random screening points; 0 picks by dimension.
    int screening_points = 0;
    // Pareto-front points perturbed in the screening, and draws around each.
    int incumbents = 6;
    int perturbations_per_incumbent = 30;
    // Best screened points perturbed again, and draws around each.
    int refine_starts = 5;
    int refine_perturbations = 40;
  };

  // `metrics` is the study's metric list: objectives (goal set) and
  // constraints (constraint set), in the order of TrialObservation::metrics.
  // `seed` scrambles the quasi-random design.
  MultiObjectiveGpDesigner(SearchSpace space, std::vector<v1::MetricSpec> metrics, uint64_t seed,
                           Options options);
  MultiObjectiveGpDesigner(SearchSpace space, std::vector<v1::MetricSpec> metrics, uint64_t seed)
      : MultiObjectiveGpDesigner(std::move(space), std::move(metrics), seed, Options()) {}

  // INVALID_ARGUMENT when count is negative; model failures are not errors.
  absl::StatusOr<Suggestions> Suggest(const DesignerHistory& history, int count,
                                      std::mt19937_64& rng) override;

  int initial_points() const { return initial_points_; }

 private:
  struct Constraint {
    int metric;  // Index in TrialObservation::metrics.
    // Bounds in the standardised units of its GP (infinite when absent).
    double lower;
    double upper;
  };
  struct Models {
    std::vector<GaussianProcess> objectives;
    std::vector<GaussianProcess> constraints;
    std::vector<Constraint> bounds;
  };

  absl::StatusOr<Suggestions> SuggestFromModels(const DesignerHistory& history, int count,
                                                std::mt19937_64& rng);
  // A GP for the values (standardised), hyper-parameters fitted.
  // `model_values_out` (when given): the model's values, in its order (a
  // subset of `values` past max_model_points).
  absl::StatusOr<GaussianProcess> FitModel(const Eigen::MatrixXd& points,
                                           const Eigen::VectorXd& values, std::mt19937_64& rng,
                                           Eigen::VectorXd* model_values_out = nullptr) const;
  // Every objective's mean and variance at the columns of `points` (one row
  // per objective), and the probability of feasibility of each column.
  void Predict(const Models& models, const Eigen::MatrixXd& points, Eigen::MatrixXd* means,
               Eigen::MatrixXd* deviations, Eigen::VectorXd* feasibility) const;
  Eigen::MatrixXd Perturb(std::span<const Eigen::VectorXd> centres, int per_centre, double scale,
                          std::mt19937_64& rng) const;

  GpInputEncoder encoder_;
  std::vector<v1::MetricSpec> metrics_;
  std::vector<int> objective_metrics_;
  std::vector<int> constraint_metrics_;
  Options options_;
  int initial_points_;
  QuasiRandomDesigner initial_design_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_MULTI_OBJECTIVE_GP_DESIGNER_H_
