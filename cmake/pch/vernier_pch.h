// The headers almost every translation unit of Vernier parses: the standard
// library, abseil's status and strings, gRPC and the generated API messages
// and services. Precompiled once per build (see cmake/VernierPch.cmake) and
// given to every target that links vernier_proto; each source still includes
// what it uses, so a build with -DVERNIER_PCH=OFF compiles the same code.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "vernier/v1/agent_service.grpc.pb.h"
#include "vernier/v1/auth_service.grpc.pb.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"
