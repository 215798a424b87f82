// Covers src/ingest/event_log.h: IsEventLogEntryStart; EventLogAssembler (continuation lines, lines
// before the first entry, file changes, Flush/pending, CR/NUL stripping, the entry cap);
// ParseEventLogEntry on every real sample and object shape from the UFM field notes and on every
// kind of bad input (clear Status, the rest continues: garbage, invalid UTF-8, NUL, CR-LF, a
// 200 kB and a 10 MB line, empty lines); AppendPortNames against ExtractPortNames (same names,
// same order, including a deterministic random comparison); ToUfmEvent and ToObservation.
#include "ingest/event_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/port_names.h"
#include "ingest/rest_event.h"
#include "support/test_env.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {
namespace {

std::string Fixture(const std::string& name) { return testing::ReadFixture("event_log/" + name); }

using Names = std::vector<std::string>;

// Splits like a file reader: '\n'-terminated lines, a last piece without '\n' is a line too.
std::vector<RawLogEntry> Assemble(const std::string& data,
                                  size_t max_entry_bytes = kDefaultMaxEntryBytes,
                                  EventLogAssembler::Stats* stats = nullptr) {
  EventLogAssembler assembler(max_entry_bytes);
  std::vector<RawLogEntry> out;
  RawLogEntry raw;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    size_t end = nl == std::string::npos ? data.size() : nl;
    if (assembler.Add(std::string_view(data).substr(pos, end - pos), pos, &raw)) {
      out.push_back(raw);
    }
    pos = end + 1;
  }
  if (assembler.Flush(&raw)) out.push_back(raw);
  if (stats) *stats = assembler.stats();
  return out;
}

struct Parsed {
  std::vector<LogEntry> ok;
  std::vector<std::string> errors;
};

Parsed ParseAll(const std::vector<RawLogEntry>& raws) {
  Parsed p;
  LogEntry entry;
  for (const auto& raw : raws) {
    Status s = ParseEventLogEntry(raw, &entry);
    if (s.ok()) {
      p.ok.push_back(entry);
    } else {
      p.errors.push_back(s.message());
    }
  }
  return p;
}

bool ValidUtf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();  // throws on invalid UTF-8 (the module edge we protect)
  } catch (const std::exception&) {
    return false;
  }
  return s.find('\0') == std::string::npos;
}

void ExpectAllValidUtf8(const LogEntry& e) {
  for (const std::string* s : {&e.timestamp, &e.severity, &e.site, &e.category, &e.object_type,
                               &e.object, &e.dev_id, &e.message, &e.cable_serial}) {
    EXPECT_TRUE(ValidUtf8(*s)) << *s;
  }
  for (const auto* list : {&e.ports, &e.node_names, &e.labels, &e.port_descriptions, &e.peers}) {
    for (const auto& s : *list) EXPECT_TRUE(ValidUtf8(s)) << s;
  }
}

// --- Entry start ---------------------------------------------------------------------------

TEST(IsEventLogEntryStartTest, TimestampAtStartOfLine) {
  EXPECT_TRUE(IsEventLogEntryStart("2023-12-20 07:46:24.442 [14599] [329] WARNING"));
  EXPECT_TRUE(IsEventLogEntryStart("2023-12-20 07:46:24.442"));
  EXPECT_TRUE(IsEventLogEntryStart("2024-02-29 23:59:60.999 x"));
  EXPECT_FALSE(IsEventLogEntryStart(""));
  EXPECT_FALSE(IsEventLogEntryStart(" 2023-12-20 07:46:24.442 [1]"));
  EXPECT_FALSE(IsEventLogEntryStart("2023-12-20 07:46:24 [1] [2] INFO"));  // no milliseconds
  EXPECT_FALSE(IsEventLogEntryStart("2023-12-20T07:46:24.442 [1] [2] INFO"));
  EXPECT_FALSE(IsEventLogEntryStart("2023-13-20 07:46:24.442 [1]"));  // month 13
  EXPECT_FALSE(IsEventLogEntryStart("2023-12-00 07:46:24.442 [1]"));  // day 0
  EXPECT_FALSE(IsEventLogEntryStart("2023-12-20 24:46:24.442 [1]"));  // hour 24
  EXPECT_FALSE(IsEventLogEntryStart("  PSU 1: failed"));
}

// The check reads the timestamp eight bytes at a time; every single-byte change of a valid one is
// judged as a byte-by-byte reading of the shape would judge it.
TEST(IsEventLogEntryStartTest, EveryByteOfTheShapeIsChecked) {
  const std::string valid = "2023-12-20 07:46:24.442";
  const std::string shape = "####-##-## ##:##:##.###";
  auto fits = [&](const std::string& t) {
    for (size_t k = 0; k < shape.size(); ++k) {
      bool digit = t[k] >= '0' && t[k] <= '9';
      if (shape[k] == '#' ? !digit : t[k] != shape[k]) return false;
    }
    return true;
  };
  int checked = 0;
  for (size_t k = 0; k < valid.size(); ++k) {
    for (int b = 0; b < 256; ++b) {
      std::string t = valid;
      t[k] = static_cast<char>(b);
      // Digits that stay in range (the year, the minutes' and seconds' last digits, ...) or push a
      // field out of it: only the shape is compared here, so keep the fields' ranges valid.
      if (fits(t) &&
          (k == 5 || k == 6 || k == 8 || k == 9 || k == 11 || k == 12 || k == 14 || k == 17)) {
        continue;
      }
      EXPECT_EQ(IsEventLogEntryStart(t + " [1] [2] INFO"), fits(t)) << "byte " << k << " = " << b;
      ++checked;
    }
  }
  EXPECT_GT(checked, 4000);
}

// --- Assembler -----------------------------------------------------------------------------

