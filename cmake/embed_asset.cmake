# Turns a text file into a C++ source defining ufmr::web::kDashboardHtml.
file(READ ${INPUT} CONTENT HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
file(WRITE ${OUTPUT} "// Generated from dashboard.html; do not edit.\n#include <string_view>\nnamespace ufmr::web {\nnamespace {\nconst unsigned char kBytes[] = {${BYTES} 0x00};\n}\nextern const std::string_view kDashboardHtml(reinterpret_cast<const char*>(kBytes), sizeof(kBytes) - 1);\n}  // namespace ufmr::web\n")
