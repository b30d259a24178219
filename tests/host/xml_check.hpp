// Checks the HTML reports (written XHTML-compatible) with a real XML parser, libxml2, so that the
// test does not share the writer's blind spots: any well-formedness error (an unescaped name, a
// tag left open, an HTML-only entity such as &nbsp;) is reported with its line. Counts the
// elements by local name. The network is never used (no DTD or entity is fetched).
#pragma once

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace assignor::host::test {

struct XmlCheck {
  std::string problem;  // empty when well-formed
  std::map<std::string, int> elements;
};

inline void count_elements(const xmlNode* node, std::map<std::string, int>& out) {
  for (; node != nullptr; node = node->next) {
    if (node->type == XML_ELEMENT_NODE) ++out[reinterpret_cast<const char*>(node->name)];
    count_elements(node->children, out);
  }
}

inline XmlCheck check_xml(std::string_view text) {
  XmlCheck out;
  const std::unique_ptr<xmlParserCtxt, decltype(&xmlFreeParserCtxt)> ctx(xmlNewParserCtxt(), &xmlFreeParserCtxt);
  if (!ctx) {
    out.problem = "libxml2: no parser context";
    return out;
  }
  const std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc(
      xmlCtxtReadMemory(ctx.get(), text.data(), static_cast<int>(text.size()), "report.xml", "UTF-8",
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
      &xmlFreeDoc);
  if (!doc || !ctx->wellFormed) {
    const xmlError* e = xmlCtxtGetLastError(ctx.get());
    out.problem = e != nullptr && e->message != nullptr
                      ? "line " + std::to_string(e->line) + ": " + std::string(e->message)
                      : std::string("not well-formed XML");
    while (!out.problem.empty() && out.problem.back() == '\n') out.problem.pop_back();
    return out;
  }
  count_elements(xmlDocGetRootElement(doc.get()), out.elements);
  return out;
}

}  // namespace assignor::host::test
