#!/usr/bin/env bash
# Installs the Debian 12 packages Vernier builds, runs and tests with.
# Idempotent: apt runs only when something is missing. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libeigen3-dev libnlopt-cxx-dev libnlopt-dev libpqxx-dev libspdlog-dev libyaml-cpp-dev
  libcli11-dev libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev libre2-dev
  # TLS: certificate checks at start (libssl) and scripts/make-certs.sh (openssl).
  libssl-dev openssl
  # The HTTP API and dashboard's listener (a compiled library built with
  # OpenSSL: libcpp-httplib.so); curl for its tests and docs/http-api.md.
  libcpp-httplib-dev curl
  # The fuzz targets' build (scripts/fuzz.sh).
  clang-16 libfuzzer-16-dev
  postgresql
  slurm-wlm munge
  python3
  python3-grpcio python3-protobuf python3-yaml python3-setuptools python3-pip python3-wheel
  python3-venv python3-pytest python3-nbclient python3-ipykernel python3-matplotlib
  python3-pandas
  python3-optuna python3-psycopg2
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=()
if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
echo "Installing: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
