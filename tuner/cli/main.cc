#include <iostream>

#include "tuner/cli/cli_app.h"
#include "tuner/server.h"

int main(int argc, char** argv) {
  const vernier::cli::CliApp app(
      {.out = &std::cout, .err = &std::cerr, .run_server = vernier::tuner::RunServer});
  return app.Run(argc, argv);
}