TEST(EventLogAssemblerTest, ContinuationLinesJoinTheEntryBefore) {
  auto raws = Assemble(Fixture("multiline.log"));
  ASSERT_EQ(raws.size(), 3u);
  EXPECT_EQ(raws[0].lines, 4u);
  EXPECT_EQ(raws[0].offset, 0u);
  EXPECT_NE(raws[0].text.find("FAULT:\n  PSU 1: failed\n\n  FAN 3: speed 0 rpm"),
            std::string::npos);
  EXPECT_EQ(raws[1].lines, 3u);
  EXPECT_TRUE(raws[1].starts_with_timestamp);
  EXPECT_EQ(raws[2].lines, 3u);  // two trailing empty lines stay inside; the parser trims them
  auto parsed = ParseAll(raws);
  ASSERT_EQ(parsed.ok.size(), 3u);
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_EQ(parsed.ok[0].message, "Module status FAULT:\n  PSU 1: failed\n\n  FAN 3: speed 0 rpm");
  EXPECT_EQ(parsed.ok[1].ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(parsed.ok[1].cable_serial, "MT2330FT09118");
  EXPECT_EQ(parsed.ok[1].labels, (Names{"1/17/1", "1/4/2"}));
  EXPECT_EQ(parsed.ok[2].message, "Link is up");
}

TEST(EventLogAssemblerTest, CompleteOnlyWhenTheNextEntryStartsOrOnFlush) {
  EventLogAssembler a;
  RawLogEntry raw;
  EXPECT_FALSE(a.pending());
  EXPECT_FALSE(a.Add("2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a", 100, 7, &raw));
  ASSERT_TRUE(a.pending());
  EXPECT_EQ(a.pending()->offset, 100u);
  EXPECT_EQ(a.pending()->file_id, 7u);
  EXPECT_FALSE(a.Add("  more", 160, 7, &raw));
  EXPECT_TRUE(a.Add("2024-01-01 00:00:01.000 [2] [2] INFO [C] Grid [Grid]: b", 167, 7, &raw));
  EXPECT_EQ(raw.text, "2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a\n  more");
  EXPECT_EQ(raw.offset, 100u);
  EXPECT_EQ(a.pending()->offset, 167u);
  EXPECT_TRUE(a.Flush(&raw));
  EXPECT_EQ(raw.offset, 167u);
  EXPECT_FALSE(a.pending());
  EXPECT_FALSE(a.Flush(&raw));
  EXPECT_EQ(a.stats().entries, 2u);
  EXPECT_EQ(a.stats().continuation_lines, 1u);
}

TEST(EventLogAssemblerTest, AnEntryNeverSpansFiles) {
  EventLogAssembler a;
  RawLogEntry raw;
  EXPECT_FALSE(a.Add("2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a", 0, 1, &raw));
  // The first line of the new file continues nothing: the old entry completes, an orphan starts.
  EXPECT_TRUE(a.Add("tail of something", 0, 2, &raw));
  EXPECT_EQ(raw.file_id, 1u);
  EXPECT_TRUE(a.Flush(&raw));
  EXPECT_EQ(raw.file_id, 2u);
  EXPECT_FALSE(raw.starts_with_timestamp);
  EXPECT_EQ(a.stats().orphan_entries, 1u);
}

TEST(EventLogAssemblerTest, LinesBeforeTheFirstEntryAreReportedNotDropped) {
  auto parsed = ParseAll(Assemble(Fixture("garbage.log")));
  ASSERT_FALSE(parsed.errors.empty());
  EXPECT_NE(parsed.errors[0].find("does not start with a timestamp"), std::string::npos)
      << parsed.errors[0];
  EXPECT_NE(parsed.errors[0].find("tail of an entry cut by rotation"), std::string::npos);
}

TEST(EventLogAssemblerTest, StripsCrAndNulAndSkipsEmptyLinesBetweenEntries) {
  EventLogAssembler::Stats stats;
  auto raws = Assemble(Fixture("empty_lines.log"), kDefaultMaxEntryBytes, &stats);
  ASSERT_EQ(raws.size(), 2u);
  EXPECT_EQ(stats.empty_lines_skipped, 2u);
  EXPECT_EQ(stats.lines, 6u);
  auto parsed = ParseAll(raws);
  ASSERT_EQ(parsed.ok.size(), 2u);
  EXPECT_EQ(parsed.ok[0].message, "Network Added");
  EXPECT_EQ(parsed.ok[1].message, "MCast Group Deleted");

  EventLogAssembler a;
  RawLogEntry raw;
  std::string line = std::string(2, '\0') +
                     "2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a" + '\0' + '\r';
  a.Add(line, 0, &raw);
  ASSERT_TRUE(a.Flush(&raw));
  EXPECT_EQ(raw.text, "2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a");
}

TEST(EventLogAssemblerTest, CapsAnEntryAndCountsWhatItDropped) {
  EventLogAssembler a(64);
  RawLogEntry raw;
  std::string first =
      "2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: " + std::string(30, 'a');
  a.Add(first, 0, &raw);
  a.Add(std::string(100, 'b'), 85, &raw);
  ASSERT_TRUE(a.Flush(&raw));
  EXPECT_TRUE(raw.truncated);
  EXPECT_EQ(raw.text.size(), 64u);
  EXPECT_EQ(raw.dropped_bytes, first.size() + 1 + 100 - 64);
  EXPECT_EQ(raw.lines, 2u);
  EXPECT_EQ(a.stats().truncated_entries, 1u);
  LogEntry e;
  ASSERT_TRUE(ParseEventLogEntry(raw, &e).ok());
  EXPECT_TRUE(e.truncated);
  EXPECT_EQ(e.message, std::string(64 - first.find(": ") - 2, 'a'));
}

// --- Parser: real samples and shapes -------------------------------------------------------

TEST(ParseEventLogEntryTest, ReferenceSampleOldMessage) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  ASSERT_TRUE(parsed.errors.empty());
  const LogEntry& e = parsed.ok[0];
  EXPECT_EQ(e.timestamp, "2023-12-20 07:46:24.442");
  EXPECT_EQ(e.index, 14599);
  EXPECT_EQ(e.event_id, 329);
  EXPECT_EQ(e.severity, "WARNING");
  EXPECT_EQ(e.site, "");
  EXPECT_EQ(e.category, "Fabric_Topology");
  EXPECT_EQ(e.object_type, "Link");
  EXPECT_EQ(e.object, "Source f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1");
  EXPECT_EQ(e.dev_id, "");
  EXPECT_EQ(e.message,
            "Link went down: f4521403008817f0 (Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 "
            "(Computer: fsgb001 HCA-1) : 1");
  EXPECT_EQ(e.ports, (Names{"f4521403008817f0_12", "e41d2d0300a4f482_1"}));
  EXPECT_EQ(e.node_names, (Names{"mellanox-SX6036", "fsgb001 HCA-1"}));
  EXPECT_TRUE(e.labels.empty());
  EXPECT_TRUE(e.port_descriptions.empty());
  EXPECT_TRUE(e.peers.empty());
  EXPECT_EQ(e.cable_serial, "");
  EXPECT_EQ(e.offset, 0u);
  EXPECT_FALSE(e.invalid_utf8);
  EXPECT_FALSE(e.truncated);
}

