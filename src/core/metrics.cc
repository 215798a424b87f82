#include "core/metrics.h"

#include <sstream>

namespace ufmr {

void Metrics::Add(const std::string& name, double delta) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[name] += delta;
}

void Metrics::Set(const std::string& name, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[name] = value;
}

double Metrics::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(name);
  return it == values_.end() ? 0 : it->second;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream out;
  std::string last_family;
  for (const auto& [name, value] : values_) {
    std::string family = name.substr(0, name.find('{'));
    if (family != last_family) {
      bool counter = family.size() > 6 && family.compare(family.size() - 6, 6, "_total") == 0;
      out << "# TYPE " << family << (counter ? " counter\n" : " gauge\n");
      last_family = family;
    }
    out << name << " " << value << "\n";
  }
  return out.str();
}

}  // namespace ufmr
