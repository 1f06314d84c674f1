#include "suggest/designers/designer_factory.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "suggest/designers/gp_bandit_designer.h"
#include "suggest/designers/grid_search_designer.h"
#include "suggest/designers/multi_objective_gp_designer.h"
#include "suggest/designers/quasi_random_designer.h"
#include "suggest/designers/random_search_designer.h"
#include "suggest/search_space.h"

namespace vernier::suggest {
namespace {

std::string AlgorithmName(v1::Algorithm algorithm) {
  const std::string& name = v1::Algorithm_Name(algorithm);
  return name.empty() ? absl::StrCat("algorithm ", static_cast<int>(algorithm)) : name;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Designer>> MakeDesigner(const v1::StudySpec& spec) {
  absl::StatusOr<SearchSpace> space = SearchSpace::Create(spec.parameters());
  if (!space.ok()) return space.status();
  switch (spec.algorithm()) {
    case v1::GRID_SEARCH: {
      absl::StatusOr<std::unique_ptr<GridSearchDesigner>> grid =
          GridSearchDesigner::Create(*std::move(space));
      if (!grid.ok()) return grid.status();
      return std::unique_ptr<Designer>(*std::move(grid));
    }
    case v1::RANDOM_SEARCH:
      return std::make_unique<RandomSearchDesigner>(*std::move(space));
    case v1::QUASI_RANDOM_SEARCH:
      return std::make_unique<QuasiRandomDesigner>(*std::move(space), spec.seed());
    case v1::ALGORITHM_UNSPECIFIED:
    case v1::GAUSSIAN_PROCESS_BANDIT: {
      // Several objectives, or outcome constraints: one GP per metric.
      if (spec.metrics_size() > 1) {
        return std::make_unique<MultiObjectiveGpDesigner>(
            *std::move(space),
            std::vector<v1::MetricSpec>(spec.metrics().begin(), spec.metrics().end()), spec.seed());
      }
      const v1::MetricSpec::Goal goal =
          spec.metrics().empty() ? v1::MetricSpec::MAXIMIZE : spec.metrics(0).goal();
      return std::make_unique<GpBanditDesigner>(*std::move(space), goal, spec.seed());
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown algorithm ", static_cast<int>(spec.algorithm()),
          "; use GRID_SEARCH, RANDOM_SEARCH, QUASI_RANDOM_SEARCH, GAUSSIAN_PROCESS_BANDIT or leave "
          "it unspecified"));
  }
}

v1::Algorithm RunningAlgorithm(const v1::StudySpec& spec) {
  return spec.algorithm() == v1::ALGORITHM_UNSPECIFIED ? v1::GAUSSIAN_PROCESS_BANDIT
                                                       : spec.algorithm();
}

std::string DescribeAlgorithm(const v1::StudySpec& spec) {
  const std::string models =
      spec.metrics_size() > 1
          ? " (one Gaussian process per metric, random hypervolume scalarisations"
          : "";
  switch (spec.algorithm()) {
    case v1::ALGORITHM_UNSPECIFIED:
      if (!models.empty()) {
        return absl::StrCat("GAUSSIAN_PROCESS_BANDIT", models,
                            "; ALGORITHM_UNSPECIFIED uses it after a quasi-random start)");
      }
      return "GAUSSIAN_PROCESS_BANDIT (ALGORITHM_UNSPECIFIED uses Gaussian-process Bayesian "
             "optimisation after a quasi-random start)";
    case v1::GAUSSIAN_PROCESS_BANDIT:
      if (!models.empty()) {
        return absl::StrCat("GAUSSIAN_PROCESS_BANDIT", models, " after a quasi-random start)");
      }
      return "GAUSSIAN_PROCESS_BANDIT (Gaussian-process Bayesian optimisation after a "
             "quasi-random start)";
    case v1::GRID_SEARCH:
    case v1::RANDOM_SEARCH:
    case v1::QUASI_RANDOM_SEARCH:
      return AlgorithmName(spec.algorithm());
    default:
      return absl::StrCat(AlgorithmName(spec.algorithm()), " (unknown)");
  }
}

}  // namespace vernier::suggest
