#ifndef VERNIER_TESTS_SUPPORT_SERVED_STUDY_TEST_H_
#define VERNIER_TESTS_SUPPORT_SERVED_STUDY_TEST_H_

#include <memory>
#include <string>

#include "tests/support/server_process.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {

// A StoreTest whose tests drive one study on one real `vernier serve`: the
// e2e tests of the study service's calls.
class ServedStudyTest : public StoreTest {
 protected:
  // Starts `server_`, connects `client_` to it and creates SimpleStudy
  // `study_name` over `metric_id` (random search, no limits). Call from
  // SetUp after StoreTest::SetUp, unless the test is skipped; a study that
  // cannot be created fails the test.
  void ServeStudy(const std::string& study_name, const std::string& metric_id);

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<StudyClient> client_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SERVED_STUDY_TEST_H_
