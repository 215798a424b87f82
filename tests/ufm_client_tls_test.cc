// TLS towards UFM, against a real TLS server (openssl s_server with a throwaway self-signed
// certificate for 127.0.0.1): certificates are verified by default, so an unknown one is refused;
// the CA-bundle option makes it trusted; "insecure" skips the check. s_server's -www answers an
// HTML status page, so a call that got through TLS fails later, at "HTML where JSON was expected".
#include <gtest/gtest.h>

#include "http/http_server.h"
#include "support/test_env.h"
#include "ufm/ufm_client.h"

namespace ufmr {
namespace {

using std::chrono::milliseconds;

class UfmClientTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-tls");
    std::string cmd =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " +
        dir_ + "/key.pem -out " + dir_ + "/cert.pem >" + dir_ + "/req.log 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::ReadFile(dir_ + "/req.log");
    HttpServer probe("127.0.0.1", 0, [](const HttpRequest&) { return HttpResponse(); });
    ASSERT_TRUE(probe.Start().ok());
    port_ = probe.port();
    probe.Stop();
    server_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"/usr/bin/openssl", "s_server", "-accept",
                                 "127.0.0.1:" + std::to_string(port_), "-cert", dir_ + "/cert.pem",
                                 "-key", dir_ + "/key.pem", "-www", "-quiet"},
        dir_ + "/server.log");
    HttpClientOptions insecure;
    insecure.verify_tls = false;
    HttpClient probe_client(insecure);
    ASSERT_TRUE(testing::WaitUntil(
        [&] { return probe_client.Get("https://127.0.0.1:" + std::to_string(port_) + "/").ok(); },
        milliseconds(10000)))
        << server_->Log();
    config_.ufm.url = "https://127.0.0.1:" + std::to_string(port_);
    config_.ufm.password = "x";
    config_.ufm.retries = 0;
  }
  void TearDown() override {
    server_.reset();
    testing::RemoveTree(dir_);
  }

  Status GetPorts() {
    return RestUfmClient(config_, [](double) {}).GetPorts().status();
  }

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<testing::ChildProcess> server_;
  Config config_;
};

TEST_F(UfmClientTlsTest, UnknownCertificateIsRefusedByDefault) {
  Status s = GetPorts();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("HTML"), std::string::npos)
      << "TLS should have failed: " << s.message();
  EXPECT_NE(s.message().find("certificate"), std::string::npos) << s.message();
}

TEST_F(UfmClientTlsTest, CaBundleMakesItTrusted) {
  config_.ufm.ca_bundle = dir_ + "/cert.pem";
  Status s = GetPorts();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HTML"), std::string::npos) << "got through TLS: " << s.message();
}

TEST_F(UfmClientTlsTest, InsecureSkipsTheCheck) {
  config_.ufm.insecure_tls = true;
  Status s = GetPorts();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HTML"), std::string::npos) << "got through TLS: " << s.message();
}

}  // namespace
}  // namespace ufmr
