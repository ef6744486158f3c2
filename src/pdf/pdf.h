// PDFs as pages the browser shows: poppler's pdftohtml (Debian's poppler-utils, GPL-2.0-or-later) turns a PDF's pages
// into one HTML document (the text placed as on the page, the page's images and drawings behind it, its links kept),
// which the agent shows in the tab like any other page, so the labels, the frame, the page text and scrolling need
// nothing new on either engine. Run as a program of its own, never linked: vimgpt's license is unaffected.
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"

namespace vimgpt::pdf {

// Whether poppler-utils' pdfinfo and pdftohtml are installed.
bool available();

// Whether the file starts as a PDF does ("%PDF-"), whatever its name says.
bool is_pdf(const std::string& path);

struct Info {
  int pages = 0;
  std::string title;  // the document's own, often empty
};

// Its page count and title (pdfinfo). InvalidArgument for a file poppler cannot read as a PDF (damaged, or
// encrypted with a password), Unsupported when poppler-utils is not installed.
Result<Info> info(const std::string& path, std::chrono::milliseconds cap = std::chrono::milliseconds{10000});

// Pages first..last (from 1) as one self-contained HTML document: its images inline as data: URLs, each page after
// an anchor named by its number (`#3`), and links between pages kept as those anchors.
Result<std::string> to_html(const std::string& path, int first, int last,
                            std::chrono::milliseconds cap = std::chrono::milliseconds{30000});

// How many pages one document shows at most: a longer PDF is shown in windows of this many ({"page": N} moves it).
inline constexpr int kPagesShown = 20;

}  // namespace vimgpt::pdf
