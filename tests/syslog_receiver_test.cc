// SyslogReceiver: header stripping (RFC 3164 with and without PRI, RFC 5424, bare, trailing NUL,
// and UFM's "<SEVERITY> - " before the event-log line, on IBM CAST's record) and real UDP and TCP
// (newline-framed and octet-counted) senders over loopback; a full queue drops and counts.
#include "ingest/syslog_receiver.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>

#include "ingest/event_log.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

namespace net = boost::asio;
using std::chrono::milliseconds;

const char* kLine =
    "2023-12-20 07:46:24.442 [14599] [329] WARNING [Fabric_Topology] Link [Source "
    "f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down";

TEST(SyslogStripHeaderTest, Shapes) {
  std::string line = kLine;
  struct Case {
    std::string in, out;
  };
  for (const Case& c : std::vector<Case>{
           {"<134>Nov 29 18:46:32 ufm-host ufm[123]: " + line, line},
           {"<134>Nov  9 08:06:02 ufm-host event: " + line + std::string(1, '\0'), line},
           {"<134>1 2026-11-29T18:46:32Z ufm-host ufm 123 - - " + line, line},
           {"<134>1 2026-11-29T18:46:32Z ufm-host ufm 123 ID47 [x@1 a=\"b\"] " + line, line},
           {line + "\r\n", line},
           {line, line},
           {"<999999>junk", "<999999>junk"},
           {"", ""},
       }) {
    EXPECT_EQ(SyslogReceiver::StripHeader(c.in), c.out) << c.in;
  }
}

// IBM CAST, csm_big_data/DataAggregators/README.rst ("UFM Logs"): a record as its collectors
// received it from UFM (no PRI: the relay dropped it), on one line (the README wraps it).
const char* kCastRecord =
    "Oct 17 15:56:33 c931hsm04 eventlog[30300]: WARNING - 2016-10-17 15:56:33.245 [5744] [112] "
    "WARNING [Hardware] IBPort [default(34) / Switch: c931ibsw-leaf01 / NA / 16] [dev_id: "
    "248a0703006d40f0]: Link-Downed counter delta threshold exceeded. Threshold is 0, calculated "
    "delta is 1. Peer info: Computer: c931f03p08 HCA-1 / 1.";

// UFM puts "<SEVERITY> - " before the event-log line: stripped when an event-log line follows.
TEST(SyslogStripHeaderTest, UfmSeverityBeforeTheEventLogLine) {
  const std::string record = kCastRecord;
  const std::string line = record.substr(record.find(" - ") + 3);
  ASSERT_EQ(line.rfind("2016-10-17 15:56:33.245 [5744] [112] WARNING [Hardware] IBPort", 0), 0u);
  struct Case {
    std::string in, out;
  };
  for (const Case& c : std::vector<Case>{
           {record, line},
           {"<132>" + record, line},
           {"<132>" + record + std::string(1, '\0'), line},
           {"<130>Oct  7 05:06:07 ufm eventlog[1]: CRITICAL - " + line, line},
           {"<134>1 2016-10-17T15:56:33Z c931hsm04 eventlog 30300 - - INFO - " + line, line},
           {"WARNING - " + line, line},  // no syslog header at all
           // Not followed by an event-log line: passed on whole, for the parser to report.
           {"<132>Oct 17 15:56:33 h eventlog[1]: WARNING - something else",
            "WARNING - something else"},
           {"<132>Oct 17 15:56:33 h eventlog[1]: WARNING - 2016-10-17 15:56",
            "WARNING - 2016-10-17 15:56"},
           {"<132>Oct 17 15:56:33 h eventlog[1]: WARNING -", "WARNING -"},
           {"<132>Oct 17 15:56:33 h eventlog[1]: WARNING-2016-10-17 15:56:33.245 [1]",
            "WARNING-2016-10-17 15:56:33.245 [1]"},
       }) {
    EXPECT_EQ(SyslogReceiver::StripHeader(c.in), c.out) << c.in;
  }
}

// What the receiver hands on parses, with the IBPort's port and its peer (the issue: "today every
// real record is rejected").
TEST(SyslogStripHeaderTest, UfmRecordParsesAsAnEventLogEntry) {
  auto entry = ParseEventLogEntry(
      SyslogReceiver::StripHeader("<132>" + std::string(kCastRecord) + std::string(1, '\0')));
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  EXPECT_EQ(entry->event_id, 112);
  EXPECT_EQ(entry->severity, "WARNING");
  EXPECT_EQ(entry->ports, (std::vector<std::string>{"248a0703006d40f0_16"}));
  EXPECT_EQ(entry->peers, (std::vector<std::string>{"c931f03p08 HCA-1:1"}));
}

std::vector<SyslogMessage> DrainUntil(SyslogReceiver& r, size_t n) {
  std::vector<SyslogMessage> all;
  testing::WaitUntil(
      [&] {
        for (auto& m : r.Drain()) all.push_back(std::move(m));
        return all.size() >= n;
      },
      milliseconds(3000), milliseconds(10));
  return all;
}

TEST(SyslogReceiverTest, UdpAndTcpBothFramings) {
  SyslogReceiver r("127.0.0.1", 0, 0);
  ASSERT_TRUE(r.Start().ok());
  net::io_context ioc;
  net::ip::udp::socket u(ioc, net::ip::udp::v4());
  std::string dgram = std::string("<134>Nov 29 18:46:32 h ufm: ") + kLine + '\0';
  u.send_to(net::buffer(dgram), net::ip::udp::endpoint(net::ip::make_address("127.0.0.1"),
                                                       static_cast<uint16_t>(r.udp_port())));
  net::ip::tcp::socket t(ioc);
  t.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"),
                                   static_cast<uint16_t>(r.tcp_port())));
  std::string framed = std::string("<134>Nov 29 18:46:33 h ufm: first\n") +
                       "<134>Nov 29 18:46:34 h ufm: sec";  // split across writes
  net::write(t, net::buffer(framed));
  std::string rest = "ond\n";
  std::string counted_msg = "<134>Nov 29 18:46:35 h ufm: with\nnewline";
  rest += std::to_string(counted_msg.size()) + " " + counted_msg;
  net::write(t, net::buffer(rest));
  auto got = DrainUntil(r, 4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].text, kLine);
  EXPECT_EQ(got[0].peer, "127.0.0.1");
  EXPECT_EQ(got[1].text, "first");
  EXPECT_EQ(got[2].text, "second");
  EXPECT_EQ(got[3].text, "with\nnewline");
  EXPECT_EQ(r.dropped(), 0u);
  r.Stop();
}

TEST(SyslogReceiverTest, FullQueueDropsAndCounts) {
  SyslogReceiver r("127.0.0.1", -1, 0, /*max_queue=*/2);
  ASSERT_TRUE(r.Start().ok());
  EXPECT_EQ(r.udp_port(), -1);
  net::io_context ioc;
  net::ip::tcp::socket t(ioc);
  t.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"),
                                   static_cast<uint16_t>(r.tcp_port())));
  net::write(t, net::buffer(std::string("a\nb\nc\nd\n")));
  ASSERT_TRUE(
      testing::WaitUntil([&] { return r.received() == 4; }, milliseconds(3000), milliseconds(10)));
  EXPECT_EQ(r.Drain().size(), 2u);
  EXPECT_EQ(r.dropped(), 2u);
}

TEST(SyslogReceiverTest, BadAddressIsAnError) {
  SyslogReceiver r("not-an-address", 0, 0);
  EXPECT_EQ(r.Start().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace ufmr
