// PDFs made on the spot for the tests: a page per string, its text in Helvetica (one of the fonts every PDF reader
// has), the cross-reference table counted as a real writer counts it, so poppler reads it without repairing it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace vimgpt::test {

inline std::string make_pdf(const std::vector<std::string>& pages, const std::string& title = {}) {
  std::string pdf = "%PDF-1.4\n";
  std::vector<std::size_t> offsets;
  const auto object = [&](const std::string& body) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(offsets.size()) + " 0 obj\n" + body + "\nendobj\n";
  };
  const auto escaped = [](const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '(' || c == ')' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  // 1: catalog, 2: pages, 3: font, 4: info; then each page and its content.
  std::string kids;
  for (std::size_t i = 0; i < pages.size(); ++i) kids += std::to_string(5 + 2 * i) + " 0 R ";
  object("<< /Type /Catalog /Pages 2 0 R >>");
  object("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages.size()) + " >>");
  object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  object("<< /Title (" + escaped(title) + ") >>");
  for (std::size_t i = 0; i < pages.size(); ++i) {
    object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents " +
           std::to_string(6 + 2 * i) + " 0 R >>");
    const std::string content = "BT /F1 24 Tf 72 700 Td (" + escaped(pages[i]) + ") Tj ET";
    object("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
  }
  const std::size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
  for (std::size_t offset : offsets) {
    char line[24];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R /Info 4 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

}  // namespace vimgpt::test
