#!/usr/bin/env bash
# Installs the Debian 12 packages Vernier builds, runs and tests with.
# Idempotent: apt (and npm) run only when something is missing. Run as root (or with sudo).
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
  # The dashboard's plotting library comes from npm (below); its browser test
  # drives Debian's Chromium with Selenium.
  chromium chromium-driver python3-selenium
  # The fuzz targets' build (scripts/fuzz.sh). libclang-rt-16-dev holds
  # clang's sanitizer and libFuzzer runtimes and headers; clang-16 only
  # recommends it, and recommends are not installed.
  clang-16 libfuzzer-16-dev libclang-rt-16-dev
  postgresql
  slurm-wlm munge
  # Replicas in containers (docs/containers.md): podman, its init for
  # --init (catatonit) and runc (crun refuses hybrid cgroup hierarchies);
  # the container test builds its image from busybox-static.
  podman catatonit runc busybox-static
  python3
  python3-grpcio python3-protobuf python3-yaml python3-setuptools python3-pip python3-wheel
  python3-venv python3-pytest python3-nbclient python3-ipykernel python3-matplotlib
  python3-pandas
  python3-optuna python3-psycopg2 python3-sklearn
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
sudo=()
if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
if ((${#missing[@]} > 0)); then
  echo "Installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# uPlot, the dashboard's plotting library (MIT; docs/web.md), pinned by
# version and by the npm registry's integrity hash of its package, which is
# checked before anything is taken from it. web/CMakeLists.txt embeds its
# files from here (and checks their hashes again).
uplot_version=1.6.32
uplot_integrity=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==
uplot_dir=/usr/local/share/vernier/uplot-$uplot_version
if [ ! -f "$uplot_dir/uPlot.iife.min.js" ] || [ ! -f "$uplot_dir/uPlot.min.css" ] ||
   [ ! -f "$uplot_dir/LICENSE" ]; then
  fetch=$(mktemp -d)
  trap 'rm -rf "$fetch"' EXIT
  if command -v npm >/dev/null; then
    (cd "$fetch" && npm pack --silent "uplot@$uplot_version" >/dev/null)
  else
    curl -fsSL -o "$fetch/uplot-$uplot_version.tgz" \
      "https://registry.npmjs.org/uplot/-/uplot-$uplot_version.tgz"
  fi
  actual="sha512-$(openssl dgst -sha512 -binary "$fetch/uplot-$uplot_version.tgz" | base64 -w0)"
  if [ "$actual" != "$uplot_integrity" ]; then
    echo "uplot-$uplot_version.tgz has integrity $actual, expected $uplot_integrity" >&2
    exit 1
  fi
  tar -xzf "$fetch/uplot-$uplot_version.tgz" -C "$fetch"
  "${sudo[@]}" install -d "$uplot_dir"
  "${sudo[@]}" install -m 0644 "$fetch/package/dist/uPlot.iife.min.js" \
    "$fetch/package/dist/uPlot.min.css" "$fetch/package/LICENSE" "$uplot_dir/"
  echo "Installed uPlot $uplot_version in $uplot_dir"
fi
