// A small XML well-formedness check for the HTML reports (which are written XHTML-compatible): tags
// balance, attribute values are quoted, only XML's own entities and character references appear,
// no raw '<' or '&' in text. Counts the elements by name. Not a full XML parser: enough to catch an
// unescaped name or a tag left open, which is what the writer could get wrong.
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace assignor::host::test {

struct XmlCheck {
  std::string problem;  // empty when well-formed
  std::map<std::string, int> elements;
};

inline XmlCheck check_xml(std::string_view text) {
  XmlCheck out;
  std::vector<std::string> open;
  auto fail = [&](std::size_t at, const std::string& what) {
    if (out.problem.empty()) out.problem = "at byte " + std::to_string(at) + ": " + what;
  };
  auto check_entities = [&](std::string_view s, std::size_t base) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '<') fail(base + i, "raw '<'");
      if (s[i] != '&') continue;
      const std::size_t end = s.find(';', i);
      if (end == std::string_view::npos) return fail(base + i, "'&' without ';'");
      const std::string_view name = s.substr(i + 1, end - i - 1);
      const bool known = name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos" ||
                         (name.size() > 1 && name[0] == '#');
      if (!known) fail(base + i, "unknown entity &" + std::string(name) + ";");
    }
  };
  std::size_t i = 0;
  bool root_seen = false;
  while (i < text.size() && out.problem.empty()) {
    const std::size_t lt = text.find('<', i);
    const std::size_t text_end = lt == std::string_view::npos ? text.size() : lt;
    check_entities(text.substr(i, text_end - i), i);
    if (lt == std::string_view::npos) break;
    if (text.substr(lt, 4) == "<!--") {
      const std::size_t end = text.find("-->", lt);
      if (end == std::string_view::npos) return fail(lt, "unclosed comment"), out;
      i = end + 3;
      continue;
    }
    if (text.substr(lt, 2) == "<!" || text.substr(lt, 2) == "<?") {
      if (root_seen) fail(lt, "declaration after the root element");
      const std::size_t end = text.find('>', lt);
      if (end == std::string_view::npos) return fail(lt, "unclosed declaration"), out;
      i = end + 1;
      continue;
    }
    const bool closing = text.substr(lt, 2) == "</";
    std::size_t p = lt + (closing ? 2 : 1);
    const std::size_t name_start = p;
    while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '-' ||
                               text[p] == ':' || text[p] == '_'))
      ++p;
    const std::string name(text.substr(name_start, p - name_start));
    if (name.empty()) return fail(lt, "tag without a name"), out;
    if (closing) {
      while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
      if (p >= text.size() || text[p] != '>') return fail(p, "bad end tag"), out;
      if (open.empty() || open.back() != name)
        return fail(lt, "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + ">"), out;
      open.pop_back();
      i = p + 1;
      continue;
    }
    if (open.empty() && root_seen) return fail(lt, "second root element <" + name + ">"), out;
    root_seen = true;
    // Attributes: name="value" or name='value', each name once.
    std::vector<std::string> attributes;
    bool self_closing = false;
    for (;;) {
      while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
      if (p >= text.size()) return fail(lt, "unclosed tag <" + name + ">"), out;
      if (text[p] == '>') break;
      if (text.substr(p, 2) == "/>") {
        self_closing = true;
        ++p;
        break;
      }
      const std::size_t attr_start = p;
      while (p < text.size() && text[p] != '=' && !std::isspace(static_cast<unsigned char>(text[p])) &&
             text[p] != '>')
        ++p;
      const std::string attr(text.substr(attr_start, p - attr_start));
      if (attr.empty() || p >= text.size() || text[p] != '=') return fail(p, "attribute without a value in <" + name + ">"), out;
      for (const auto& a : attributes)
        if (a == attr) return fail(p, "attribute '" + attr + "' twice"), out;
      attributes.push_back(attr);
      ++p;
      if (p >= text.size() || (text[p] != '"' && text[p] != '\'')) return fail(p, "unquoted attribute value"), out;
      const char quote = text[p];
      const std::size_t end = text.find(quote, p + 1);
      if (end == std::string_view::npos) return fail(p, "unclosed attribute value"), out;
      check_entities(text.substr(p + 1, end - p - 1), p + 1);
      p = end + 1;
    }
    ++out.elements[name];
    if (!self_closing) open.push_back(name);
    i = p + 1;
  }
  if (out.problem.empty() && !open.empty()) out.problem = "<" + open.back() + "> never closed";
  if (out.problem.empty() && !root_seen) out.problem = "no root element";
  return out;
}

}  // namespace assignor::host::test
