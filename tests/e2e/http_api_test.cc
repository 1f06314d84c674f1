// End to end: the HTTP/JSON API of a real `vernier serve` (docs/http-api.md),
// called with curl, running a real job; and the curl examples of
// docs/http-api.md themselves.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "auth/api_token_codec.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study_service.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct HttpAnswer {
  int status = 0;
  std::string body;
};

// The dashboard's and API's base URL from the server's log.
// The admin token of the server the test talks to: Http() sends it.
std::string& Bearer() {
  static std::string token;
  return token;
}

// The server's HTTP base URL; also takes its admin token (DATA_DIR/admin.token)
// for the requests that follow, since authentication is on.
std::string HttpUrl(const ServerProcess& server) {
  const std::regex url("dashboard and HTTP API at (https?://\\S+/)");
  std::smatch match;
  const std::string log = server.log();
  if (!std::regex_search(log, match, url)) return "";
  Bearer() = std::string(absl::StripAsciiWhitespace(ReadFile(server.data_dir() + "/admin.token")));
  return match[1];
}

std::vector<std::string> AuthorizationHeader() {
  return {"-H", "Authorization: Bearer " + Bearer()};
}

// One request with curl; `extra` goes before the URL (e.g. --cacert).
HttpAnswer Http(const std::string& method, const std::string& url, const std::string& body = "",
                std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {"curl", "-sS", "-X", method, "-w", "\n%{http_code}"};
  if (!body.empty()) {
    argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", body});
  }
  // The server's admin token, unless the request brings its own credentials.
  const bool own_credentials = std::any_of(extra.begin(), extra.end(), [](const std::string& arg) {
    return arg.starts_with("Cookie:") || arg.starts_with("Authorization:");
  });
  if (!own_credentials && !Bearer().empty()) {
    const std::vector<std::string> header = AuthorizationHeader();
    argv.insert(argv.end(), header.begin(), header.end());
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(url);
  const CommandResult result = RunCommand(argv, std::chrono::seconds(60));
  HttpAnswer answer;
  const size_t newline = result.out.rfind('\n');
  if (result.exit_code != 0 || newline == std::string::npos) {
    answer.body = result.out + result.err;
    return answer;
  }
  answer.body = result.out.substr(0, newline);
  answer.status = std::stoi(result.out.substr(newline + 1));
  return answer;
}

template <typename Message>
Message FromJson(const std::string& json) {
  Message message;
  const auto parsed = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(parsed.ok()) << parsed.ToString() << "\n" << json;
  return message;
}

// The error body of an answer, checked to be one.
v1::HttpErrorResponse::Error ErrorOf(const HttpAnswer& answer) {
  return FromJson<v1::HttpErrorResponse>(answer.body).error();
}

constexpr char kJobJson[] = R"({
  "jobId": "%s",
  "trainingInput": {
    "hyperparameters": {
      "goal": "MAXIMIZE",
      "hyperparameterMetricTag": "accuracy",
      "maxTrials": %d,
      "maxParallelTrials": 1,
      "algorithm": "RANDOM_SEARCH",
      "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.01, "maxValue": 0.1}]
    }
  },
  "command": ["/bin/sh", "-c", "%s", "trainer"]
})";

std::string JobJson(const std::string& job_id, int max_trials, const std::string& script) {
  std::string json = kJobJson;
  json.replace(json.find("%s"), 2, job_id);
  json.replace(json.find("%d"), 2, std::to_string(max_trials));
  json.replace(json.find("%s"), 2, script);
  return json;
}

