#include "tests/support/served_study_test.h"

namespace vernier::testing {

void ServedStudyTest::ServeStudy(const std::string& study_name, const std::string& metric_id) {
  server_ = MakeServer();
  server_->Start();
  client_ = std::make_unique<StudyClient>(server_->address());
  const grpc::Status created = client_->CreateStudy(SimpleStudy(study_name, metric_id, 0, 0));
  ASSERT_TRUE(created.ok()) << created.error_message();
}

}  // namespace vernier::testing
