#include "ingest/event_details.h"

#include <charconv>
#include <cstring>

#include "ingest/byte_scan.h"

namespace ufmr::event_details {

namespace {

using byte_scan::FindAny3;
using byte_scan::Hex16;
using byte_scan::IsAlpha;
using byte_scan::IsBlank;
using byte_scan::IsDigit;
using byte_scan::Lower;
using byte_scan::Trim;

// "1/17/1", "17/1": digits, then one or more "/digits".
bool IsLabel(std::string_view s) {
  size_t i = 0;
  int groups = 0;
  while (i < s.size()) {
    size_t k = i;
    while (k < s.size() && IsDigit(s[k])) ++k;
    if (k == i) return false;
    ++groups;
    if (k == s.size()) break;
    if (s[k] != '/') return false;
    i = k + 1;
    if (i == s.size()) return false;
  }
  return groups >= 2;
}

// A host port's display name as UFM's paths and dnames write it: "HCA-1/1" (adapter / port).
bool IsHostDname(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= s.size()) return false;
  for (char c : s.substr(slash + 1)) {
    if (!IsDigit(c)) return false;
  }
  for (char c : s.substr(0, slash)) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '-' && c != '_') return false;
  }
  return true;
}

// An adapter's device name: "mlx5_0", "HCA-1" (one word of letters, digits, '_' and '-', with a
// letter first and a digit somewhere, so "NA" and site names are not taken).
bool IsDeviceName(std::string_view s) {
  if (s.empty() || s.size() > 32 || !IsAlpha(s[0])) return false;
  bool digit = false;
  for (char c : s) {
    if (IsDigit(c)) {
      digit = true;
    } else if (!IsAlpha(c) && c != '_' && c != '-') {
      return false;
    }
  }
  return digit;
}

bool IsSingleWord(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAlpha(c)) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (Lower(a[k]) != Lower(b[k])) return false;
  }
  return true;
}

PortNumberText ParsePortNumber(std::string_view s) {
  PortNumberText out;
  if (s.empty() || s.size() > 4) return out;
  int v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return out;
    v = v * 10 + (c - '0');
  }
  out.len =
      static_cast<uint8_t>(std::to_chars(out.text, out.text + sizeof(out.text), v).ptr - out.text);
  return out;
}

// The first of '(', 'P', 'S' (the anchors of MessageDetails) in m[i, n), or n.
inline size_t NextDetailAnchor(const char* p, size_t n, size_t i) {
  return FindAny3(p, i, n, '(', 'P', 'S');
}

// The peer a threshold event names after "Peer info:" (from k), up to the end of its sentence or
// line: "Computer: c931f03p08 HCA-1 / 1." or "Default / Switch: T2-E63-L-U37 / 1/4/2.". Returns
// where it ends.
size_t PeerInfo(std::string_view m, size_t k, Details* d) {
  size_t e = m.find('\n', k);
  if (e == std::string_view::npos) e = m.size();
  // A host name holds no ". ": anything after one is another sentence.
  if (size_t stop = m.substr(k, e - k).find(". "); stop != std::string_view::npos) e = k + stop + 1;
  std::string_view ref = Trim(m.substr(k, e - k));
  while (!ref.empty() && ref.back() == '.') ref.remove_suffix(1);
  d->PeerInfo(ref);
  return e;
}

// A word after "Peer Port " or "S/N:" at k: up to a blank, line end, ',' or ';'. Returns where it
// ends.
size_t WordAt(std::string_view m, size_t k) {
  const char* p = m.data();
  const size_t n = m.size();
  size_t e = k;
  while (e < n && !IsBlank(p[e]) && p[e] != '\n' && p[e] != ',' && p[e] != ';') ++e;
  return e;
}

size_t SkipBlanks(std::string_view m, size_t k) {
  while (k < m.size() && IsBlank(m[k])) ++k;
  return k;
}

// "(Switch: mellanox-SX6036)" at i. Returns where the scan goes on, or npos when there is no ')'
// anywhere after (nothing more to find).
size_t ParenthesizedNode(std::string_view m, size_t i, Details* d) {
  const char* p = m.data();
  const size_t n = m.size();
  size_t k = i + 1;
  while (k < n && IsAlpha(p[k])) ++k;
  if (k == i + 1 || k >= n || p[k] != ':') return i;
  size_t close = m.find(')', k);
  if (close == std::string_view::npos) return std::string_view::npos;
  std::string_view inner = m.substr(k + 1, close - k - 1);
  if (inner.size() > 256 || inner.find('(') != std::string_view::npos ||
      inner.find('\n') != std::string_view::npos) {
    return i;
  }
  d->NodeRef(inner, false);
  return close;
}

// "Peer info: ..." or "Peer Port NAME:LABEL" at i. Returns where the scan goes on.
size_t Peer(std::string_view m, size_t i, Details* d) {
  constexpr std::string_view kPeerInfo = "Peer info:";
  if (m.compare(i, kPeerInfo.size(), kPeerInfo) == 0) {
    return PeerInfo(m, i + kPeerInfo.size(), d) - 1;
  }
  constexpr std::string_view kPeer = "Peer Port ";
  if (m.compare(i, kPeer.size(), kPeer) != 0) return i;
  size_t k = SkipBlanks(m, i + kPeer.size());
  size_t e = WordAt(m, k);
  std::string_view ref = m.substr(k, e - k);
  while (!ref.empty() && (ref.back() == '.' || ref.back() == ':')) ref.remove_suffix(1);
  if (!ref.empty()) {
    d->peers.Add(ref);
    d->NodeRef(ref, true);
  }
  return e - 1;
}