TEST(ParseEventLogEntryTest, ReferenceSampleNewMessageWithLabelsAndCableSerial) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  const LogEntry& e = parsed.ok[1];
  EXPECT_EQ(e.index, 97214);
  EXPECT_EQ(e.site, "default");
  EXPECT_EQ(e.message,
            "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
            "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118");
  EXPECT_EQ(e.ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(e.node_names, (Names{"T3-E21-N-U47", "T4-E45-L-U51"}));
  EXPECT_EQ(e.labels, (Names{"1/17/1", "1/4/2"}));
  EXPECT_EQ(e.port_descriptions, (Names{"T3-E21-N-U47:1/17/1", "T4-E45-L-U51:1/4/2"}));
  EXPECT_EQ(e.cable_serial, "MT2330FT09118");
}

TEST(ParseEventLogEntryTest, ReferenceSamplePeerPortUnhealthy) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  const LogEntry& e = parsed.ok[2];
  EXPECT_EQ(e.event_id, 702);
  EXPECT_EQ(e.object_type, "Port");
  EXPECT_EQ(e.object, "default / Switch: T2-E63-L-U38 / 1/19/2");
  EXPECT_EQ(e.dev_id, "0c42a10300e1f2a0");  // lower-cased
  EXPECT_EQ(e.message,
            "Peer Port T2-E63-L-U37:1/19/2 is considered by SM as unhealthy due to FLAPPING.");
  EXPECT_EQ(e.peers, (Names{"T2-E63-L-U37:1/19/2"}));
  EXPECT_EQ(e.node_names, (Names{"T2-E63-L-U38", "T2-E63-L-U37"}));
  EXPECT_EQ(e.labels, (Names{"1/19/2"}));
  EXPECT_EQ(e.port_descriptions, (Names{"T2-E63-L-U38:1/19/2", "T2-E63-L-U37:1/19/2"}));
  EXPECT_TRUE(e.ports.empty());
  // Grid and Site objects (the REST samples' events, as log lines).
  EXPECT_EQ(parsed.ok[3].object_type, "Grid");
  EXPECT_EQ(parsed.ok[3].object, "Grid");
  EXPECT_EQ(parsed.ok[3].message, "Network Added");
  EXPECT_EQ(parsed.ok[4].object_type, "Site");
  EXPECT_EQ(parsed.ok[4].object, "default");
  EXPECT_EQ(parsed.ok[4].site, "default");
}

// --- IBPort objects, "Peer info:", the old Link form (ibport_samples.log, sources there) ------

LogEntry IbPortSample(size_t i) {
  auto parsed = ParseAll(Assemble(Fixture("ibport_samples.log")));
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  EXPECT_EQ(parsed.ok.size(), 5u);
  return i < parsed.ok.size() ? parsed.ok[i] : LogEntry{};
}

// A switch's IBPort names its port by number: "<dev_id>_<number>". The host peer is a node name
// and a "<node>:<number>" reference for the inventory, after the event's own port.
TEST(ParseEventLogEntryTest, IbPortOlderFormSwitchPortFromDevIdAndHostPeer) {
  LogEntry e = IbPortSample(0);
  EXPECT_EQ(e.event_id, 112);
  EXPECT_EQ(e.object_type, "IBPort");
  EXPECT_EQ(e.object, "default(34) / Switch: c931ibsw-leaf01 / NA / 16");
  EXPECT_EQ(e.dev_id, "248a0703006d40f0");
  EXPECT_EQ(e.ports, (Names{"248a0703006d40f0_16"}));
  EXPECT_EQ(e.node_names, (Names{"c931ibsw-leaf01", "c931f03p08 HCA-1"}));
  EXPECT_TRUE(e.labels.empty());  // "NA" is no label
  EXPECT_EQ(e.port_descriptions, (Names{"c931f03p08 HCA-1:1"}));
  EXPECT_EQ(e.peers, (Names{"c931f03p08 HCA-1:1"}));
  EXPECT_EQ(ObjectPortName(e.object_type, e.object, e.dev_id), "248a0703006d40f0_16");
}

// The old Link form: ports from the object (port GUIDs), none from the message's node GUID.
TEST(ParseEventLogEntryTest, OldLinkFormTakesPortsFromTheObjectOnly) {
  LogEntry e = IbPortSample(1);
  EXPECT_EQ(e.event_id, 329);
  EXPECT_EQ(e.ports, (Names{"248a0703006d40f0_12", "e41d2d0300ff4939_2"}));
  EXPECT_EQ(e.node_names, (Names{"c931ibsw-leaf01", "c931f02p18 HCA-1"}));
  // The RE2 definition does find the node-GUID name in the message: the parser must not use it.
  EXPECT_EQ(ExtractPortNames(e.message), (Names{"248a0703006d40f0_12", "e41d2d0300ff4938_2"}));
}

// The newer IBPort form names a switch port by label: a description, the peer's after it.
TEST(ParseEventLogEntryTest, IbPortNewerFormAndSwitchPeerAreDescriptions) {
  LogEntry e = IbPortSample(2);
  EXPECT_EQ(e.event_id, 110);
  EXPECT_TRUE(e.ports.empty());
  EXPECT_EQ(e.node_names, (Names{"T2-E63-L-U37", "T4-E45-L-U51"}));
  EXPECT_EQ(e.labels, (Names{"1/19/2", "1/4/2"}));
  EXPECT_EQ(e.port_descriptions, (Names{"T2-E63-L-U37:1/19/2", "T4-E45-L-U51:1/4/2"}));
  EXPECT_EQ(e.peers, (Names{"T4-E45-L-U51:1/4/2"}));
  EXPECT_EQ(ObjectPortName(e.object_type, e.object, e.dev_id), "");
}

