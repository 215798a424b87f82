// What an event-log entry's object and message say besides port names (internal to src/ingest,
// for event_log.cc): node names, port labels, port descriptions ("NAME:LABEL"), peers, the cable
// serial, and the port an IBPort object names by its device GUID. The lists are filled in place,
// reusing their strings, so a warm LogEntry parses without allocating. Plain state for one
// thread; the functions keep no pointer to their input.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ufmr::event_details {

// Fills a vector<string> in place, de-duplicating, reusing the strings already in it (so a warm
// LogEntry parses without allocating). Call Finish() to drop the unused tail.
class ListWriter {
 public:
  explicit ListWriter(std::vector<std::string>* v) : v_(v) {}
  void Add(std::string_view s) {
    if (s.empty()) return;
    for (size_t i = 0; i < n_; ++i) {
      if ((*v_)[i] == s) return;
    }
    if (n_ < v_->size()) {
      (*v_)[n_].assign(s.data(), s.size());
    } else {
      v_->emplace_back(s);
    }
    ++n_;
  }
  void Finish() { v_->resize(n_); }
  size_t size() const { return n_; }

 private:
  std::vector<std::string>* v_;
  size_t n_ = 0;
};

// A port number as UFM writes it in an object ("16"): 1 to 4 digits, written back without leading
// zeros (as ExtractPortNames writes numbers). Empty when the text is not one.
struct PortNumberText {
  char text[8] = {};
  uint8_t len = 0;
  std::string_view view() const { return std::string_view(text, len); }
};

// One port as an IBPort object or a "Peer info:" names it, split on " / " (labels hold '/'):
//   "default(34) / Switch: c931ibsw-leaf01 / NA / 16"   older: site, node, label or NA, number
//   "Default / Switch: T2-E63-L-U37 / 1/19/2"           newer: site, node, label
//   "Computer: c931f03p08 HCA-1 / 1"                    a host's port (Peer info)
//   "Computer: r-ufm77 / mlx5_0"                        a host's port from 6.17: its device
//   "default / Computer: luna-0218 / NA / HCA-1/1"      a host port's path: its dname
struct PortRef {
  std::string_view kind;  // "Switch", "Computer", ...: the word before the node's ':'
  std::string_view node;  // the first node named
  std::string_view label;
  PortNumberText number;    // a number segment after the node
  std::string_view device;  // a host's adapter after the node ("mlx5_0"), from 6.17
  bool is_switch() const;
};

// Splits `text`; every node and label it names also goes to node_names and labels when given.
PortRef SplitPortRef(std::string_view text, ListWriter* node_names, ListWriter* labels);

// "<dev_id>_<number>" into *name (17 + r.number.len bytes) when the object names a switch port by
// number and dev_id is a 16-hex-digit GUID: a switch's ports are named by the switch GUID. Never
// for a host: its dev_id may be the node GUID while its ports are named by port GUIDs.
bool DevIdPortName(const PortRef& r, std::string_view dev_id, std::array<char, 24>* name);

// "IBPort" or "Port".
bool IsPortObjectType(std::string_view type);

// The lists an entry's details go to, and the cable serial.
struct Details {
  ListWriter node_names;
  ListWriter labels;
  ListWriter port_descriptions;
  ListWriter peers;
  std::string* cable_serial;
  std::string description_buffer;  // "NAME:LABEL" built here

  void Describe(std::string_view node, std::string_view label);
  // "<node>:<label>", or "<node>:<number>" when there is no label: a switch without labels and a
  // host port carry their number where a label would be (the inventory indexes them so); a host
  // named with its adapter, "<node> <device>" (no ':': the inventory finds the adapter's one
  // port). False when the reference names no port.
  bool DescribePort(const PortRef& r);
  // "NAME:LABEL" (a port's node description) or just a name.
  void NodeRef(std::string_view ref, bool port_ref);
  // "Computer: c931f03p08 HCA-1 / 1" or "Default / Switch: T2-E63-L-U37 / 1/4/2" after "Peer
  // info:".
  void PeerInfo(std::string_view ref);
  // Drops the unused tails of the lists.
  void Finish();
};

// The event's own port from its object: "<dev_id>_<number>" for a switch's IBPort (to *ports),
// otherwise a port description for the inventory. Other object texts ("Source G_N  TO Dest: G_M",
// "default / Switch: NAME / 1/17/1", "Computer: NAME", "default", "Grid") give their node names
// and labels, and a switch object with a label its port description.
void ObjectDetails(std::string_view type, std::string_view object, std::string_view dev_id,
                   ListWriter* ports, Details* d);

// Message forms: "(Switch: mellanox-SX6036)", "(Computer: fsgb001 HCA-1)",
// "(Switch:T3-E21-N-U47:1/17/1)", "Peer Port T2-E63-L-U37:1/19/2 is ...", "cable S/N: MT23...",
// "Peer info: Computer: c931f03p08 HCA-1 / 1.".
void MessageDetails(std::string_view m, Details* d);

}  // namespace ufmr::event_details