// Polls GET .../jobs/JOB until it ended (at most 120 s).
v1::Job WaitForEnd(const std::string& base, const std::string& job_id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  v1::Job job;
  while (std::chrono::steady_clock::now() < deadline) {
    job = FromJson<v1::Job>(Http("GET", base + "v1/projects/-/jobs/" + job_id).body);
    if (job.state() == v1::Job::SUCCEEDED || job.state() == v1::Job::FAILED ||
        job.state() == v1::Job::CANCELLED) {
      return job;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return job;
}

// `vernier ARGS` against `server` as its admin (Bearer()).
CommandResult AsAdmin(const ServerProcess& server, std::vector<std::string> args) {
  return RunCommand(Cli(server, std::move(args)), std::chrono::seconds(60),
                    {{"VERNIER_TOKEN", Bearer()}});
}

// A new API token of `user` with `role` (vernier tokens create).
std::string CreateToken(const ServerProcess& server, const std::string& user,
                        const std::string& role) {
  const CommandResult created =
      AsAdmin(server, {"tokens", "create", "--user", user, "--role", role});
  EXPECT_EQ(created.exit_code, 0) << created.err;
  return created.out.substr(0, created.out.find('\n'));
}

// vernier tokens revoke, by the token's id (the first 12 hex digits of its hash).
void RevokeToken(const ServerProcess& server, const std::string& token) {
  const CommandResult revoked =
      AsAdmin(server, {"tokens", "revoke", auth::TokenIdOfHash(auth::HashToken(token))});
  EXPECT_EQ(revoked.exit_code, 0) << revoked.err;
}

// The value of the first `name` header of a curl -i answer; empty if none.
std::string HeaderOf(const std::string& answer, const std::string& name) {
  std::smatch match;
  if (!std::regex_search(answer, match, std::regex("\n" + name + ": ([^\r\n]*)"))) return "";
  return match[1];
}

class HttpApiTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(HttpApiTest, JobsInAiPlatformsShapesAndStudiesWithPageTokens) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_THAT(base, HasSubstr("http://127.0.0.1:")) << server.log();

  const HttpAnswer submitted = Http("POST", base + "v1/projects/my-project/jobs",
                                    JobJson("http_job", 3, "echo accuracy=0.5"));
  ASSERT_EQ(submitted.status, 200) << submitted.body;
  EXPECT_EQ(FromJson<v1::Job>(submitted.body).job_id(), "http_job");

  const v1::Job ended = WaitForEnd(base, "http_job");
  ASSERT_EQ(ended.state(), v1::Job::SUCCEEDED) << ended.DebugString() << server.log();
  EXPECT_EQ(ended.training_output().completed_trial_count(), 3);

  // Any project names this server, "-" included.
  for (const std::string project : {"-", "another"}) {
    const HttpAnswer listed = Http("GET", base + "v1/projects/" + project + "/jobs");
    ASSERT_EQ(listed.status, 200) << listed.body;
    const auto jobs = FromJson<v1::ListJobsResponse>(listed.body);
    ASSERT_EQ(jobs.jobs_size(), 1);
    EXPECT_EQ(jobs.jobs(0).job_id(), "http_job");
  }
  const auto described =
      FromJson<v1::GetJobResponse>(Http("GET", base + "v1/projects/-/jobs/http_job:describe").body);
  EXPECT_EQ(described.trial_counts().succeeded(), 3);
  EXPECT_EQ(described.trial_runs_size(), 3);

  // Studies and trials, paged.
  const auto studies = FromJson<v1::ListStudiesResponse>(Http("GET", base + "v1/studies").body);
  ASSERT_EQ(studies.studies_size(), 1);
  const std::string study = studies.studies(0).name();
  EXPECT_EQ(FromJson<v1::Study>(Http("GET", base + "v1/studies/" + study).body).name(), study);
  std::vector<int64_t> ids;
  std::string token;
  int pages = 0;
  do {
    const HttpAnswer page =
        Http("GET", base + "v1/studies/" + study + "/trials?pageSize=2&pageToken=" + token);
    ASSERT_EQ(page.status, 200) << page.body;
    const auto trials = FromJson<v1::ListTrialsResponse>(page.body);
    for (const v1::Trial& trial : trials.trials()) ids.push_back(trial.id());
    token = trials.next_page_token();
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(pages, 2);

  const auto succeeded = FromJson<v1::ListTrialsResponse>(
      Http("GET",
           base + "v1/studies/" + study + "/trials?states=SUCCEEDED&includeMeasurements=true")
          .body);
  ASSERT_EQ(succeeded.trials_size(), 3);
  EXPECT_GE(succeeded.trials(0).measurements_size(), 1);
  const auto trial =
      FromJson<v1::Trial>(Http("GET", base + "v1/studies/" + study + "/trials/2").body);
  EXPECT_EQ(trial.id(), 2);
  const auto best = FromJson<v1::ListOptimalTrialsResponse>(
      Http("GET", base + "v1/studies/" + study + "/trials:optimal?top=1").body);
  EXPECT_EQ(best.trials_size(), 1);
}

TEST_F(HttpApiTest, CancelStopsARunningJob) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  // curl -d without a Content-Type sends the JSON as a form: still the body.
  const CommandResult submitted =
      RunCommand({"curl", "-sS", "--fail-with-body", "-H", AuthorizationHeader()[1], "-d",
                  JobJson("long_job", 2, "sleep 600"), base + "v1/projects/-/jobs"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  // A POST with no body at all (no Content-Length) is answered too.
  const HttpAnswer cancelled = Http("POST", base + "v1/projects/-/jobs/long_job:cancel");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(WaitForEnd(base, "long_job").state(), v1::Job::CANCELLED);
}

TEST_F(HttpApiTest, ErrorsHaveTheHttpStatusOfTheirGrpcCode) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);

  const HttpAnswer missing = Http("GET", base + "v1/projects/-/jobs/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(ErrorOf(missing).code(), 404);
  EXPECT_EQ(ErrorOf(missing).status(), "NOT_FOUND");
  EXPECT_THAT(ErrorOf(missing).message(), HasSubstr("nope"));

  const HttpAnswer bad_number = Http("GET", base + "v1/studies?pageSize=many");
  EXPECT_EQ(bad_number.status, 400);
  EXPECT_EQ(ErrorOf(bad_number).status(), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorOf(bad_number).message(),
            "query parameter \"pageSize\": \"many\" is not an integer");

  // The store's one page-size check answers for every listing.
  for (const std::string listing : {"v1/projects/-/jobs", "v1/studies"}) {
    const HttpAnswer negative = Http("GET", base + listing + "?pageSize=-2");
    EXPECT_EQ(negative.status, 400) << listing;
    EXPECT_EQ(ErrorOf(negative).status(), "INVALID_ARGUMENT") << listing;
    EXPECT_EQ(ErrorOf(negative).message(),
              "page_size is -2; it must be positive, or 0 for no limit")
        << listing;
  }

  // A query value keeps the "=" it holds.
  const HttpAnswer bad_token = Http("GET", base + "v1/studies?pageToken=a=b");
  EXPECT_EQ(bad_token.status, 400);
  EXPECT_THAT(ErrorOf(bad_token).message(), HasSubstr("page_token \"a=b\" is not a token"));

  const HttpAnswer unknown = Http("GET", base + "v1/studies?colour=red");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(ErrorOf(unknown).message(), "unknown query parameter \"colour\"");

  const HttpAnswer bad_body = Http("POST", base + "v1/projects/-/jobs", "{\"jobId\": 7,");
  EXPECT_EQ(bad_body.status, 400);
  EXPECT_THAT(ErrorOf(bad_body).message(), HasSubstr("the request body is not a vernier.v1.Job"));

  const HttpAnswer invalid_job =
      Http("POST", base + "v1/projects/-/jobs", R"({"jobId": "1bad", "command": ["true"]})");
  EXPECT_EQ(invalid_job.status, 400);
  EXPECT_EQ(ErrorOf(invalid_job).status(), "INVALID_ARGUMENT");

  const HttpAnswer no_study =
      Http("POST", base + "v1/studies/nope/trials:suggest", "{\"count\": 1}");
  EXPECT_EQ(no_study.status, 404) << no_study.body;
  const HttpAnswer bad_measurement =
      Http("POST", base + "v1/studies/nope/trials/1:addMeasurement", "{\"step\": \"x\"}");
  EXPECT_EQ(bad_measurement.status, 400);
  EXPECT_THAT(ErrorOf(bad_measurement).message(),
              HasSubstr("the request body is not a vernier.v1.Measurement"));
  const HttpAnswer bad_trial_id = Http("POST", base + "v1/studies/s/trials/one:complete", "{}");
  EXPECT_EQ(bad_trial_id.status, 400);
  EXPECT_EQ(ErrorOf(bad_trial_id).message(), "the path's trial_id \"one\" is not an integer");

  const HttpAnswer no_route = Http("GET", base + "v1/elsewhere");
  EXPECT_EQ(no_route.status, 404);
  EXPECT_THAT(ErrorOf(no_route).message(), HasSubstr("no API at /v1/elsewhere"));

  const HttpAnswer wrong_method = Http("DELETE", base + "v1/projects/-/jobs");
  EXPECT_EQ(wrong_method.status, 501);
  EXPECT_EQ(ErrorOf(wrong_method).status(), "UNIMPLEMENTED");

  // Nothing was created by the failed calls.
  EXPECT_EQ(Http("GET", base + "v1/projects/-/jobs").body, "{}");
}

// The server's peak resident memory so far (VmHWM), in bytes.
int64_t PeakMemory(const ServerProcess& server) {
  const std::string status = ReadFile("/proc/" + std::to_string(server.pid()) + "/status");
  const std::regex peak("VmHWM:\\s+(\\d+) kB");
  std::smatch match;
  if (!std::regex_search(status, match, peak)) return -1;
  return std::stoll(match[1]) * 1024;
}

// A file of `megabytes` MiB of zeros compressed with gzip (about 1 kB per
// MiB): a gzip bomb.
std::string GzipBomb(const std::string& dir, int megabytes) {
  const std::string path = dir + "/bomb.gz";
  const CommandResult made = RunCommand(
      {"/bin/sh", "-c",
       absl::StrCat("head -c ", int64_t{megabytes} << 20, " /dev/zero | gzip -1 > ", path)},
      std::chrono::seconds(60));
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return path;
}

TEST_F(HttpApiTest, ACompressedBodyIsNeverInflatedBeforeAuthenticationNorPastTheLimit) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  // 512 MiB once inflated, half a MiB as sent.
  const std::string bomb = GzipBomb(dir_.path(), 512);
  const std::vector<std::string> gzip_body = {
      "-H",      "Content-Type: application/json", "-H", "Content-Encoding: gzip", "--data-binary",
      "@" + bomb};
  const int64_t before = PeakMemory(server);
  ASSERT_GT(before, 0);

  // No token: 401 without inflating anything.
  std::vector<std::string> anonymous = gzip_body;
  anonymous.insert(anonymous.end(), {"-H", "Authorization: Bearer nope"});
  const auto started = std::chrono::steady_clock::now();
  const HttpAnswer refused = Http("POST", base + "v1/studies", "", anonymous);
  EXPECT_EQ(refused.status, 401) << refused.body;
  EXPECT_EQ(ErrorOf(refused).status(), "UNAUTHENTICATED");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  // Nor on a path that is not the API's.
  const HttpAnswer elsewhere = Http("POST", base + "assets/x", "", anonymous);
  EXPECT_EQ(elsewhere.status, 404) << elsewhere.body;

  // A token: inflated up to the limit, then 413 naming it.
  const HttpAnswer too_large = Http("POST", base + "v1/studies", "", gzip_body);
  EXPECT_EQ(too_large.status, 413) << too_large.body;
  EXPECT_EQ(ErrorOf(too_large).code(), 413);
  EXPECT_EQ(ErrorOf(too_large).status(), "RESOURCE_EXHAUSTED");
  EXPECT_THAT(ErrorOf(too_large).message(),
              HasSubstr("the request body inflates (Content-Encoding: gzip) to more than the "
                        "limit of 4194304 bytes (4 MiB)"));

  // The server's memory never held the inflated body.
  EXPECT_LT(PeakMemory(server) - before, int64_t{64} << 20)
      << "peak RSS before " << before << ", after " << PeakMemory(server);

  // A small compressed body from a known caller is read as any other.
  const std::string small = dir_.path() + "/small.json.gz";
  ASSERT_EQ(RunCommand({"/bin/sh", "-c", "printf '{\"name\": 7' | gzip > " + small},
                       std::chrono::seconds(10))
                .exit_code,
            0);
  const HttpAnswer parsed = Http("POST", base + "v1/studies", "",
                                 {"-H", "Content-Type: application/json", "-H",
                                  "Content-Encoding: gzip", "--data-binary", "@" + small});
  EXPECT_EQ(parsed.status, 400) << parsed.body;
  EXPECT_THAT(ErrorOf(parsed).message(), HasSubstr("the request body is not a vernier.v1.Study"));
}

TEST_F(HttpApiTest, ABodyOverTheLimitIs413AndNeverHeldWhole) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  // 256 MiB of spaces: JSON whitespace.
  const std::string huge = dir_.path() + "/huge.json";
  ASSERT_EQ(RunCommand({"/bin/sh", "-c", "head -c 268435456 /dev/zero | tr '\\0' ' ' > " + huge},
                       std::chrono::seconds(60))
                .exit_code,
            0);
  const int64_t before = PeakMemory(server);
  ASSERT_GT(before, 0);

  // With its Content-Length, and sent in chunks without one.
  for (const bool chunked : {false, true}) {
    std::vector<std::string> extra = {"-H", "Content-Type: application/json", "--data-binary",
                                      "@" + huge};
    if (chunked) extra.insert(extra.end(), {"-H", "Transfer-Encoding: chunked"});
    const HttpAnswer too_large = Http("POST", base + "v1/projects/-/jobs", "", extra);
    EXPECT_EQ(too_large.status, 413) << chunked << " " << too_large.body.substr(0, 300);
    EXPECT_EQ(ErrorOf(too_large).code(), 413) << chunked;
    EXPECT_THAT(ErrorOf(too_large).message(),
                HasSubstr("the request body is larger than the limit of 4194304 bytes (4 MiB)"))
        << chunked;
  }
  EXPECT_LT(PeakMemory(server) - before, int64_t{64} << 20)
      << "peak RSS before " << before << ", after " << PeakMemory(server);

  // A body just under the limit is read and answered as usual.
  const std::string under = dir_.path() + "/under.json";
  ASSERT_EQ(RunCommand({"/bin/sh", "-c",
                        "{ head -c 4000000 /dev/zero | tr '\\0' ' '; printf '{\"jobId\": 7'; } > " +
                            under},
                       std::chrono::seconds(60))
                .exit_code,
            0);
  const HttpAnswer read =
      Http("POST", base + "v1/projects/-/jobs", "",
           {"-H", "Content-Type: application/json", "--data-binary", "@" + under});
  EXPECT_EQ(read.status, 400) << read.body;
  EXPECT_THAT(ErrorOf(read).message(), HasSubstr("the request body is not a vernier.v1.Job"));
}

