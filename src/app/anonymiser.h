// Anonymiser: makes a site's UFM answers safe to hand over, for `probe --record`. It learns what
// a fabric's answers name (switch and host names from the positions UFM puts them in, cable
// serials, IPv4 addresses) and then rewrites any text the same way throughout: every GUID (16 hex
// digits, with or without 0x, also inside a port name "<guid>_<n>") to another 16 hex digits,
// each learned name to "switch-NNN" or "host-NNN", each serial to "SNNNNNNNNN", each address to
// one of the documentation ranges (192.0.2.0/24, 198.51.100.0/24), each user UFM names ("User %s
// connected") to "user-NNN", and each secret it is told of (the UFM user, password, token) to
// "redacted". Names match without regard to case, and a host's fully qualified name by its first
// label. The same input always maps to the same output within one Anonymiser, so the answers
// still agree with one another (a port's GUID in the ports, the links, the events and the
// telemetry). A run of 16 decimal digits is a number (a timestamp), not a GUID, unless it has 0x
// before it or "_<n>" after it; 32 hex digits (a GID) are two GUIDs. Not anonymised: IPv6
// addresses and GUIDs written with colons. Not thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ufmr::app {

class Anonymiser {
 public:
  // `key` keys the GUIDs' mapping (a random one per recording: the mapping cannot be rebuilt
  // from the output).
  explicit Anonymiser(std::string key) : key_(std::move(key)) {}

  // What UFM's answers name, by the fields that hold it.
  void LearnPorts(const nlohmann::json& ports);
  void LearnLinks(const nlohmann::json& links);
  void LearnUnhealthyPorts(const nlohmann::json& ports);
  // Names after "Switch:", "Computer:" and "Peer Port", users after "User ", serials after
  // "S/N:", IPv4 addresses.
  void LearnText(std::string_view text);
  // A text that must never be written (a credential, 4 bytes or more): replaced wherever it
  // appears, inside longer words too.
  void LearnSecret(std::string_view secret);
  // A user's name (the UFM login): the word becomes "user-NNN".
  void LearnUser(std::string_view user);

  std::string Apply(std::string_view text);
  // A JSON answer: every string in it rewritten (so an escape such as \n never hides a name), the
  // rest as it was; a body that is not JSON is rewritten as text.
  std::string ApplyJson(const std::string& body);

  struct Counts {
    size_t guids = 0, names = 0, serials = 0, addresses = 0;
  };
  Counts counts() const;

 private:
  // The first place a name is learned decides what it is called: learn switches' own names first.
  void LearnName(std::string_view name, bool is_switch);
  void LearnSerial(std::string_view serial);
  void LearnAddress(std::string_view address);
  std::string Guid(std::string_view hex);
  // One token of [A-Za-z0-9._-]: a GUID, port name, GID, serial, address or name, rewritten.
  std::string ApplyToken(std::string_view token);
  // The pseudonym of a learned name (any case), or of a host's name qualified by a domain.
  const std::string* NameOf(const std::string& token) const;

  std::string key_;
  std::map<std::string, std::string> guids_;  // lower-case hex -> lower-case hex
  std::map<std::string, std::string> names_;  // lower case -> pseudonym
  std::map<std::string, std::string> serials_;
  std::map<std::string, std::string> addresses_;
  std::vector<std::string> secrets_;
  size_t switches_ = 0, hosts_ = 0, users_ = 0;
};

}  // namespace ufmr::app
