#include "service_config.h"

#include "test_env.h"

namespace ufmr::testing {

std::string ServiceConfigYaml(const ServiceConfig& c) {
  return "fabric: " + c.fabric + "\nufm:\n  url: " + c.ufm_url +
         "\n  user: admin\n  password: \"123456\"\n" + c.ufm_extra +
         "telemetry:\n  url: " + c.telemetry_url + "\n  interval_s: 0.5\ndatabase:\n  url: \"" +
         c.db_url + "\"\n  schema_dir: " + SourceDir() + "/schema\nrules:\n  dir: " + c.rules_dir +
         "\nevents:\n  poll_interval_s: 0.3\nhttp:\n  listen: 127.0.0.1\n  port: " +
         std::to_string(c.http_port) +
         "\nremediation:\n  soak_s: 3\n  job_poll_interval_s: 0.1\n  reconcile_interval_s: 1\n"
         "  action_retry_s: 0.5\n" +
         c.remediation_extra + c.sections_extra;
}

}  // namespace ufmr::testing
