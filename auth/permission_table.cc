#include "auth/permission_table.h"

#include <array>

namespace vernier::auth {
namespace {

using enum Ownership;
constexpr v1::Role kViewer = v1::VIEWER;
constexpr v1::Role kDeveloper = v1::DEVELOPER;
constexpr v1::Role kAdmin = v1::ADMIN;
constexpr v1::Role kAgent = v1::AGENT;

// The one permission table (docs/security.md shows it as a table too).
constexpr std::array kTable = {
    // Tokens are the admin's; sharing is the owner's.
    MethodPermission{"/vernier.v1.AuthService/CreateToken", kAdmin, kNone, "", true},
    MethodPermission{"/vernier.v1.AuthService/ListTokens", kAdmin, kNone, "", false},
    MethodPermission{"/vernier.v1.AuthService/RevokeToken", kAdmin, kNone, "token_id", true},
    MethodPermission{"/vernier.v1.AuthService/ShareStudy", kDeveloper, kStudyOwner, "name", true},
    MethodPermission{"/vernier.v1.AuthService/ShareJob", kDeveloper, kJobOwner, "name", true},
    MethodPermission{"/vernier.v1.AuthService/WhoAmI", kViewer, kNone, "", false},

    MethodPermission{"/vernier.v1.StudyService/CreateStudy", kDeveloper, kNone, "study.name", true},
    MethodPermission{"/vernier.v1.StudyService/GetStudy", kViewer, kNone, "study_name", false},
    MethodPermission{"/vernier.v1.StudyService/ListStudies", kViewer, kNone, "", false},
    MethodPermission{"/vernier.v1.StudyService/DeleteStudy", kDeveloper, kStudyWrite, "study_name",
                     true},
    MethodPermission{"/vernier.v1.StudyService/SuggestTrials", kDeveloper, kStudyWrite,
                     "study_name", true},
    MethodPermission{"/vernier.v1.StudyService/CreateTrial", kDeveloper, kStudyWrite, "study_name",
                     true},
    MethodPermission{"/vernier.v1.StudyService/GetTrial", kViewer, kNone, "study_name", false},
    MethodPermission{"/vernier.v1.StudyService/ListTrials", kViewer, kNone, "study_name", false},
    MethodPermission{"/vernier.v1.StudyService/AddMeasurement", kDeveloper, kStudyWrite,
                     "study_name", true, /*data_write=*/true},
    MethodPermission{"/vernier.v1.StudyService/CompleteTrial", kDeveloper, kStudyWrite,
                     "study_name", true},
    MethodPermission{"/vernier.v1.StudyService/StopTrial", kDeveloper, kStudyWrite, "study_name",
                     true},
    // May stop the trial: a change.
    MethodPermission{"/vernier.v1.StudyService/CheckEarlyStopping", kDeveloper, kStudyWrite,
                     "study_name", true},
    MethodPermission{"/vernier.v1.StudyService/ListOptimalTrials", kViewer, kNone, "study_name",
                     false},
    MethodPermission{"/vernier.v1.StudyService/ParseStudySpec", kViewer, kNone, "", false},
    MethodPermission{"/vernier.v1.StudyService/SetStudyUserAttributes", kDeveloper, kStudyWrite,
                     "study_name", true},
    MethodPermission{"/vernier.v1.StudyService/SetTrialUserAttributes", kDeveloper, kStudyWrite,
                     "study_name", true},

    MethodPermission{"/vernier.v1.JobService/SubmitTrainingJob", kDeveloper, kNone, "job.job_id",
                     true},
    MethodPermission{"/vernier.v1.JobService/GetJob", kViewer, kNone, "job_id", false},
    MethodPermission{"/vernier.v1.JobService/ListTrialRuns", kViewer, kNone, "job_id", false},
    MethodPermission{"/vernier.v1.JobService/ListJobs", kViewer, kNone, "", false},
    MethodPermission{"/vernier.v1.JobService/CancelJob", kDeveloper, kJobWrite, "job_id", true},
    MethodPermission{"/vernier.v1.JobService/StreamLogs", kViewer, kNone, "job_id", false},
    MethodPermission{"/vernier.v1.JobService/DeleteJob", kDeveloper, kJobWrite, "job_id", true},

    // Measurements and heartbeats write data (audit: data access); the
    // exit report ends the trial (admin activity).
    MethodPermission{"/vernier.v1.AgentService/ReportMeasurements", kAgent, kAgentAttempt,
                     "replica", true, /*data_write=*/true},
    MethodPermission{"/vernier.v1.AgentService/ReportExit", kAgent, kAgentAttempt, "replica", true},
    MethodPermission{"/vernier.v1.AgentService/Heartbeat", kAgent, kAgentAttempt, "replica", true,
                     /*data_write=*/true},

    // The audit log is the admin's.
    MethodPermission{"/vernier.v1.AuditService/ListAuditEntries", kAdmin, kNone, "", false},
    MethodPermission{"/vernier.v1.AuditService/VerifyAuditLog", kAdmin, kNone, "", false},
};

}  // namespace

std::span<const MethodPermission> PermissionTable() { return kTable; }

const MethodPermission* FindPermission(absl::string_view method) {
  for (const MethodPermission& row : kTable) {
    if (row.method == method) return &row;
  }
  return nullptr;
}

}  // namespace vernier::auth