// A TCP connection to the HTTP listener at `base` ("http://127.0.0.1:PORT/")
// that sent `request` and reads nothing; -1 when it could not connect.
int OpenConnection(const std::string& base, const std::string& request) {
  const size_t colon = base.rfind(':');
  const int port = std::stoi(base.substr(colon + 1));
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  if (!request.empty() && send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The status line of what the server sent on `fd` first (waits up to 5 s).
std::string FirstLineFrom(int fd) {
  timeval timeout{.tv_sec = 5, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string text;
  char c;
  while (text.size() < 200 && recv(fd, &c, 1, 0) == 1 && c != '\r') text.push_back(c);
  return text;
}

TEST_F(HttpApiTest, SlowAndStreamingConnectionsLeaveOtherCallersAnswered) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  const std::string url = base.substr(0, base.size() - 1);
  std::vector<int> held;
  // A slowloris: requests whose headers never end, sent without a token.
  for (int i = 0; i < 168; ++i) {
    held.push_back(OpenConnection(url, "GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  }
  // A viewer's event streams, as many as one caller may open (32), which
  // stay open and are never read.
  const std::string stream =
      "GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + Bearer() + "\r\n\r\n";
  for (int i = 0; i < 32; ++i) held.push_back(OpenConnection(url, stream));
  for (int fd : held) ASSERT_GE(fd, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  // 200 connections held: another caller is still answered at once.
  const auto started = std::chrono::steady_clock::now();
  const HttpAnswer whoami = Http("GET", base + "v1/whoami", "", {"--max-time", "10"});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(whoami.status, 200) << whoami.body;
  EXPECT_LT(took, std::chrono::seconds(1))
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";

  // One stream more for the same caller is refused, naming the limit.
  const int one_more = OpenConnection(url, stream);
  ASSERT_GE(one_more, 0);
  EXPECT_EQ(FirstLineFrom(one_more), "HTTP/1.1 429 Too Many Requests");
  close(one_more);
  for (int fd : held) close(fd);
}

TEST_F(HttpApiTest, ServesTlsWithTheServersCertificate) {
  TestCertificates certs;
  ServerProcess server(dir_.path() + "/data", 0,
                       {"--tls-cert", certs.Path("server.pem"), "--tls-key",
                        certs.Path("server.key"), "--tls-ca", certs.Path("ca.pem")});
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_THAT(base, HasSubstr("https://127.0.0.1:")) << server.log();
  const HttpAnswer trusted =
      Http("GET", base + "v1/studies", "", {"--cacert", certs.Path("ca.pem")});
  EXPECT_EQ(trusted.status, 200) << trusted.body;
  // The dashboard's session cookie is Secure under TLS.
  const CommandResult login = RunCommand(
      {"curl", "-sS", "-i", "--cacert", certs.Path("ca.pem"), base + "?token=" + Bearer()});
  EXPECT_THAT(login.out, HasSubstr("; Secure\r\n")) << login.out;
  // No plaintext on the TLS port, and no unverified server.
  std::string plain = base;
  plain.replace(0, 5, "http");
  EXPECT_NE(Http("GET", plain + "v1/studies").status, 200);
  EXPECT_EQ(Http("GET", base + "v1/studies").status, 0);
}

TEST_F(HttpApiTest, NoHttpTurnsItOffAndATakenPortIsAClearError) {
  ServerProcess quiet(dir_.path() + "/quiet", 0, {"--no-http"});
  quiet.Start();
  EXPECT_THAT(quiet.log(), Not(HasSubstr("HTTP API at")));

  // A port in use: the server refuses to start and says which.
  const int taken = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  socklen_t length = sizeof(address);
  getsockname(taken, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));
  const CommandResult refused =
      RunCommand({BinaryPath("vernier"), "serve", "--port", "0", "--http-port", port, "--data-dir",
                  dir_.path() + "/refused"},
                 std::chrono::seconds(30));
  close(taken);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("the HTTP listener cannot listen on 127.0.0.1:" + port));
}

TEST_F(HttpApiTest, ARevokedTokensLogStreamsEndWithinSeconds) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  // A job that writes a line every 0.2 s for a minute.
  ASSERT_EQ(Http("POST", base + "v1/projects/-/jobs",
                 JobJson("chatty", 1, "for i in $(seq 300); do echo line $i; sleep 0.2; done"))
                .status,
            200);
  const std::string viewer = CreateToken(server, "vic", "viewer");

  // gRPC: StreamLogs(follow) as the viewer, until a line came.
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + viewer);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(40));
  v1::StreamLogsRequest request;
  request.set_job_id("chatty");
  request.set_follow(true);
  std::unique_ptr<v1::JobService::Stub> stub = server.JobStub();
  std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader = stub->StreamLogs(&context, request);
  v1::LogLine line;
  ASSERT_TRUE(reader->Read(&line));
  // HTTP: the job's log events as the viewer (a 40 s limit: the job lasts
  // a minute).
  CommandResult events;
  std::thread http([&] {
    events = RunCommand({"curl", "-sS", "-N", "--max-time", "40", "-H",
                         "Authorization: Bearer " + viewer, base + "events/jobs/chatty/logs"},
                        std::chrono::seconds(60));
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));

  const auto revoked_at = std::chrono::steady_clock::now();
  RevokeToken(server, viewer);
  while (reader->Read(&line)) {
  }
  const grpc::Status ended = reader->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAUTHENTICATED) << ended.error_message();
  EXPECT_THAT(ended.error_message(), HasSubstr("of vic was revoked"));
  http.join();
  EXPECT_LT(std::chrono::steady_clock::now() - revoked_at, std::chrono::seconds(15));
  EXPECT_EQ(events.exit_code, 0) << events.err;
  // (The stream's end only: it holds every line sent.)
  const std::string end =
      events.out.substr(events.out.size() - std::min<size_t>(events.out.size(), 400));
  EXPECT_THAT(events.out, HasSubstr("event: log\n"));
  EXPECT_THAT(end, HasSubstr("event: failure\ndata: {\"error\":{\"code\":401,"));
  EXPECT_THAT(end, HasSubstr("of vic was revoked"));
  EXPECT_EQ(Http("POST", base + "v1/projects/-/jobs/chatty:cancel", "{}").status, 200);
}

