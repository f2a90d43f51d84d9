//===- ByteUnits.h ----------------------------------------------*- C++ -*-===//
// Byte counts for people, and overflow-safe arithmetic.
#ifndef TILEFIT_MODEL_BYTEUNITS_H
#define TILEFIT_MODEL_BYTEUNITS_H

#include <cstdint>
#include <optional>
#include <string>

namespace tilefit {

/// `812 B`, `12.2 KiB`, `1.5 MiB`: KiB = 1024 bytes. Exact values keep no
/// decimals (`48 KiB`).
std::string humanBytes(uint64_t Bytes);
/// For tables and editor labels, where a figure is compared with ptxas's: the
/// bytes themselves where humanBytes would round some away (`32784 B`, not
/// `32.0 KiB`; `4224 B`, not `4.1 KiB`), else humanBytes (`48 KiB`, `812 B`).
/// Above 1 MiB, humanBytes. Never wider than humanBytes below 1 MiB.
std::string exactBytes(uint64_t Bytes);

/// `262144 bytes (256 KiB)`, `32 bytes`, `1 byte`: the exact count, and above 1
/// KiB as people read it.
std::string bytesPhrase(uint64_t Bytes);
/// `1 version`, `3 versions`.
std::string countPhrase(uint64_t N, const char *One, const char *Many);

/// A * B, or nothing on 64-bit overflow.
std::optional<uint64_t> checkedMul(uint64_t A, uint64_t B);
/// A + B, or nothing on 64-bit overflow.
std::optional<uint64_t> checkedAdd(uint64_t A, uint64_t B);
/// The next multiple of Align (>= 1) at or above V, or nothing on overflow.
std::optional<uint64_t> alignUp(uint64_t V, uint64_t Align);

} // namespace tilefit

#endif
