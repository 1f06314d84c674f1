#include "scheduler/slurm/slurm_output_parser.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/slurm/slurm_handle.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// As Slurm 22.05 prints them (shortened).
constexpr char kRunningJob[] =
    "JobId=2 JobName=vernier-j-1 UserId=root(0) GroupId=root(0) JobState=RUNNING Reason=None "
    "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:0 DerivedExitCode=0:0 "
    "NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=3 NumTasks=3 JOB_GRES=gpu:3   Nodes=vm "
    "CPU_IDs=0-2 Mem=0 GRES=gpu:3(IDX:0-1,3) MinCPUsNode=1 Command=/tmp/a b.sh WorkDir=/tmp\n";
constexpr char kPendingJob[] =
    "JobId=7 JobName=x JobState=PENDING Reason=Resources Dependency=(null) ExitCode=0:0 "
    "NodeList=(null) NumNodes=1\n";
constexpr char kCancelledJob[] =
    "JobId=8 JobName=x JobState=CANCELLED Reason=None ExitCode=0:15 NodeList=vm BatchHost=vm "
    "JOB_GRES=gpu:2 Nodes=vm CPU_IDs=0-1 Mem=0 GRES= \n";

TEST(SlurmOutputParserTest, ReadsARunningJobWithItsGpuIndexes) {
  absl::StatusOr<SlurmJobInfo> job = ParseScontrolJob(kRunningJob);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->job_id, "2");
  EXPECT_EQ(job->state, "RUNNING");
  EXPECT_EQ(job->node_list, "vm");
  EXPECT_THAT(job->gpus, ElementsAre(0, 1, 3));
  EXPECT_FALSE(IsEndedJobState(job->state));
  EXPECT_FALSE(IsWaitingJobState(job->state));
}

TEST(SlurmOutputParserTest, ReadsPendingAndCancelledJobs) {
  absl::StatusOr<SlurmJobInfo> pending = ParseScontrolJob(kPendingJob);
  ASSERT_TRUE(pending.ok()) << pending.status();
  EXPECT_EQ(pending->reason, "Resources");
  EXPECT_EQ(pending->node_list, "");
  EXPECT_TRUE(pending->gpus.empty());
  EXPECT_TRUE(IsWaitingJobState(pending->state));

  absl::StatusOr<SlurmJobInfo> cancelled = ParseScontrolJob(kCancelledJob);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->exit_code, 0);
  EXPECT_EQ(cancelled->term_signal, 15);
  EXPECT_TRUE(cancelled->gpus.empty());
  EXPECT_TRUE(IsEndedJobState(cancelled->state));
}

TEST(SlurmOutputParserTest, ReadsTypedAndSeveralGpuGres) {
  absl::StatusOr<SlurmJobInfo> job = ParseScontrolJob(
      "JobId=3 JobState=RUNNING ExitCode=0:0 NodeList=n1 GRES=gpu:a100:2(IDX:4-5),mps:0\n");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_THAT(job->gpus, ElementsAre(4, 5));
}

TEST(SlurmOutputParserTest, UnreadableJobRecordsAreErrorsThatQuoteThem) {
  EXPECT_THAT(ParseScontrolJob("garbage").status().message(),
              HasSubstr("cannot read scontrol's job record 'garbage'"));
  EXPECT_THAT(ParseScontrolJob("JobId=1 JobState=RUNNING ExitCode=x").status().message(),
              HasSubstr("cannot read the exit code 'x': expected CODE:SIGNAL"));
  EXPECT_THAT(ParseScontrolJob("JobId=1 JobState=RUNNING ExitCode=0:0 GRES=gpu:1(IDX:a)")
                  .status()
                  .message(),
              HasSubstr("'a' is not N or N-M"));
}

TEST(SlurmOutputParserTest, ReadsSbatchJobIds) {
  EXPECT_EQ(*ParseSbatchJobId("123\n"), "123");
  EXPECT_EQ(*ParseSbatchJobId("124;cluster\n"), "124");
  EXPECT_THAT(ParseSbatchJobId("Submitted batch job 5").status().message(),
              HasSubstr("cannot read sbatch's answer"));
}

TEST(SlurmOutputParserTest, ReadsSacctRowsAndItsAbsence) {
  absl::StatusOr<SlurmJobInfo> job = ParseSacctJob("42|CANCELLED by 0|0:15|vm\n");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, "CANCELLED");
  EXPECT_EQ(job->term_signal, 15);
  EXPECT_EQ(job->node_list, "vm");
  EXPECT_TRUE(absl::IsNotFound(ParseSacctJob("").status()));
  EXPECT_THAT(ParseSacctJob("42|x\n").status().message(), HasSubstr("sacct's row"));
}

TEST(SlurmOutputParserTest, CountsGpusOfEveryGresForm) {
  EXPECT_EQ(*ParseGresGpuCount("gpu:4"), 4);
  EXPECT_EQ(*ParseGresGpuCount("(null)"), 0);
  EXPECT_EQ(*ParseGresGpuCount("gpu:a100:2(S:0-1),gpu:v100:3(S:0,1)"), 5);
  EXPECT_EQ(*ParseGresGpuCount("mps:100,gpu:2"), 2);
  EXPECT_FALSE(ParseGresGpuCount("gpu:a:b").ok());
}

TEST(SlurmOutputParserTest, ReadsSinfoNodeLines) {
  absl::StatusOr<std::vector<SlurmNodeInfo>> nodes =
      ParseSinfoNodes("vm|gpu:4|idle\nn2|(null)|down*\n");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].name, "vm");
  EXPECT_EQ((*nodes)[0].gpus, 4);
  EXPECT_EQ((*nodes)[1].gpus, 0);
  EXPECT_EQ((*nodes)[1].state, "down*");
  EXPECT_THAT(ParseSinfoNodes("vm gpu:4").status().message(),
              HasSubstr("expected NODE|GRES|STATE"));
}

TEST(SlurmOutputParserTest, ReadsIndexLists) {
  EXPECT_THAT(*ParseIndexList("0-2,5"), ElementsAre(0, 1, 2, 5));
  EXPECT_THAT(*ParseIndexList(""), ElementsAre());
  EXPECT_FALSE(ParseIndexList("3-1").ok());
  EXPECT_FALSE(ParseIndexList("1-2-3").ok());
}

TEST(SlurmHandleTest, RoundTripsAndRejectsOtherHandles) {
  const SlurmHandle handle{.slurm_job_id = "42", .job_id = "job;with=odd"};
  absl::StatusOr<SlurmHandle> parsed = SlurmHandle::Parse(handle.Format());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(handle.Format(), "slurm:42;job=job;with=odd");
  EXPECT_EQ(parsed->slurm_job_id, "42");
  EXPECT_EQ(parsed->job_id, "job;with=odd");
  EXPECT_THAT(SlurmHandle::Parse("local:1@2;job=x").status().message(),
              HasSubstr("is not a Slurm backend handle: it does not start with 'slurm:'"));
  EXPECT_THAT(SlurmHandle::Parse("slurm:abc").status().message(),
              HasSubstr("'abc' is not a Slurm job id"));
}

}  // namespace
}  // namespace vernier::scheduler
