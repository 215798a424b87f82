// ReleaseFreeMemory: hands the memory the program has freed back to the operating system, with
// whichever allocator the binary links: TCMalloc's (the service, CMakeLists.txt) or glibc's (the
// tests). Called after a large transient allocation (an inventory refresh parses tens of MB of
// JSON at 100,000 ports), so the resident size stays what the program keeps. Thread-safe.
#pragma once

namespace ufmr {

void ReleaseFreeMemory();

}  // namespace ufmr
