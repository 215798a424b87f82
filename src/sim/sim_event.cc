#include "sim/sim_event.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "catalog/event_types.h"

namespace ufmr::sim {

void FromEventTable(const char* event_id, const std::vector<std::string>& args, Event* e) {
  e->event_type = event_id;
  const UfmEventType* t = FindUfmEventType(std::atoi(event_id));
  if (t == nullptr) return;  // every id the simulator emits is in the table (sim_state_test)
  e->name = t->name;
  e->severity = t->severity;
  e->category = t->category;
  // The template's trailing blank ("Link went down: %s ") is dropped: whether UFM keeps it is
  // unverified, and a reader trims it either way.
  e->description = FillTemplate(t->message_template, args);
  while (!e->description.empty() && e->description.back() == ' ') e->description.pop_back();
}

std::string PeerPortRef(const Port& port) {
  // A switch port's node description already ends in its label; an HCA's gets ":<label>".
  return port.is_switch ? port.node_description : port.node_description + ":" + port.label;
}

std::string FormatUfmTime(TimePoint t) {
  std::time_t secs =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  if (std::chrono::time_point_cast<std::chrono::seconds>(t) > t) --secs;  // floor before 1970
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// The event log names a port as an IBPort object in UFM's older form, "<site> / <kind>: <name> /
// <label or NA> / <number>", with the node's GUID as dev_id: a switch port
// ("default(1) / Switch: ib-leaf-01 / 1/17/1 / 33", its name "<dev_id>_33" as a switch's ports are
// named by its GUID, so the REST copy of the event, which names the port, is recognised as the same
// event), a host port ("default(1) / Computer: gpu-node-001 HCA-1 / NA / 1": the dev_id is the
// node's GUID, not the port's; a reader takes the port from the description).
void SetIbPortObject(const Port& p, const std::string& node_description, int ufm_version,
                     Event* e) {
  e->log_type = "IBPort";
  e->dev_id = p.system_guid;
  const std::string number = std::to_string(p.number);
  const size_t blank = node_description.rfind(' ');
  if (ufm_version >= 617 && !p.is_switch && blank != std::string::npos) {
    // "Computer: r-ufm77 / mlx5_0": the host and its adapter, no port number. What the event
    // log's line looks like for it is unverified: it is taken to name the object alike.
    e->type = "IBPort";
    e->object_name = p.name;
    e->object_path = "Computer: " + p.system_name + " / " + node_description.substr(blank + 1);
    e->log_object = e->object_path;
    e->dev_id = p.guid;
    return;
  }
  e->log_object = p.is_switch
                      ? "default(1) / Switch: " + p.system_name + " / " + p.label + " / " + number
                      : "default(1) / Computer: " + node_description + " / NA / " + number;
}

std::string FormatEventLogLine(const Event& e) {
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(e.time.time_since_epoch()).count();
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03d", static_cast<int>(((ms % 1000) + 1000) % 1000));
  std::string severity = e.severity;
  for (auto& c : severity) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string category = e.category;
  std::replace(category.begin(), category.end(), ' ', '_');
  std::string object = e.log_object.empty() ? e.object_name : e.log_object;
  size_t colon = object.find(':');
  if (e.type == "Link" && e.log_object.empty() && colon != std::string::npos) {
    object = "Source " + object.substr(0, colon) + "  TO Dest: " + object.substr(colon + 1);
  }
  const std::string dev_id = e.dev_id.empty() ? "" : " [dev_id: " + e.dev_id + "]";
  const std::string& type = e.log_type.empty() ? e.type : e.log_type;
  return FormatUfmTime(e.time) + frac + " [" + std::to_string(e.id) + "] [" + e.event_type + "] " +
         severity + " [" + category + "] " + type + " [" + object + "]" + dev_id + ": " +
         e.description;
}

}  // namespace ufmr::sim
