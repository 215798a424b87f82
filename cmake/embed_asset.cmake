# Turns a file into a C++ source defining `extern const std::string_view NAMESPACE::SYMBOL` with
# its bytes: the dashboard page, UFM's event table and telemetry field lists, compiled into the
# binaries so a deployment is one file. -DINPUT, -DOUTPUT, -DNAMESPACE, -DSYMBOL.
file(READ ${INPUT} CONTENT HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
get_filename_component(SOURCE_NAME ${INPUT} NAME)
file(WRITE ${OUTPUT} "// Generated from ${SOURCE_NAME}; do not edit.\n#include <string_view>\nnamespace ${NAMESPACE} {\nnamespace {\nconst unsigned char kBytes[] = {${BYTES} 0x00};\n}\nextern const std::string_view ${SYMBOL}(reinterpret_cast<const char*>(kBytes), sizeof(kBytes) - 1);\n}  // namespace ${NAMESPACE}\n")
