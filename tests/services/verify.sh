#!/usr/bin/env bash
# Checks what services/ and docker/ ship (ctest: services_verify): the systemd unit passes
# `systemd-analyze verify` (with its binary paths pointed at this build, since nothing is
# installed here), and the example config and the compose file's config pass
# `ufm-remediator config check`.
#
#   tests/services/verify.sh BUILD_DIR
set -euo pipefail
die() { echo "services_verify: FAIL: $*" >&2; exit 1; }
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v systemd-analyze >/dev/null || die "systemd-analyze not found (Debian package systemd; scripts/install-deps.sh)"
[[ -x "$build/ufm-remediator" ]] || die "$build/ufm-remediator not built"

tmp=$(mktemp -d /tmp/ufmr-services.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/local/bin/ufm-remediator|$build/ufm-remediator|g" \
  "$src/services/ufm-remediator.service" >"$tmp/ufm-remediator.service"
grep -q "ExecStart=$build/ufm-remediator serve" "$tmp/ufm-remediator.service" ||
  die "the unit's ExecStart does not run ufm-remediator serve"
grep -q '^ExecReload=/bin/kill -HUP \$MAINPID' "$tmp/ufm-remediator.service" ||
  die "the unit's ExecReload does not send SIGHUP"
for key in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes; do
  grep -q "^$key\$" "$tmp/ufm-remediator.service" || die "the unit lacks $key"
done
out=$(timeout 60 systemd-analyze verify "$tmp/ufm-remediator.service" 2>&1) ||
  die "systemd-analyze verify failed: $out"
# Warnings about this unit (not about the host's other units) count as failures.
if grep -F "ufm-remediator.service" <<<"$out"; then die "systemd-analyze verify warned (above)"; fi
echo "services_verify: the unit verifies"

timeout 60 "$build/ufm-remediator" config check "$src/services/config.example.yaml" ||
  die "config check failed on services/config.example.yaml"
# The compose file's config, with the database address its environment gives.
UFM_REMEDIATOR_DB_URL="host=postgres dbname=ufm_remediator" UFM_REMEDIATOR_UFM_PASSWORD=x \
  timeout 60 "$build/ufm-remediator" config check "$src/docker/config.yaml" ||
  die "config check failed on docker/config.yaml"
echo "services_verify: PASS"
