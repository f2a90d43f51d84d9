//===- ByteUnits.cpp ------------------------------------------------------===//
#include "tilefit/model/ByteUnits.h"

#include <cstdio>

namespace tilefit {

std::string bytesPhrase(uint64_t Bytes) {
  std::string S = std::to_string(Bytes) + (Bytes == 1 ? " byte" : " bytes");
  if (Bytes >= 1024)
    S += " (" + humanBytes(Bytes) + ")";
  return S;
}

std::string countPhrase(uint64_t N, const char *One, const char *Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many);
}

std::string humanBytes(uint64_t Bytes) {
  static const char *const Names[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (Bytes < 1024)
    return std::to_string(Bytes) + " B";
  double V = static_cast<double>(Bytes) / 1024;
  unsigned Unit = 0;
  uint64_t Div = 1024;
  while (V >= 1024 && Unit + 1 < sizeof(Names) / sizeof(Names[0])) {
    V /= 1024;
    Div *= 1024;
    ++Unit;
  }
  char Buf[64];
  if (Bytes % Div == 0)
    std::snprintf(Buf, sizeof(Buf), "%.0f %s", V, Names[Unit]);
  else
    std::snprintf(Buf, sizeof(Buf), "%.1f %s", V, Names[Unit]);
  return Buf;
}

std::string exactBytes(uint64_t Bytes) {
  if (Bytes < (uint64_t(1) << 20) && Bytes % 1024 != 0)
    return std::to_string(Bytes) + " B";
  return humanBytes(Bytes);
}

std::optional<uint64_t> checkedMul(uint64_t A, uint64_t B) {
  uint64_t R;
  if (__builtin_mul_overflow(A, B, &R))
    return std::nullopt;
  return R;
}

std::optional<uint64_t> checkedAdd(uint64_t A, uint64_t B) {
  uint64_t R;
  if (__builtin_add_overflow(A, B, &R))
    return std::nullopt;
  return R;
}

std::optional<uint64_t> alignUp(uint64_t V, uint64_t Align) {
  if (Align <= 1)
    return V;
  uint64_t Rem = V % Align;
  if (Rem == 0)
    return V;
  return checkedAdd(V, Align - Rem);
}

} // namespace tilefit
