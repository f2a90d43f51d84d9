// Host-only code: not CUDA, so tilefit skips it.
#include "kernels.h"

#include <cstdio>

int main() {
  std::printf("tilefit example: the kernels are in src/*.cu\n");
  return 0;
}
