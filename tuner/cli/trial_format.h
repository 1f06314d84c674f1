#ifndef VERNIER_TUNER_CLI_TRIAL_FORMAT_H_
#define VERNIER_TUNER_CLI_TRIAL_FORMAT_H_

#include <optional>
#include <string>
#include <vector>

#include "tuner/cli/table_printer.h"
#include "vernier/v1/study.pb.h"

namespace vernier::cli {

// The metric's value in the measurement (an empty id: its first metric).
std::optional<double> FindMetric(const v1::Measurement& measurement, const std::string& metric_id);

// A metric's value in a trial's final measurement, else its latest; "-"
// when neither has it. An empty metric id takes the first metric.
std::string FormatMetricValue(const v1::Trial& trial, const std::string& metric_id);

// "lr=0.01, layers=3", or "-" without parameters.
std::string FormatParameters(const v1::Trial& trial);

// "accuracy (MAXIMIZE), latency_ms (at most 50)": every metric of a spec.
std::string FormatMetricSpecs(const v1::StudySpec& spec);

// A table of trials with one column per metric of the spec (objectives,
// then outcome constraints in the spec's order) and their parameters: a
// Pareto front. `indent` spaces before each row.
void PrintTrialsWithMetrics(const std::vector<v1::Trial>& trials, const v1::StudySpec& spec,
                            int indent, std::ostream& out);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_TRIAL_FORMAT_H_