// Event 702: its own port (the object) first, then the "Peer Port".
TEST(ParseEventLogEntryTest, UnhealthyIbPortOwnPortBeforeThePeer) {
  LogEntry e = IbPortSample(3);
  EXPECT_EQ(e.event_id, 702);
  EXPECT_TRUE(e.ports.empty());
  EXPECT_EQ(e.port_descriptions, (Names{"T3-E21-N-U47:1/17/1", "T2-E63-L-U37:1/19/2"}));
  EXPECT_EQ(e.peers, (Names{"T2-E63-L-U37:1/19/2"}));
  Observation o = ToObservation(e, TimePoint());
  EXPECT_EQ(o.port_refs, (Names{"T3-E21-N-U47:1/17/1", "T2-E63-L-U37:1/19/2"}));
}

// A host's IBPort: its dev_id may be the node GUID, so no "<dev_id>_<n>"; a description instead.
TEST(ParseEventLogEntryTest, IbPortOfAHostMakesNoPortNameFromDevId) {
  LogEntry e = IbPortSample(4);
  EXPECT_EQ(e.dev_id, "e41d2d0300ff4938");
  EXPECT_TRUE(e.ports.empty());
  EXPECT_EQ(e.port_descriptions, (Names{"c931f03p08 HCA-1:1", "c931ibsw-leaf01:16"}));
  EXPECT_EQ(e.peers, (Names{"c931ibsw-leaf01:16"}));
  EXPECT_EQ(ObjectPortName(e.object_type, e.object, e.dev_id), "");
}

// Object and peer texts at their edges: nothing is made of what is not a port.
TEST(ParseEventLogEntryTest, IbPortEdgeCases) {
  struct Case {
    std::string object_and_message;
    Names ports, descriptions, peers;
  };
  const std::string head = "2024-06-01 10:00:00.000 [1] [112] WARNING [Hardware] IBPort ";
  const std::vector<Case> cases = {
      // dev_id in upper case with 0x; the number with a leading zero.
      {"[default(1) / Switch: sw / NA / 016] [dev_id: 0x248A0703006D40F0]: x",
       {"248a0703006d40f0_16"},
       {},
       {}},
      // No dev_id: the switch's port by number, for the inventory.
      {"[default(1) / Switch: sw / NA / 16]: x", {}, {"sw:16"}, {}},
      // A dev_id that is not 16 hex digits: not a port name; the description instead.
      {"[default(1) / Switch: sw / NA / 16] [dev_id: 248a07]: x", {}, {"sw:16"}, {}},
      // A label and a number: the port by dev_id (the label goes to labels only).
      {"[default(1) / Switch: sw / 1/8/2 / 16] [dev_id: 248a0703006d40f0]: x",
       {"248a0703006d40f0_16"},
       {},
       {}},
      // Neither label nor number; a 5-digit "number"; NA alone.
      {"[Default / Switch: sw]: x", {}, {}, {}},
      {"[Default / Switch: sw / 12345]: x", {}, {}, {}},
      {"[Default / Switch: sw / NA]: x. Peer info: N/A.", {}, {}, {}},
      // "Peer info:" followed by another sentence, on a continuation line, or empty.
      {"[Default / Switch: a / 1/1/1]: x. Peer info: Computer: h HCA-1 / 2. Then more.",
       {},
       {"a:1/1/1", "h HCA-1:2"},
       {"h HCA-1:2"}},
      {"[Default / Switch: a / 1/1/1]: x.\nPeer info: Default / Switch: b / 1/2/1.\nmore",
       {},
       {"a:1/1/1", "b:1/2/1"},
       {"b:1/2/1"}},
      {"[Default / Switch: a / 1/1/1]: x. Peer info:", {}, {"a:1/1/1"}, {}},
      // A port object that names a port by GUID: that name.
      {"[e41d2d0300062380_3]: x", {"e41d2d0300062380_3"}, {}, {}},
  };
  for (const auto& c : cases) {
    auto r = ParseEventLogEntry(head + c.object_and_message);
    ASSERT_TRUE(r.ok()) << c.object_and_message << ": " << r.status().message();
    EXPECT_EQ(r->ports, c.ports) << c.object_and_message;
    EXPECT_EQ(r->port_descriptions, c.descriptions) << c.object_and_message;
    EXPECT_EQ(r->peers, c.peers) << c.object_and_message;
  }
}

// The references are what Inventory::FindByDescription resolves: a switch port by system name
// and label (the ASIC prefix optional), a host port by system name and number.
TEST(ParseEventLogEntryTest, IbPortDescriptionsResolveThroughTheInventory) {
  Inventory inventory;
  PortInfo sw;
  sw.name = "fc6a1c0300244e00_8";
  sw.system_name = "T4-E45-L-U51";
  sw.node_description = "T4-E45-L-U51:1/4/2";
  sw.description = "Switch IB Port";
  sw.number = 8;
  inventory.Upsert(sw);
  PortInfo host;
  host.name = "e41d2d0300ff4939_1";
  host.system_name = "c931f03p08 HCA-1";
  host.node_description = "c931f03p08 HCA-1";
  host.description = "Computer IB Port";
  host.label = "1";
  host.number = 1;
  inventory.Upsert(host);
  EXPECT_EQ(inventory.FindByDescription(IbPortSample(2).peers.at(0)), sw.name);
  EXPECT_EQ(inventory.FindByDescription(IbPortSample(0).peers.at(0)), host.name);
}

