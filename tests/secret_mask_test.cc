// Covers src/config/secret_mask.h and app/masked_output.h as an adversary would try them: a secret
// echoed as it is, percent-encoded (either case), JSON-escaped with "\/", or as basic auth's and
// SMTP AUTH's base64; a receiver URL's key-like path segments and query values alone (a body that
// echoes only the path), never its plain words ("services", "hooks"); overlapping secrets, the
// longer masked whole; an excerpt that would cut a secret in two, masked before the cut; every
// secret a loaded config holds (UFM password and token, the database password, SMTP password, a
// receiver's URL); a log line in the text and the JSON format; a line written to a stream in
// pieces; an HTTP answer's body and headers.
#include "config/secret_mask.h"

#include <gtest/gtest.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/masked_output.h"
#include "base/json_log.h"
#include "base/text.h"
#include "config/config.h"

namespace ufmr {
namespace {

constexpr const char* kSlack =
    "https://hooks.slack.example/services/T0A1B2C3D/B4E5F6G7H/xoxbZq8Rt3Lm9Wv2Kp7Ns4Dd";

class SecretMaskTest : public ::testing::Test {
 protected:
  void SetUp() override { mask_.Clear(); }
  SecretMask mask_;
};

TEST_F(SecretMaskTest, NothingIsMaskedWithoutSecrets) {
  EXPECT_EQ(mask_.Mask("POST /services/T0A1B2C3D failed"), "POST /services/T0A1B2C3D failed");
  std::string text = "x";
  EXPECT_FALSE(mask_.MaskInPlace(&text));
}

TEST_F(SecretMaskTest, ASecretIsMaskedInEveryFormItIsEchoedIn) {
  mask_.Add("p@ss/w0rd:Zx!");
  EXPECT_EQ(mask_.Mask("password=p@ss/w0rd:Zx! rejected"), "password=*** rejected");
  EXPECT_EQ(mask_.Mask("form: httpd_password=p%40ss%2Fw0rd%3AZx%21&x=1"),
            "form: httpd_password=***&x=1");
  EXPECT_EQ(mask_.Mask("form: p%40ss%2fw0rd%3aZx%21"), "form: ***");
  EXPECT_EQ(mask_.Mask(R"({"password": "p@ss\/w0rd:Zx!"})"), R"({"password": "***"})");
  mask_.Add("quote\"back\\slash");
  EXPECT_EQ(mask_.Mask(R"({"x":"quote\"back\\slash"})"), R"({"x":"***"})");
  // Too short to mask without masking words.
  mask_.Add("abc");
  EXPECT_EQ(mask_.Mask("abc"), "abc");
}

// "123456", UFM's factory password, is masked where it stands alone, not inside a longer number
// or word: an epoch, an id or a counter stay whole.
TEST_F(SecretMaskTest, ASecretIsMaskedAloneNotInsideALongerWordOrNumber) {
  mask_.Add("123456");
  EXPECT_EQ(mask_.Mask("password=123456&x"), "password=***&x");
  EXPECT_EQ(mask_.Mask("\"123456\" 123456"), "\"***\" ***");
  EXPECT_EQ(mask_.Mask("at 1771234567, id 1234560"), "at 1771234567, id 1234560");
  mask_.Add("p@ss!");  // ends in punctuation: masked whatever follows it
  EXPECT_EQ(mask_.Mask("x p@ss!y"), "x ***y");
}

TEST_F(SecretMaskTest, AReceiversUrlIsMaskedWholeAndByItsKeyLikeParts) {
  mask_.AddUrl(kSlack);
  EXPECT_EQ(mask_.Mask(std::string("POST ") + kSlack + ": HTTP 503"), "POST ***: HTTP 503");
  // A framework's 404 body echoes only the path: each key-like segment is masked, words are not.
  EXPECT_EQ(mask_.Mask(R"({"path": "/services/T0A1B2C3D/B4E5F6G7H/xoxbZq8Rt3Lm9Wv2Kp7Ns4Dd"})"),
            R"({"path": "/services/***/***/***"})");
  EXPECT_EQ(mask_.Mask(R"({"path": "\/services\/T0A1B2C3D\/B4E5F6G7H"})"),
            R"({"path": "\/services\/***\/***"})");
  mask_.AddUrl(
      "http://user:s3cretPw@sink.example:8080/hooks/ufm?token=f00d&format=json&sig=abc%2Fdef");
  EXPECT_EQ(mask_.Mask("got token=f00d from s3cretPw"), "got token=*** from ***");
  EXPECT_EQ(mask_.Mask("sig=abc/def sig=abc%2Fdef"), "sig=*** sig=***");
  // The Authorization header curl sends for the URL's user info.
  EXPECT_EQ(mask_.Mask("authorization: Basic " + Base64Encode("user:s3cretPw")),
            "authorization: Basic ***");
  EXPECT_EQ(mask_.Mask("GET /hooks/ufm?format=json"), "GET /hooks/ufm?format=json");
}

TEST_F(SecretMaskTest, ThePartsOfAUrlThatLookLikeKeys) {
  for (const char* key :
       {"T0A1B2C3D", "XXXXXXXXXXXX", "abcdefghijklmnopq", "9f1c2d3e", "0123456789abcdef0123"}) {
    EXPECT_TRUE(LooksLikeKey(key)) << key;
  }
  for (const char* word : {"services", "hooks", "v1", "api", "webhook", "notify-receiver", "T0A"}) {
    EXPECT_FALSE(LooksLikeKey(word)) << word;
  }
}

TEST_F(SecretMaskTest, OverlappingSecretsAreMaskedWhole) {
  mask_.Add("Secret12");
  mask_.Add("Secret12345678");
  EXPECT_EQ(mask_.Mask("a Secret12345678 b Secret12"), "a *** b ***");
}

TEST_F(SecretMaskTest, AnExcerptIsMaskedBeforeItIsCut) {
  mask_.Add("TopSecretValue99");
  const std::string body = std::string(189, 'x') + " TopSecretValue99 and more";
  const std::string cut = mask_.Excerpt(body, 200);
  EXPECT_EQ(cut.find("TopSecret"), std::string::npos) << cut;
  EXPECT_EQ(cut, std::string(189, 'x') + " *** and mo...");
  EXPECT_EQ(mask_.Excerpt("short", 200), "short");
}

TEST(MaskConfigSecretsTest, EverySecretOfALoadedConfigIsMaskedEverywhere) {
  SecretMask::Global().Clear();
  auto c = LoadConfigText(std::string(R"(ufm:
  url: https://ufm.example
  auth: basic
  user: admin
  password: UfmPw7Qx9Zk2
database:
  url: postgresql://ufmr:DbPw3Lm5Wq1@db.example/ufmr
notify:
  receivers:
    - name: chat
      type: slack
      url: )") + kSlack + R"(
)",
                          "test.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const SecretMask& mask = SecretMask::Global();
  for (const std::string& secret :
       {std::string("UfmPw7Qx9Zk2"), Base64Encode("admin:UfmPw7Qx9Zk2"), std::string("DbPw3Lm5Wq1"),
        std::string(kSlack), std::string("xoxbZq8Rt3Lm9Wv2Kp7Ns4Dd"), std::string("T0A1B2C3D")}) {
    EXPECT_EQ(mask.Mask("<" + secret + ">"), "<***>") << secret;
  }
  SecretMask::Global().Clear();
}

TEST(MaskedOutputTest, LogLinesInEitherFormatAndStreamsWrittenInPiecesAreMasked) {
  SecretMask::Global().Clear();
  SecretMask::Global().Add("LogSecret42x");
  for (bool json : {false, true}) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    spdlog::logger log("masked", sink);
    std::unique_ptr<spdlog::formatter> inner;
    if (json) {
      inner = std::make_unique<JsonLogFormatter>();
    } else {
      inner = std::make_unique<spdlog::pattern_formatter>("%l %v");
    }
    log.set_formatter(std::make_unique<MaskedLogFormatter>(std::move(inner)));
    log.warn("HTTP 401: {{\"authorization\": \"Basic LogSecret42x\"}}");
    EXPECT_EQ(out.str().find("LogSecret42x"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("Basic ***"), std::string::npos) << out.str();
  }
  std::ostringstream sink;
  app::MaskedLineBuf buf(sink.rdbuf());
  std::ostream stream(&buf);
  stream << "echo: Log"
         << "Secret"
         << "42x done\n"
         << "tail LogSecret42x";
  stream.flush();
  EXPECT_EQ(sink.str(), "echo: *** done\ntail ***");
  HttpResponse answer = HttpResponse::Text(503, "echo LogSecret42x");
  answer.headers.emplace_back("X-Echo", "LogSecret42x");
  app::MaskAnswer(&answer);
  EXPECT_EQ(answer.body, "echo ***");
  EXPECT_EQ(answer.headers[0].second, "***");
  // A JSON answer by its strings: a number equal to a secret stays a number (valid JSON).
  SecretMask::Global().Add("123456");
  HttpResponse doc = HttpResponse::Json(200, {{"id", 123456}, {"note", "password 123456"}});
  app::MaskAnswer(&doc);
  EXPECT_EQ(nlohmann::json::parse(doc.body),
            nlohmann::json({{"id", 123456}, {"note", "password ***"}}));
  // /metrics by its names, labels and help: a sample's value stays a number.
  HttpResponse metrics =
      HttpResponse::Text(200, "# HELP x about 123456\nx{receiver=\"123456\"} 123456\ny 2\n",
                         "text/plain; version=0.0.4");
  app::MaskAnswer(&metrics);
  EXPECT_EQ(metrics.body, "# HELP x about ***\nx{receiver=\"***\"} 123456\ny 2\n");
  SecretMask::Global().Clear();
}

}  // namespace
}  // namespace ufmr
