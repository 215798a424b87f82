#include "api/dashboard_pages.h"

#include <string>
#include <string_view>

namespace ufmr {

namespace web {
extern const std::string_view kDashboardHtml;
}  // namespace web

namespace {

HttpResponse Page(const HttpRequest&) {
  HttpResponse r =
      HttpResponse::Text(200, std::string(web::kDashboardHtml), "text/html; charset=utf-8");
  // Everything the page needs is inline; nothing may load from elsewhere.
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'self'; script-src 'unsafe-inline'; style-src "
                         "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                         "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "same-origin");
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace

void RegisterDashboardPages(HttpRouter& router) {
  router.Add("GET", "/", Page);
  router.Add("GET", "/tickets/{id}", Page);
  router.Add("GET", "/tickets/{id}/print", Page);  // the printable work order
  router.Add("GET", "/silences", Page);
  router.Add("GET", "/login", Page);
}

}  // namespace ufmr
