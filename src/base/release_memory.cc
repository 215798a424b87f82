#include "base/release_memory.h"

#include <malloc.h>

// TCMalloc's C interface (gperftools/malloc_extension_c.h), declared weak: null unless the binary
// links TCMalloc.
extern "C" void MallocExtension_ReleaseFreeMemory() __attribute__((weak));

namespace ufmr {

void ReleaseFreeMemory() {
  if (MallocExtension_ReleaseFreeMemory != nullptr) {
    MallocExtension_ReleaseFreeMemory();
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);  // glibc keeps freed pages for reuse unless asked
#endif
}

}  // namespace ufmr