TEST(ParseEventLogEntryTest, EveryObjectShape) {
  auto parsed = ParseAll(Assemble(Fixture("shapes.log")));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  ASSERT_EQ(parsed.ok.size(), 9u);
  const auto& e = parsed.ok;
  EXPECT_EQ(e[0].object_type, "Computer");
  EXPECT_EQ(e[0].object, "Computer: fsgb001");
  EXPECT_EQ(e[0].node_names, (Names{"fsgb001"}));
  EXPECT_EQ(e[0].severity, "CRITICAL");

  EXPECT_EQ(e[1].object_type, "Switch");
  EXPECT_EQ(e[1].severity, "MINOR");
  EXPECT_EQ(e[1].dev_id, "9c0591030090e000");
  EXPECT_EQ(e[1].node_names, (Names{"T3-E21-N-U47"}));
  EXPECT_EQ(e[1].labels, (Names{"1/17/1"}));
  EXPECT_EQ(e[1].port_descriptions, (Names{"T3-E21-N-U47:1/17/1"}));
  EXPECT_EQ(e[1].ports, (Names{"9c0591030090e000_33"}));
  EXPECT_EQ(e[1].message, "Symbol error counter rate threshold crossed: 9c0591030090e000_33");

  EXPECT_EQ(e[2].site, "default");
  EXPECT_EQ(e[2].node_names, (Names{"T4-E45-L-U51"}));
  EXPECT_TRUE(e[2].labels.empty());
  EXPECT_TRUE(e[2].port_descriptions.empty());

  EXPECT_EQ(e[3].severity, "WARNING");  // "Warning" upper-cased
  EXPECT_EQ(e[3].object, "e41d2d0300062380_3");
  EXPECT_EQ(e[3].ports, (Names{"e41d2d0300062380_3"}));

  EXPECT_EQ(e[4].severity, "INFO");
  EXPECT_EQ(e[4].object_type, "Site");
  EXPECT_EQ(e[5].object_type, "Grid");
  EXPECT_EQ(e[6].severity, "MAJOR");

  EXPECT_EQ(e[7].event_id, 328);
  EXPECT_EQ(e[7].ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(e[7].labels, (Names{"1/17/1", "1/4/2"}));

  EXPECT_EQ(e[8].site, "default");  // "[Site [default]]"
  EXPECT_EQ(e[8].category, "Fabric_Notification");
  EXPECT_EQ(e[8].object_type, "Port");
}

// The parser looks for brackets, separators and anchors sixteen bytes at a time: the same entry
// shifted by every offset, and with its fields padded to every length, parses the same.
TEST(ParseEventLogEntryTest, FieldsAreFoundAtEveryOffset) {
  for (int pad = 0; pad < 40; ++pad) {
    const std::string site(static_cast<size_t>(pad) + 1, 's');
    const std::string node = "T3-E21-N-U47" + std::string(static_cast<size_t>(pad), 'x');
    const std::string text =
        "2023-12-20 07:46:24.442 [97214] [329] WARNING Site [" + site +
        "] [Fabric_Topology] Link [Source 9c0591030090e000_33  TO Dest: " +
        "fc6a1c0300244e00_8] [dev_id: 9C0591030090E000]: Link went down: " + "(Switch:" + node +
        ":1/17/1)9c0591030090e000:33 - " + "(Computer: h1 HCA-1), Peer Port " + node +
        ":1/4/2 is down, cable S/N: MT2330FT09118";
    SCOPED_TRACE("pad " + std::to_string(pad));
    auto e = ParseEventLogEntry(text);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->site, site);
    EXPECT_EQ(e->category, "Fabric_Topology");
    EXPECT_EQ(e->object_type, "Link");
    EXPECT_EQ(e->object, "Source 9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8");
    EXPECT_EQ(e->dev_id, "9c0591030090e000");
    EXPECT_EQ(e->ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
    EXPECT_EQ(e->node_names, (Names{node, "h1 HCA-1"}));
    EXPECT_EQ(e->peers, (Names{node + ":1/4/2"}));
    EXPECT_EQ(e->port_descriptions, (Names{node + ":1/17/1", node + ":1/4/2"}));
    EXPECT_EQ(e->cable_serial, "MT2330FT09118");
  }
}

// --- Parser: bad input ---------------------------------------------------------------------

TEST(ParseEventLogEntryTest, GarbageGivesOneClearErrorPerEntryAndTheRestParses) {
  auto parsed = ParseAll(Assemble(Fixture("garbage.log")));
  ASSERT_EQ(parsed.ok.size(), 2u);
  EXPECT_EQ(parsed.ok[0].index, 20);
  // By the format, a line without a timestamp continues the entry before.
  EXPECT_EQ(parsed.ok[0].message,
            "Link is up\nthis line is no entry: by the format it continues the one before");
  EXPECT_EQ(parsed.ok[1].index, 28);
  const std::vector<std::string> expected = {
      "does not start with a timestamp",
      "expected '[<index>]' at column 25",
      "expected '[<event id>]' at column 30",
      "expected a severity",
      "expected '[<category>]'",
      "unterminated '[' in the object",
      "expected ':' before the message",
      "expected an object type",
      "expected '[<index>]'",  // 22 digits; the month-13 line after it is its continuation
      "expected a space after the timestamp",
  };
  ASSERT_EQ(parsed.errors.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NE(parsed.errors[i].find(expected[i]), std::string::npos)
        << "error " << i << ": " << parsed.errors[i];
    EXPECT_EQ(parsed.errors[i].rfind("event log: ", 0), 0u) << parsed.errors[i];
  }
}

TEST(ParseEventLogEntryTest, InvalidUtf8IsReplacedAndParsingGoesOn) {
  auto parsed = ParseAll(Assemble(Fixture("invalid_utf8.log")));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  ASSERT_EQ(parsed.ok.size(), 3u);
  EXPECT_TRUE(parsed.ok[0].invalid_utf8);
  EXPECT_EQ(parsed.ok[0].message, "Link went down \uFFFD\uFFFD on caf\u00e9 rack");  // é kept
  EXPECT_EQ(parsed.ok[0].ports, (Names{"f4521403008817f0_12", "e41d2d0300a4f482_1"}));
  EXPECT_TRUE(parsed.ok[1].invalid_utf8);
  EXPECT_EQ(parsed.ok[1].object, "Computer: n\uFFFD(de-\uFFFD\uFFFD");
  EXPECT_EQ(parsed.ok[1].message.substr(0, 33), "Node is down \uFFFD\uFFFD \uFFFD\uFFFD\uFFFD end");
  EXPECT_NE(parsed.ok[1].message.find("\uFFFD\uFFFD\uFFFD\uFFFD not an entry"), std::string::npos);
  EXPECT_FALSE(parsed.ok[2].invalid_utf8);
  for (const auto& e : parsed.ok) ExpectAllValidUtf8(e);
  // An error excerpt is valid UTF-8 too.
  LogEntry e;
  Status s = ParseEventLogEntry("\xff\xfe garbage \xc3", &e);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(ValidUtf8(s.message())) << s.message();
}

TEST(ParseEventLogEntryTest, TrailingAndLeadingNulStripped) {
  auto parsed = ParseAll(Assemble(Fixture("trailing_nul.log")));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  ASSERT_EQ(parsed.ok.size(), 4u);
  EXPECT_EQ(parsed.ok[0].message, "Link went down");
  EXPECT_FALSE(parsed.ok[0].invalid_utf8);
  EXPECT_EQ(parsed.ok[1].message, "Link is up");       // NUL then CR-LF
  EXPECT_EQ(parsed.ok[2].index, 42);                   // NULs in front (writer past a truncation)
  EXPECT_EQ(parsed.ok[3].message, "NUL\uFFFDinside");  // a NUL inside is replaced
  EXPECT_TRUE(parsed.ok[3].invalid_utf8);
  for (const auto& e : parsed.ok) ExpectAllValidUtf8(e);
  // Direct calls (a syslog record passed straight in) strip a trailing NUL as well.
  auto direct = ParseEventLogEntry(
      std::string_view("2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]: a\0", 56));
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_EQ(direct->message, "a");
}

TEST(ParseEventLogEntryTest, CrLf) {
  auto parsed = ParseAll(Assemble(Fixture("crlf.log")));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  ASSERT_EQ(parsed.ok.size(), 3u);
  EXPECT_EQ(parsed.ok[0].ports, (Names{"f4521403008817f0_12", "e41d2d0300a4f482_1"}));
  EXPECT_EQ(parsed.ok[1].message, "Module status FAULT:\n  PSU 1: failed");
  EXPECT_EQ(parsed.ok[2].message, "Network Added");
  for (const auto& e : parsed.ok) EXPECT_EQ(e.message.find('\r'), std::string::npos);
}

TEST(ParseEventLogEntryTest, LongLine200kB) {
  std::string data = Fixture("long_line.log");
  auto parsed = ParseAll(Assemble(data));
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.ok.size(), 2u);
  EXPECT_GT(parsed.ok[0].message.size(), 200000u);
  EXPECT_FALSE(parsed.ok[0].truncated);
  EXPECT_EQ(parsed.ok[0].ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(parsed.ok[0].cable_serial, "MT2330FT09118");
  EXPECT_EQ(parsed.ok[1].message, "Network Added");
  // With a smaller cap the entry is cut, flagged, and the next one is untouched.
  auto capped = ParseAll(Assemble(data, 64 * 1024));
  ASSERT_EQ(capped.ok.size(), 2u);
  EXPECT_TRUE(capped.ok[0].truncated);
  EXPECT_EQ(capped.ok[0].cable_serial, "");  // it was past the cut
  EXPECT_FALSE(capped.ok[1].truncated);
  EXPECT_EQ(capped.ok[1].offset, data.find("2017-09-19"));
}

TEST(ParseEventLogEntryTest, TenMegabyteLineIsBounded) {
  std::string header = "2024-01-01 00:00:00.000 [1] [329] WARNING [Fabric_Topology] Link [x]: ";
  std::string huge = header + std::string(10 << 20, 'z');
  std::string data = huge + "\n" +
                     "2024-01-01 00:00:01.000 [2] [328] INFO [C] Grid [Grid]: next\n" +
                     std::string(10 << 20, '\xff') + "\n";  // 10 MB of garbage, not even UTF-8
  EventLogAssembler::Stats stats;
  auto raws = Assemble(data, kDefaultMaxEntryBytes, &stats);
  ASSERT_EQ(raws.size(), 2u);
  EXPECT_TRUE(raws[0].truncated);
  EXPECT_EQ(raws[0].text.size(), kDefaultMaxEntryBytes);
  EXPECT_EQ(raws[0].dropped_bytes, huge.size() - kDefaultMaxEntryBytes);
  EXPECT_TRUE(raws[1].truncated);  // "next" + its 10 MB continuation line, cut at the cap
  auto parsed = ParseAll(raws);
  ASSERT_EQ(parsed.ok.size(), 2u);
  EXPECT_TRUE(parsed.ok[0].truncated);
  EXPECT_EQ(parsed.ok[0].message.size(), kDefaultMaxEntryBytes - header.size());
  EXPECT_TRUE(parsed.ok[1].invalid_utf8);
  EXPECT_EQ(parsed.ok[1].message.substr(0, 5), "next\n");
  EXPECT_EQ(stats.truncated_entries, 2u);
}

TEST(ParseEventLogEntryTest, EmptyAndBlankInput) {
  LogEntry e;
  EXPECT_FALSE(ParseEventLogEntry("", &e).ok());
  EXPECT_FALSE(ParseEventLogEntry("   \n\t", &e).ok());
  EXPECT_NE(ParseEventLogEntry("", &e).message().find("does not start with a timestamp"),
            std::string::npos);
  // An empty message is allowed.
  ASSERT_TRUE(ParseEventLogEntry("2024-01-01 00:00:00.000 [1] [2] INFO [C] Grid [Grid]:", &e).ok());
  EXPECT_EQ(e.message, "");
}

TEST(ParseEventLogEntryTest, RandomHeadersNeverCrashAndAlwaysGiveValidUtf8) {
  const std::vector<std::string> pieces = {"[",
                                           "]",
                                           "Site [",
                                           "[dev_id: ",
                                           ":",
                                           ": ",
                                           " ",
                                           "  ",
                                           "12",
                                           "[329]",
                                           "WARNING",
                                           "Link",
                                           "Switch: ",
                                           " / ",
                                           "1/17/1",
                                           "(",
                                           ")",
                                           "(Switch:",
                                           "Peer Port ",
                                           "S/N:",
                                           "\n",
                                           "\r",
                                           std::string(1, '\0'),
                                           "\xff",
                                           "\xc3",
                                           "\xe2\x82",
                                           "f4521403008817f0_12",
                                           "x"};
  std::mt19937 rng(7);
  LogEntry e;
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    // No prefix, a timestamp (the header is random), or a good header (the message is random).
    std::string text = i % 3 == 0   ? ""
                       : i % 3 == 1 ? "2024-01-01 00:00:00.000 "
                                    : "2024-01-01 00:00:00.000 [1] [329] WARNING [C] Link [x]: ";
    int n = static_cast<int>(rng() % 24);
    for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
    Status s = ParseEventLogEntry(text, &e);
    if (s.ok()) {
      ++ok;
      ExpectAllValidUtf8(e);
    } else {
      ASSERT_TRUE(ValidUtf8(s.message())) << s.message();
      ASSERT_EQ(s.code(), Status::Code::kInvalidArgument);
    }
  }
  EXPECT_GT(ok, 0);
}

