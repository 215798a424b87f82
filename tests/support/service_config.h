// Test support: the config the end-to-end tests run `ufm-remediator serve` with (fast polls,
// holds, soaks and retries, the simulator's credentials), as YAML text. Pure functions; safe from
// any thread.
#pragma once

#include <string>

namespace ufmr::testing {

// What varies between the tests' configs (written with designated initializers; what is left out
// is empty). `remediation_extra` (YAML lines indented by two) adds to the remediation section, e.g.
// caps high enough that no guard but the one under test decides; `ufm_extra` (the same) adds to the
// ufm section, e.g. "  timeout_s: 1\n".
struct ServiceConfig {
  std::string fabric{};
  std::string ufm_url{};
  std::string telemetry_url{};
  std::string db_url{};
  std::string rules_dir{};
  int http_port = 0;
  std::string remediation_extra{};
  std::string ufm_extra{};
  std::string sections_extra{};  // whole sections appended at the end ("scheduler:\n  ...")
};
std::string ServiceConfigYaml(const ServiceConfig& c);

// Caps and a breaker high enough that only the fabric's own state decides.
inline constexpr const char* kHighCaps =
    "  max_disabled_ports: 50\n  max_disabled_percent: 50\n"
    "  max_disabled_per_switch: 20\n  max_actions_per_hour: 1000\n"
    "  breaker_findings: 100\n";

}  // namespace ufmr::testing
