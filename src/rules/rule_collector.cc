#include "rules/rule_collector.h"

namespace ufmr {

void RuleCollector::Collect(const RuleSource& source) {
  if (!source.parsed || source.doc.IsNull()) return;  // an empty file holds no rules
  reader_.SetFile(source.name);
  const YAML::Node& doc = source.doc;
  if (!doc.IsMap()) {
    reader_.Error(doc, "", "bad-document",
                  "a rules file is a mapping with 'rules:' (and 'lists:', 'macros:')");
    return;
  }
  reader_.CheckKeys(doc, "", {"rules", "lists", "macros"});
  if (doc["rules"] && !doc["rules"].IsSequence()) {
    reader_.Error(doc["rules"], "rules", "bad-document", "'rules' must be a list of rules");
  }
  CollectSection(doc, "lists");
  CollectSection(doc, "macros");
}

void RuleCollector::CollectSection(const YAML::Node& doc, const std::string& section) {
  YAML::Node m = doc[section];
  if (!m) return;
  if (!m.IsMap()) {
    reader_.Error(m, section, "bad-document", "'" + section + "' must be a mapping of names");
    return;
  }
  const bool lists = section == "lists";
  auto& table = lists ? definitions_.lists : definitions_.macros;
  for (const auto& kv : m) {
    std::string name = kv.first.Scalar();
    std::string path = section + "." + name;
    auto it = table.find(name);
    if (it != table.end()) {
      reader_.Error(kv.first, path, "duplicate-name",
                    std::string(lists ? "list" : "macro") + " '" + name + "' is also defined in " +
                        it->second.file + " at line " +
                        std::to_string(it->second.node.Mark().line + 1));
      continue;
    }
    if (lists && !kv.second.IsSequence()) {
      reader_.Error(kv.second, path, "bad-list", "a list is a YAML sequence of values");
      continue;
    }
    if (!lists && !kv.second.IsMap()) {
      reader_.Error(kv.second, path, "bad-macro", "a macro is a mapping of match fields");
      continue;
    }
    table[name] = NamedNode{reader_.file(), kv.second, path};
  }
}

void RuleCollector::WarnUnused() {
  for (auto* table : {&definitions_.lists, &definitions_.macros}) {
    const bool lists = table == &definitions_.lists;
    for (const auto& [name, n] : *table) {
      if (n.used) continue;
      reader_.SetFile(n.file);
      reader_.Warn(
          n.node, n.path, lists ? "unused-list" : "unused-macro",
          std::string(lists ? "list" : "macro") + " '" + name + "' is not used by any rule");
    }
  }
}

}  // namespace ufmr
