#ifndef VERNIER_TLS_TLS_OPTIONS_H_
#define VERNIER_TLS_TLS_OPTIONS_H_

#include <string>

#include "absl/time/time.h"

namespace vernier::tls {

// How a client (the CLI, an agent) dials a server over TLS. TLS is on when
// a CA is given; every path is a PEM file.
struct ClientTlsOptions {
  // The CA bundle that verifies the server's certificate.
  std::string ca_path;
  // Mutual TLS: the client's certificate (chain) and its private key.
  std::string cert_path;
  std::string key_path;
  // The name checked in the server's certificate; empty: the host dialled.
  std::string server_name;

  bool enabled() const { return !ca_path.empty() || !cert_path.empty() || !key_path.empty(); }
};

// `vernier serve`'s TLS. TLS is on when cert_path is set; mutual TLS when
// client_ca_path is set too. Per-call credentials (tokens) will come beside
// these options, not in them.
struct ServerTlsOptions {
  // The server's certificate (chain) and private key, re-read every
  // reload_interval: a replaced pair serves new connections, open ones stay.
  std::string cert_path;
  std::string key_path;
  // The CA bundle that verifies cert_path; the trials' agents get its path.
  std::string ca_path;
  // Mutual TLS: clients must present a certificate this CA bundle verifies;
  // its subject CN names the caller (PeerCommonName).
  std::string client_ca_path;
  // Mutual TLS: the client certificate and key the trials' agents present
  // (their paths are passed to the agents, which must be able to read them).
  std::string agent_cert_path;
  std::string agent_key_path;
  // The name agents check in the server's certificate.
  std::string agent_server_name;
  absl::Duration reload_interval = absl::Seconds(10);

  bool enabled() const { return !cert_path.empty(); }
  bool mutual() const { return !client_ca_path.empty(); }

  // What the trials' agents dial the server with; disabled when TLS is off.
  ClientTlsOptions ForAgents() const {
    if (!enabled()) return {};
    return ClientTlsOptions{.ca_path = ca_path,
                            .cert_path = agent_cert_path,
                            .key_path = agent_key_path,
                            .server_name = agent_server_name};
  }
};

}  // namespace vernier::tls

#endif  // VERNIER_TLS_TLS_OPTIONS_H_
