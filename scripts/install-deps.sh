#!/usr/bin/env bash
# Installs the Debian packages needed to build, test and demo UFM Remediator (Debian 12 "bookworm").
#
#   scripts/install-deps.sh               everything: build, tests (incl. the headless-browser test), demo
#   scripts/install-deps.sh --no-browser  build and demo only: skips Chromium and Node.js
#   scripts/install-deps.sh --check       only report what is missing (exit 1 if anything is)
#
# As root, missing packages are installed with apt-get. As another user, the exact command to run
# is printed and the script exits 1. Safe to run repeatedly: when nothing is missing it does nothing.
set -euo pipefail

browser=1
check_only=0
for arg in "$@"; do
  case "$arg" in
    --no-browser) browser=0 ;;
    --check) check_only=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

# Build: compiler, CMake, and the libraries CMakeLists.txt finds.
packages=(
  build-essential cmake pkg-config ca-certificates
  libboost-dev libboost-system-dev nlohmann-json3-dev libspdlog-dev libyaml-cpp-dev
  libcurl4-openssl-dev libpqxx-dev libre2-dev libsodium-dev
  libgtest-dev libgmock-dev libcli11-dev
)
# The allocator the service links (TCMalloc, from gperftools): see CMakeLists.txt.
packages+=(libgoogle-perftools-dev)
# LLVM's linker: the build links about ninety binaries, three times faster than with GNU ld.
packages+=(lld)
# Micro benchmarks (bench/micro_bench.cc): Google Benchmark; the build skips them without it.
packages+=(libbenchmark-dev)
# Run, demo and tests: a throwaway PostgreSQL server (scripts/pg-temp.sh), curl for the scripts,
# python3 for picking free ports and reading JSON in shell scripts, runuser (util-linux),
# /usr/bin/time for bench/run.sh, openssl for the TLS test (a throwaway CA and TLS server).
packages+=(postgresql curl python3 util-linux procps time openssl)
# The scheduler tests (label scheduler) and the demo's drains: a throwaway Slurm cluster
# (scripts/slurm-temp.sh): its controller, node daemon, commands and authentication.
packages+=(slurmctld slurmd slurm-client munge)
# systemd-analyze, for the check of the shipped unit (tests/services/verify.sh).
packages+=(systemd)
# The shape check (scripts/code-shape, the code_shape test): function extents from ctags.
packages+=(universal-ctags)
# The notification tests (label notify): a throwaway SMTP server on loopback (tests/notify/smtp_sink.py).
packages+=(python3-aiosmtpd)
# Browser test of the dashboard: Debian's Chromium driven by playwright-core from npm.
if [[ $browser -eq 1 ]]; then
  packages+=(chromium fonts-dejavu-core)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$p")
done
# Node.js and npm: some images ship a Node.js build that bundles npm (and conflicts with Debian's
# separate npm package), so look for the commands rather than for package names.
if [[ $browser -eq 1 ]]; then
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all required packages are installed"
  exit 0
fi

echo "install-deps: missing packages: ${missing[*]}"
install_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $check_only -eq 1 ]]; then
  exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: not running as root; run this, then try again:" >&2
  echo "  sudo sh -c '$install_cmd'" >&2
  exit 1
fi

# We never use the cluster that Debian's postgresql package creates and starts (the demo and the
# tests run their own server on a private Unix socket, see scripts/pg-temp.sh). When postgresql is
# about to be installed, tell postgresql-common not to create that cluster at all, so nothing
# listens on port 5432 because of us. (If a cluster already exists it is left alone; it cannot
# collide with ours, which uses no TCP port and its own socket directory.)
if [[ " ${missing[*]} " == *" postgresql "* ]]; then
  mkdir -p /etc/postgresql-common/createcluster.d
  if [[ ! -e /etc/postgresql-common/createcluster.d/ufm-remediator.conf ]]; then
    printf '%s\n' "# Written by ufm-remediator's scripts/install-deps.sh: its demo and tests start their own server." \
      "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/ufm-remediator.conf
  fi
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"

# Verify, so a half-finished install fails here rather than later in the build.
still=()
for p in "${missing[@]}"; do
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 || still+=("$p") ;;
    npm) command -v npm >/dev/null 2>&1 || still+=("$p") ;;
    *) [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] || still+=("$p") ;;
  esac
done
if [[ ${#still[@]} -ne 0 ]]; then
  echo "install-deps: still missing after apt-get install: ${still[*]}" >&2
  exit 1
fi
echo "install-deps: installed ${missing[*]}"
