#include "tuner/storage/trial_states.h"

namespace vernier::tuner {

bool IsPending(v1::Trial::State state) { return state == v1::Trial::REQUESTED || IsRunning(state); }

bool IsRunning(v1::Trial::State state) {
  return state == v1::Trial::ACTIVE || state == v1::Trial::STOPPING;
}

bool HasEnded(v1::Trial::State state) {
  return state == v1::Trial::SUCCEEDED || state == v1::Trial::FAILED ||
         state == v1::Trial::INFEASIBLE || state == v1::Trial::STOPPED_EARLY ||
         state == v1::Trial::CANCELLED;
}

bool HasEnded(v1::Job::State state) {
  return state == v1::Job::SUCCEEDED || state == v1::Job::FAILED || state == v1::Job::CANCELLED;
}

}  // namespace vernier::tuner
