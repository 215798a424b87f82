#include "app/site_recording.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "app/anonymiser.h"
#include "base/clock.h"
#include "base/text.h"
#include "config/secret_mask.h"

namespace ufmr::app {

namespace {

using Json = nlohmann::ordered_json;

// One UFM answer: its body when UFM answered 200, else "" (and the reason in *missing).
struct Answer {
  std::string file;
  std::string body;
};

std::string Get(const UfmReads& ufm, const std::string& path, const std::string& file,
                Json* missing) {
  if (!ufm.rest_get) {
    missing->push_back(file + ": no REST reads");
    return "";
  }
  auto r = ufm.rest_get(path);
  if (!r.ok()) {
    missing->push_back(file + ": " + r.status().message());
    return "";
  }
  if (r->status != 200) {
    missing->push_back(file + ": HTTP " + std::to_string(r->status));
    return "";
  }
  return r->body;
}

std::string Telemetry(const UfmReads& ufm, const std::string& url, const std::string& file,
                      Json* missing) {
  if (url.empty()) return "";
  if (!ufm.telemetry) {
    missing->push_back(file + ": no telemetry reads");
    return "";
  }
  auto r = ufm.telemetry(url);
  if (!r.ok() || r->status != 200) {
    missing->push_back(file + ": " +
                       (r.ok() ? "HTTP " + std::to_string(r->status) : r.status().message()));
    return "";
  }
  return r->body;
}

// The last `max` bytes of a file, from a line start; "" when it cannot be read.
std::string Tail(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(static_cast<std::streamoff>(size > max ? size - max : 0));
  std::ostringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  if (size > max) out.erase(0, std::min(out.size(), out.find('\n') + 1));
  return out;
}

std::string RandomKey() {
  std::random_device rd;
  return std::to_string(rd()) + "-" + std::to_string(rd()) + "-" + std::to_string(rd());
}

nlohmann::json ParsedOrNull(const std::string& body) {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

// Every answer the recording holds, as UFM gave it; what it did not give goes to *missing.
std::vector<Answer> ReadAnswers(const Config& config, const UfmReads& ufm,
                                const std::vector<std::string>& syslog_records, Json* missing) {
  std::vector<Answer> answers = {
      {"ports.json", Get(ufm, "/resources/ports?show_disabled=true", "ports.json", missing)},
      {"links.json", Get(ufm, "/resources/links?cable_info=true", "links.json", missing)},
      {"events.json", Get(ufm, "/app/events", "events.json", missing)},
      {"unhealthy_ports.json", Get(ufm, "/app/unhealthy_ports", "unhealthy_ports.json", missing)},
      {"jobs.json", Get(ufm, "/jobs", "jobs.json", missing)},
      {"telemetry.csv", Telemetry(ufm, config.telemetry.url, "telemetry.csv", missing)},
      {"secondary_telemetry.csv",
       Telemetry(ufm, config.telemetry.secondary_url, "secondary_telemetry.csv", missing)},
      {"event.log",
       config.event_log.path.empty() ? "" : Tail(config.event_log.path, size_t{1} << 20)},
  };
  if (!config.event_log.path.empty() && answers.back().body.empty()) {
    missing->push_back("event.log: cannot read " + config.event_log.path + " (or it is empty)");
  }
  std::string syslog;
  for (const auto& r : syslog_records) syslog += r + "\n";
  answers.push_back({"syslog.txt", syslog});
  return answers;
}

// The credentials that must never be written: the password and token as sent, and basic auth's
// header value (a peer may echo the request).
std::vector<std::string> Secrets(const Config& config) {
  std::vector<std::string> secrets;
  const std::string basic =
      config.ufm.password.empty() ? "" : Base64Encode(config.ufm.user + ":" + config.ufm.password);
  for (const std::string* s : {&config.ufm.password, &config.ufm.token, &basic}) {
    if (s->size() >= 4) secrets.push_back(*s);
  }
  return secrets;
}

// Writes each answer, anonymised; returns the files written.
Result<Json> WriteAnswers(const std::vector<Answer>& answers,
                          const std::vector<std::string>& secrets, const std::string& dir,
                          Anonymiser* anon) {
  Json written = Json::array();
  for (const auto& a : answers) {
    if (a.body.empty()) continue;
    const bool is_json = a.file.size() > 5 && a.file.compare(a.file.size() - 5, 5, ".json") == 0;
    std::string text = is_json ? anon->ApplyJson(a.body) : anon->Apply(a.body);
    // Every other configured secret (a receiver's URL, the database password): masked in a
    // text file; a JSON answer that holds one is not written (masked, it could be invalid).
    if (!is_json) SecretMask::Global().MaskInPlace(&text);
    if (is_json && SecretMask::Global().Holds(text)) {
      return Status::Internal(a.file + " would hold a configured secret: not written");
    }
    // Apply has replaced them already; this stays as the last word before a byte is written.
    for (const std::string& s : secrets) {
      if (text.find(s) != std::string::npos) {
        return Status::Internal(a.file + " would hold a credential: not written");
      }
    }
    std::ofstream out(dir + "/" + a.file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Status::Unavailable("cannot write " + dir + "/" + a.file);
    written.push_back(a.file);
  }
  return written;
}

}  // namespace

Result<Json> RecordSite(const Config& config, const UfmReads& ufm,
                        const std::vector<std::string>& syslog_records, const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Unavailable("cannot create " + dir);
  }
  Json missing = Json::array();
  const std::vector<Answer> answers = ReadAnswers(config, ufm, syslog_records, &missing);
  const nlohmann::json version = ParsedOrNull(Get(ufm, "/app/ufm_version", "ufm.json", &missing));
  const std::string ufm_version = version.is_object() && version.contains("ufm_release_version") &&
                                          version["ufm_release_version"].is_string()
                                      ? version["ufm_release_version"].get<std::string>()
                                      : "";

  // Learn every name, serial and address first, so every file is rewritten alike; and what must
  // never be written at all.
  Anonymiser anon(RandomKey());
  const std::vector<std::string> secrets = Secrets(config);
  for (const std::string& s : secrets) anon.LearnSecret(s);
  anon.LearnUser(config.ufm.user);
  anon.LearnPorts(ParsedOrNull(answers[0].body));
  anon.LearnLinks(ParsedOrNull(answers[1].body));
  anon.LearnUnhealthyPorts(ParsedOrNull(answers[3].body));
  for (const auto& a : answers) anon.LearnText(a.body);
  auto written = WriteAnswers(answers, secrets, dir, &anon);
  if (!written.ok()) return written.status();

  const Anonymiser::Counts c = anon.counts();
  Json meta = {{"ufm_version", ufm_version},
               {"recorded_at", FormatIsoTime(std::chrono::system_clock::now())},
               {"recorded_by", "ufm-remediator probe --record"},
               {"anonymised", true}};
  std::ofstream out(dir + "/ufm.json", std::ios::trunc);
  out << meta.dump(1) << "\n";
  if (!out) return Status::Unavailable("cannot write " + dir + "/ufm.json");
  written->push_back("ufm.json");
  return Json{{"dir", dir},
              {"ufm_version", ufm_version},
              {"files", written.value()},
              {"missing", missing},
              {"anonymised",
               {{"guids", c.guids},
                {"names", c.names},
                {"serials", c.serials},
                {"addresses", c.addresses}}}};
}

}  // namespace ufmr::app
