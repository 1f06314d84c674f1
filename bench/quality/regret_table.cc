#include "bench/quality/regret_table.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/quality/quartiles.h"

namespace vernier::bench {
namespace {

// Where the issue asks for a tenfold improvement over random search.
constexpr const char* kTenfoldProblems[] = {"branin", "hartmann6", "six_hump_camel"};
constexpr double kTenfold = 0.1;

bool NeedsTenfold(const std::string& problem) {
  return std::find(std::begin(kTenfoldProblems), std::end(kTenfoldProblems), problem) !=
         std::end(kTenfoldProblems);
}

const DesignerRegrets* Find(const ProblemRegrets& row, v1::Algorithm algorithm) {
  for (const DesignerRegrets& designer : row.designers) {
    if (designer.algorithm == algorithm) return &designer;
  }
  return nullptr;
}

std::optional<double> Median(const DesignerRegrets* designer) {
  if (designer == nullptr || !designer->status.ok() || designer->regrets.empty()) {
    return std::nullopt;
  }
  return ComputeQuartiles(designer->regrets).median;
}

// Regret 0 cannot be beaten: reaching it counts as better.
bool Better(double gp, double other) { return gp < other || gp == 0; }

std::string Number(double value) { return absl::StrFormat("%.3g", value); }

std::string Cell(const DesignerRegrets& designer, std::vector<std::string>& notes,
                 const std::string& problem) {
  if (absl::IsUnimplemented(designer.status)) return "not available";
  if (absl::IsInvalidArgument(designer.status)) return "n/a";
  if (!designer.status.ok()) {
    notes.push_back(absl::StrCat(problem, ", ", DesignerShortName(designer.algorithm), ": ",
                                 designer.status.ToString()));
    return absl::StrCat("error (note ", notes.size(), ")");
  }
  const Quartiles quartiles = ComputeQuartiles(designer.regrets);
  return absl::StrCat(Number(quartiles.median), " [", Number(quartiles.lower), ", ",
                      Number(quartiles.upper), "]");
}

}  // namespace

std::string DesignerShortName(v1::Algorithm algorithm) {
  switch (algorithm) {
    case v1::RANDOM_SEARCH:
      return "random";
    case v1::QUASI_RANDOM_SEARCH:
      return "quasi-random";
    case v1::GAUSSIAN_PROCESS_BANDIT:
      return "GP";
    case v1::GRID_SEARCH:
      return "grid";
    default:
      return v1::Algorithm_Name(algorithm);
  }
}

std::string TargetText(const std::string& problem) {
  return NeedsTenfold(problem) ? "GP ≤ 0.1×random, < quasi" : "GP < random, < quasi";
}

std::string TargetMet(const ProblemRegrets& row) {
  const std::optional<double> gp = Median(Find(row, v1::GAUSSIAN_PROCESS_BANDIT));
  const std::optional<double> random = Median(Find(row, v1::RANDOM_SEARCH));
  if (!gp.has_value() || !random.has_value()) return "—";
  bool met = Better(*gp, *random);
  if (NeedsTenfold(row.problem)) met = met && *gp <= kTenfold * *random;
  const std::optional<double> quasi = Median(Find(row, v1::QUASI_RANDOM_SEARCH));
  if (quasi.has_value()) met = met && Better(*gp, *quasi);
  return met ? "yes" : "no";
}

std::string FormatRegretTable(const std::vector<ProblemRegrets>& rows) {
  if (rows.empty()) return "";
  std::vector<std::string> header = {"problem", "goal", "f*"};
  for (const DesignerRegrets& designer : rows.front().designers) {
    header.push_back(DesignerShortName(designer.algorithm));
  }
  for (const char* column : {"GP/random", "target", "met"}) header.push_back(column);

  std::string table = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i) absl::StrAppend(&table, "---|");
  absl::StrAppend(&table, "\n");

  std::vector<std::string> notes;
  for (const ProblemRegrets& row : rows) {
    std::vector<std::string> cells = {row.problem,
                                      row.goal == v1::MetricSpec::MAXIMIZE ? "max" : "min",
                                      absl::StrFormat("%.6g", row.optimal_value)};
    for (const DesignerRegrets& designer : row.designers) {
      cells.push_back(Cell(designer, notes, row.problem));
    }
    const std::optional<double> gp = Median(Find(row, v1::GAUSSIAN_PROCESS_BANDIT));
    const std::optional<double> random = Median(Find(row, v1::RANDOM_SEARCH));
    cells.push_back(gp.has_value() && random.has_value() && *random > 0 ? Number(*gp / *random)
                                                                        : "—");
    cells.push_back(TargetText(row.problem));
    cells.push_back(TargetMet(row));
    absl::StrAppend(&table, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  for (size_t i = 0; i < notes.size(); ++i) {
    absl::StrAppend(&table, "\nNote ", i + 1, ": ", notes[i], "\n");
  }
  return table;
}

}  // namespace vernier::bench