// "S/N: <serial>" at i, the first only. Returns where the scan goes on.
size_t CableSerial(std::string_view m, size_t i, Details* d) {
  constexpr std::string_view kSerial = "S/N:";
  if (!d->cable_serial->empty() || m.compare(i, kSerial.size(), kSerial) != 0) return i;
  size_t k = SkipBlanks(m, i + kSerial.size());
  size_t e = WordAt(m, k);
  std::string_view serial = m.substr(k, e - k);
  while (!serial.empty() && serial.back() == '.') serial.remove_suffix(1);
  // "NA" and "N/A" say there is none (as UFM's cable_info does).
  if (EqualsIgnoreCase(serial, "NA") || EqualsIgnoreCase(serial, "N/A")) serial = {};
  d->cable_serial->assign(serial);
  return e == k ? k : e - 1;
}

}  // namespace

bool PortRef::is_switch() const { return EqualsIgnoreCase(kind, "Switch"); }

PortRef SplitPortRef(std::string_view text, ListWriter* node_names, ListWriter* labels) {
  PortRef r;
  while (!text.empty()) {
    size_t sep = text.find(" / ");
    std::string_view seg = Trim(text.substr(0, sep));
    text = sep == std::string_view::npos ? std::string_view() : text.substr(sep + 3);
    size_t colon = seg.find(':');
    if (colon != std::string_view::npos && IsSingleWord(Trim(seg.substr(0, colon)))) {
      std::string_view name = Trim(seg.substr(colon + 1));
      if (name.empty()) continue;
      if (node_names) node_names->Add(name);
      if (r.node.empty()) {
        r.node = name;
        r.kind = Trim(seg.substr(0, colon));
      }
    } else if (IsLabel(seg) || (IsHostDname(seg) && !r.is_switch())) {  // "NA" is none
      if (labels) labels->Add(seg);
      if (r.label.empty()) r.label = seg;
    } else if (!r.node.empty()) {
      if (PortNumberText n = ParsePortNumber(seg); n.len > 0) {
        r.number = n;
      } else if (!r.is_switch() && r.device.empty() && IsDeviceName(seg)) {
        r.device = seg;
      }
    }
  }
  return r;
}

bool DevIdPortName(const PortRef& r, std::string_view dev_id, std::array<char, 24>* name) {
  if (!r.is_switch() || r.number.len == 0) return false;
  if (dev_id.size() == 18 && dev_id[0] == '0' && (dev_id[1] == 'x' || dev_id[1] == 'X')) {
    dev_id.remove_prefix(2);
  }
  if (dev_id.size() != 16 || !Hex16(dev_id.data())) return false;
  for (size_t k = 0; k < 16; ++k) (*name)[k] = Lower(dev_id[k]);
  (*name)[16] = '_';
  std::memcpy(name->data() + 17, r.number.text, r.number.len);
  return true;
}

bool IsPortObjectType(std::string_view type) { return type == "IBPort" || type == "Port"; }

void Details::Describe(std::string_view node, std::string_view label) {
  description_buffer.assign(node);
  description_buffer.push_back(':');
  description_buffer.append(label);
  port_descriptions.Add(description_buffer);
}

bool Details::DescribePort(const PortRef& r) {
  if (r.node.empty()) return false;
  if (!r.label.empty()) {
    Describe(r.node, r.label);
  } else if (r.number.len > 0) {
    Describe(r.node, r.number.view());
  } else if (!r.device.empty()) {
    description_buffer.assign(r.node);
    description_buffer.push_back(' ');
    description_buffer.append(r.device);
    port_descriptions.Add(description_buffer);
  } else {
    return false;
  }
  return true;
}

void Details::NodeRef(std::string_view ref, bool port_ref) {
  ref = Trim(ref);
  size_t colon = ref.rfind(':');
  if (colon != std::string_view::npos && IsLabel(ref.substr(colon + 1))) {
    std::string_view node = Trim(ref.substr(0, colon));
    std::string_view label = ref.substr(colon + 1);
    node_names.Add(node);
    labels.Add(label);
    if (!node.empty()) Describe(node, label);
  } else if (!port_ref) {
    node_names.Add(ref);
  }
}

void Details::PeerInfo(std::string_view ref) {
  PortRef r = SplitPortRef(ref, &node_names, &labels);
  if (DescribePort(r)) peers.Add(description_buffer);
}

void Details::Finish() {
  node_names.Finish();
  labels.Finish();
  port_descriptions.Finish();
  peers.Finish();
}

void ObjectDetails(std::string_view type, std::string_view object, std::string_view dev_id,
                   ListWriter* ports, Details* d) {
  PortRef r = SplitPortRef(object, &d->node_names, &d->labels);
  if (!IsPortObjectType(type)) {
    if (type == "Switch" && !r.node.empty() && !r.label.empty()) d->Describe(r.node, r.label);
    return;
  }
  std::array<char, 24> name;
  if (DevIdPortName(r, dev_id, &name)) {
    ports->Add(std::string_view(name.data(), 17 + r.number.len));
    return;
  }
  d->DescribePort(r);
}

void MessageDetails(std::string_view m, Details* d) {
  const char* p = m.data();
  const size_t n = m.size();
  for (size_t i = NextDetailAnchor(p, n, 0); i < n; i = NextDetailAnchor(p, n, i + 1)) {
    if (p[i] == '(') {
      i = ParenthesizedNode(m, i, d);
      if (i == std::string_view::npos) return;
    } else if (p[i] == 'P') {
      i = Peer(m, i, d);
    } else {  // 'S'
      i = CableSerial(m, i, d);
    }
  }
}

}  // namespace ufmr::event_details
