// Covers src/app/anonymiser.h as an adversary would: a name in every position UFM puts one (a
// port's system name and node description, a peer, a link's node descriptions, unhealthy ports,
// "Switch:"/"Computer:"/"Peer Port" in texts, an unmanaged switch's "MF0;leaf-01:..."), in another
// case or qualified by a domain, at the end of a sentence, after a JSON escape; GUIDs alone, with
// 0x, in port names, upper case, and GIDs; serials; addresses; users named in events; a
// credential inside a longer word. What is the same stays the same across texts.
#include "app/anonymiser.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace ufmr::app {
namespace {

using nlohmann::json;

Anonymiser Learned() {
  Anonymiser a("test key");
  a.LearnPorts(json::parse(R"([
    {"name": "9c0591030090e000_1", "description": "Switch IB Port", "system_name": "LEAF-01",
     "node_description": "LEAF-01:1/1/1", "peer_node_name": "node01.cluster.local",
     "peer_node_description": "node01 mlx5_0", "system_ip": "10.209.36.223",
     "path": "default / Switch: LEAF-01 / NA / 1/1/1"},
    {"name": "e41d2d0300a4f482_1", "description": "Computer IB Port", "system_name": "node01",
     "node_description": "node01 mlx5_0"}])"));
  a.LearnLinks(
      json::parse(R"([{"name": "x", "source_port_node_description": "MF0;spine-07:MQM8700/U1",
    "cable_info": {"serial_number": "MT2330FT09118"}}])"));
  a.LearnUnhealthyPorts(json::parse(R"([{"UnhealthyNode": "r-dmz-ufm135",
    "UnhealthyPort": "r-dmz-ufm135/HCA-1/1", "PeerNode": "switch-ec4034"}])"));
  a.LearnText("User jdoe connected");
  a.LearnSecret("hunter2-Pa55");
  a.LearnUser("remediator");
  return a;
}

void ExpectNone(const std::string& out, std::initializer_list<const char*> secrets) {
  for (const char* s : secrets) EXPECT_EQ(out.find(s), std::string::npos) << s << " in " << out;
}

TEST(AnonymiserTest, NamesInAnyCaseDomainOrPunctuation) {
  Anonymiser a = Learned();
  const std::string out = a.Apply(
      "Link went down: (Switch:leaf-01:1/1/1)9c0591030090e000:1 - (Computer:NODE01 mlx5_0)"
      "e41d2d0300a4f482:1, cable S/N: MT2330FT09118. Host node01.cluster.local is down: node01. "
      "MF0;spine-07:MQM8700/U1 r-dmz-ufm135/HCA-1/1 switch-ec4034 at 10.209.36.223; User jdoe "
      "disconnected; remediator logged in with hunter2-Pa55 (xhunter2-Pa55y)");
  ExpectNone(out, {"leaf-01", "LEAF-01", "node01", "NODE01", "cluster.local", "spine-07",
                   "MT2330FT09118", "r-dmz-ufm135", "switch-ec4034", "10.209.36.223", "jdoe",
                   "remediator", "hunter2", "9c0591030090e000", "e41d2d0300a4f482"});
  EXPECT_NE(out.find("mlx5_0"), std::string::npos) << "an adapter is a shape, not a secret";
  EXPECT_NE(out.find("1/1/1"), std::string::npos) << "so is a label";
  EXPECT_NE(out.find("switch-001"), std::string::npos) << out;
}

TEST(AnonymiserTest, GuidsKeepTheirShapeAndAgreeAcrossTexts) {
  Anonymiser a = Learned();
  const std::string csv = a.Apply("1712228785304112,0x9C0591030090E000,0x9c0591030090e000,33\n");
  const std::string json_text =
      a.Apply(R"({"name": "9c0591030090e000_33", "guid": "9c0591030090e000"})");
  const std::string mapped = a.Apply("9c0591030090e000");
  ASSERT_EQ(mapped.size(), 16u);
  EXPECT_NE(mapped, "9c0591030090e000");
  EXPECT_NE(csv.find("1712228785304112"), std::string::npos) << "a timestamp is no GUID";
  EXPECT_NE(csv.find("0x" + mapped), std::string::npos) << csv;
  std::string upper = mapped;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_NE(csv.find("0x" + upper), std::string::npos) << "upper case stays upper case: " << csv;
  EXPECT_NE(json_text.find(mapped + "_33"), std::string::npos) << json_text;
  const std::string gid = a.Apply("fe800000000000009c0591030090e000");
  EXPECT_EQ(gid.size(), 32u);
  EXPECT_EQ(gid.find("9c0591030090e000"), std::string::npos) << gid;
}

TEST(AnonymiserTest, JsonStringsAreRewrittenWholeEscapesAndAll) {
  Anonymiser a = Learned();
  const std::string out = a.ApplyJson(
      R"([{"description": "first line\nleaf-01 and\tnode01", "id": 7, "object_name": "9c0591030090e000_1"}])");
  ExpectNone(out, {"leaf-01", "node01", "9c0591030090e000"});
  const json back = json::parse(out);
  EXPECT_EQ(back[0]["id"], 7);
  EXPECT_EQ(back[0].begin().key(), "description") << "the fields keep their order";
  EXPECT_EQ(a.ApplyJson("not json: leaf-01").find("leaf-01"), std::string::npos);
}

}  // namespace
}  // namespace ufmr::app
