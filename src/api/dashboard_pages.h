// The dashboard's pages: /, /tickets/{id}, /tickets/{id}/print (the printable work order),
// /silences and /login all serve the one compiled-in page (src/web/dashboard.html), with headers
// that keep it from loading anything from elsewhere. The pages carry no data (the page's script
// asks the API, which checks who asks), so they are served to anyone. Thread-safe.
#pragma once

#include "http/http_server.h"

namespace ufmr {

void RegisterDashboardPages(HttpRouter& router);

}  // namespace ufmr
