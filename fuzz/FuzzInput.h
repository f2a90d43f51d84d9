//===- FuzzInput.h ----------------------------------------------*- C++ -*-===//
//
// Reading structured values from a fuzzer's bytes.
//
// A small stand-in for libFuzzer's FuzzedDataProvider, so that the fuzz targets
// also build with g++ and no compiler-rt headers (as replay tests in the normal
// build). Numbers are taken from the front of the input, the rest stays
// available as text; every read is defined on any input, and an exhausted input
// reads as zeros and empty strings.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FUZZ_FUZZINPUT_H
#define TILEFIT_FUZZ_FUZZINPUT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tilefit {
namespace fuzz {

class FuzzInput {
public:
  FuzzInput(const uint8_t *Data, size_t Size) : Data(Data), Size(Size) {}

  bool empty() const { return Pos >= Size; }
  size_t remaining() const { return Size - Pos; }

  uint8_t byte() { return Pos < Size ? Data[Pos++] : 0; }
  bool flag() { return byte() & 1; }

  /// \p Bytes bytes (at most 8), little-endian.
  uint64_t bits(unsigned Bytes) {
    uint64_t V = 0;
    for (unsigned I = 0; I < Bytes && I < 8; ++I)
      V |= uint64_t(byte()) << (8 * I);
    return V;
  }

  /// A value in [Lo, Hi] (Lo <= Hi).
  uint64_t range(uint64_t Lo, uint64_t Hi) {
    uint64_t Span = Hi - Lo;
    if (Span == 0)
      return Lo;
    uint64_t V = bits(8);
    return Span == UINT64_MAX ? V : Lo + V % (Span + 1);
  }

  /// A size as layouts see them: mostly small, sometimes near the limits of 64
  /// bits.
  uint64_t count() {
    switch (byte() % 8) {
    case 0:
      return 0;
    case 1:
      return UINT64_MAX - bits(1);
    case 2:
      return uint64_t(1) << (byte() % 64);
    case 3:
      return bits(8);
    default:
      return bits(2);
    }
  }

  /// A string of at most \p Max bytes, ended by a 0 byte or the input.
  std::string string(size_t Max = 64) {
    std::string S;
    while (Pos < Size && S.size() < Max) {
      char C = static_cast<char>(Data[Pos++]);
      if (C == '\0')
        break;
      S.push_back(C);
    }
    return S;
  }

  /// The rest of the input.
  std::string_view rest() {
    std::string_view R(reinterpret_cast<const char *>(Data) + Pos, Size - Pos);
    Pos = Size;
    return R;
  }

private:
  const uint8_t *Data;
  size_t Size;
  size_t Pos = 0;
};

} // namespace fuzz
} // namespace tilefit

#endif
