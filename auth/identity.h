#ifndef VERNIER_AUTH_IDENTITY_H_
#define VERNIER_AUTH_IDENTITY_H_

#include <string>

#include "vernier/v1/auth.pb.h"

namespace vernier::auth {

// Who a call comes from, as its bearer token says.
struct Identity {
  std::string user;
  v1::Role role = v1::ROLE_UNSPECIFIED;
  // ApiToken.id of the token used.
  std::string token_id;
  // For role AGENT: the one trial attempt it reports for.
  v1::AgentScope agent_scope;
};

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_IDENTITY_H_