TEST_F(HttpApiTest, TheDashboardSessionIsAnOpaqueIdThatOnlyAValidTokenOpens) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  std::smatch port;
  ASSERT_TRUE(std::regex_search(base, port, std::regex(":([0-9]+)/$")));
  const std::string cookie_name = "vernier_session_" + port[1].str();

  // Every page says what it may load, and that no site may frame it.
  const CommandResult page = RunCommand({"curl", "-sS", "-i", base});
  EXPECT_THAT(HeaderOf(page.out, "Content-Security-Policy"),
              HasSubstr("default-src 'self'; script-src 'self';"));
  EXPECT_THAT(HeaderOf(page.out, "Content-Security-Policy"), HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(HeaderOf(page.out, "X-Frame-Options"), "DENY");
  EXPECT_EQ(HeaderOf(page.out, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(HeaderOf(page.out, "Referrer-Policy"), "no-referrer");

  // A token the server does not know opens nothing: a 401 page naming the
  // problem and no cookie (no login CSRF with a made-up token).
  const CommandResult forged = RunCommand({"curl", "-sS", "-i", base + "?token=vnr_forged"});
  EXPECT_THAT(forged.out, HasSubstr("HTTP/1.1 401"));
  EXPECT_EQ(HeaderOf(forged.out, "Set-Cookie"), "");
  EXPECT_THAT(forged.out, HasSubstr("<p id=\"login-error\" class=\"error\">"));
  EXPECT_THAT(forged.out, HasSubstr("<form method=\"post\" action=\"/login\">"));
  // Nor does a valid one that another site (another port of this host
  // included) sent the browser with.
  const CommandResult elsewhere = RunCommand(
      {"curl", "-sS", "-i", "-H", "Sec-Fetch-Site: same-site", base + "?token=" + Bearer()});
  EXPECT_THAT(elsewhere.out, HasSubstr("HTTP/1.1 403"));
  EXPECT_THAT(elsewhere.out, HasSubstr("a login from another site"));
  EXPECT_EQ(HeaderOf(elsewhere.out, "Set-Cookie"), "");

  // A valid token: a session id in a cookie named with the port (never the
  // token), and a redirect that takes the token out of the address.
  const CommandResult login = RunCommand({"curl", "-sS", "-i", base + "?token=" + Bearer()});
  EXPECT_THAT(login.out, HasSubstr("HTTP/1.1 303"));
  EXPECT_EQ(HeaderOf(login.out, "Location"), "/");
  const std::string cookie = HeaderOf(login.out, "Set-Cookie");
  std::smatch session;
  ASSERT_TRUE(std::regex_match(
      cookie, session,
      std::regex(cookie_name +
                 "=([0-9a-f]{64}); HttpOnly; SameSite=Strict; Path=/; Max-Age=43200")))
      << cookie;
  EXPECT_THAT(login.out, Not(HasSubstr(Bearer().substr(4))));
  const std::string id = session[1];
  EXPECT_EQ(
      Http("GET", base + "v1/projects/-/jobs", "", {"-H", "Cookie: " + cookie_name + "=" + id})
          .status,
      200);
  // The token in a cookie is no session, nor is the session under another
  // port's name.
  EXPECT_EQ(Http("GET", base + "v1/projects/-/jobs", "",
                 {"-H", "Cookie: " + cookie_name + "=" + Bearer()})
                .status,
            401);
  EXPECT_EQ(
      Http("GET", base + "v1/projects/-/jobs", "", {"-H", "Cookie: vernier_session=" + Bearer()})
          .status,
      401);
  EXPECT_EQ(Http("GET", base + "v1/projects/-/jobs", "", {"-H", "Cookie: vernier_session_1=" + id})
                .status,
            401);

  // A change with the cookie alone needs the dashboard's header.
  const HttpAnswer forged_change = Http("POST", base + "v1/projects/-/jobs/any:cancel", "",
                                        {"-H", "Cookie: " + cookie_name + "=" + id});
  EXPECT_EQ(forged_change.status, 403);
  EXPECT_EQ(ErrorOf(forged_change).status(), "PERMISSION_DENIED");
  EXPECT_THAT(ErrorOf(forged_change).message(), HasSubstr("X-Vernier-Request"));
  const HttpAnswer from_page =
      Http("POST", base + "v1/projects/-/jobs/any:cancel", "",
           {"-H", "Cookie: " + cookie_name + "=" + id, "-H", "X-Vernier-Request: 1"});
  EXPECT_EQ(from_page.status, 404) << from_page.body;

  // The login form: the token in a POST body, never in a URL.
  EXPECT_THAT(Http("GET", base + "login").body, HasSubstr("name=\"token\""));
  const CommandResult posted =
      RunCommand({"curl", "-sS", "-i", "--data-urlencode", "token=" + Bearer(), base + "login"});
  EXPECT_THAT(posted.out, HasSubstr("HTTP/1.1 303"));
  EXPECT_THAT(HeaderOf(posted.out, "Set-Cookie"), HasSubstr(cookie_name + "="));
  const CommandResult refused =
      RunCommand({"curl", "-sS", "-i", "--data-urlencode", "token=vnr_forged", base + "login"});
  EXPECT_THAT(refused.out, HasSubstr("HTTP/1.1 401"));
  EXPECT_EQ(HeaderOf(refused.out, "Set-Cookie"), "");

  // Revoking the token ends its sessions.
  const std::string viewer = CreateToken(server, "vic", "viewer");
  const CommandResult vic_login = RunCommand({"curl", "-sS", "-i", base + "?token=" + viewer});
  std::smatch vic;
  const std::string vic_cookie = HeaderOf(vic_login.out, "Set-Cookie");
  ASSERT_TRUE(std::regex_search(vic_cookie, vic, std::regex("=([0-9a-f]{64});"))) << vic_login.out;
  const std::vector<std::string> vic_session = {"-H",
                                                "Cookie: " + cookie_name + "=" + vic[1].str()};
  EXPECT_EQ(Http("GET", base + "v1/projects/-/jobs", "", vic_session).status, 200);
  RevokeToken(server, viewer);
  EXPECT_EQ(Http("GET", base + "v1/projects/-/jobs", "", vic_session).status, 401);
  EXPECT_EQ(Http("GET", base + "v1/whoami", "", vic_session).status, 401);
}

TEST_F(HttpApiTest, TheDashboardsFilesTokenCurvesAndEvents) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);

  const CommandResult page = RunCommand({"curl", "-sS", "-i", base});
  EXPECT_THAT(page.out, HasSubstr("Content-Type: text/html; charset=utf-8"));
  EXPECT_THAT(page.out, HasSubstr("<title>Vernier</title>"));
  // Every asset from the binary, uPlot and its licence included.
  for (const std::string asset : {"app.js", "plots.js", "app.css", "uPlot.iife.min.js",
                                  "uPlot.min.css", "uPlot.LICENSE.txt"}) {
    EXPECT_EQ(Http("GET", base + "assets/" + asset).status, 200) << asset;
  }
  EXPECT_THAT(Http("GET", base + "assets/uPlot.LICENSE.txt").body, HasSubstr("MIT"));
  // Scripts and JSON are compressed with gzip (not cpp-httplib's slow Brotli).
  const CommandResult script =
      RunCommand({"curl", "-sS", "-o", "/dev/null", "-D", "-", "-H",
                  "Accept-Encoding: gzip, deflate, br", base + "assets/uPlot.iife.min.js"});
  EXPECT_THAT(script.out, HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(script.out, HasSubstr("Content-Type: application/javascript; charset=utf-8"));
  const HttpAnswer missing = Http("GET", base + "assets/nope.js");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(ErrorOf(missing).message(), "no file /assets/nope.js");

  // A token the server does not know is 401 (the session cookie: below).
  const HttpAnswer unknown =
      Http("GET", base + "v1/projects/-/jobs", "", {"-H", "Authorization: Bearer vnr_not_a_token"});
  EXPECT_EQ(unknown.status, 401) << unknown.body;
  EXPECT_EQ(ErrorOf(unknown).status(), "UNAUTHENTICATED");

  // Curves, downsampled on the server: 5 measurements, 2 points kept.
  ASSERT_EQ(Http("POST", base + "v1/projects/-/jobs",
                 JobJson("curved", 2, "for s in 1 2 3 4 5; do echo accuracy=0.$s; done"))
                .status,
            200);
  ASSERT_EQ(WaitForEnd(base, "curved").state(), v1::Job::SUCCEEDED) << server.log();
  const HttpAnswer curves = Http("GET", base + "dashboard/studies/curved/curves?maxPoints=2");
  ASSERT_EQ(curves.status, 200) << curves.body;
  const auto parsed = FromJson<v1::StudyCurves>(curves.body);
  EXPECT_EQ(parsed.metric_id(), "accuracy");
  ASSERT_EQ(parsed.curves_size(), 2);
  for (const auto& curve : parsed.curves()) {
    EXPECT_EQ(curve.measurement_count(), 5);
    EXPECT_THAT(curve.values(), ::testing::ElementsAre(0.1, 0.5));
  }
  const auto one = FromJson<v1::StudyCurves>(
      Http("GET", base + "dashboard/studies/curved/curves?trialId=2").body);
  ASSERT_EQ(one.curves_size(), 1);
  EXPECT_EQ(one.curves(0).trial_id(), 2);
  EXPECT_EQ(one.curves(0).values_size(), 5);
  EXPECT_EQ(Http("GET", base + "dashboard/studies/curved/curves?maxPoints=x").status, 400);
  EXPECT_EQ(Http("GET", base + "dashboard/studies/curved/curves?maxPoints=1").status, 400);
  EXPECT_EQ(Http("GET", base + "dashboard/studies/curved/curves?maxTrials=1001").status, 400);
  const auto first = FromJson<v1::StudyCurves>(
      Http("GET", base + "dashboard/studies/curved/curves?maxTrials=1").body);
  EXPECT_EQ(first.curves_size(), 1);
  EXPECT_EQ(Http("GET", base + "dashboard/studies/curved/curves?trialId=x").status, 400);
  EXPECT_EQ(Http("GET", base + "dashboard/studies/nope/curves").status, 404);

  // The event streams: everything first (then only changes).
  const CommandResult events = RunCommand(
      {"curl", "-sS", "-N", "--max-time", "2", "-H", AuthorizationHeader()[1], base + "events"});
  EXPECT_THAT(events.out, HasSubstr("event: job\ndata: {\"jobId\":\"curved\""));
  EXPECT_THAT(events.out, HasSubstr("event: study\ndata: {\"name\":\"curved\""));
  // A study's stream: "watching", then only the trials that change (below).
  const CommandResult trials =
      RunCommand({"curl", "-sS", "-N", "--max-time", "2", "-H", AuthorizationHeader()[1],
                  base + "events/studies/curved"});
  EXPECT_THAT(trials.out, HasSubstr("event: watching\n"));
  EXPECT_THAT(trials.out, Not(HasSubstr("event: trial")));
  // A trial's logs: every line, then the end (the job has ended).
  const CommandResult logs =
      RunCommand({"curl", "-sS", "-N", "--max-time", "30", "-H", AuthorizationHeader()[1],
                  base + "events/jobs/curved/logs?trialId=1"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("event: log\ndata: {\"trialId\":\"1\",\"role\":\"master\","));
  EXPECT_THAT(logs.out, HasSubstr("accuracy=0.5"));
  EXPECT_THAT(logs.out, Not(HasSubstr("\"trialId\":\"2\"")));
  EXPECT_THAT(logs.out, HasSubstr("event: end\n"));
  const HttpAnswer bad_trial = Http("GET", base + "events/jobs/curved/logs?trialId=one");
  EXPECT_EQ(bad_trial.status, 400);
  EXPECT_EQ(ErrorOf(bad_trial).message(), "query parameter \"trialId\" is not an integer");
  const CommandResult no_job =
      RunCommand({"curl", "-sS", "-N", "--max-time", "30", "-H", AuthorizationHeader()[1],
                  base + "events/jobs/nope/logs"});
  EXPECT_THAT(no_job.out, HasSubstr("event: failure\ndata: {\"error\":{\"code\":404"));
  const CommandResult failure =
      RunCommand({"curl", "-sS", "-N", "--max-time", "5", "-H", AuthorizationHeader()[1],
                  base + "events/studies/nope"});
  EXPECT_THAT(failure.out, HasSubstr("event: failure\ndata: {\"error\":{\"code\":404"));
}

// The study page's bounded views (docs/web.md, "Server-side aggregates") and
// its live stream, on a study driven over the API: accuracy (MAXIMIZE) and
// latency (MINIMIZE), one parameter x.
TEST_F(HttpApiTest, TheDashboardsLeaderboardSummaryAndLiveTrials) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string base = HttpUrl(server);
  ASSERT_EQ(Http("POST", base + "v1/studies", R"({"name": "views", "spec": {
      "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                  {"metricId": "latency", "goal": "MINIMIZE"}],
      "parameters": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}],
      "algorithm": "RANDOM_SEARCH"}})")
                .status,
            200);
  const HttpAnswer suggested =
      Http("POST", base + "v1/studies/views/trials:suggest", R"({"count": 4, "clientId": "t"})");
  ASSERT_EQ(suggested.status, 200) << suggested.body;
  // Trials 1 to 3 finish (accuracy 0.2, 0.6, 0.4; latency 1, 3, 2); 4 runs.
  const std::vector<std::pair<double, double>> finals = {{0.2, 1}, {0.6, 3}, {0.4, 2}};
  for (size_t i = 0; i < finals.size(); ++i) {
    const std::string body = absl::StrCat(
        R"({"finalMeasurement": {"metrics": [{"metricId": "accuracy", "value": )", finals[i].first,
        R"(}, {"metricId": "latency", "value": )", finals[i].second, "}]}}");
    ASSERT_EQ(
        Http("POST", base + "v1/studies/views/trials/" + std::to_string(i + 1) + ":complete", body)
            .status,
        200);
  }
  const auto ids = [](const v1::DashboardTrialPage& page) {
    std::vector<int64_t> ids;
    for (const v1::DashboardTrial& trial : page.trials()) ids.push_back(trial.id());
    return ids;
  };
  const std::string trials = base + "dashboard/studies/views/trials";
  const HttpAnswer board = Http("GET", trials);
  ASSERT_EQ(board.status, 200) << board.body;
  const auto page = FromJson<v1::DashboardTrialPage>(board.body);
  EXPECT_THAT(ids(page), ::testing::ElementsAre(2, 3, 1, 4));
  EXPECT_EQ(page.total_size(), 4);
  EXPECT_THAT(page.metric_ids(), ::testing::ElementsAre("accuracy", "latency"));
  EXPECT_THAT(ids(FromJson<v1::DashboardTrialPage>(
                  Http("GET", trials + "?orderBy=latency&state=SUCCEEDED&pageSize=2&page=1").body)),
              ::testing::ElementsAre(2));
  EXPECT_THAT(ids(FromJson<v1::DashboardTrialPage>(
                  Http("GET", trials + "?orderBy=id&descending=true&rangeParameter=x&min=0").body)),
              ::testing::ElementsAre(4, 3, 2, 1));
  // Bad input: 400 naming it; an unknown study: 404; no valid token: 401.
  for (const auto& [query, message] : std::vector<std::pair<std::string, std::string>>{
           {"?orderBy=nope", "orderBy \"nope\" is no column"},
           {"?rangeParameter=y&min=1", "rangeParameter \"y\""},
           {"?pageSize=1001", "pageSize must be 1 to 1000"},
           {"?page=-1", "page must not be negative"},
           {"?state=DONE", "state"},
           {"?min=abc", "min"},
           {"?bogus=1", "unknown query parameter \"bogus\""}}) {
    const HttpAnswer bad = Http("GET", trials + query);
    EXPECT_EQ(bad.status, 400) << query << ": " << bad.body;
    EXPECT_THAT(ErrorOf(bad).message(), HasSubstr(message)) << query;
  }
  const std::string summary = base + "dashboard/studies/views/summary";
  for (const std::string path : {"dashboard/studies/nope/trials", "dashboard/studies/nope/summary",
                                 "dashboard/studies/nope/curves"}) {
    EXPECT_EQ(Http("GET", base + path).status, 404) << path;
    EXPECT_EQ(Http("GET", base + path, "", {"-H", "Authorization: Bearer vnr_not_a_token"}).status,
              401)
        << path;
  }
  EXPECT_EQ(Http("GET", trials, "", {"-H", "Authorization: Bearer vnr_not_a_token"}).status, 401);
  EXPECT_EQ(Http("GET", summary, "", {"-H", "Authorization: Bearer vnr_not_a_token"}).status, 401);
  EXPECT_EQ(Http("GET", summary + "?maxPoints=1").status, 400);
  EXPECT_EQ(Http("GET", summary + "?maxPoints=10001").status, 400);
  EXPECT_EQ(Http("GET", summary + "?maxPoints=x").status, 400);

  // Compressed with gzip for a browser that takes gzip and Brotli.
  const CommandResult headers =
      RunCommand({"curl", "-sS", "-o", "/dev/null", "-D", "-", "-H", "Accept-Encoding: gzip, br",
                  "-H", AuthorizationHeader()[1], summary + "?maxPoints=1000"});
  EXPECT_THAT(headers.out, HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(headers.out, HasSubstr("Content-Type: application/json; charset=utf-8"));

  // The summary: counts, the best so far, and the API's Pareto front.
  const HttpAnswer answered = Http("GET", summary + "?maxPoints=2");
  ASSERT_EQ(answered.status, 200) << answered.body;
  const auto plots = FromJson<v1::StudyDashboard>(answered.body);
  EXPECT_EQ(plots.trial_count(), 4);
  EXPECT_EQ(plots.state_counts().at("SUCCEEDED"), 3);
  EXPECT_EQ(plots.state_counts().at("ACTIVE"), 1);
  EXPECT_LE(plots.sample_size(), 2);
  ASSERT_EQ(plots.best_so_far_size(), 2);
  EXPECT_EQ(plots.best_so_far(1).trial_id(), 2);
  const auto optimal = FromJson<v1::ListOptimalTrialsResponse>(
      Http("GET", base + "v1/studies/views/trials:optimal").body);
  std::vector<int64_t> front;
  for (const v1::Trial& trial : optimal.trials()) front.push_back(trial.id());
  EXPECT_EQ(std::vector<int64_t>(plots.pareto_front().begin(), plots.pareto_front().end()), front);
  EXPECT_THAT(front, ::testing::ElementsAre(2, 3, 1));

  // Live: trial 4 reports measurements while the stream is open (from before
  // it opens to after), then finishes; the stream names trial 4 alone.
  std::thread reporter([&] {
    for (int step = 1; step <= 20; ++step) {
      Http("POST", base + "v1/studies/views/trials/4:addMeasurement",
           absl::StrCat(R"({"step": )", step,
                        R"(, "metrics": [{"metricId": "accuracy", "value": 0.5}]})"));
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  const CommandResult live = RunCommand({"curl", "-sS", "-N", "--max-time", "4", "-H",
                                         AuthorizationHeader()[1], base + "events/studies/views"});
  reporter.join();
  ASSERT_EQ(Http("POST", base + "v1/studies/views/trials/4:complete",
                 R"({"finalMeasurement": {"metrics": [{"metricId": "accuracy", "value": 0.9},
                                                      {"metricId": "latency", "value": 0.5}]}})")
                .status,
            200);
  EXPECT_THAT(live.out, HasSubstr("event: watching\n"));
  EXPECT_THAT(live.out, HasSubstr("event: trial\ndata: {\"id\":\"4\",\"state\":\"ACTIVE\""));
  EXPECT_THAT(live.out, Not(HasSubstr("data: {\"id\":\"1\"")));
  EXPECT_THAT(ids(FromJson<v1::DashboardTrialPage>(Http("GET", trials).body)),
              ::testing::ElementsAre(4, 2, 3, 1));
}

