#!/usr/bin/env bash
# Checks what services/ and docker/ ship (ctest: services_verify): the systemd unit and the
# per-fabric template unit pass `systemd-analyze verify` (with their binary paths pointed at this
# build, since nothing is installed here) and agree with each other, and the example config and
# the compose file's config pass `ufm-remediator config check`.
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
# verify_unit SOURCE NAME: SOURCE, its binary paths pointed at this build, saved as NAME (a
# template is checked as an instance: ufm-remediator@alpha.service) and verified.
verify_unit() {
  local unit="$tmp/$2"
  sed "s|/usr/local/bin/ufm-remediator|$build/ufm-remediator|g" "$1" >"$unit"
  grep -q "^ExecStart=$build/ufm-remediator serve" "$unit" ||
    die "$2: ExecStart does not run ufm-remediator serve"
  grep -q '^ExecReload=/bin/kill -HUP \$MAINPID' "$unit" || die "$2: ExecReload does not send SIGHUP"
  for key in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes; do
    grep -q "^$key\$" "$unit" || die "$2 lacks $key"
  done
  local out
  out=$(timeout 60 systemd-analyze verify "$unit" 2>&1) || die "systemd-analyze verify $2 failed: $out"
  # Warnings about this unit (not about the host's other units) count as failures.
  if grep -F "ufm-remediator" <<<"$out"; then die "systemd-analyze verify warned about $2 (above)"; fi
  echo "services_verify: $2 verifies"
}
verify_unit "$src/services/ufm-remediator.service" ufm-remediator.service
verify_unit "$src/services/ufm-remediator@.service" ufm-remediator@alpha.service
grep -q '^ExecStart=.* serve --config /etc/ufm-remediator/%i.yaml$' "$src/services/ufm-remediator@.service" ||
  die "the template unit does not read /etc/ufm-remediator/%i.yaml"
# The template differs from the plain unit only in its paths and description.
diff <(sed -n '/^\[Service\]/,$p' "$src/services/ufm-remediator.service") \
  <(sed -n '/^\[Service\]/,$p' "$src/services/ufm-remediator@.service" |
    grep -v '^EnvironmentFile=-/etc/ufm-remediator/%i.env$' | sed 's|/etc/ufm-remediator/%i.yaml|/etc/ufm-remediator/config.yaml|g') ||
  die "services/ufm-remediator@.service has drifted from services/ufm-remediator.service (above)"

timeout 60 "$build/ufm-remediator" config check "$src/services/config.example.yaml" ||
  die "config check failed on services/config.example.yaml"
# The compose file's config, with the database address its environment gives.
UFM_REMEDIATOR_DB_URL="host=postgres dbname=ufm_remediator" UFM_REMEDIATOR_UFM_PASSWORD=x \
  timeout 60 "$build/ufm-remediator" config check "$src/docker/config.yaml" ||
  die "config check failed on docker/config.yaml"
echo "services_verify: PASS"
