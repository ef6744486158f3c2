// A PDF the browser saved, shown in the tab as pages (src/pdf), and {"page": N}: the Actor's reading of PDFs.
#include <algorithm>
#include <filesystem>

#include "agent/agent.h"
#include "pdf/pdf.h"

namespace vimgpt::agent {

std::string Actor::open_pdf(const browser::Download& download) {
  const std::string saved = download.kept ? " (saved to " + download.file + ")" : "";
  ShownPdf pdf;
  pdf.url = download.url;
  pdf.file = download.file;
  auto shown = show_pdf(std::move(pdf), 1);
  if (!shown) return "the PDF " + download.url + saved + " could not be shown: " + shown.error().message;
  return "opened the PDF " + download.url + saved + ": " + *shown;
}

namespace {
// A script that shows page `page` of the document in the tab (pdftohtml puts an anchor named by its number before
// each page), and says whether it is there.
std::string scroll_to_page_script(int page) {
  return "(() => { const at = document.getElementsByName('" + std::to_string(page) +
         "')[0]; if (!at) return false; at.scrollIntoView(); return true; })()";
}
}  // namespace

// The tab shows the pages around `page` (kPagesShown at most, in fixed windows), at that page: a document of the
// browser's own (about:blank) written with the pages' HTML, so the labels, the frame and the page text work on it as
// on any page, and back goes to the page before the PDF.
Result<std::string> Actor::show_pdf(ShownPdf pdf, int page) {
  if (pdf.pages == 0) {
    VIMGPT_TRY(pdf::Info info, pdf::info(pdf.file));
    pdf.pages = info.pages;
    pdf.title = !info.title.empty() ? info.title : std::filesystem::path(pdf.file).filename().string();
  }
  if (page > pdf.pages) {
    return fail(ErrorKind::InvalidArgument,
                "the PDF has " + std::to_string(pdf.pages) + " page" + (pdf.pages == 1 ? "" : "s"));
  }
  pdf.first = (page - 1) / pdf::kPagesShown * pdf::kPagesShown + 1;
  pdf.last = std::min(pdf.pages, pdf.first + pdf::kPagesShown - 1);
  VIMGPT_TRY(std::string html, pdf::to_html(pdf.file, pdf.first, pdf.last));
  VIMGPT_TRY_VOID(tab_.navigate("about:blank"));
  const std::string write = "document.open(); document.write(" +
                            Json(html).dump(-1, ' ', false, Json::error_handler_t::replace) + "); document.close(); " +
                            "document.title = " + Json(pdf.title).dump(-1, ' ', false, Json::error_handler_t::replace) +
                            "; " + scroll_to_page_script(page);
  VIMGPT_TRY_VOID(tab_.evaluate_in_page(write));
  pdf.generation = tab_.page_generation();
  std::string said = pages_shown(pdf) + " as a page";
  if (page != pdf.first) said += ", at page " + std::to_string(page);
  if (pdf.pages > 1) said += "; scroll to read on, {\"page\": N} turns to page N";
  pdf_ = std::move(pdf);
  return said;
}

// "pages 1-20 of 37 shown"
std::string Actor::pages_shown(const ShownPdf& pdf) {
  return (pdf.first == pdf.last ? "page " + std::to_string(pdf.first)
                                : "pages " + std::to_string(pdf.first) + "-" + std::to_string(pdf.last)) +
         " of " + std::to_string(pdf.pages) + " shown";
}

std::string Actor::pdf_note(const ShownPdf& pdf) {
  return "a PDF: " + pages_shown(pdf);
}

const Actor::ShownPdf* Actor::shown_pdf() const {
  return pdf_ && tab_.page_generation() == pdf_->generation ? &*pdf_ : nullptr;
}

ActResult Actor::turn_to_page(int page) {
  const ShownPdf* pdf = shown_pdf();
  if (pdf == nullptr) {
    return {false, "no PDF is shown: {\"page\": N} turns the pages of a PDF the browser opened", std::nullopt};
  }
  if (page >= pdf->first && page <= pdf->last) {
    auto scrolled = tab_.evaluate_in_page(scroll_to_page_script(page));
    if (!scrolled) return {false, scrolled.error().message, std::nullopt};
    return {true, "turned to page " + std::to_string(page) + " of " + std::to_string(pdf->pages), std::nullopt};
  }
  auto shown = show_pdf(*pdf, page);
  if (!shown) return {false, shown.error().message, std::nullopt};
  return {true, "turned to page " + std::to_string(page) + ": " + *shown, std::nullopt};
}

}  // namespace vimgpt::agent
