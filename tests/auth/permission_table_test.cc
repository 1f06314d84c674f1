#include "auth/permission_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "auth/resource_field.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/audit_service.pb.h"
#include "vernier/v1/auth_service.pb.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study_service.pb.h"

namespace vernier::auth {
namespace {

using google::protobuf::FileDescriptor;
using google::protobuf::MessageFactory;
using google::protobuf::MethodDescriptor;
using google::protobuf::ServiceDescriptor;

// Every proto file of Vernier that declares a service. A new service file
// must be added here; WalkedFilesAreEveryServiceFile checks the list against
// the generated pool's vernier.v1 package.
std::vector<const FileDescriptor*> ServiceFiles() {
  return {v1::CreateTokenRequest::descriptor()->file(), v1::GetStudyRequest::descriptor()->file(),
          v1::GetJobRequest::descriptor()->file(), v1::HeartbeatRequest::descriptor()->file(),
          v1::ListAuditEntriesRequest::descriptor()->file()};
}

std::string PathOf(const MethodDescriptor& method) {
  return absl::StrCat("/", method.service()->full_name(), "/", method.name());
}

TEST(PermissionTableTest, EveryMethodOfEveryServiceHasARow) {
  int methods = 0;
  for (const FileDescriptor* file : ServiceFiles()) {
    for (int s = 0; s < file->service_count(); ++s) {
      const ServiceDescriptor* service = file->service(s);
      for (int m = 0; m < service->method_count(); ++m) {
        ++methods;
        const std::string path = PathOf(*service->method(m));
        EXPECT_NE(FindPermission(path), nullptr) << path << " has no row in the permission table";
      }
    }
  }
  EXPECT_EQ(methods, static_cast<int>(PermissionTable().size()))
      << "the table has rows for methods that do not exist";
}

TEST(PermissionTableTest, WalkedFilesAreEveryServiceFile) {
  // Each service in the package vernier.v1 must come from a walked file.
  std::set<std::string> walked;
  for (const FileDescriptor* file : ServiceFiles()) {
    for (int s = 0; s < file->service_count(); ++s) walked.insert(file->service(s)->full_name());
  }
  for (const std::string name :
       {"vernier.v1.AuthService", "vernier.v1.StudyService", "vernier.v1.JobService",
        "vernier.v1.AgentService", "vernier.v1.AuditService"}) {
    EXPECT_TRUE(walked.count(name)) << name;
  }
  EXPECT_EQ(walked.size(), 5u) << "a service file is missing from ServiceFiles()";
}

TEST(PermissionTableTest, EveryResourceFieldNamesAFieldOfTheRequest) {
  const auto* pool = google::protobuf::DescriptorPool::generated_pool();
  for (const MethodPermission& row : PermissionTable()) {
    if (row.resource_field.empty()) continue;
    const std::string path(row.method.substr(1));
    const size_t slash = path.find('/');
    const ServiceDescriptor* service = pool->FindServiceByName(path.substr(0, slash));
    ASSERT_NE(service, nullptr) << row.method;
    const MethodDescriptor* method = service->FindMethodByName(path.substr(slash + 1));
    ASSERT_NE(method, nullptr) << row.method;
    const google::protobuf::Message* request =
        MessageFactory::generated_factory()->GetPrototype(method->input_type());
    if (row.ownership == Ownership::kAgentAttempt) {
      EXPECT_TRUE(ReplicaOf(*request, row.resource_field).ok()) << row.method;
    } else {
      EXPECT_TRUE(StringField(*request, row.resource_field).ok()) << row.method;
    }
  }
}

TEST(PermissionTableTest, OwnershipRulesNameTheirResource) {
  for (const MethodPermission& row : PermissionTable()) {
    if (row.ownership != Ownership::kNone) {
      EXPECT_FALSE(row.resource_field.empty()) << row.method;
    }
    // Only an agent's own reports take the AGENT role, and they all do.
    EXPECT_EQ(row.min_role == v1::AGENT, row.ownership == Ownership::kAgentAttempt) << row.method;
  }
}

// The audit log's classes (docs/security.md): measurement writes and
// heartbeats are data access, every other change admin activity, the
// audit log's own reads are reads.
TEST(PermissionTableTest, MeasurementWritesAreDataAccessOtherChangesAdminActivity) {
  for (const MethodPermission& row : PermissionTable()) {
    const bool measurement = row.method == "/vernier.v1.StudyService/AddMeasurement" ||
                             row.method == "/vernier.v1.AgentService/ReportMeasurements" ||
                             row.method == "/vernier.v1.AgentService/Heartbeat";
    EXPECT_EQ(row.data_write, measurement) << row.method;
    EXPECT_EQ(IsAdminActivity(row), row.mutating && !measurement) << row.method;
  }
  EXPECT_TRUE(IsAdminActivity(*FindPermission("/vernier.v1.AgentService/ReportExit")));
  EXPECT_TRUE(IsAdminActivity(*FindPermission("/vernier.v1.JobService/CancelJob")));
  EXPECT_FALSE(IsAdminActivity(*FindPermission("/vernier.v1.AuditService/ListAuditEntries")));
}

// The dashboard answers a study's trials from the table it keeps to whoever
// GetStudy lets in (http/dashboard_feed.h): reading a study and reading its
// trials must need the same permission.
TEST(PermissionTableTest, ReadingAStudyAndItsTrialsNeedsTheSamePermission) {
  const MethodPermission& study = *FindPermission("/vernier.v1.StudyService/GetStudy");
  for (const char* method : {"/vernier.v1.StudyService/ListTrials",
                             "/vernier.v1.StudyService/GetTrial",
                             "/vernier.v1.StudyService/ListOptimalTrials"}) {
    const MethodPermission& trials = *FindPermission(method);
    EXPECT_EQ(trials.min_role, study.min_role) << method;
    EXPECT_EQ(trials.ownership, study.ownership) << method;
    EXPECT_EQ(trials.resource_field, study.resource_field) << method;
    EXPECT_FALSE(trials.mutating) << method;
  }
}

TEST(PermissionTableTest, UnknownMethodHasNoRow) {
  EXPECT_EQ(FindPermission("/vernier.v1.StudyService/Nope"), nullptr);
}

}  // namespace
}  // namespace vernier::auth
