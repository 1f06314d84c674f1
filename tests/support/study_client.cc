#include "tests/support/study_client.h"

#include "tests/support/token_channel.h"

namespace vernier::testing {

std::shared_ptr<grpc::Channel> OwnChannel(
    const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 20);
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 20);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 100);
  return ChannelWithLocalToken(address, credentials, arguments);
}

StudyClient::StudyClient(const std::string& address, std::chrono::milliseconds deadline,
                         const std::shared_ptr<grpc::ChannelCredentials>& credentials)
    : stub_(v1::StudyService::NewStub(OwnChannel(address, credentials))), deadline_(deadline) {}

void StudyClient::Prepare(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() + deadline_);
  // A connection refused or dropped while connecting (a server restarting,
  // a loaded machine) is retried until the deadline, as agents do.
  context.set_wait_for_ready(true);
}

grpc::Status StudyClient::CreateStudy(const v1::Study& study, v1::Study* created) {
  grpc::ClientContext context;
  Prepare(context);
  v1::CreateStudyRequest request;
  *request.mutable_study() = study;
  v1::Study response;
  grpc::Status status = stub_->CreateStudy(&context, request, &response);
  if (created != nullptr) *created = std::move(response);
  return status;
}

grpc::Status StudyClient::Suggest(const std::string& study_name, int count,
                                  const std::string& client_id,
                                  v1::SuggestTrialsResponse* response) {
  grpc::ClientContext context;
  Prepare(context);
  v1::SuggestTrialsRequest request;
  request.set_study_name(study_name);
  request.set_count(count);
  request.set_client_id(client_id);
  return stub_->SuggestTrials(&context, request, response);
}

grpc::Status StudyClient::AddMeasurement(const std::string& study_name, int64_t trial_id,
                                         const v1::Measurement& measurement, v1::Trial* trial) {
  grpc::ClientContext context;
  Prepare(context);
  v1::AddMeasurementRequest request;
  request.set_study_name(study_name);
  request.set_trial_id(trial_id);
  *request.mutable_measurement() = measurement;
  v1::Trial response;
  grpc::Status status = stub_->AddMeasurement(&context, request, &response);
  if (trial != nullptr) *trial = std::move(response);
  return status;
}

grpc::Status StudyClient::Complete(const std::string& study_name, int64_t trial_id,
                                   const v1::Measurement* final_measurement, v1::Trial* trial) {
  grpc::ClientContext context;
  Prepare(context);
  v1::CompleteTrialRequest request;
  request.set_study_name(study_name);
  request.set_trial_id(trial_id);
  if (final_measurement != nullptr) *request.mutable_final_measurement() = *final_measurement;
  v1::Trial response;
  grpc::Status status = stub_->CompleteTrial(&context, request, &response);
  if (trial != nullptr) *trial = std::move(response);
  return status;
}

grpc::Status StudyClient::GetTrial(const std::string& study_name, int64_t trial_id,
                                   v1::Trial* trial) {
  grpc::ClientContext context;
  Prepare(context);
  v1::GetTrialRequest request;
  request.set_study_name(study_name);
  request.set_trial_id(trial_id);
  return stub_->GetTrial(&context, request, trial);
}

grpc::Status StudyClient::GetStudy(const std::string& study_name, v1::Study* study) {
  grpc::ClientContext context;
  Prepare(context);
  v1::GetStudyRequest request;
  request.set_study_name(study_name);
  return stub_->GetStudy(&context, request, study);
}

grpc::Status StudyClient::ListTrials(const std::string& study_name, bool include_measurements,
                                     std::vector<v1::Trial>* trials) {
  trials->clear();
  std::string page_token;
  do {
    grpc::ClientContext context;
    Prepare(context);
    v1::ListTrialsRequest request;
    request.set_study_name(study_name);
    request.set_include_measurements(include_measurements);
    request.set_page_token(page_token);
    v1::ListTrialsResponse response;
    grpc::Status status = stub_->ListTrials(&context, request, &response);
    if (!status.ok()) return status;
    for (v1::Trial& trial : *response.mutable_trials()) trials->push_back(std::move(trial));
    page_token = response.next_page_token();
  } while (!page_token.empty());
  return grpc::Status::OK;
}

v1::Measurement MakeMeasurement(int64_t step, int64_t sequence_number, const std::string& metric_id,
                                double value) {
  v1::Measurement measurement;
  measurement.set_step(step);
  measurement.set_sequence_number(sequence_number);
  v1::Metric* metric = measurement.add_metrics();
  metric->set_metric_id(metric_id);
  metric->set_value(value);
  return measurement;
}

v1::Study SimpleStudy(const std::string& name, const std::string& metric_id, int max_trials,
                      int max_parallel_trials) {
  v1::Study study;
  study.set_name(name);
  v1::StudySpec& spec = *study.mutable_spec();
  v1::ParameterSpec& x = *spec.add_parameters();
  x.set_parameter_name("x");
  x.set_type(v1::ParameterSpec::DOUBLE);
  x.set_min_value(0);
  x.set_max_value(1);
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id(metric_id);
  metric.set_goal(v1::MetricSpec::MAXIMIZE);
  spec.set_algorithm(v1::RANDOM_SEARCH);
  spec.set_max_trials(max_trials);
  spec.set_max_parallel_trials(max_parallel_trials);
  return study;
}

}  // namespace vernier::testing