TEST(ParseEventLogEntryTest, ReusedEntryIsFullyOverwritten) {
  auto parsed = Assemble(Fixture("reference_samples.log"));
  LogEntry reused;
  for (const auto& raw : parsed) {
    ASSERT_TRUE(ParseEventLogEntry(raw, &reused).ok());
    LogEntry fresh;
    ASSERT_TRUE(ParseEventLogEntry(raw, &fresh).ok());
    EXPECT_EQ(reused.site, fresh.site);
    EXPECT_EQ(reused.dev_id, fresh.dev_id);
    EXPECT_EQ(reused.ports, fresh.ports);
    EXPECT_EQ(reused.node_names, fresh.node_names);
    EXPECT_EQ(reused.labels, fresh.labels);
    EXPECT_EQ(reused.peers, fresh.peers);
    EXPECT_EQ(reused.port_descriptions, fresh.port_descriptions);
    EXPECT_EQ(reused.cable_serial, fresh.cable_serial);
    EXPECT_EQ(reused.offset, raw.offset);
  }
}

// --- Port names: the fast scan finds what ExtractPortNames finds ----------------------------

std::vector<std::string> Fast(const std::string& text) {
  std::vector<std::string> out;
  AppendPortNames(text, &out);
  return out;
}

// An entry's ports by their definition: the IBPort object's own port, then the names
// ExtractPortNames finds in the object, and only when there are none, those in the message.
Names DefinedPorts(const LogEntry& e) {
  Names want;
  auto add = [&want](const std::string& name) {
    if (std::find(want.begin(), want.end(), name) == want.end()) want.push_back(name);
  };
  if (std::string own = ObjectPortName(e.object_type, e.object, e.dev_id); !own.empty()) add(own);
  for (const auto& name : ExtractPortNames(e.object)) add(name);
  if (want.empty()) {
    for (const auto& name : ExtractPortNames(e.message)) add(name);
  }
  return want;
}

