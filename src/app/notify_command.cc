#include "app/notify_command.h"

#include <iostream>

#include "base/clock.h"
#include "config/config.h"
#include "notify/delivery.h"
#include "notify/message.h"

namespace ufmr::app {

int NotifyTest(const CommandLine& cl) {
  LogWarningsToStderr();
  auto config = LoadConfigFile(cl.One("config"), cl.All("set"));
  if (!config.ok()) {
    std::cerr << "notify test: " << config.status().message() << "\n";
    return 1;
  }
  const Config::Notify& notify = config->notify;
  if (notify.receivers.empty()) {
    std::cerr << "notify test: " << cl.One("config") << " has no receivers (notify.receivers)\n";
    return 1;
  }
  const std::string only = cl.One("receiver");
  std::string names;
  bool found = only.empty();
  for (const auto& r : notify.receivers) {
    names += (names.empty() ? "" : ", ") + r.name;
    found = found || r.name == only;
  }
  if (!found) {
    return UsageError({"notify", "test"},
                      "no receiver named '" + only + "' (there are: " + names + ")");
  }
  int failed = 0;
  SystemClock clock;
  for (const auto& r : notify.receivers) {
    if (!only.empty() && r.name != only) continue;
    Message m = TestMessage(config->fabric, r.name, notify.dashboard_url, clock.Now());
    DeliveryResult d = Deliver(r, m);
    if (d.ok) {
      std::cout << r.name << " (" << r.type << "): delivered, "
                << (r.type == "email" ? "SMTP " : "HTTP ") << d.http_status << ", idempotency key "
                << m.idempotency_key << "\n";
    } else {
      ++failed;
      std::cout << r.name << " (" << r.type << "): NOT delivered: " << d.error
                << (d.retryable ? " (the service would retry)" : " (refused: not retried)") << "\n";
    }
  }
  return failed ? 1 : 0;
}

}  // namespace ufmr::app
