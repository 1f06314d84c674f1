#!/usr/bin/env bash
# Makes the certificates for a first TLS setup of `vernier serve` (see
# docs/security.md) with openssl:
#   DIR/ca.pem, ca.key          a certificate authority (reused when DIR has one)
#   DIR/server.pem, server.key  the server's certificate, naming localhost,
#                               127.0.0.1, ::1, this host's names and every NAME
#                               given (an IP address or a DNS name)
#   DIR/client.pem, client.key  a client certificate whose subject CN is the
#                               user (--user, default: $USER), for mutual TLS
#   DIR/agent.pem, agent.key    the client certificate of trials' agents
#                               (CN vernier-agent), for mutual TLS
# Keys are EC P-256, mode 0600. Certificates last --days (default 825) days.
#
#   scripts/make-certs.sh [--user NAME] [--days N] DIR [NAME...]
set -euo pipefail

usage() {
  echo "usage: $0 [--user NAME] [--days N] DIR [NAME...]" >&2
  exit 2
}
fail() {
  echo "make-certs: $*" >&2
  exit 1
}

user=${USER:-$(id -un)}
days=825
while (($# > 0)); do
  case "$1" in
    --user) (($# >= 2)) || usage; user=$2; shift 2 ;;
    --days) (($# >= 2)) || usage; days=$2; shift 2 ;;
    -h|--help) usage ;;
    --*) echo "make-certs: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# >= 1)) || usage
dir=$1
shift
command -v openssl >/dev/null || fail "openssl is missing; run scripts/install-deps.sh (Debian package openssl)"
[[ $days =~ ^[1-9][0-9]*$ ]] || fail "--days $days is not a positive number of days"
[[ -n $user && $user != */* ]] || fail "--user '$user' is not a user name"

mkdir -p "$dir"
umask 077
work=$(mktemp -d "$dir/.make-certs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every subjectAltName of the server: loopback, this host, and the arguments.
names=(localhost "$(hostname)")
full_name=$(hostname -f 2>/dev/null || true)
[ -n "$full_name" ] && names+=("$full_name")
names+=("$@")
san="IP:127.0.0.1,IP:::1"
declare -A seen=()
for name in "${names[@]}"; do
  [ -n "$name" ] || continue
  [ -z "${seen[$name]:-}" ] || continue
  seen[$name]=1
  if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then
    san+=",IP:$name"
  else
    san+=",DNS:$name"
  fi
done

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

if [ -f "$dir/ca.pem" ] && [ -f "$dir/ca.key" ]; then
  echo "make-certs: reusing the CA in $dir/ca.pem" >&2
  cp "$dir/ca.pem" "$dir/ca.key" "$work/"
else
  new_key "$work/ca.key"
  openssl req -x509 -new -key "$work/ca.key" -sha256 -days "$days" -subj "/CN=Vernier CA $(hostname)" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$work/ca.pem" 2>/dev/null || fail "openssl could not make the CA"
fi

# issue NAME CN EXTENSIONS: DIR/NAME.pem and NAME.key signed by the CA.
issue() {
  local name=$1 cn=$2 extensions=$3
  new_key "$work/$name.key"
  openssl req -new -key "$work/$name.key" -subj "/CN=$cn" -out "$work/$name.csr" 2>/dev/null ||
    fail "openssl could not make the request for $name"
  printf '%s\n' "$extensions" >"$work/$name.ext"
  openssl x509 -req -in "$work/$name.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
    -CAcreateserial -CAserial "$work/ca.srl" -sha256 -days "$days" -extfile "$work/$name.ext" \
    -out "$work/$name.pem" 2>/dev/null || fail "openssl could not sign the certificate for $name"
}
issue server "$(hostname)" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=$san"
issue client "$user" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
issue agent vernier-agent "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"

# Certificates are public (0644); keys stay the owner's (0600).
for name in ca server client agent; do
  chmod 0644 "$work/$name.pem"
  chmod 0600 "$work/$name.key"
  mv -f "$work/$name.pem" "$dir/$name.pem"
  mv -f "$work/$name.key" "$dir/$name.key"
done
echo "make-certs: wrote $dir/{ca,server,client,agent}.{pem,key}; the server certificate names $san" >&2