// Every ```sh block of docs/http-api.md, in order, against a real server;
// each must succeed, and an example whose expected output the page shows
// (a ```json block right after it) answers JSON with the same keys.
TEST_F(HttpApiTest, TheDocumentedCurlExamplesWork) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  std::string base = HttpUrl(server);
  ASSERT_FALSE(base.empty()) << server.log();
  base.pop_back();
  const std::string page = ReadFile(SourcePath("docs/http-api.md"));
  const std::regex block("```sh\n([\\s\\S]*?)```(\n+```json\n([\\s\\S]*?)```)?");
  int examples = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), block), end; it != end; ++it) {
    const std::string script = (*it)[1];
    if (script.find("curl") == std::string::npos) continue;
    ++examples;
    const CommandResult run =
        RunCommand({"/bin/bash", "-euo", "pipefail", "-c", script}, std::chrono::seconds(120),
                   {{"VERNIER_HTTP", base},
                    {"PATH", "/usr/bin:/bin"},
                    {"VERNIER_AUTH", "Authorization: Bearer " + Bearer()}});
    ASSERT_EQ(run.exit_code, 0) << script << "\n" << run.out << run.err << server.log();
    if ((*it)[3].matched) {
      const google::protobuf::Struct shown = ParseJson((*it)[3]);
      const google::protobuf::Struct answered = ParseJson(run.out);
      for (const auto& [key, value] : shown.fields()) {
        EXPECT_TRUE(answered.fields().contains(key))
            << script << " answered no \"" << key << "\":\n"
            << run.out;
      }
    }
  }
  EXPECT_GE(examples, 5);
}

}  // namespace
}  // namespace vernier::testing
