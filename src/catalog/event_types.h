// UFM's own table of event types (schema/ufm/event_table.csv: each id's name, default severity,
// object type, message template and category, as NVIDIA's policy.csv gives them), compiled in.
// REST events carry the table's name; the event log carries the filled-in template: with the
// table, an event reads the same whichever source brought it. Immutable after first use; every
// function is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

struct UfmEventType {
  int id = 0;
  std::string name;              // "Link is Down"
  std::string severity;          // "Warning": UFM's default (a site may change it in UFM)
  std::string object_type;       // "Port", "Site", "Switch", ...
  std::string message_template;  // "Link went down: %s " (printf-style slots)
  std::string category;          // "Fabric Topology"
};

// A severity as UFM's table and REST spell it ("Warning" for "WARNING"); other text as it is.
std::string UfmSeverity(std::string_view severity);

// The whole table, ordered by id.
const std::vector<UfmEventType>& UfmEventTypes();
// The row of an event id, or null when UFM's table has none.
const UfmEventType* FindUfmEventType(int id);
// The row whose name is `name` (case and surrounding blanks ignored), or null.
const UfmEventType* FindUfmEventTypeByName(std::string_view name);
// The table's name nearest to `name` (edit distance, case ignored): for "did you mean".
std::string ClosestUfmEventName(std::string_view name);
// The id nearest to `id` in the table (the smallest distance; the lower one on a tie).
const UfmEventType* ClosestUfmEventType(int id);

// `tmpl` with its slots filled by `args` in order (a slot without an argument is left empty).
std::string FillTemplate(std::string_view tmpl, const std::vector<std::string>& args);

// Reads `message` by `tmpl`'s slots (%s, %d, %x, %016x, %(name)s ...): the literal text between
// slots must match, each slot takes what lies between them (the last slot takes the rest, blanks
// trimmed). False when the message does not follow the template; *slots then is unspecified.
bool ReadTemplateSlots(std::string_view tmpl, std::string_view message,
                       std::vector<std::string_view>* slots);

}  // namespace ufmr