TEST(AppendPortNamesTest, EntryPortsAsDefinedOnEveryFixtureEntry) {
  for (const char* name :
       {"reference_samples.log", "shapes.log", "multiline.log", "garbage.log", "invalid_utf8.log",
        "trailing_nul.log", "crlf.log", "long_line.log", "ibport_samples.log"}) {
    for (const auto& e : ParseAll(Assemble(Fixture(name))).ok) {
      EXPECT_EQ(e.ports, DefinedPorts(e)) << name << ": " << e.index;
    }
  }
}

TEST(AppendPortNamesTest, SameAsExtractPortNamesOnEdgeCases) {
  const std::vector<std::string> cases = {
      "",
      "f4521403008817f0_12",
      "F4521403008817F0_0012 and f4521403008817f0_12",  // upper case, leading zeros, de-dup
      "af4521403008817f0_12",                           // 17 hex: the last 16
      "f4521403008817f0_12345",                         // 5 digits: no match
      "f4521403008817f0_12a f4521403008817f0_12_",      // no word boundary after
      "(Switch:T3:1/17/1)9c0591030090e000:33 - (Switch:x)0x9c0591030090e000:34",
      "x9c0591030090e000:33 )a9c0591030090e000:33 )9c0591030090e000:33:",
      "f4521403008817f0 (Switch: a) : 12 - 0xe41d2d0300a4f482 (C: b) : 1",
      "af4521403008817f0 (Switch: a) : 12 x0xe41d2d0300a4f482 (C: b) : 1",
      "f4521403008817f0 (a e41d2d0300a4f482 (b) : 1 c) : 2",  // form 3 inside form 3
      "f4521403008817f0 (never closed : 12",
      "f4521403008817f0 (x) : 12345 f4521403008817f0 (y)  : 1",
      "1234567890abcdef_1:2 (a)1234567890abcdef:3 1234567890abcdef (b) : 4",
      "0x1234567890abcdef_9",
      "caf\xc3\xa9"
      "1234567890abcdef (x) : 5 \xff"
      "1234567890abcdef_6\xff",
  };
  for (const auto& c : cases) EXPECT_EQ(Fast(c), ExtractPortNames(c)) << c;
}

TEST(AppendPortNamesTest, SameAsExtractPortNamesOnRandomText) {
  // Text built from the pieces the three forms are made of, so near-misses are common.
  const std::vector<std::string> pieces = {"f4521403008817f0",
                                           "E41D2D0300A4F482",
                                           "0x",
                                           "_",
                                           ":",
                                           " (",
                                           "(",
                                           ")",
                                           " : ",
                                           " ",
                                           "12",
                                           "3",
                                           "0007",
                                           "12345",
                                           "a",
                                           "x",
                                           "Switch: n",
                                           "-",
                                           "\n",
                                           "_1",
                                           ":2",
                                           ") : 4"};
  std::mt19937 rng(20240528);
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    int n = 1 + static_cast<int>(rng() % 14);
    for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
    ASSERT_EQ(Fast(text), ExtractPortNames(text)) << "'" << text << "'";
  }
}

// IBPort objects and "Peer info:" messages built at random from their pieces: the entry's ports
// are as defined, and the own port (when there is one) comes first.
TEST(AppendPortNamesTest, IbPortEntriesAtRandomAreAsDefined) {
  const std::vector<std::string> pieces = {"default(34)",
                                           " / ",
                                           "Switch: ",
                                           "Computer: ",
                                           "c931ibsw-leaf01",
                                           "h HCA-1",
                                           "NA",
                                           "16",
                                           "1/19/2",
                                           "0x",
                                           "248a0703006d40f0",
                                           "_",
                                           "Peer info: ",
                                           ".",
                                           ". ",
                                           "\n",
                                           "(",
                                           ")",
                                           ":",
                                           " : ",
                                           "12",
                                           "Default",
                                           " ",
                                           "00016"};
  const std::string head = "2024-06-01 10:00:00.000 [1] [112] WARNING [Hardware] IBPort [";
  std::mt19937 rng(20161017);
  auto text = [&](int max) {
    std::string t;
    int n = static_cast<int>(rng() % max);
    for (int k = 0; k < n; ++k) t += pieces[rng() % pieces.size()];
    return t;
  };
  int with_own = 0;
  LogEntry e;
  for (int i = 0; i < 5000; ++i) {
    // Half of them near the documented shape, so that many do name their own port.
    std::string object =
        rng() % 2 ? text(8)
                  : "default(34) / Switch: " + text(2) + " / " + text(3) + " / " + text(2);
    if (object.find_first_of("[]\n") != std::string::npos) continue;
    std::string dev = rng() % 2 ? "248a0703006d40f0" : text(3);
    std::string line =
        head + object + "]" +
        (dev.find_first_of("[]\n") == std::string::npos ? " [dev_id: " + dev + "]" : "") + ": " +
        text(10);
    if (!ParseEventLogEntry(line, &e).ok()) continue;
    ASSERT_EQ(e.ports, DefinedPorts(e)) << line;
    std::string own = ObjectPortName(e.object_type, e.object, e.dev_id);
    if (!own.empty()) {
      ++with_own;
      ASSERT_EQ(e.ports.front(), own) << line;
    }
    ExpectAllValidUtf8(e);
  }
  EXPECT_GT(with_own, 10);
}

// --- Conversions ---------------------------------------------------------------------------

TEST(ToUfmEventTest, LooksLikeARestEvent) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  UfmEvent u = ToUfmEvent(parsed.ok[0]);
  EXPECT_EQ(u.id, 14599);
  EXPECT_EQ(u.event_type, 329);
  EXPECT_EQ(u.name, "Link is Down") << "UFM's event table names 329, as REST does";
  EXPECT_EQ(u.severity, "Warning");
  EXPECT_EQ(u.timestamp, "2023-12-20 07:46:24.442");
  EXPECT_EQ(u.category, "Fabric Topology");
  EXPECT_EQ(u.object_type, "Link");
  EXPECT_EQ(u.object_name, "Source f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1");
  EXPECT_EQ(u.object_path, u.object_name);
  EXPECT_EQ(u.description, parsed.ok[0].message);

  UfmEvent peer = ToUfmEvent(parsed.ok[2]);
  EXPECT_EQ(peer.name, "Unhealthy IB Port");
  EXPECT_EQ(peer.category, "Hardware");
  EXPECT_EQ(ToUfmEvent(parsed.ok[3]).name, "Network Added");
  EXPECT_EQ(ToUfmEvent(parsed.ok[3]).severity, "Info");
}

TEST(ToObservationTest, SourceEventLogAndTheEntryPorts) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  TimePoint t = FromEpochSeconds(1700000000);
  Observation o = ToObservation(parsed.ok[1], t);
  EXPECT_EQ(o.kind, Observation::Kind::kEvent);
  EXPECT_EQ(o.source, "event_log");
  EXPECT_EQ(o.time, t);
  EXPECT_EQ(o.event_id, 97214);
  EXPECT_EQ(o.event_type, 329);
  EXPECT_EQ(o.name, "Link is Down");
  EXPECT_EQ(o.severity, "Warning");
  EXPECT_EQ(o.object_type, "Link");
  EXPECT_EQ(o.ufm_timestamp, "2024-05-28 08:03:05.118");
  EXPECT_EQ(o.ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  // The REST path finds the same ports in the same event.
  EXPECT_EQ(o.ports, ToObservation(ToUfmEvent(parsed.ok[1]), t).ports);
}

// The event log's ToObservation fills the fields itself (the hot path): each entry reads as the
// REST path reads the same event.
TEST(ToObservationTest, SameFieldsAsTheRestPath) {
  auto parsed = ParseAll(Assemble(Fixture("reference_samples.log")));
  ASSERT_EQ(parsed.ok.size(), 5u);
  TimePoint t = FromEpochSeconds(1700000000);
  for (const LogEntry& e : parsed.ok) {
    Observation direct = ToObservation(e, t);
    Observation via_rest = ToObservation(ToUfmEvent(e), t);
    EXPECT_EQ(direct.event_id, via_rest.event_id);
    EXPECT_EQ(direct.event_type, via_rest.event_type);
    EXPECT_EQ(direct.name, via_rest.name);
    EXPECT_EQ(direct.severity, via_rest.severity);
    EXPECT_EQ(direct.category, via_rest.category);
    EXPECT_EQ(direct.object_type, via_rest.object_type);
    EXPECT_EQ(direct.object_name, via_rest.object_name);
    EXPECT_EQ(direct.description, via_rest.description);
    EXPECT_EQ(direct.ufm_timestamp, via_rest.ufm_timestamp);
    EXPECT_EQ(direct.dev_id, e.dev_id);
    EXPECT_EQ(direct.cable_serial, e.cable_serial);
    EXPECT_EQ(direct.port_refs, e.port_descriptions);
  }
}

// The reader parses every entry into one scratch LogEntry and hands its text to a reused
// Observation (FillObservation(LogEntry&&): the message and port lists trade places). Entries
// with and without ports, references and continuation lines, one after another, read as each
// read on its own: nothing of one entry is left in the next.
TEST(ToObservationTest, AnEntryHandedOverReadsAsACopiedOne) {
  std::vector<RawLogEntry> raws;
  for (const char* name : {"reference_samples.log", "ibport_samples.log", "shapes.log",
                           "multiline.log", "garbage.log"}) {
    const std::vector<RawLogEntry> some = Assemble(Fixture(name));
    raws.insert(raws.end(), some.begin(), some.end());
  }
  ASSERT_GT(raws.size(), 8u);
  TimePoint t = FromEpochSeconds(1700000000);
  LogEntry scratch;
  Observation reused;
  int compared = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& raw : raws) {
      LogEntry fresh;
      if (!ParseEventLogEntry(raw, &fresh).ok()) continue;
      ASSERT_TRUE(ParseEventLogEntry(raw, &scratch).ok());
      FillObservation(std::move(scratch), t, &reused);
      const Observation want = ToObservation(fresh, t);
      EXPECT_EQ(reused.description, want.description);
      EXPECT_EQ(reused.ports, want.ports);
      EXPECT_EQ(reused.port_refs, want.port_refs);
      EXPECT_EQ(reused.name, want.name);
      EXPECT_EQ(reused.object_name, want.object_name);
      EXPECT_EQ(reused.cable_serial, want.cable_serial);
      EXPECT_EQ(reused.event_id, want.event_id);
      ++compared;
    }
  }
  EXPECT_GT(compared, 16);
}

}  // namespace
}  // namespace ufmr
